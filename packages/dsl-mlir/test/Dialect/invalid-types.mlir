// Element types the lowering cannot handle and sizes that overflow 64 bits
// are verifier errors (they used to abort or crash the lowering).
// RUN: dsl-opt %s -split-input-file -verify-diagnostics

func.func @i0_elements(%a: tensor<4xi0>) {
  // expected-error @+1 {{'dsl.add' op operand #0 must be ranked tensor or scalar of f16, bf16, f32, f64, i1, i8, i16, i32 or i64, but got 'tensor<4xi0>'}}
  %0 = dsl.add %a, %a : tensor<4xi0>
  return
}

// -----

func.func @cast_i1_to_i2(%a: tensor<4xi1>) {
  // expected-error @+1 {{'dsl.cast' op result #0 must be ranked tensor of f16, bf16, f32, f64, i1, i8, i16, i32 or i64 values, but got 'tensor<4xi2>'}}
  %0 = dsl.cast %a : tensor<4xi1> to tensor<4xi2>
  return
}

// -----

func.func @i128_elements(%a: tensor<4xi128>) {
  // expected-error @+1 {{'dsl.neg' op operand #0 must be ranked tensor of f16, bf16, f32, f64, i1, i8, i16, i32 or i64 values, but got 'tensor<4xi128>'}}
  %0 = dsl.neg %a : tensor<4xi128>
  return
}

// -----

func.func @unsigned_elements(%a: tensor<4xui8>) {
  // expected-error @+1 {{'dsl.abs' op operand #0 must be ranked tensor of f16, bf16, f32, f64, i1, i8, i16, i32 or i64 values, but got 'tensor<4xui8>'}}
  %0 = dsl.abs %a : tensor<4xui8>
  return
}

// -----

func.func @reshape_overflow(%a: tensor<4294967296x4294967296xf32>) {
  // expected-error @+1 {{'dsl.reshape' op operand #0 of type tensor<4294967296x4294967296xf32> is too large: the product of its nonzero sizes, or its byte size, does not fit in a signed 64-bit integer}}
  %0 = dsl.reshape %a : tensor<4294967296x4294967296xf32> -> tensor<4294967296x4294967296xf32>
  return
}

// -----

func.func @matmul_bytes_overflow(%a: tensor<4611686018427387904x2xf32>, %b: tensor<2x2xf32>) {
  // expected-error @+1 {{'dsl.matmul' op operand #0 of type tensor<4611686018427387904x2xf32> is too large}}
  %0 = dsl.matmul %a, %b : tensor<4611686018427387904x2xf32>, tensor<2x2xf32> -> tensor<4611686018427387904x2xf32>
  return
}

// -----

func.func @result_bytes_overflow() {
  // expected-error @+1 {{'dsl.create_tensor' op result #0 of type tensor<2305843009213693952xf64> is too large}}
  %0 = dsl.create_tensor : tensor<2305843009213693952xf64>
  return
}

// -----

func.func @concat_overflow(%a: tensor<4611686018427387904xi8>) {
  // expected-error @+1 {{'dsl.concat' op the inputs' sizes along axis 0 add up to more than fit in 64 bits}}
  %0 = dsl.concat %a, %a, %a axis 0 : tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8> -> tensor<?xi8>
  return
}

// -----

// A size 0 does not make the others safe: strides multiply them (found by the
// IR fuzz test, tests/test_mlir_fuzz_ir.py).
func.func @zero_beside_overflow(%a: tensor<4611686018427387904x0x7xf32>) {
  // expected-error @+1 {{'dsl.neg' op operand #0 of type tensor<4611686018427387904x0x7xf32> is too large}}
  %0 = dsl.neg %a : tensor<4611686018427387904x0x7xf32>
  return
}

// -----

// The largest sizes that fit are fine: 2^62 bytes.
func.func @largest(%a: tensor<4611686018427387904xi8>) -> tensor<4611686018427387904xi8> {
  %0 = dsl.neg %a : tensor<4611686018427387904xi8>
  return %0 : tensor<4611686018427387904xi8>
}
