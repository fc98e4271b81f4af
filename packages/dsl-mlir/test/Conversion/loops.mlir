// Loop-carried tensors are updated in place: one buffer per carried tensor,
// no allocation escaping an iteration (so no ownership bookkeeping).
// RUN: dsl-opt %s --dsl-materialize-loop-yields | FileCheck %s --check-prefix=MAT
// RUN: dsl-opt %s --dsl-to-llvm-cpu | FileCheck %s

// MAT-LABEL: func.func @accumulate
// MAT: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// MAT: %[[SUM:.*]] = dsl.add %[[ACC]]
// MAT: %[[W:.*]] = bufferization.materialize_in_destination %[[SUM]] in %[[ACC]]
// MAT: scf.yield %[[W]]
// CHECK-LABEL: llvm.func @accumulate
// CHECK-NOT: dealloc_helper
func.func @accumulate(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %s = dsl.add %acc, %x : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Both branches of an if that feeds the loop's yield write into the carried buffer.
// MAT-LABEL: func.func @branches
// MAT: scf.if
// MAT: bufferization.materialize_in_destination %{{.*}} in %[[A:.*]] :
// MAT: } else {
// MAT: bufferization.materialize_in_destination %{{.*}} in %[[A]] :
// CHECK-LABEL: llvm.func @branches
// CHECK-NOT: dealloc_helper
func.func @branches(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %first = arith.cmpi eq, %i, %c0 : index
    %v = scf.if %first -> (tensor<4xf32>) {
      %m = dsl.mul %x, %x : tensor<4xf32>
      scf.yield %m : tensor<4xf32>
    } else {
      %s = dsl.add %acc, %x : tensor<4xf32>
      scf.yield %s : tensor<4xf32>
    }
    scf.yield %v : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
