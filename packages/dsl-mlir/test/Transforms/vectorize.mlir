// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(convert-dsl-to-linalg,func.func(dsl-tile{target-vector-bits=512}),canonicalize,func.func(dsl-vectorize{lower-vector-ops=false}),canonicalize)' | FileCheck %s --check-prefix=VEC
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(convert-dsl-to-linalg,func.func(dsl-tile{target-vector-bits=512}),canonicalize,func.func(dsl-vectorize),canonicalize)' | FileCheck %s
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(convert-dsl-to-linalg,func.func(dsl-tile{target-vector-bits=512}),canonicalize,func.func(dsl-vectorize{approximate-math=false}),canonicalize)' | FileCheck %s --check-prefix=LIBM

// The register tile of a matmul: the 12x32 accumulator is read before the
// K loop, carried in registers (iter_args) and written after it; inside,
// one vector.contract of a 12x1 column of A and a 1x32 row of B, lowered to
// twelve FMAs on vector<32xf32>. The 4 remaining rows: a 4x32 tile.
// VEC-LABEL: func.func @matmul
// VEC: %[[ACC:.*]] = vector.transfer_read %{{.*}} : tensor<64x64xf32>, vector<12x32xf32>
// VEC: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[IT:.*]] = %[[ACC]]) -> (vector<12x32xf32>)
// VEC: vector.transfer_read %{{.*}} : tensor<64x48xf32>, vector<12x1xf32>
// VEC: vector.transfer_read %{{.*}} : tensor<48x64xf32>, vector<32xf32>
// VEC: vector.contract {{.*}} %[[IT]] : vector<12x1xf32>, vector<1x32xf32> into vector<12x32xf32>
// VEC: vector.transfer_write %[[R]], %{{.*}} : vector<12x32xf32>, tensor<64x64xf32>
// VEC: vector.contract {{.*}} : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
// CHECK-LABEL: func.func @matmul
// CHECK: scf.for {{.*}} -> (vector<12x32xf32>)
// CHECK-COUNT-12: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK-NOT: vector.contract
func.func @matmul(%a: tensor<64x48xf32>, %b: tensor<48x64xf32>) -> tensor<64x64xf32> {
  %0 = dsl.matmul %a, %b : tensor<64x48xf32>, tensor<48x64xf32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// A static edge tile of a matmul (7 of 32 columns): its lanes are rounded up
// to a power of two and masked (LLVM splits odd-length FMA chains badly).
// VEC-LABEL: func.func @matmul_edge
// VEC: vector.contract {{.*}} : vector<12x1xf32>, vector<1x32xf32> into vector<12x32xf32>
// Its accumulator stays in registers across K (the mask is hoisted first).
// VEC: %[[M:.*]] = vector.constant_mask [12, 7] : vector<12x8xi1>
// VEC: %[[C:.*]] = vector.transfer_read {{.*}}, %[[M]] {{.*}} : tensor<12x7xf32>, vector<12x8xf32>
// VEC: scf.for {{.*}} iter_args(%{{.*}} = %[[C]]) -> (vector<12x8xf32>)
// VEC-NOT: tensor<12x7xf32>
// VEC: vector.mask %{{.*}} { vector.contract {{.*}} : vector<12x1xf32>, vector<1x8xf32> into vector<12x8xf32> }
// VEC: vector.transfer_write %{{.*}}, %{{.*}}, %[[M]] {{.*}} : vector<12x8xf32>, tensor<12x7xf32>
func.func @matmul_edge(%a: tensor<12x8xf32>, %b: tensor<8x39xf32>) -> tensor<12x39xf32> {
  %0 = dsl.matmul %a, %b : tensor<12x8xf32>, tensor<8x39xf32> -> tensor<12x39xf32>
  return %0 : tensor<12x39xf32>
}

// -----

// A transposing copy: 16x16 tiles, each read as 16 contiguous rows and
// transposed in registers (16x16 shuffle lowering), not gathered by columns.
// VEC-LABEL: func.func @transpose
// VEC: vector.transfer_read {{.*}} : tensor<64x32xf32>, vector<16x16xf32>
// VEC: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK-LABEL: func.func @transpose
// CHECK-NOT: vector.transpose
// CHECK: vector.shuffle
func.func @transpose(%a: tensor<64x32xf32>) -> tensor<32x64xf32> {
  %0 = dsl.transpose %a [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// Dynamic sizes: full tiles in the peeled main loop, a masked remainder.
// CHECK-LABEL: func.func @dynamic
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<?xf32>, vector<16xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: scf.for
// CHECK: %[[M:.*]] = vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: vector.transfer_read %{{.*}}, %[[M]] {in_bounds = [true]} : tensor<?xf32>, vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[M]] {in_bounds = [true]} : vector<16xf32>, tensor<?xf32>
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = dsl.mul %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Vector exp/tanh become polynomial approximations (no libm call per
// element); sqrt stays the hardware instruction.
// CHECK-LABEL: func.func @math
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: math.sqrt %{{.*}} : vector<16xf32>
// CHECK-NOT: math.exp
// LIBM-LABEL: func.func @math
// LIBM: math.exp %{{.*}} : vector<16xf32>
// LIBM: math.tanh %{{.*}} : vector<16xf32>
func.func @math(%a: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %0 = dsl.exp %a : tensor<64xf32>
  %1 = dsl.tanh %a : tensor<64xf32>
  %2 = dsl.sqrt %a : tensor<64xf32>
  return %0, %1, %2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// A row reduction is tiled as a partial reduction: 32 running sums (two
// vector registers) carried along the row (plain vector adds), reduced across lanes
// once per row after the loop.
// VEC-LABEL: func.func @row_sum
// VEC: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<32xf32>
// VEC: scf.for
// VEC: %[[P:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (vector<32xf32>)
// VEC: %[[X:.*]] = vector.transfer_read {{.*}} : tensor<8x64xf32>, vector<32xf32>
// VEC: arith.addf %[[X]], %[[ACC]] : vector<32xf32>
// VEC: vector.multi_reduction <add>
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.for {{.*}} -> (vector<32xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<32xf32> into f32
func.func @row_sum(%a: tensor<8x64xf32>) -> tensor<8xf32> {
  %0 = dsl.sum %a [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A matmul of one row: K outside N (each k step reads a row of B), and each
// 1x32x1 tile, once its unit M is cast away, one vector.fma (not one scalar
// reduction per lane).
// VEC-LABEL: func.func @one_row
// VEC: scf.for %[[K:.*]] = %c0 to %c256 step %c1
// VEC: scf.for %[[N:.*]] = %c0 to %c64 step %c32
// VEC: vector.transfer_read %arg1[%[[K]], %[[N]]]{{.*}} : tensor<300x64xf32>, vector<32xf32>
// VEC: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<32xf32>
// VEC-NOT: vector.reduction
// VEC-NOT: vector.contract
func.func @one_row(%a: tensor<1x300xf32>, %b: tensor<300x64xf32>) -> tensor<1x64xf32> {
  %0 = dsl.matmul %a, %b : tensor<1x300xf32>, tensor<300x64xf32> -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}
