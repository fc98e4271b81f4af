"""Kernel modules in the form dsl-parser emits (gpu.module + gpu.launch_func), for tests."""

from __future__ import annotations

VADD = """
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
    gpu.launch_func <%stream : !llvm.ptr> @dsl_kernels::@vadd_k blocks in (%g, %c1, %c1)
        threads in (%c256, %c1, %c1)
        args(%x : memref<?xf32>, %y : memref<?xf32>, %z : memref<?xf32>, %n : index)
    return
  }
}
"""

# out[j, i] = in[i, j] on a 2-D grid of 8x8 blocks, guarded on both edges.
TRANSPOSE = """
module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    gpu.func @tr(%a: memref<?x?xf32>, %b: memref<?x?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %m = memref.dim %a, %c0 : memref<?x?xf32>
      %n = memref.dim %a, %c1 : memref<?x?xf32>
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %dx = gpu.block_dim x
      %dy = gpu.block_dim y
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %r0 = arith.muli %by, %dy : index
      %r = arith.addi %r0, %ty : index
      %q0 = arith.muli %bx, %dx : index
      %q = arith.addi %q0, %tx : index
      %in_r = arith.cmpi slt, %r, %m : index
      %in_q = arith.cmpi slt, %q, %n : index
      %ok = arith.andi %in_r, %in_q : i1
      scf.if %ok {
        %v = memref.load %a[%r, %q] : memref<?x?xf32>
        memref.store %v, %b[%q, %r] : memref<?x?xf32>
      }
      gpu.return
    }
  }
  func.func @transpose(%a: memref<?x?xf32>, %b: memref<?x?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %m = memref.dim %a, %c0 : memref<?x?xf32>
    %n = memref.dim %a, %c1 : memref<?x?xf32>
    %gy = arith.ceildivsi %m, %c8 : index
    %gx = arith.ceildivsi %n, %c8 : index
    gpu.launch_func @dsl_kernels::@tr blocks in (%gx, %gy, %c1) threads in (%c8, %c8, %c1)
        args(%a : memref<?x?xf32>, %b : memref<?x?xf32>)
    return
  }
}
"""

# s[r] = sum_j a[r, j]: one thread per row, a loop-carried accumulator, a guard.
ROWSUM = """
module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    gpu.func @rows(%a: memref<?x?xf32>, %s: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %m = memref.dim %a, %c0 : memref<?x?xf32>
      %n = memref.dim %a, %c1 : memref<?x?xf32>
      %bx = gpu.block_id x
      %dx = gpu.block_dim x
      %tx = gpu.thread_id x
      %r0 = arith.muli %bx, %dx : index
      %r = arith.addi %r0, %tx : index
      %ok = arith.cmpi slt, %r, %m : index
      scf.if %ok {
        %zero = arith.constant 0.0 : f32
        %acc = scf.for %j = %c0 to %n step %c1 iter_args(%t = %zero) -> (f32) {
          %v = memref.load %a[%r, %j] : memref<?x?xf32>
          %t2 = arith.addf %t, %v : f32
          scf.yield %t2 : f32
        }
        memref.store %acc, %s[%r] : memref<?xf32>
      }
      gpu.return
    }
  }
  func.func @rowsum(%a: memref<?x?xf32>, %s: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %m = memref.dim %a, %c0 : memref<?x?xf32>
    %g = arith.ceildivsi %m, %c64 : index
    gpu.launch_func @dsl_kernels::@rows blocks in (%g, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%a : memref<?x?xf32>, %s : memref<?xf32>)
    return
  }
}
"""
