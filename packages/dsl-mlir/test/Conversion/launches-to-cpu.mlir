// RUN: dsl-opt %s --dsl-lower-launches-to-cpu --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-NOT: gpu.container_module
// CHECK-LABEL: func.func private @__dsl_kernel_dsl_kernels_k2(
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32>, %[[BX:[a-z0-9]+]]: index, %[[BY:[a-z0-9]+]]: index, %[[BZ:[a-z0-9]+]]: index, %[[TX:[a-z0-9]+]]: index, %[[TY:[a-z0-9]+]]: index, %[[TZ:[a-z0-9]+]]: index, %[[DX:[a-z0-9]+]]: index, %[[DY:[a-z0-9]+]]: index, %[[DZ:[a-z0-9]+]]: index, %[[GX:[a-z0-9]+]]: index, %[[GY:[a-z0-9]+]]: index, %[[GZ:[a-z0-9]+]]: index)
// CHECK: memref.store %{{.*}}, %[[X]][%[[BY]], %[[TX]]]
// CHECK: memref.store %{{.*}}, %[[X]][%[[GX]], %[[DY]]]
// CHECK: return
// CHECK-NOT: gpu.
// CHECK-LABEL: func.func @host(
// CHECK-SAME: %[[A:.*]]: memref<?x?xf32>, %[[G:.*]]: index)
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.parallel (%[[IZ:.*]], %[[IY:.*]], %[[IX:.*]]) = ({{.*}}) to (%[[C1]], %[[G]], %[[G]])
// CHECK: scf.for %[[JZ:.*]] = %{{.*}} to %[[C1]]
// CHECK: scf.for %[[JY:.*]] = %{{.*}} to %[[C1]]
// CHECK: scf.for %[[JX:.*]] = %{{.*}} to %[[C32]]
// CHECK: func.call @__dsl_kernel_dsl_kernels_k2(%[[A]], %[[IX]], %[[IY]], %[[IZ]], %[[JX]], %[[JY]], %[[JZ]], %[[C32]], %[[C1]], %[[C1]], %[[G]], %[[G]], %[[C1]])
module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    gpu.func @k2(%x: memref<?x?xf32>) kernel {
      %by = gpu.block_id y
      %tx = gpu.thread_id x
      %gx = gpu.grid_dim x
      %dy = gpu.block_dim y
      %v = arith.constant 1.0 : f32
      memref.store %v, %x[%by, %tx] : memref<?x?xf32>
      memref.store %v, %x[%gx, %dy] : memref<?x?xf32>
      gpu.return
    }
  }
  func.func @host(%a: memref<?x?xf32>, %g: index) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @dsl_kernels::@k2 blocks in (%g, %g, %c1) threads in (%c32, %c1, %c1) args(%a : memref<?x?xf32>)
    return
  }
}

// -----

