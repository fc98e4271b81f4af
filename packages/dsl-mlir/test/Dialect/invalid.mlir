// RUN: dsl-opt %s -split-input-file -verify-diagnostics

func.func @add_shape(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>) {
  // expected-error @+1 {{'dsl.add' op operands tensor<4x8xf32> and tensor<3x8xf32> are not broadcast-compatible: dimension 0 is 4 vs 3}}
  %0 = dsl.add %a, %b : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
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
  // expected-error @+1 {{'dsl.mul' op result must be tensor<4xf32> (the broadcast of lhs tensor<4xf32> and rhs tensor<4xf32>), got tensor<5xf32>}}
  %0 = dsl.mul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @div_element(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{'dsl.div' op operand #0 must be ranked tensor or scalar of f16, bf16, f32, f64, i1, i8, i16, i32 or i64, but got 'tensor<4xcomplex<f32>>'}}
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
  // expected-error @+1 {{'dsl.matmul' op result matrices must be 64x32 (M x N), got tensor<32x64xf32>}}
  %0 = dsl.matmul %a, %b : tensor<64x128xf32>, tensor<128x32xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @matmul_batches(%a: tensor<4x8x16xf32>, %b: tensor<3x16x8xf32>) {
  // expected-error @+1 {{'dsl.matmul' op batch sizes differ: lhs tensor<4x8x16xf32> and rhs tensor<3x16x8xf32> (only a static 1 or a 2-D operand broadcasts)}}
  %0 = dsl.matmul %a, %b : tensor<4x8x16xf32>, tensor<3x16x8xf32> -> tensor<4x8x8xf32>
  return
}

// -----

func.func @matmul_batched_result_rank(%a: tensor<4x8x16xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{'dsl.matmul' op result must be 3-D (a batch of matrices), got tensor<8x8xf32>}}
  %0 = dsl.matmul %a, %b : tensor<4x8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @matmul_batch_of_result(%a: tensor<1x8x16xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{'dsl.matmul' op result batch size must be 1, got tensor<2x8x8xf32>}}
  %0 = dsl.matmul %a, %b : tensor<1x8x16xf32>, tensor<16x8xf32> -> tensor<2x8x8xf32>
  return
}

// -----

func.func @matmul_rank4(%a: tensor<2x4x8x16xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{'dsl.matmul' op operand #0 must be}}
  %0 = dsl.matmul %a, %b : tensor<2x4x8x16xf32>, tensor<16x8xf32> -> tensor<2x4x8x8xf32>
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
  // expected-error @+1 {{operand #0 must be 2D/3D tensor}}
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

// -----
// Elementwise ops: broadcasting, scalars, element types.

func.func @broadcast_rank_extension(%a: tensor<2x4x8xf32>, %b: tensor<5x1xf32>) {
  // expected-error @+1 {{'dsl.mul' op operands tensor<2x4x8xf32> and tensor<5x1xf32> are not broadcast-compatible: dimension 1 is 4 vs 5}}
  %0 = dsl.mul %a, %b : (tensor<2x4x8xf32>, tensor<5x1xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @broadcast_result(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'dsl.add' op result must be tensor<4x8xf32> (the broadcast of lhs tensor<4x8xf32> and rhs tensor<8xf32>), got tensor<4x4xf32>}}
  %0 = dsl.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @scalar_dtype(%a: tensor<4xf32>, %s: f16) {
  // expected-error @+1 {{'dsl.sub' op operands must have the same element type, got lhs tensor<4xf32> and rhs f16}}
  %0 = dsl.sub %a, %s : (tensor<4xf32>, f16) -> tensor<4xf32>
  return
}

// -----

func.func @result_dtype(%a: tensor<4xf32>, %s: f32) {
  // expected-error @+1 {{'dsl.maximum' op result must be tensor<4xf32> (the broadcast of lhs f32 and rhs tensor<4xf32>), got tensor<4xf16>}}
  %0 = dsl.maximum %s, %a : (f32, tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @two_scalars(%s: f32) {
  // expected-error @+1 {{'dsl.minimum' op expects at least one tensor operand, got lhs f32 and rhs f32}}
  %0 = dsl.minimum %s, %s : (f32, f32) -> tensor<f32>
  return
}

// -----

func.func @pow_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'dsl.pow' op operand #0 must be ranked tensor or scalar of f16, bf16, f32 or f64, but got 'tensor<4xi32>'}}
  %0 = dsl.pow %a, %a : tensor<4xi32>
  return
}

// -----

func.func @exp_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'dsl.exp' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 values, but got 'tensor<4xi32>'}}
  %0 = dsl.exp %a : tensor<4xi32>
  return
}

// -----

func.func @unary_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'dsl.relu' op result type must equal the operand type tensor<4xf32>, got tensor<5xf32>}}
  %0 = dsl.relu %a : tensor<4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @cmp_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'dsl.cmp' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = dsl.cmp eq, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @cmp_shape(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'dsl.cmp' op result must be tensor<4x8xi1> (the broadcast of lhs tensor<4x8xf32> and rhs tensor<8xf32>), got tensor<8x4xi1>}}
  %0 = dsl.cmp gt, %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8x4xi1>
  return
}

