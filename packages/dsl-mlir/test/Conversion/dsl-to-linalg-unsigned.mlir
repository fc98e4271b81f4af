// RUN: dsl-opt %s --convert-dsl-to-linalg --split-input-file | FileCheck %s

// `is_unsigned` selects the unsigned form of every signedness-dependent op;
// without it the same ops are signed.
// CHECK-LABEL: func.func @unsigned_elementwise
// CHECK: arith.maxui
// CHECK: arith.minui
// CHECK: arith.divui
// CHECK: arith.cmpi ult
// CHECK: arith.cmpi uge
// CHECK-NOT: arith.maxsi
// CHECK-NOT: math.absi
// CHECK: return
func.func @unsigned_elementwise(%a: tensor<8xi8>, %b: tensor<8xi8>)
    -> (tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi1>, tensor<8xi1>, tensor<8xi8>, tensor<8xi8>) {
  %0 = dsl.maximum %a, %b {is_unsigned} : tensor<8xi8>
  %1 = dsl.minimum %a, %b {is_unsigned} : tensor<8xi8>
  %2 = dsl.div %a, %b {is_unsigned} : tensor<8xi8>
  %3 = dsl.cmp lt, %a, %b {is_unsigned} : tensor<8xi8>
  %4 = dsl.cmp ge, %a, %b {is_unsigned} : tensor<8xi8>
  %5 = dsl.relu %a {is_unsigned} : tensor<8xi8>
  %6 = dsl.abs %a {is_unsigned} : tensor<8xi8>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi1>, tensor<8xi1>, tensor<8xi8>, tensor<8xi8>
}

// -----

// CHECK-LABEL: func.func @signed_elementwise
// CHECK: arith.maxsi
// CHECK: arith.divsi
// CHECK: arith.cmpi slt
// CHECK: math.absi
func.func @signed_elementwise(%a: tensor<8xi8>, %b: tensor<8xi8>)
    -> (tensor<8xi8>, tensor<8xi8>, tensor<8xi1>, tensor<8xi8>) {
  %0 = dsl.maximum %a, %b : tensor<8xi8>
  %1 = dsl.div %a, %b : tensor<8xi8>
  %2 = dsl.cmp lt, %a, %b : tensor<8xi8>
  %3 = dsl.abs %a : tensor<8xi8>
  return %0, %1, %2, %3 : tensor<8xi8>, tensor<8xi8>, tensor<8xi1>, tensor<8xi8>
}

// -----

// Unsigned max starts from 0, unsigned min from all ones; argmax compares ugt.
// CHECK-LABEL: func.func @unsigned_reductions
// CHECK: arith.constant 0 : i16
// CHECK: arith.maxui
// CHECK: arith.constant -1 : i16
// CHECK: arith.minui
// CHECK: arith.cmpi ugt
func.func @unsigned_reductions(%a: tensor<4x8xi16>) -> (tensor<4xi16>, tensor<4xi16>, tensor<4xi64>) {
  %0 = dsl.max %a [1] {is_unsigned} : tensor<4x8xi16> -> tensor<4xi16>
  %1 = dsl.min %a [1] {is_unsigned} : tensor<4x8xi16> -> tensor<4xi16>
  %2 = dsl.argmax %a axis 1 {is_unsigned} : tensor<4x8xi16> -> tensor<4xi64>
  return %0, %1, %2 : tensor<4xi16>, tensor<4xi16>, tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @unsigned_casts
// CHECK: arith.extui %{{.*}} : i8 to i64
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: arith.extsi %{{.*}} : i8 to i64
// CHECK: arith.fptosi %{{.*}} : f32 to i8
func.func @unsigned_casts(%a: tensor<4xi8>, %f: tensor<4xf32>)
    -> (tensor<4xi64>, tensor<4xf32>, tensor<4xi8>, tensor<4xi64>, tensor<4xi8>) {
  %0 = dsl.cast %a {source_unsigned} : tensor<4xi8> to tensor<4xi64>
  %1 = dsl.cast %a {source_unsigned} : tensor<4xi8> to tensor<4xf32>
  %2 = dsl.cast %f {result_unsigned} : tensor<4xf32> to tensor<4xi8>
  %3 = dsl.cast %a : tensor<4xi8> to tensor<4xi64>
  %4 = dsl.cast %f : tensor<4xf32> to tensor<4xi8>
  return %0, %1, %2, %3, %4 : tensor<4xi64>, tensor<4xf32>, tensor<4xi8>, tensor<4xi64>, tensor<4xi8>
}

// -----

// CHECK-LABEL: func.func @unsigned_matmul
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.extui %{{.*}} : i8 to i32
func.func @unsigned_matmul(%a: tensor<4x8xi8>, %b: tensor<8x2xi8>) -> tensor<4x2xi32> {
  %0 = dsl.matmul %a, %b {is_unsigned} : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}
