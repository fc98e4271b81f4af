// RUN: dsl-opt %s --inline | FileCheck %s

// Calls of functions made of dsl ops are inlined (a callee with a dynamically
// shaped result then needs no out-param after bufferization).
// CHECK-LABEL: func.func @caller
// CHECK-NOT: call
// CHECK: %[[A:.*]] = dsl.mul %arg0, %arg0 : tensor<?xf32>
// CHECK: %[[B:.*]] = dsl.mul %arg1, %arg1 : tensor<?xf32>
// CHECK: dsl.add %[[A]], %[[B]] : tensor<?xf32>
func.func @square(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = dsl.mul %x, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @caller(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = call @square(%a) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = call @square(%b) : (tensor<?xf32>) -> tensor<?xf32>
  %2 = dsl.add %0, %1 : tensor<?xf32>
  return %2 : tensor<?xf32>
}
