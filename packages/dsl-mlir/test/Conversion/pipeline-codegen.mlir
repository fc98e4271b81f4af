// Code quality of dsl-to-llvm-cpu: fusion across broadcasts and scalars,
// vector code, register-tiled matmul, i1 results as bytes, no runtime calls.
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(convert-dsl-to-linalg,canonicalize,func.func(linalg-fuse-elementwise-ops))' | FileCheck %s --check-prefix=FUSE
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(dsl-to-llvm-cpu{target-vector-bits=512})' | FileCheck %s
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(dsl-to-llvm-cpu{vectorize=false})' | FileCheck %s --check-prefix=SCALAR

// A chain with a scalar and a broadcast row is one loop nest over the
// result: no intermediate buffer, 16-wide vector arithmetic.
// FUSE-LABEL: func.func @chain
// FUSE-COUNT-1: linalg.generic
// FUSE-NOT: linalg.generic
// CHECK-LABEL: llvm.func @chain
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.fmul %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: llvm.fadd %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.func @_mlir_ciface_chain
// SCALAR-LABEL: llvm.func @chain
// SCALAR-NOT: vector<
// SCALAR: llvm.fmul %{{.*}}, %{{.*}} : f32
// SCALAR: llvm.func @_mlir_ciface_chain
func.func @chain(%x: tensor<256x1024xf32>, %row: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %c = arith.constant 2.0 : f32
  %0 = dsl.mul %x, %c : (tensor<256x1024xf32>, f32) -> tensor<256x1024xf32>
  %1 = dsl.add %0, %row : (tensor<256x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  %2 = dsl.relu %1 : tensor<256x1024xf32>
  return %2 : tensor<256x1024xf32>
}

// -----

// Register-tiled matmul: 12 rows x 32 columns of accumulators, FMAs on
// vector<32xf32> (the C interface is unchanged: one descriptor per memref).
// FUSE-LABEL: func.func @matmul
// CHECK-LABEL: llvm.func @matmul
// CHECK-COUNT-12: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK: llvm.func @_mlir_ciface_matmul(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
func.func @matmul(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = dsl.matmul %a, %b : tensor<256x256xf32>, tensor<256x256xf32> -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// Tensors of i1 are one byte per element at the ABI (numpy bool).
// FUSE-LABEL: func.func @mask
// CHECK-LABEL: llvm.func @mask
// CHECK: %[[B:.*]] = llvm.zext %{{.*}} : i1 to i8
// CHECK: llvm.store %[[B]], %{{.*}} : i8, !llvm.ptr
// CHECK-NOT: : i1, !llvm.ptr
// CHECK: llvm.func @_mlir_ciface_mask
func.func @mask(%a: tensor<100xf32>, %b: tensor<100xf32>) -> tensor<100xi1> {
  %0 = dsl.cmp lt, %a, %b : tensor<100xf32>
  return %0 : tensor<100xi1>
}

// -----

// A transposed, reshaped result is copied by loops, never by the
// `memrefCopy` runtime function (a JIT'd module cannot resolve it).
// FUSE-LABEL: func.func @views
// CHECK-LABEL: llvm.func @views
// CHECK-NOT: memrefCopy
func.func @views(%x: tensor<8x6xf32>) -> tensor<3x16xf32> {
  %0 = dsl.transpose %x [1, 0] : tensor<8x6xf32> -> tensor<6x8xf32>
  %1 = dsl.reshape %0 : tensor<6x8xf32> -> tensor<3x16xf32>
  return %1 : tensor<3x16xf32>
}

// -----

// parallel: async tasks on the dsl async runtime; the C interface is the
// same as without it.
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(dsl-to-llvm-cpu{parallel=true target-vector-bits=512})' | FileCheck %s --check-prefix=PAR
// FUSE-LABEL: func.func @parallel_exp
// PAR-LABEL: llvm.func @parallel_exp
// PAR: llvm.call @mlirAsyncRuntimeCreateGroup
// PAR: llvm.call @mlirAsyncRuntimeAwaitAllInGroup
// PAR: llvm.func @_mlir_ciface_parallel_exp(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// PAR: llvm.call @mlirAsyncRuntimeExecute
func.func @parallel_exp(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %0 = dsl.exp %x : tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}
