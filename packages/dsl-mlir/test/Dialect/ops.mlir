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

// Batched: 3-D operands, a 2-D operand or a static batch of 1 broadcast.
// CHECK-LABEL: func.func @batched_matmul
func.func @batched_matmul(%x: tensor<8x64x128xf32>, %w: tensor<128x32xf32>, %o: tensor<1x32x128xf32>, %d: tensor<?x?x?xf16>) -> tensor<8x64x32xf32> {
  // CHECK: dsl.matmul %{{.*}}, %{{.*}} : tensor<8x64x128xf32>, tensor<128x32xf32> -> tensor<8x64x32xf32>
  %0 = dsl.matmul %x, %w : tensor<8x64x128xf32>, tensor<128x32xf32> -> tensor<8x64x32xf32>
  // CHECK: dsl.matmul %{{.*}}, %{{.*}} {b_trans} : tensor<8x64x128xf32>, tensor<1x32x128xf32> -> tensor<8x64x32xf32>
  %1 = dsl.matmul %x, %o {b_trans} : tensor<8x64x128xf32>, tensor<1x32x128xf32> -> tensor<8x64x32xf32>
  // CHECK: dsl.matmul %{{.*}}, %{{.*}} {a_trans} : tensor<?x?x?xf16>, tensor<?x?x?xf16> -> tensor<?x?x?xf32>
  %2 = dsl.matmul %d, %d {a_trans} : tensor<?x?x?xf16>, tensor<?x?x?xf16> -> tensor<?x?x?xf32>
  return %0 : tensor<8x64x32xf32>
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

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4x8xf32>, %i: tensor<7xi16>, %h: tensor<3xbf16>) -> tensor<4x8xf32> {
  // CHECK: dsl.exp %{{.*}} : tensor<4x8xf32>
  %0 = dsl.exp %x : tensor<4x8xf32>
  // CHECK: dsl.log %{{.*}} : tensor<4x8xf32>
  %1 = dsl.log %0 : tensor<4x8xf32>
  // CHECK: dsl.sqrt %{{.*}} : tensor<4x8xf32>
  %2 = dsl.sqrt %1 : tensor<4x8xf32>
  // CHECK: dsl.rsqrt %{{.*}} : tensor<4x8xf32>
  %3 = dsl.rsqrt %2 : tensor<4x8xf32>
  // CHECK: dsl.tanh %{{.*}} : tensor<3xbf16>
  %4 = dsl.tanh %h : tensor<3xbf16>
  // CHECK: dsl.abs %{{.*}} : tensor<7xi16>
  %5 = dsl.abs %i : tensor<7xi16>
  // CHECK: dsl.neg %{{.*}} : tensor<7xi16>
  %6 = dsl.neg %5 : tensor<7xi16>
  // CHECK: dsl.relu %{{.*}} : tensor<4x8xf32>
  %7 = dsl.relu %3 : tensor<4x8xf32>
  return %7 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @broadcast_and_scalars
func.func @broadcast_and_scalars(%a: tensor<4x8xf32>, %row: tensor<8xf32>, %col: tensor<4x1xf32>, %s: f32) -> tensor<4x8xf32> {
  // CHECK: dsl.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = dsl.add %a, %row : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: dsl.sub %{{.*}}, %{{.*}} : (f32, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = dsl.sub %s, %0 : (f32, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: dsl.mul %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = dsl.mul %col, %row : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: dsl.div %{{.*}}, %{{.*}} : (tensor<4x8xf32>, f32) -> tensor<4x8xf32>
  %3 = dsl.div %2, %s : (tensor<4x8xf32>, f32) -> tensor<4x8xf32>
  // CHECK: dsl.maximum %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %4 = dsl.maximum %3, %1 : tensor<4x8xf32>
  // CHECK: dsl.minimum %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %5 = dsl.minimum %4, %col : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  // CHECK: dsl.pow %{{.*}}, %{{.*}} : (tensor<4x8xf32>, f32) -> tensor<4x8xf32>
  %6 = dsl.pow %5, %s : (tensor<4x8xf32>, f32) -> tensor<4x8xf32>
  // CHECK: dsl.broadcast %{{.*}} : tensor<4x1xf32> -> tensor<2x4x8xf32>
  %7 = dsl.broadcast %col : tensor<4x1xf32> -> tensor<2x4x8xf32>
  return %6 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @cmp_select
func.func @cmp_select(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %s: f32, %n: tensor<?xi32>) -> tensor<4x8xf32> {
  // CHECK: dsl.cmp lt, %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %0 = dsl.cmp lt, %a, %a : tensor<4x8xf32>
  // CHECK: dsl.cmp ge, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %1 = dsl.cmp ge, %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK: dsl.cmp ne, %{{.*}}, %{{.*}} : tensor<?xi32>
  %2 = dsl.cmp ne, %n, %n : tensor<?xi32>
  // CHECK: dsl.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %3 = dsl.select %0, %a, %a : tensor<4x8xf32>
  // CHECK: dsl.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xi1>, f32, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = dsl.select %1, %s, %b : (tensor<4x8xi1>, f32, tensor<8xf32>) -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8x16xf32>, %i: tensor<5x?xi32>) -> tensor<4x1x1xf32> {
  // CHECK: dsl.sum %{{.*}} [1, 2] keepdim : tensor<4x8x16xf32> -> tensor<4x1x1xf32>
  %0 = dsl.sum %x [1, 2] keepdim : tensor<4x8x16xf32> -> tensor<4x1x1xf32>
  // CHECK: dsl.max %{{.*}} [0] : tensor<4x8x16xf32> -> tensor<8x16xf32>
  %1 = dsl.max %x [0] : tensor<4x8x16xf32> -> tensor<8x16xf32>
  // CHECK: dsl.min %{{.*}} [1] : tensor<5x?xi32> -> tensor<5xi32>
  %2 = dsl.min %i [1] : tensor<5x?xi32> -> tensor<5xi32>
  // CHECK: dsl.mean %{{.*}} [0, 1, 2] : tensor<4x8x16xf32> -> tensor<f32>
  %3 = dsl.mean %x [0, 1, 2] : tensor<4x8x16xf32> -> tensor<f32>
  // CHECK: dsl.argmax %{{.*}} axis 2 keepdim : tensor<4x8x16xf32> -> tensor<4x8x1xi64>
  %4 = dsl.argmax %x axis 2 keepdim : tensor<4x8x16xf32> -> tensor<4x8x1xi64>
  // CHECK: dsl.argmax %{{.*}} axis 1 : tensor<5x?xi32> -> tensor<5xi64>
  %5 = dsl.argmax %i axis 1 : tensor<5x?xi32> -> tensor<5xi64>
  return %0 : tensor<4x1x1xf32>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<4x8xf32>, %y: tensor<2x8xf32>, %i: index) -> tensor<4x8xf32> {
  // CHECK: dsl.transpose %{{.*}} [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %0 = dsl.transpose %x [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  // CHECK: dsl.reshape %{{.*}} : tensor<8x4xf32> -> tensor<2x16xf32>
  %1 = dsl.reshape %0 : tensor<8x4xf32> -> tensor<2x16xf32>
  // CHECK: dsl.concat %{{.*}}, %{{.*}} axis 0 : tensor<4x8xf32>, tensor<2x8xf32> -> tensor<6x8xf32>
  %2 = dsl.concat %x, %y axis 0 : tensor<4x8xf32>, tensor<2x8xf32> -> tensor<6x8xf32>
  // CHECK: dsl.expand_dims %{{.*}} axis 1 : tensor<2x8xf32> -> tensor<2x1x8xf32>
  %3 = dsl.expand_dims %y axis 1 : tensor<2x8xf32> -> tensor<2x1x8xf32>
  // CHECK: dsl.squeeze %{{.*}} axis 1 : tensor<2x1x8xf32> -> tensor<2x8xf32>
  %4 = dsl.squeeze %3 axis 1 : tensor<2x1x8xf32> -> tensor<2x8xf32>
  // CHECK: dsl.assemble %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x8xf32> into tensor<4x8xf32>
  %5 = dsl.assemble %x, %4 [%i, %i] : tensor<2x8xf32> into tensor<4x8xf32>
  return %5 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @arange
func.func @arange(%s: f32, %t: f32, %n: index, %a: i32) -> tensor<?xf32> {
  // CHECK: dsl.arange %{{.*}}, %{{.*}} : f32 -> tensor<16xf32>
  %0 = dsl.arange %s, %t : f32 -> tensor<16xf32>
  // CHECK: dsl.arange %{{.*}}, %{{.*}}[%{{.*}}] : f32 -> tensor<?xf32>
  %1 = dsl.arange %s, %t [%n] : f32 -> tensor<?xf32>
  // CHECK: dsl.arange %{{.*}}, %{{.*}} : i32 -> tensor<5xi32>
  %2 = dsl.arange %a, %a : i32 -> tensor<5xi32>
  return %1 : tensor<?xf32>
}
