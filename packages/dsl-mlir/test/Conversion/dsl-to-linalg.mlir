// RUN: dsl-opt %s --convert-dsl-to-linalg | FileCheck %s

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[KN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[TR:.*]] = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @add
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: outs(%[[E]] : tensor<4x8xf32>)
// CHECK: arith.addf
// CHECK-NOT: dsl.
func.func @add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dsl.add %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @div_int_dynamic
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x8xi32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x8xi32>
// CHECK: arith.divsi
func.func @div_int_dynamic(%a: tensor<?x8xi32>) -> tensor<?x8xi32> {
  %0 = dsl.div %a, %a : tensor<?x8xi32>
  return %0 : tensor<?x8xi32>
}

// Both operands are made row-major f32 once (a widening copy of A, a
// transposing and widening copy of B), so the contraction reads rows with
// unit stride and does no conversion per multiply-add.
// CHECK-LABEL: func.func @matmul_bt
// CHECK-SAME: %[[A0:.*]]: tensor<64x128xf16>, %[[B:.*]]: tensor<32x128xf16>
// CHECK: %[[PA:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A0]] : tensor<64x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// CHECK: arith.extf
// CHECK: %[[PB:.*]] = linalg.generic {indexing_maps = [#[[TR]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[B]] : tensor<32x128xf16>) outs(%{{.*}} : tensor<128x32xf32>)
// CHECK: arith.extf
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32)
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[KN]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[PA]], %[[PB]] : tensor<64x128xf32>, tensor<128x32xf32>) outs(%[[F]] : tensor<64x32xf32>)
// CHECK-NOT: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul_bt(%a: tensor<64x128xf16>, %b: tensor<32x128xf16>) -> tensor<64x32xf32> {
  %0 = dsl.matmul %a, %b {b_trans} : tensor<64x128xf16>, tensor<32x128xf16> -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// Rows a multiple of 4 KiB apart are copied into rows padded by one cache line
// (16 f32), so that the rows a register tile streams do not share cache sets:
// A (64x1024 f32: 4 KiB rows) by linalg.copy into the first columns of a
// 64x1040 tensor; B (1024x48 f32: 192-byte rows) and narrow operands (fewer than
// 64 rows) are read in place.
// CHECK-LABEL: func.func @matmul_padded
// CHECK-SAME: %[[A0:.*]]: tensor<64x1024xf32>, %[[B:.*]]: tensor<1024x48xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<64x1040xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[E]][0, 0] [64, 1024] [1, 1] : tensor<64x1040xf32> to tensor<64x1024xf32>
// CHECK: %[[PA:.*]] = linalg.copy ins(%[[A0]] : tensor<64x1024xf32>) outs(%[[S]] : tensor<64x1024xf32>)
// CHECK-NOT: linalg.copy
// CHECK: ins(%[[PA]], %[[B]] : tensor<64x1024xf32>, tensor<1024x48xf32>)
// CHECK-LABEL: func.func @matmul_narrow
// CHECK-NOT: linalg.copy
// CHECK-NOT: tensor.extract_slice
// CHECK: ins(%arg0, %arg1 : tensor<32x1024xf32>, tensor<1024x16xf32>)
func.func @matmul_padded(%a: tensor<64x1024xf32>, %b: tensor<1024x48xf32>) -> tensor<64x48xf32> {
  %0 = dsl.matmul %a, %b : tensor<64x1024xf32>, tensor<1024x48xf32> -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}
func.func @matmul_narrow(%a: tensor<32x1024xf32>, %b: tensor<1024x16xf32>) -> tensor<32x16xf32> {
  %0 = dsl.matmul %a, %b : tensor<32x1024xf32>, tensor<1024x16xf32> -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// CHECK-LABEL: func.func @cast
// CHECK: arith.extf %{{.*}} : f16 to f32
func.func @cast(%a: tensor<4xf16>) -> tensor<4xf32> {
  %0 = dsl.cast %a : tensor<4xf16> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @cast_bf16_f16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cast_bf16_f16(%a: tensor<4xbf16>) -> tensor<4xf16> {
  %0 = dsl.cast %a : tensor<4xbf16> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// CHECK-LABEL: func.func @cast_int_float
// CHECK: arith.sitofp %{{.*}} : i32 to f64
func.func @cast_int_float(%a: tensor<4xi32>) -> tensor<4xf64> {
  %0 = dsl.cast %a : tensor<4xi32> to tensor<4xf64>
  return %0 : tensor<4xf64>
}

// CHECK-LABEL: func.func @full
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x4xf32>)
func.func @full(%v: f32, %n: index) -> tensor<?x4xf32> {
  %0 = dsl.full %v [%n] : f32 -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}] [64, 128] [1, 1] : tensor<1024x128xf16> to tensor<64x128xf16>
func.func @slice(%x: tensor<1024x128xf16>, %i: index, %j: index) -> tensor<64x128xf16> {
  %0 = dsl.slice %x[%i, %j] : tensor<1024x128xf16> -> tensor<64x128xf16>
  return %0 : tensor<64x128xf16>
}

// CHECK-LABEL: func.func @create
// CHECK: tensor.empty() : tensor<2x2xf32>
func.func @create() -> tensor<2x2xf32> {
  %0 = dsl.create_tensor : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
