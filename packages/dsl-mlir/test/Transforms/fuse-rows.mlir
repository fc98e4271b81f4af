// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(convert-dsl-to-linalg,canonicalize,func.func(dsl-fuse-elementwise,dsl-fuse-rows))' | FileCheck %s
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(convert-dsl-to-linalg,canonicalize,func.func(dsl-fuse-elementwise,dsl-fuse-rows{parallel}))' | FileCheck %s --check-prefix=PAR
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(convert-dsl-to-linalg,canonicalize,func.func(dsl-fuse-elementwise{row-temporaries},dsl-fuse-rows))' | FileCheck %s --check-prefix=TMP

// Layer norm: the mean, the variance and the normalization are one loop over
// rows (each row reduced twice and normalized while in the cache); nothing is
// left outside but the accumulators' fill.
// CHECK-LABEL: func.func @layernorm(
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c256 step %c1 iter_args
// CHECK: tensor.extract_slice %arg0[%[[ROW]], 0] [1, 256] [1, 1]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-NOT: linalg.generic
// CHECK: tensor.insert_slice
// CHECK-NOT: linalg.generic
// CHECK: return
// PAR-LABEL: func.func @layernorm(
// PAR: scf.forall (%{{.*}}) in (256) shared_outs
func.func @layernorm(%x: tensor<256x256xf32>, %g: tensor<256xf32>) -> tensor<256x256xf32> {
  %mu = dsl.mean %x [1] keepdim : tensor<256x256xf32> -> tensor<256x1xf32>
  %d = dsl.sub %x, %mu : (tensor<256x256xf32>, tensor<256x1xf32>) -> tensor<256x256xf32>
  %sq = dsl.mul %d, %d : tensor<256x256xf32>
  %var = dsl.mean %sq [1] keepdim : tensor<256x256xf32> -> tensor<256x1xf32>
  %rs = dsl.rsqrt %var : tensor<256x1xf32>
  %y = dsl.mul %d, %rs : (tensor<256x256xf32>, tensor<256x1xf32>) -> tensor<256x256xf32>
  %o = dsl.mul %y, %g : (tensor<256x256xf32>, tensor<256xf32>) -> tensor<256x256xf32>
  return %o : tensor<256x256xf32>
}

// -----

// Dynamic sizes: the run-time checks read the sizes from the input, so the
// reductions are fused too; the row loop runs to the dynamic row count.
// CHECK-LABEL: func.func @dynamic_softmax(
// CHECK: %[[ROWS:.*]] = tensor.dim %arg0, %c0
// CHECK-NOT: linalg.generic
// CHECK: scf.for %{{.*}} = %c0 to %[[ROWS]] step %c1
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
// CHECK: return
// PAR-LABEL: func.func @dynamic_softmax(
// PAR: scf.forall
// With row temporaries (the pipeline's setting), exp(x - max) is a producer of
// its own: the loop's bound is read from the input, not from that producer's
// result, which would keep a whole-tensor max and exp running before the loop.
// TMP-LABEL: func.func @dynamic_softmax(
// TMP: %[[ROWS:.*]] = tensor.dim %arg0, %c0
// TMP-NOT: linalg.generic
// TMP: scf.for %{{.*}} = %c0 to %[[ROWS]] step %c1
// TMP: math.exp
// TMP: return
func.func @dynamic_softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = dsl.max %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %d = dsl.sub %x, %m : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %e = dsl.exp %d : tensor<?x?xf32>
  %s = dsl.sum %e [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %r = dsl.div %e, %s : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// The mean is also returned: it stays a whole-tensor op (fusing it would
// compute it twice), and nothing else is fused.
// CHECK-LABEL: func.func @shared_mean(
// CHECK-NOT: scf.for
// CHECK: return
func.func @shared_mean(%x: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x1xf32>) {
  %mu = dsl.mean %x [1] keepdim : tensor<256x256xf32> -> tensor<256x1xf32>
  %d = dsl.sub %x, %mu : (tensor<256x256xf32>, tensor<256x1xf32>) -> tensor<256x256xf32>
  return %d, %mu : tensor<256x256xf32>, tensor<256x1xf32>
}

// -----

// A column reduction is not a row-indexed producer: never fused.
// CHECK-LABEL: func.func @column_mean(
// CHECK-NOT: scf.for
// CHECK: return
func.func @column_mean(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %mu = dsl.mean %x [0] keepdim : tensor<256x256xf32> -> tensor<1x256xf32>
  %d = dsl.sub %x, %mu : (tensor<256x256xf32>, tensor<1x256xf32>) -> tensor<256x256xf32>
  return %d : tensor<256x256xf32>
}

// -----

// A lone row reduction has nothing to fuse with.
// CHECK-LABEL: func.func @row_sum_only(
// CHECK-NOT: scf.for
// CHECK: return
func.func @row_sum_only(%x: tensor<256x256xf32>) -> tensor<256xf32> {
  %s = dsl.sum %x [1] : tensor<256x256xf32> -> tensor<256xf32>
  return %s : tensor<256xf32>
}

// -----

// A matmul keeps its own blocking: computed whole before the row loop of the
// max and the subtraction.
// CHECK-LABEL: func.func @matmul_then_norm(
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: scf.for
// CHECK-NOT: arith.mulf
// CHECK: arith.maximumf
// CHECK: return
func.func @matmul_then_norm(%a: tensor<256x32xf32>, %b: tensor<32x256xf32>) -> tensor<256x256xf32> {
  %c = dsl.matmul %a, %b : tensor<256x32xf32>, tensor<32x256xf32> -> tensor<256x256xf32>
  %m = dsl.max %c [1] keepdim : tensor<256x256xf32> -> tensor<256x1xf32>
  %d = dsl.sub %c, %m : (tensor<256x256xf32>, tensor<256x1xf32>) -> tensor<256x256xf32>
  return %d : tensor<256x256xf32>
}
