// RUN: dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{target-vector-bits=512})' --mlir-print-ir-after=loop-invariant-code-motion -o /dev/null 2>&1 | FileCheck %s

// A layer norm in dsl-to-llvm-cpu: one loop over rows (dsl-fuse-rows) holding the
// mean and the variance, each summed in four registers of partial sums, and the
// normalization, whose row scalars (the mean, rsqrt of the variance) are read and
// computed once per row, before the loop along the row (loop-invariant-code-motion
// after dsl-vectorize), not once per vector.
// CHECK: IR Dump After LoopInvariantCodeMotion
// CHECK-LABEL: func.func @layernorm
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (tensor<64x256xf32>)
// CHECK: scf.for {{.*}} -> (vector<64xf32>)
// CHECK: arith.addf {{.*}} : vector<64xf32>
// CHECK: scf.for {{.*}} -> (vector<64xf32>)
// CHECK: arith.mulf {{.*}} : vector<64xf32>
// CHECK: math.rsqrt %{{.*}} : vector<16xf32>
// CHECK-NEXT: arith.divf
// CHECK-NEXT: scf.for
// CHECK-NOT: math.rsqrt
// CHECK: tensor.insert_slice
// CHECK-NOT: scf.for
// CHECK: return
func.func @layernorm(%x: tensor<64x256xf32>, %g: tensor<256xf32>) -> tensor<64x256xf32> {
  %mu = dsl.mean %x [1] keepdim : tensor<64x256xf32> -> tensor<64x1xf32>
  %d = dsl.sub %x, %mu : (tensor<64x256xf32>, tensor<64x1xf32>) -> tensor<64x256xf32>
  %sq = dsl.mul %d, %d : tensor<64x256xf32>
  %var = dsl.mean %sq [1] keepdim : tensor<64x256xf32> -> tensor<64x1xf32>
  %rs = dsl.rsqrt %var : tensor<64x1xf32>
  %y = dsl.mul %d, %rs : (tensor<64x256xf32>, tensor<64x1xf32>) -> tensor<64x256xf32>
  %o = dsl.mul %y, %g : (tensor<64x256xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  return %o : tensor<64x256xf32>
}
