// RUN: dsl-opt %s -split-input-file -verify-diagnostics

func.func @add_shape(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'dsl.add' op operands must have the same shape, got lhs tensor<4x8xf32> and rhs tensor<8x4xf32>}}
  %0 = dsl.add %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @sub_dtype(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'dsl.sub' op operands must have the same element type, got lhs tensor<4xf32> and rhs tensor<4xf16>}}
  %0 = dsl.sub %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @mul_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'dsl.mul' op result type must equal the operand type tensor<4xf32>, got tensor<5xf32>}}
  %0 = dsl.mul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @div_element(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of f16, bf16, f32, f64 or signless integer values}}
  %0 = dsl.div %a, %a : tensor<4xcomplex<f32>>
  return
}

// -----

func.func @matmul_k(%a: tensor<64x128xf16>, %b: tensor<64x128xf16>) {
  // expected-error @+1 {{'dsl.matmul' op contracting dimensions differ: lhs tensor<64x128xf16> contributes K=128 but rhs tensor<64x128xf16> contributes K=64}}
  %0 = dsl.matmul %a, %b : tensor<64x128xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
  return
}

// -----

func.func @matmul_k_trans(%a: tensor<64x128xf16>, %b: tensor<64x32xf16>) {
  // expected-error @+1 {{'dsl.matmul' op contracting dimensions differ: lhs tensor<64x128xf16> (transposed) contributes K=64 but rhs tensor<64x32xf16> (transposed) contributes K=32}}
  %0 = dsl.matmul %a, %b {a_trans, b_trans} : tensor<64x128xf16>, tensor<64x32xf16> -> tensor<128x64xf32>
  return
}

// -----

func.func @matmul_result(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>) {
  // expected-error @+1 {{'dsl.matmul' op result shape must be 64x32 (M x N), got tensor<32x64xf32>}}
  %0 = dsl.matmul %a, %b : tensor<64x128xf32>, tensor<128x32xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @matmul_narrow(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'dsl.matmul' op result element type 'f16' must be at least as wide as the operand element type 'f32'}}
  %0 = dsl.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf16>
  return
}

// -----

func.func @matmul_kind(%a: tensor<4x4xi32>, %b: tensor<4x4xi32>) {
  // expected-error @+1 {{'dsl.matmul' op result element type 'f32' must be of the same kind (float or integer) as 'i32'}}
  %0 = dsl.matmul %a, %b : tensor<4x4xi32>, tensor<4x4xi32> -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_dtypes(%a: tensor<4x4xf32>, %b: tensor<4x4xf16>) {
  // expected-error @+1 {{'dsl.matmul' op operands must have the same element type, got tensor<4x4xf32> and tensor<4x4xf16>}}
  %0 = dsl.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf16> -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{operand #0 must be 2D tensor}}
  %0 = dsl.matmul %a, %b : tensor<4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @cast_shape(%a: tensor<4x8xf16>) {
  // expected-error @+1 {{'dsl.cast' op source and result must have the same shape, got tensor<4x8xf16> and tensor<8x4xf32>}}
  %0 = dsl.cast %a : tensor<4x8xf16> to tensor<8x4xf32>
  return
}

// -----

func.func @create_dynamic(%n: index) {
  // expected-error @+1 {{'dsl.create_tensor' op expects one index operand per dynamic dimension of tensor<?x?xf32>: 2 expected, got 1}}
  %0 = dsl.create_tensor [%n] : tensor<?x?xf32>
  return
}

// -----

func.func @full_type(%v: f16) {
  // expected-error @+1 {{'dsl.full' op fill value of type 'f16' does not match the element type 'f32' of tensor<4xf32>}}
  %0 = dsl.full %v : f16 -> tensor<4xf32>
  return
}

// -----

func.func @slice_offsets(%x: tensor<16x16xf32>, %i: index) {
  // expected-error @+1 {{'dsl.slice' op expects one offset per dimension: 2 expected, got 1}}
  %0 = dsl.slice %x[%i] : tensor<16x16xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @slice_too_big(%x: tensor<16x16xf32>, %i: index) {
  // expected-error @+1 {{'dsl.slice' op slice size 32 exceeds source size 16 in dimension 1}}
  %0 = dsl.slice %x[%i, %i] : tensor<16x16xf32> -> tensor<4x32xf32>
  return
}

// -----

func.func @slice_rank(%x: tensor<16x16xf32>, %i: index) {
  // expected-error @+1 {{'dsl.slice' op result rank 1 must equal the source rank 2}}
  %0 = dsl.slice %x[%i, %i] : tensor<16x16xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_dtype(%x: tensor<16x16xf32>, %i: index) {
  // expected-error @+1 {{'dsl.slice' op result element type 'f16' must match the source element type 'f32'}}
  %0 = dsl.slice %x[%i, %i] : tensor<16x16xf32> -> tensor<4x4xf16>
  return
}

// -----

func.func @slice_dynamic(%x: tensor<16x16xf32>, %i: index) {
  // expected-error @+1 {{'dsl.slice' op result sizes must be static, got tensor<?x4xf32>}}
  %0 = dsl.slice %x[%i, %i] : tensor<16x16xf32> -> tensor<?x4xf32>
  return
}
