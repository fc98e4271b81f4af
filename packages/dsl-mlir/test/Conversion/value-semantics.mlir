// RUN: dsl-opt %s --dsl-value-semantics --split-input-file | FileCheck %s

// Tensor parameters of definitions become read-only for bufferization;
// scalars and declarations are left alone.
// CHECK-LABEL: func.func @params
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: f32, %{{.*}}: tensor<?xf32> {bufferization.writable = false})
// CHECK-NOT: alloc_tensor
// CHECK: return
func.func @params(%x: tensor<4xf32>, %s: f32, %y: tensor<?xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func private @decl
// CHECK-SAME: (tensor<4xf32>)
// CHECK-NOT: writable
func.func private @decl(tensor<4xf32>) -> tensor<4xf32>

// -----

// The same value returned twice: the second result is a copy of its own.
// CHECK-LABEL: func.func @twice
// CHECK: %[[E:.*]] = linalg.fill
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%[[E]]) : tensor<?xf32>
// CHECK: return %[[E]], %[[C]] : tensor<?xf32>, tensor<?xf32>
func.func @twice(%x: tensor<?xf32>, %s: f32) -> (tensor<?xf32>, tensor<?xf32>) {
  %r = linalg.fill ins(%s : f32) outs(%x : tensor<?xf32>) -> tensor<?xf32>
  return %r, %r : tensor<?xf32>, tensor<?xf32>
}

// -----

// A returned parameter is a copy too (never the caller's buffer).
// CHECK-LABEL: func.func @param
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%arg0) : tensor<2x3xi32>
// CHECK: return %[[C]], %arg1 : tensor<2x3xi32>, i32
func.func @param(%x: tensor<2x3xi32>, %i: i32) -> (tensor<2x3xi32>, i32) {
  return %x, %i : tensor<2x3xi32>, i32
}
