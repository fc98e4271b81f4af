// dsl-check-lowerable (the first pass of both pipelines) refuses types and
// sizes no later pass can handle, at the op that has them.
// RUN: dsl-opt %s -split-input-file -verify-diagnostics --dsl-check-lowerable
// RUN: %not dsl-opt %s -split-input-file --dsl-to-llvm-cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: %not dsl-opt %s -split-input-file --dsl-to-llvm-nvptx 2>&1 | FileCheck %s --check-prefix=GPU

// CPU: error: block argument #0 has type tensor<4xi0>, whose element type i0 the lowering does not handle (element types: f16, bf16, f32, f64, i1, i8, i16, i32, i64, index)
// GPU: error: block argument #0 has type tensor<4xi0>, whose element type i0
// expected-error @+1 {{block argument #0 has type tensor<4xi0>, whose element type i0 the lowering does not handle (element types: f16, bf16, f32, f64, i1, i8, i16, i32, i64, index)}}
func.func @i0(%a: tensor<4xi0>) -> tensor<4xi0> {
  return %a : tensor<4xi0>
}

// -----

// CPU: error: block argument #0 has type memref<4xi2>, whose element type i2
// expected-error @+1 {{block argument #0 has type memref<4xi2>, whose element type i2}}
func.func @memref_i2(%a: memref<4xi2>) {
  return
}

// -----

func.func @scalar_i0() {
  // CPU: error: result #0 has type i0: the lowering handles integers of 1 to 64 bits
  // expected-error @+1 {{result #0 has type i0: the lowering handles integers of 1 to 64 bits}}
  %0 = arith.constant 0 : i0
  return
}

// -----

// CPU: error: block argument #0 has type f80: the lowering handles the floats f16, bf16, f32 and f64
// expected-error @+1 {{block argument #0 has type f80: the lowering handles the floats f16, bf16, f32 and f64}}
func.func @f80(%a: f80) {
  return
}

// -----

// An external declaration has no block arguments: its function type is checked.
// CPU: error: attribute 'function_type' input #0 has type vector<4xi3>, whose element type i3
// expected-error @+1 {{attribute 'function_type' input #0 has type vector<4xi3>, whose element type i3}}
func.func private @declared(vector<4xi3>)

// -----

// CPU: error: block argument #0 of type memref<4611686018427387904xf32> is too large: the product of its nonzero sizes, or its byte size, does not fit in a signed 64-bit integer
// expected-error @+1 {{block argument #0 of type memref<4611686018427387904xf32> is too large}}
func.func @bytes(%a: memref<4611686018427387904xf32>) {
  return
}

// -----

func.func @empty() {
  // expected-error @+1 {{result #0 of type tensor<4294967296x4294967296xf32> is too large}}
  %0 = tensor.empty() : tensor<4294967296x4294967296xf32>
  return
}

// -----

// Everything the toolkit lowers passes unchanged.
func.func @fine(%a: tensor<?x4xbf16>, %b: memref<8xi1>, %i: index, %x: i64) -> tensor<?x4xbf16> {
  %0 = tensor.empty() : tensor<0x4611686018427387904xi8>
  return %a : tensor<?x4xbf16>
}
