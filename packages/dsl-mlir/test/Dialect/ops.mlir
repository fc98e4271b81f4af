// RUN: dsl-opt %s | FileCheck %s
// Round trip: print, parse the printed form, print again.
// RUN: dsl-opt %s | dsl-opt | FileCheck %s
// RUN: dsl-opt %s --mlir-print-op-generic | dsl-opt | FileCheck %s

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %i: tensor<3xi32>) -> tensor<4x8xf32> {
  // CHECK: dsl.add %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %0 = dsl.add %a, %b : tensor<4x8xf32>
  // CHECK: dsl.sub %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %1 = dsl.sub %0, %b : tensor<4x8xf32>
  // CHECK: dsl.mul %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %2 = dsl.mul %1, %b : tensor<4x8xf32>
  // CHECK: dsl.div %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %3 = dsl.div %2, %b : tensor<4x8xf32>
  // CHECK: dsl.add %{{.*}}, %{{.*}} : tensor<3xi32>
  %4 = dsl.add %i, %i : tensor<3xi32>
  return %3 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%a: tensor<?x8xbf16>) -> tensor<?x8xbf16> {
  // CHECK: dsl.mul %{{.*}}, %{{.*}} : tensor<?x8xbf16>
  %0 = dsl.mul %a, %a : tensor<?x8xbf16>
  return %0 : tensor<?x8xbf16>
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<64x128xf16>, %b: tensor<64x128xf16>, %c: tensor<128x32xf16>) -> tensor<64x64xf32> {
  // CHECK: dsl.matmul %{{.*}}, %{{.*}} {b_trans} : tensor<64x128xf16>, tensor<64x128xf16> -> tensor<64x64xf32>
  %0 = dsl.matmul %a, %b {b_trans} : tensor<64x128xf16>, tensor<64x128xf16> -> tensor<64x64xf32>
  // CHECK: dsl.matmul %{{.*}}, %{{.*}} : tensor<64x128xf16>, tensor<128x32xf16> -> tensor<64x32xf16>
  %1 = dsl.matmul %a, %c : tensor<64x128xf16>, tensor<128x32xf16> -> tensor<64x32xf16>
  // CHECK: dsl.matmul %{{.*}}, %{{.*}} {a_trans, b_trans} : tensor<64x128xf16>, tensor<32x64xf16> -> tensor<128x32xf32>
  %t = dsl.create_tensor : tensor<32x64xf16>
  %2 = dsl.matmul %a, %t {a_trans, b_trans} : tensor<64x128xf16>, tensor<32x64xf16> -> tensor<128x32xf32>
  return %0 : tensor<64x64xf32>
}

// CHECK-LABEL: func.func @constructors
func.func @constructors(%n: index, %v: f32) -> tensor<?x4xf32> {
  // CHECK: dsl.create_tensor : tensor<2x3xi8>
  %0 = dsl.create_tensor : tensor<2x3xi8>
  // CHECK: dsl.create_tensor[%{{.*}}] : tensor<?x4xf32>
  %1 = dsl.create_tensor [%n] : tensor<?x4xf32>
  // CHECK: dsl.full %{{.*}} : f32 -> tensor<8x4xf32>
  %2 = dsl.full %v : f32 -> tensor<8x4xf32>
  // CHECK: dsl.full %{{.*}}[%{{.*}}] : f32 -> tensor<?x4xf32>
  %3 = dsl.full %v [%n] : f32 -> tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @cast_and_slice
func.func @cast_and_slice(%x: tensor<1024x128xf16>, %i: index) -> tensor<64x128xf32> {
  %c0 = arith.constant 0 : index
  // CHECK: dsl.slice %{{.*}}[%{{.*}}, %{{.*}}] : tensor<1024x128xf16> -> tensor<64x128xf16>
  %0 = dsl.slice %x[%i, %c0] : tensor<1024x128xf16> -> tensor<64x128xf16>
  // CHECK: dsl.cast %{{.*}} : tensor<64x128xf16> to tensor<64x128xf32>
  %1 = dsl.cast %0 : tensor<64x128xf16> to tensor<64x128xf32>
  return %1 : tensor<64x128xf32>
}
