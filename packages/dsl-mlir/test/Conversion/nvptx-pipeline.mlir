// RUN: dsl-opt %s --dsl-to-llvm-nvptx | FileCheck %s
// RUN: dsl-opt %s "--dsl-to-llvm-nvptx=chip=sm_90 features=+ptx83" | FileCheck %s --check-prefix=SM90

// The kernel becomes PTX in a gpu.binary: one .entry whose parameters are the
// expanded memref descriptors (5 x i64 per 1-D memref) then the index.
// CHECK: gpu.binary @dsl_kernels
// CHECK-SAME: .target sm_80
// CHECK-SAME: .entry vadd_k(
// CHECK-SAME: vadd_k_param_15\0A)
// CHECK-NOT: vadd_k_param_16
// The stream the host function received is the launch's stream.
// CHECK: llvm.func @vadd(
// CHECK-SAME: %[[S:arg15]]: !llvm.ptr)
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @dsl_kernels::@vadd_k
// CHECK: llvm.func @_mlir_ciface_vadd
// SM90: .target sm_90
module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    gpu.func @vadd_k(%x: memref<?xf32>, %y: memref<?xf32>, %z: memref<?xf32>, %n: index) kernel {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %0 = arith.muli %bid, %bdim : index
      %i = arith.addi %0, %tid : index
      %c = arith.cmpi slt, %i, %n : index
      scf.if %c {
        %a = memref.load %x[%i] : memref<?xf32>
        %b = memref.load %y[%i] : memref<?xf32>
        %s = arith.addf %a, %b : f32
        memref.store %s, %z[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
  func.func @vadd(%x: memref<?xf32>, %y: memref<?xf32>, %z: memref<?xf32>, %stream: !llvm.ptr) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %g = arith.ceildivsi %n, %c256 : index
    gpu.launch_func <%stream : !llvm.ptr> @dsl_kernels::@vadd_k blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<?xf32>, %y : memref<?xf32>, %z : memref<?xf32>, %n : index)
    return
  }
}
