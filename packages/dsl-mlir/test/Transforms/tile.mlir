// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-tile{target-vector-bits=512}),canonicalize)' | FileCheck %s
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-tile{vector-size=64 matmul-tile-sizes=4,16,2 matmul-k-block=0 matmul-n-block=0}),canonicalize)' | FileCheck %s --check-prefix=OPTS
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-tile{target-vector-bits=256}),canonicalize)' | FileCheck %s --check-prefix=AVX2
// RUN: %not dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-tile{vector-size=24}))' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: %not dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-tile{matmul-tile-sizes=8,48,1}))' 2>&1 | FileCheck %s --check-prefix=BADMM

// An elementwise op: 16 elements per tile, the partial last tile peeled off
// (1000 = 62 * 16 + 8: one static tile of 8 after the loop).
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.for %{{.*}} = %c0 to %c992 step %c16
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16xf32>, tensor<16xf32>) {{.*}} attrs = {dsl.vector_sizes = array<i64: 16>}
// CHECK: scf.yield
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>)
// OPTS-LABEL: func.func @elementwise
// OPTS: scf.for %{{.*}} = %c0 to %c960 step %c64
// OPTS: dsl.vector_sizes = array<i64: 64>
// BAD: dsl-tile: vector-size must be a power of two, got 24
// BADMM: dsl-tile: matmul-tile-sizes must be three positive sizes M,N,K with N a power of two
#id = affine_map<(d0) -> (d0)>
func.func @elementwise(%a: tensor<1000xf32>, %b: tensor<1000xf32>) -> tensor<1000xf32> {
  %e = tensor.empty() : tensor<1000xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<1000xf32>, tensor<1000xf32>) outs(%e : tensor<1000xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

// -----

// A matmul: a K block of 256 for the L2 cache, then 12x32x1 register tiles
// (12 rows of two AVX-512 vectors of f32); the 4 remaining rows are peeled.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: scf.for %{{.*}} = %c0 to %c60 step %c12
// CHECK: scf.for %{{.*}} = %c0 to %c96 step %c32
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1
// CHECK: linalg.matmul {dsl.vector_sizes = array<i64: 12, 32, 1>} ins(%{{.*}}, %{{.*}} : tensor<12x1xf32>, tensor<1x32xf32>)
// CHECK: linalg.matmul {dsl.vector_sizes = array<i64: 12, 32, 1>} ins(%{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<1x32xf32>)
// With 256-bit vectors (AVX2, 16 registers): 6x16x1 tiles (12 accumulators).
// AVX2-LABEL: func.func @matmul
// AVX2: scf.for %{{.*}} = %c0 to %c60 step %c6
// AVX2: scf.for %{{.*}} = %c0 to %c96 step %c16
// AVX2: linalg.matmul {dsl.vector_sizes = array<i64: 6, 16, 1>} ins(%{{.*}}, %{{.*}} : tensor<6x1xf32>, tensor<1x16xf32>)
// OPTS-LABEL: func.func @matmul
// OPTS-NOT: step %c256
// OPTS: scf.for %{{.*}} = %c0 to %c64 step %c4
// OPTS: scf.for %{{.*}} = %c0 to %c96 step %c16
// OPTS: scf.for %{{.*}} = %c0 to %c512 step %c2
// OPTS: dsl.vector_sizes = array<i64: 4, 16, 2>
func.func @matmul(%a: tensor<64x512xf32>, %b: tensor<512x96xf32>, %c: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x512xf32>, tensor<512x96xf32>) outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

// N and K blocks (256 each) keep the streamed block of B in L2; the partial
// blocks (88 columns, 44 of K) are peeled, so every tile is static: the last
// 24 columns are one 12x24 tile (dsl-vectorize masks it to 32 lanes).
// CHECK-LABEL: func.func @matmul_blocks
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c44 step %c1
// CHECK: linalg.matmul {dsl.vector_sizes = array<i64: 12, 32, 1>} ins(%{{.*}}, %{{.*}} : tensor<12x1xf32>, tensor<1x24xf32>)
// CHECK-NOT: affine.min
// OPTS-LABEL: func.func @matmul_blocks
// OPTS-NOT: step %c256
func.func @matmul_blocks(%a: tensor<24x300xf32>, %b: tensor<300x600xf32>, %c: tensor<24x600xf32>) -> tensor<24x600xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<24x300xf32>, tensor<300x600xf32>) outs(%c : tensor<24x600xf32>) -> tensor<24x600xf32>
  return %0 : tensor<24x600xf32>
}

// -----

// Dynamic sizes: the N and K block loops are not peeled (the register loops
// inside them are), so the nest exists once per branch of the run-time test
// of M that picks B in panels or in place (tile-pack.mlir): 2 x 4 tiles.
// CHECK-LABEL: func.func @matmul_dynamic_blocks
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c256
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c256
// CHECK: scf.if
// CHECK-COUNT-8: linalg.matmul
// CHECK-NOT: linalg.matmul
func.func @matmul_dynamic_blocks(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A transposing elementwise op: square tiles (16 in both loops), so that the
// input is read along its rows; the 4 remaining rows of 20 are peeled.
// CHECK-LABEL: func.func @transposing
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c16
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<16x16xf32>) outs(%{{.*}} : tensor<16x16xf32>) attrs = {dsl.vector_sizes = array<i64: 16, 16>}
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c16
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<16x4xf32>) outs(%{{.*}} : tensor<4x16xf32>) attrs = {dsl.vector_sizes = array<i64: 16, 16>}
func.func @transposing(%a: tensor<48x20xf32>, %c: tensor<20x48xf32>) -> tensor<20x48xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<48x20xf32>) outs(%c : tensor<20x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<20x48xf32>
  return %0 : tensor<20x48xf32>
}

