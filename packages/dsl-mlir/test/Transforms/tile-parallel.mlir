// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-tile{parallel num-threads=2 target-vector-bits=512}),canonicalize)' | FileCheck %s

// parallel: the outermost parallel loop becomes an scf.forall around the
// vector tiles; a matmul is split into one M block per thread (a multiple
// of the 12-row register tile), each with its own K blocks and tiles.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (36) shared_outs
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: scf.for %{{.*}} step %c12
// CHECK: linalg.matmul {dsl.vector_sizes = array<i64: 12, 32, 1>}
// CHECK: scf.forall.in_parallel
func.func @matmul(%a: tensor<64x512xf32>, %b: tensor<512x96xf32>, %c: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x512xf32>, tensor<512x96xf32>) outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

// Rows of a row reduction are independent tasks.
// CHECK-LABEL: func.func @row_max
// CHECK: scf.forall (%{{.*}}) in (1024) shared_outs
// CHECK: scf.for {{.*}} step %c32
// CHECK: dsl.vector_sizes = array<i64: 1, 32>
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @row_max(%x: tensor<1024x64xf32>, %init: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<1024x64xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// -----

// Under 2^16 iterations an op stays on the calling thread: a fork and join of
// the pool costs more than the work (the fill of a softmax's 4096 row
// accumulators); dynamic sizes are distributed.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.forall
// CHECK: scf.for
// CHECK-LABEL: func.func @dynamic_small
// CHECK: scf.forall
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @small(%x: tensor<100x64xf32>, %init: tensor<100xf32>) -> tensor<100xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<100x64xf32>) outs(%init : tensor<100xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<100xf32>
  return %0 : tensor<100xf32>
}
func.func @dynamic_small(%x: tensor<?x64xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x64xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