// -----

func.func @cmp_short_form_scalar(%s: f32) {
  // expected-error @+1 {{the short form `: T` needs a tensor type, use `(lhs, rhs) -> result`}}
  %0 = dsl.cmp gt, %s, %s : f32
  return
}

// -----

func.func @select_cond_type(%c: tensor<4xi8>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'dsl.select' op operand #0 must be ranked tensor of i1 or i1 scalar, but got 'tensor<4xi8>'}}
  %0 = dsl.select %c, %a, %a : (tensor<4xi8>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_dtypes(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'dsl.select' op operands must have the same element type, got a tensor<4xf32> and b tensor<4xf64>}}
  %0 = dsl.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

func.func @select_broadcast(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'dsl.select' op operands tensor<3xi1> and tensor<4xf32> are not broadcast-compatible: dimension 0 is 3 vs 4}}
  %0 = dsl.select %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @broadcast_mismatch(%x: tensor<3x8xf32>) {
  // expected-error @+1 {{'dsl.broadcast' op operand tensor<3x8xf32> cannot be broadcast to tensor<4x8xf32>: dimension 0 is 3 vs 4}}
  %0 = dsl.broadcast %x : tensor<3x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<2x3x8xf32>) {
  // expected-error @+1 {{'dsl.broadcast' op operand tensor<2x3x8xf32> has a higher rank than the result tensor<3x8xf32>}}
  %0 = dsl.broadcast %x : tensor<2x3x8xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @broadcast_unknown_size(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{'dsl.broadcast' op result dimension 0 of tensor<?x8xf32> is dynamic but the operand tensor<1x8xf32> has size 1 there: its size is unknown}}
  %0 = dsl.broadcast %x : tensor<1x8xf32> -> tensor<?x8xf32>
  return
}

// -----

func.func @broadcast_new_dynamic_dim(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dsl.broadcast' op result dimension 0 of tensor<?x8xf32> is dynamic but not in the operand tensor<8xf32>: its size is unknown}}
  %0 = dsl.broadcast %x : tensor<8xf32> -> tensor<?x8xf32>
  return
}

// -----

func.func @broadcast_dtype(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dsl.broadcast' op result element type 'f16' must match the operand element type 'f32'}}
  %0 = dsl.broadcast %x : tensor<8xf32> -> tensor<2x8xf16>
  return
}

// -----
// Reductions.