// -----

// Left alone: a two-result reduction (argmax) and ops on i1 tensors.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.for
// CHECK-NOT: dsl.vector_sizes
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%x: tensor<4x64xf32>, %v: tensor<4xf32>, %i: tensor<4xi64>, %m: tensor<4x64xi1>) -> (tensor<4xf32>, tensor<4xi64>, tensor<4x64xi1>) {
  %0:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x64xf32>) outs(%v, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%a: f32, %b: f32, %c: i64):
    %j = linalg.index 1 : index
    %k = arith.index_cast %j : index to i64
    %t = arith.cmpf ogt, %a, %b : f32
    %n = arith.select %t, %a, %b : f32
    %p = arith.select %t, %k, %c : i64
    linalg.yield %n, %p : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  %1 = linalg.generic {indexing_maps = [#in, #in], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf32>) outs(%m : tensor<4x64xi1>) {
  ^bb0(%a: f32, %b: i1):
    %z = arith.constant 0.0 : f32
    %t = arith.cmpf ogt, %a, %z : f32
    linalg.yield %t : i1
  } -> tensor<4x64xi1>
  return %0#0, %0#1, %1 : tensor<4xf32>, tensor<4xi64>, tensor<4x64xi1>
}

// -----

// A row reduction: one row per iteration, the row tiled as a partial
// reduction by 32 (vector-size 16 doubled while the row holds two chunks, up
// to four registers of partial results: independent maxima, not one chain),
// the running maxima filled with -inf, updated elementwise, the 70 % 32 = 6
// last elements peeled, merged once by linalg.reduce.
// CHECK-LABEL: func.func @row_max
// CHECK: scf.for %{{.*}} = %c0 to %c100 step %c1
// CHECK: %[[F:.*]] = linalg.fill {dsl.vector_sizes = array<i64: 1, 32>} ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x32xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32 iter_args(%{{.*}} = %[[F]]) -> (tensor<1x32xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<1x32xf32>)
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x6xf32>)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<1x32xf32>) outs(%{{.*}} : tensor<1xf32>) dimensions = [1] {dsl.vector_sizes = array<i64: 1, 32>}
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @row_max(%x: tensor<100x70xf32>, %init: tensor<100xf32>) -> tensor<100xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<100x70xf32>) outs(%init : tensor<100xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<100xf32>
  return %0 : tensor<100xf32>
}

// -----

// A row reduction over an index-dependent body (a fused arange): every chunk
// reads its own positions, the chunk loop's induction variable plus the
// position in the chunk (partial-reduction tiling alone would restart at 0).
// CHECK-LABEL: func.func @row_sum_of_index
// CHECK: scf.for %[[IV:.*]] = %c0 to %c64 step %c32
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: affine.apply #{{.*}}(%[[IV]])[%[[I]]]
// The peeled last chunk starts at 64.
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: affine.apply #{{.*}}()[%[[J]]]
#in2 = affine_map<(d0, d1) -> (d0, d1)>
#out2 = affine_map<(d0, d1) -> (d0)>
func.func @row_sum_of_index(%x: tensor<4x70xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [#in2, #out2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x70xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    %p = arith.mulf %a, %f : f32
    %s = arith.addf %p, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Long rows carry four vector registers of partial results: 64 f32 with
// 512-bit vectors, 32 with 256-bit ones, 32 f64 with 512-bit ones.
// CHECK-LABEL: func.func @long_rows
// CHECK: linalg.fill {dsl.vector_sizes = array<i64: 1, 64>} {{.*}} -> tensor<1x64xf32>
// CHECK: linalg.fill {dsl.vector_sizes = array<i64: 1, 32>} {{.*}} -> tensor<1x32xf64>
// AVX2-LABEL: func.func @long_rows
// AVX2: linalg.fill {dsl.vector_sizes = array<i64: 1, 32>} {{.*}} -> tensor<1x32xf32>
// AVX2: linalg.fill {dsl.vector_sizes = array<i64: 1, 16>} {{.*}} -> tensor<1x16xf64>
#in3 = affine_map<(d0, d1) -> (d0, d1)>
#out3 = affine_map<(d0, d1) -> (d0)>
func.func @long_rows(%x: tensor<4x1024xf32>, %i: tensor<4xf32>, %y: tensor<4x1024xf64>, %j: tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf64>) {
  %0 = linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x1024xf32>) outs(%i : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<4x1024xf64>) outs(%j : tensor<4xf64>) {
  ^bb0(%a: f64, %b: f64):
    %s = arith.addf %a, %b : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  return %0, %1 : tensor<4xf32>, tensor<4xf64>
}
