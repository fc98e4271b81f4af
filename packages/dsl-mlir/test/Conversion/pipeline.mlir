// RUN: dsl-opt %s --dsl-to-llvm-cpu | FileCheck %s
// RUN: dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{fuse-elementwise=false})' | FileCheck %s --check-prefix=NOFUSE
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{no-such-option=1})' 2>&1 | FileCheck %s --check-prefix=BADOPT

// Tensor results become trailing out-params; public functions get a C
// interface taking one descriptor pointer per memref.
// CHECK: llvm.func @scale_add(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64,
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.func @_mlir_ciface_scale_add(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-NOT: dsl.
// CHECK-NOT: linalg.
// NOFUSE: llvm.call @malloc
// BADOPT: no-such-option
func.func @scale_add(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = dsl.mul %x, %x : tensor<?xf32>
  %1 = dsl.add %0, %y : tensor<?xf32>
  return %1 : tensor<?xf32>
}