// A kernel with shared memory and a barrier runs once per block: the shared
// tile is a stack allocation of the call, the code before and after the
// barrier are two loops over the threads, and the value crossing the barrier
// (%v) goes through a per-thread array.
// CHECK-LABEL: func.func private @__dsl_kernel_dsl_kernels_sync(
// CHECK: memref.alloca_scope
// CHECK: arith.muli
// CHECK: %[[N:.*]] = arith.muli
// CHECK-DAG: %[[TILE:.*]] = memref.alloca() : memref<64xf32>
// CHECK-DAG: %[[KEEP:.*]] = memref.alloca(%[[N]]) : memref<?xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[T1:.*]] =
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[T1]]] : memref<?xf32>
// CHECK: memref.store %[[V]], %[[KEEP]]
// CHECK: memref.store %[[V]], %[[TILE]][%[[T1]]]
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[T2:.*]] =
// CHECK: %[[W:.*]] = memref.load %[[TILE]]
// CHECK: %[[OLD:.*]] = memref.load %[[KEEP]]
// CHECK: arith.addf %[[W]], %[[OLD]]
// CHECK-LABEL: func.func @host(
// CHECK: scf.parallel
// CHECK-NOT: scf.for
// CHECK: func.call @__dsl_kernel_dsl_kernels_sync(
module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    gpu.func @sync(%x: memref<?xf32>) workgroup(%t : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %tx = gpu.thread_id x
      %c63 = arith.constant 63 : index
      %v = memref.load %x[%tx] : memref<?xf32>
      memref.store %v, %t[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c63, %tx : index
      %w = memref.load %t[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %w, %v : f32
      memref.store %s, %x[%tx] : memref<?xf32>
      gpu.return
    }
  }
  func.func @host(%a: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @dsl_kernels::@sync blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<?xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    gpu.func @divergent(%x: memref<?xf32>, %c: i1) kernel {
      scf.if %c {
        // expected-error @+1 {{the cpu backend runs barriers at the top level of a kernel or in for loops only, not inside 'scf.if'}}
        gpu.barrier
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    // expected-error @+1 {{kernel 'private' uses private memory attributions, which the cpu backend does not support}}
    gpu.func @private(%x: memref<?xf32>) private(%w : memref<32xf32, #gpu.address_space<private>>) kernel {
      gpu.return
    }
  }
}

// -----

// A compare-and-swap (pl.atomic_cas) becomes an llvm.cmpxchg on the element's
// address (row-major: (i * dim1 + j) * 4 bytes past the aligned pointer).
// CHECK-LABEL: func.func private @__dsl_kernel_dsl_kernels_cas(
// CHECK-SAME: %[[M:[a-z0-9]+]]: memref<?x?xi32>, %[[E:[a-z0-9]+]]: i32, %[[N:[a-z0-9]+]]: i32
// CHECK: %[[D1:.*]] = memref.dim %[[M]], %{{.*}}
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[M]]
// CHECK: %[[PTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK: %[[PAIR:.*]] = llvm.cmpxchg %[[PTR]], %[[E]], %[[N]] seq_cst seq_cst : !llvm.ptr, i32
// CHECK: %[[OLD:.*]] = llvm.extractvalue %[[PAIR]][0]
// CHECK: memref.store %[[OLD]], %[[M]]
// CHECK-NOT: generic_atomic_rmw
module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    gpu.func @cas(%m: memref<?x?xi32>, %e: i32, %n: i32) kernel {
      %tx = gpu.thread_id x
      %old = memref.generic_atomic_rmw %m[%tx, %tx] : memref<?x?xi32> {
      ^bb0(%cur: i32):
        %eq = arith.cmpi eq, %cur, %e : i32
        %v = arith.select %eq, %n, %cur : i32
        memref.atomic_yield %v : i32
      }
      memref.store %old, %m[%tx, %tx] : memref<?x?xi32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    gpu.func @mul(%m: memref<?xi32>, %n: i32) kernel {
      %tx = gpu.thread_id x
      // expected-error @+1 {{the cpu backend runs memref.generic_atomic_rmw only as a compare-and-swap (pl.atomic_cas) of an identity-layout memref}}
      %old = memref.generic_atomic_rmw %m[%tx] : memref<?xi32> {
      ^bb0(%cur: i32):
        %v = arith.muli %cur, %n : i32
        memref.atomic_yield %v : i32
      }
      gpu.return
    }
  }
}

// -----

// A warp shuffle runs as a store of every thread's value, a barrier (two
// thread loops) and a load of the source lane's value; gpu.lane_id is the
// thread's linear index modulo 32.
// CHECK-LABEL: func.func private @__dsl_kernel_dsl_kernels_shfl(
// CHECK: memref.alloca_scope
// CHECK: %[[VALS:.*]] = memref.alloca(%{{.*}}) : memref<?xi32>
// CHECK: scf.for
// CHECK: arith.remui %{{.*}}, %{{.*}} : index
// CHECK: memref.store %{{.*}}, %[[VALS]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.xori
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: %[[SRC:.*]] = arith.select %[[OK]]
// CHECK: memref.load %[[VALS]][%[[SRC]]]
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.lane_id
module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    gpu.func @shfl(%x: memref<?xi32>) kernel {
      %lane = gpu.lane_id
      %v = arith.index_cast %lane : index to i32
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %r, %ok = gpu.shuffle xor %v, %c1, %c32 : i32
      %tx = gpu.thread_id x
      memref.store %r, %x[%tx] : memref<?xi32>
      gpu.return
    }
  }
}
