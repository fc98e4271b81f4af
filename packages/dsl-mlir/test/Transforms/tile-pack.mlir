// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-tile{target-vector-bits=256}),canonicalize)' | FileCheck %s
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-tile{target-vector-bits=512}),canonicalize)' | FileCheck %s --check-prefix=AVX512
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-tile{target-vector-bits=256 matmul-pack-b=false}),canonicalize)' | FileCheck %s --check-prefix=NOPACK

// The block of B (K block 256 x N block 256) is copied into 16 panels of 16
// columns (the AVX2 register tile's width), each panel's 256 rows one after
// the other, once per block and before the loop over row strips of A; every
// register tile reads its 1x16 slice of B at row (n / 16) * 256 + k of the
// flattened panels. The partial N block (88 = 5 * 16 + 8 columns) gets five
// whole panels and a partial one, filled by a copy of its first 8 columns.
// CHECK-LABEL: func.func @packs_b
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: tensor.empty() : tensor<16x256x16xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [256, 16, 16] : tensor<256x256xf32> into tensor<256x16x16xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x1x16xf32>) outs(%{{.*}} : tensor<1x1x16xf32>) permutation = [1, 0, 2] {dsl.vector_sizes = array<i64: 1, 1, 16>}
// CHECK: %[[PANELS:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<16x256x16xf32> into tensor<4096x16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c96 step %c6
// CHECK: scf.for %[[N:.*]] = %c0 to %c256 step %c16
// CHECK: scf.for %[[K:.*]] = %c0 to %c256 step %c1
// CHECK: %[[ROW:.*]] = affine.apply #{{.*}}(%[[K]], %[[N]])
// CHECK: %[[B:.*]] = tensor.extract_slice %[[PANELS]][%[[ROW]], 0] [1, 16] [1, 1] : tensor<4096x16xf32> to tensor<1x16xf32>
// CHECK: linalg.matmul {dsl.vector_sizes = array<i64: 6, 16, 1>} ins(%{{.*}}, %[[B]] : tensor<6x1xf32>, tensor<1x16xf32>)
// CHECK: tensor.empty() : tensor<6x256x16xf32>
// CHECK: output_shape [256, 5, 16] : tensor<256x80xf32> into tensor<256x5x16xf32>
// CHECK: linalg.copy {dsl.vector_sizes = array<i64: 1, 16>} ins(%{{.*}} : tensor<1x8xf32>) outs(%{{.*}} : tensor<1x8xf32>)
// CHECK: tensor.collapse_shape %{{.*}} : tensor<6x256x16xf32> into tensor<1536x16xf32>
// Panels of 32 columns with AVX-512's 12x32 register tiles.
// AVX512-LABEL: func.func @packs_b
// AVX512: tensor.collapse_shape %{{.*}} : tensor<8x256x32xf32> into tensor<2048x32xf32>
// AVX512: linalg.matmul {dsl.vector_sizes = array<i64: 12, 32, 1>} ins(%{{.*}}, %{{.*}} : tensor<12x1xf32>, tensor<1x32xf32>)
// matmul-pack-b=false: the register tiles read B in place.
// NOPACK-LABEL: func.func @packs_b
// NOPACK-NOT: linalg.transpose
// NOPACK-NOT: tensor.collapse_shape
// NOPACK: linalg.matmul
func.func @packs_b(%a: tensor<96x300xf32>, %b: tensor<300x600xf32>, %c: tensor<96x600xf32>) -> tensor<96x600xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<96x300xf32>, tensor<300x600xf32>) outs(%c : tensor<96x600xf32>) -> tensor<96x600xf32>
  return %0 : tensor<96x600xf32>
}

// -----

// Dynamic sizes: with at least 64 rows of A (checked at run time), panels of
// dynamic count and length, the whole panels and the partial one both built
// (either may be empty at run time); with fewer, the nest reads B in place.
// CHECK-LABEL: func.func @packs_dynamic_b
// CHECK: %[[ROWS:.*]] = tensor.dim %arg0, %c0
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[MANY:.*]] = arith.cmpi uge, %[[ROWS]], %c64 : index
// CHECK: scf.if %[[MANY]]
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x16xf32>
// CHECK: linalg.transpose
// CHECK: linalg.copy
// CHECK: %[[PANELS:.*]] = tensor.collapse_shape %{{.*}} : tensor<?x?x16xf32> into tensor<?x16xf32>
// CHECK: tensor.extract_slice %[[PANELS]]
// CHECK: linalg.matmul {dsl.vector_sizes = array<i64: 6, 16, 1>}
// CHECK: } else {
// CHECK-NOT: linalg.transpose
// CHECK-NOT: %[[PANELS]]
// CHECK: linalg.matmul {dsl.vector_sizes = array<i64: 6, 16, 1>}
func.func @packs_dynamic_b(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Left in place: B of a matmul with fewer than 64 rows of A (the copy would
// cost more than it saves), and a B that fits in L1 (16 x 64 f32, 4 KiB).
// CHECK-LABEL: func.func @few_rows
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @small_b
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul
func.func @few_rows(%a: tensor<20x300xf32>, %b: tensor<300x100xf32>, %c: tensor<20x100xf32>) -> tensor<20x100xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<20x300xf32>, tensor<300x100xf32>) outs(%c : tensor<20x100xf32>) -> tensor<20x100xf32>
  return %0 : tensor<20x100xf32>
}

func.func @small_b(%a: tensor<96x16xf32>, %b: tensor<16x64xf32>, %c: tensor<96x64xf32>) -> tensor<96x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<96x16xf32>, tensor<16x64xf32>) outs(%c : tensor<96x64xf32>) -> tensor<96x64xf32>
  return %0 : tensor<96x64xf32>
}