func.func @sum_axis_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.sum' op axis 2 is out of range for input tensor<4x8xf32> of rank 2: expected 0..1}}
  %0 = dsl.sum %x [2] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @max_negative_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.max' op axis -1 is out of range for input tensor<4x8xf32> of rank 2: expected 0..1}}
  %0 = dsl.max %x [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @min_repeated_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.min' op axis 1 is repeated in [1, 1]}}
  %0 = dsl.min %x [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @sum_no_axes(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.sum' op expects at least one axis to reduce over input tensor<4x8xf32>}}
  %0 = dsl.sum %x [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @sum_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.sum' op result must be tensor<4x1xf32> (input tensor<4x8xf32> reduced over [1] with keepdim), got tensor<4xf32>}}
  %0 = dsl.sum %x [1] keepdim : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @mean_int(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{'dsl.mean' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 values, but got 'tensor<4x8xi32>'}}
  %0 = dsl.mean %x [1] : tensor<4x8xi32> -> tensor<4xi32>
  return
}

// -----

func.func @argmax_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.argmax' op axis 3 is out of range for input tensor<4x8xf32> of rank 2: expected 0..1}}
  %0 = dsl.argmax %x axis 3 : tensor<4x8xf32> -> tensor<4xi64>
  return
}

// -----

func.func @argmax_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.argmax' op result must be tensor<8xi64> (input tensor<4x8xf32> reduced over [0]), got tensor<4xi64>}}
  %0 = dsl.argmax %x axis 0 : tensor<4x8xf32> -> tensor<4xi64>
  return
}

// -----

func.func @argmax_i32(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.argmax' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = dsl.argmax %x axis 1 : tensor<4x8xf32> -> tensor<4xi32>
  return
}

// -----
// Shape operations.

func.func @transpose_length(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.transpose' op permutation [1, 0, 2] has 3 entries but the operand tensor<4x8xf32> has rank 2}}
  %0 = dsl.transpose %x [1, 0, 2] : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @transpose_not_permutation(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.transpose' op permutation [0, 0] is not a permutation of 0..1}}
  %0 = dsl.transpose %x [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.transpose' op result must be tensor<8x4xf32> (operand tensor<4x8xf32> permuted by [1, 0]), got tensor<4x8xf32>}}
  %0 = dsl.transpose %x [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.reshape' op operand tensor<4x8xf32> has 32 elements but the result tensor<33xf32> has 33}}
  %0 = dsl.reshape %x : tensor<4x8xf32> -> tensor<33xf32>
  return
}

// -----

func.func @reshape_dynamic(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{'dsl.reshape' op operand tensor<?x8xf32> must have a static shape}}
  %0 = dsl.reshape %x : tensor<?x8xf32> -> tensor<32xf32>
  return
}

// -----

func.func @reshape_dynamic_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.reshape' op result tensor<?xf32> must have a static shape}}
  %0 = dsl.reshape %x : tensor<4x8xf32> -> tensor<?xf32>
  return
}

// -----

func.func @reshape_dtype(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.reshape' op result element type 'i32' must match the operand element type 'f32'}}
  %0 = dsl.reshape %x : tensor<4x8xf32> -> tensor<32xi32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{'dsl.concat' op axis 2 is out of range for input #0 tensor<2x8xf32> of rank 2: expected 0..1}}
  %0 = dsl.concat %a, %a axis 2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'dsl.concat' op input #1 tensor<8xf32> must have the rank and element type of input #0 tensor<2x8xf32>}}
  %0 = dsl.concat %a, %b axis 0 : tensor<2x8xf32>, tensor<8xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @concat_dims(%a: tensor<2x8xf32>, %b: tensor<3x7xf32>) {
  // expected-error @+1 {{'dsl.concat' op input #1 tensor<3x7xf32> differs from input #0 tensor<2x8xf32> in dimension 1 (7 vs 8), which is not the concatenation axis 0}}
  %0 = dsl.concat %a, %b axis 0 : tensor<2x8xf32>, tensor<3x7xf32> -> tensor<5x8xf32>
  return
}

// -----

func.func @concat_result(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) {
  // expected-error @+1 {{'dsl.concat' op result must be tensor<5x8xf32> (inputs joined along axis 0), got tensor<6x8xf32>}}
  %0 = dsl.concat %a, %b axis 0 : tensor<2x8xf32>, tensor<3x8xf32> -> tensor<6x8xf32>
  return
}

// -----

func.func @expand_dims_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.expand_dims' op axis 3 is out of range for operand tensor<4x8xf32> of rank 2: expected 0..2}}
  %0 = dsl.expand_dims %x axis 3 : tensor<4x8xf32> -> tensor<4x8x1xf32>
  return
}

// -----

func.func @expand_dims_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.expand_dims' op result must be tensor<4x1x8xf32> (operand tensor<4x8xf32> with a new axis 1), got tensor<1x4x8xf32>}}
  %0 = dsl.expand_dims %x axis 1 : tensor<4x8xf32> -> tensor<1x4x8xf32>
  return
}

// -----

func.func @squeeze_not_one(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dsl.squeeze' op dimension 0 of operand tensor<4x8xf32> has size 4, expected a static 1}}
  %0 = dsl.squeeze %x axis 0 : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @squeeze_dynamic(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{'dsl.squeeze' op dimension 0 of operand tensor<?x8xf32> has size ?, expected a static 1}}
  %0 = dsl.squeeze %x axis 0 : tensor<?x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @squeeze_axis(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{'dsl.squeeze' op axis 2 is out of range for operand tensor<1x8xf32> of rank 2: expected 0..1}}
  %0 = dsl.squeeze %x axis 2 : tensor<1x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @assemble_result(%d: tensor<4x8xf32>, %s: tensor<2x8xf32>, %i: index) {
  // expected-error @+1 {{'dsl.assemble' op result type must equal the destination type tensor<4x8xf32>, got tensor<2x8xf32>}}
  %0 = dsl.assemble %d, %s [%i, %i] : tensor<2x8xf32> into tensor<4x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @assemble_rank(%d: tensor<4x8xf32>, %s: tensor<8xf32>, %i: index) {
  // expected-error @+1 {{'dsl.assemble' op source tensor<8xf32> must have the rank and element type of the destination tensor<4x8xf32>}}
  %0 = dsl.assemble %d, %s [%i, %i] : tensor<8xf32> into tensor<4x8xf32>
  return
}

// -----

func.func @assemble_offsets(%d: tensor<4x8xf32>, %s: tensor<2x8xf32>, %i: index) {
  // expected-error @+1 {{'dsl.assemble' op expects one offset per dimension of the destination tensor<4x8xf32>: 2 expected, got 1}}
  %0 = dsl.assemble %d, %s [%i] : tensor<2x8xf32> into tensor<4x8xf32>
  return
}

// -----

func.func @assemble_too_big(%d: tensor<4x8xf32>, %s: tensor<2x9xf32>, %i: index) {
  // expected-error @+1 {{'dsl.assemble' op source tensor<2x9xf32> does not fit in the destination tensor<4x8xf32>: dimension 1 is 9 > 8}}
  %0 = dsl.assemble %d, %s [%i, %i] : tensor<2x9xf32> into tensor<4x8xf32>
  return
}

// -----
// Constructors.

func.func @arange_rank(%s: f32) {
  // expected-error @+1 {{'dsl.arange' op result must be a 1-D tensor, got tensor<4x4xf32>}}
  %0 = dsl.arange %s, %s : f32 -> tensor<4x4xf32>
  return
}

// -----

func.func @arange_type(%s: f16) {
  // expected-error @+1 {{'dsl.arange' op start and step of type 'f16' do not match the element type 'f32' of tensor<8xf32>}}
  %0 = dsl.arange %s, %s : f16 -> tensor<8xf32>
  return
}

// -----

func.func @arange_dynamic(%s: f32) {
  // expected-error @+1 {{'dsl.arange' op expects one index operand per dynamic dimension of tensor<?xf32>: 1 expected, got 0}}
  %0 = dsl.arange %s, %s : f32 -> tensor<?xf32>
  return
}

// -----

func.func @concat_none() {
  // expected-error @+1 {{'dsl.concat' op expects at least one input}}
  %0 = "dsl.concat"() <{axis = 0 : i64}> : () -> tensor<2xf32>
  return
}

// -----

func.func @unsigned_floats(%a: tensor<4xf32>) {
  // expected-error @+1 {{'dsl.maximum' op `is_unsigned` requires integer elements, got tensor<4xf32>}}
  %0 = dsl.maximum %a, %a {is_unsigned} : tensor<4xf32>
  return
}

// -----

func.func @unsigned_float_cast_result(%a: tensor<4xi8>) {
  // expected-error @+1 {{'dsl.cast' op `result_unsigned` requires integer elements, got tensor<4xf32>}}
  %0 = dsl.cast %a {result_unsigned} : tensor<4xi8> to tensor<4xf32>
  return
}

// -----

func.func @unsigned_float_reduction(%a: tensor<4x8xf16>) {
  // expected-error @+1 {{'dsl.max' op `is_unsigned` requires integer elements, got tensor<4x8xf16>}}
  %0 = dsl.max %a [1] {is_unsigned} : tensor<4x8xf16> -> tensor<4xf16>
  return
}
