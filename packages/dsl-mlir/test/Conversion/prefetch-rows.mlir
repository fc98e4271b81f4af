// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-prefetch-rows))' | FileCheck %s

// A fused softmax-like row loop: the first inner loop reads the row through a
// view of the argument, the second reads it directly; both are one stream
// (one buffer), prefetched once per 64-byte line of the last loop's step for
// the next row (the row itself on the last one). The row temporary and the
// row-invariant vector are not prefetched.
// CHECK-LABEL: func.func @rows
// CHECK: scf.for %[[I:.*]] = %c0 to %c64 step %c1 {
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c64 iter_args
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[PLUS:.*]] = arith.addi %[[I]], %[[ONE]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[PLUS]], %c64 : index
// CHECK-NEXT: %[[NEXT:.*]] = arith.select %[[IN]], %[[PLUS]], %[[I]] : index
// CHECK: scf.for %[[J:.*]] = %c0 to %c256 step %c32 {
// CHECK-NEXT: %[[VIEW:.*]] = memref.subview %arg0[%[[NEXT]], 0] [1, 256] [1, 1]
// CHECK-NEXT: memref.prefetch %[[VIEW]][%c0, %[[J]]], read, locality<3>, data
// CHECK-NEXT: %[[OFF:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[J16:.*]] = arith.addi %[[J]], %[[OFF]] : index
// CHECK-NEXT: %[[COL:.*]] = arith.minsi %[[J16]], %{{.*}} : index
// CHECK-NEXT: %[[VIEW2:.*]] = memref.subview %arg0[%[[NEXT]], 0] [1, 256] [1, 1]
// CHECK-NEXT: memref.prefetch %[[VIEW2]][%c0, %[[COL]]], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @rows(%x: memref<64x256xf32>, %g: memref<256xf32>, %out: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<64xf32>
  %tmp = memref.alloc() : memref<256xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %row = memref.subview %x[%i, 0] [1, 256] [1, 1] : memref<64x256xf32> to memref<1x256xf32, strided<[256, 1], offset: ?>>
    %s = scf.for %j = %c0 to %c256 step %c64 iter_args(%acc = %init) -> (vector<64xf32>) {
      %v = vector.transfer_read %row[%c0, %j], %pad {in_bounds = [true]} : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<64xf32>
      %t = vector.transfer_read %tmp[%j], %pad {in_bounds = [true]} : memref<256xf32>, vector<64xf32>
      %a = arith.addf %v, %acc : vector<64xf32>
      %b = arith.addf %a, %t : vector<64xf32>
      scf.yield %b : vector<64xf32>
    }
    scf.for %j = %c0 to %c256 step %c32 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x256xf32>, vector<32xf32>
      %w = vector.transfer_read %g[%j], %pad {in_bounds = [true]} : memref<256xf32>, vector<32xf32>
      %p = arith.mulf %v, %w : vector<32xf32>
      vector.transfer_write %p, %out[%i, %j] {in_bounds = [true]} : vector<32xf32>, memref<64x256xf32>
    }
  }
  memref.dealloc %tmp : memref<256xf32>
  return
}

// -----

// A parallel row loop (scf.forall) of dynamic size: the next row is clamped
// to the forall's bound. A row of unknown length is prefetched into L2
// (locality<2>, x86's prefetcht1), not L1.
// CHECK-LABEL: func.func @forall
// CHECK: scf.forall (%[[I:.*]]) in (%[[N:.*]]) {
// CHECK: %[[PLUS:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[PLUS]], %[[N]] : index
// CHECK-NEXT: %[[NEXT:.*]] = arith.select %[[IN]], %[[PLUS]], %[[I]] : index
// CHECK: scf.for %[[J:.*]] =
// CHECK-NEXT: memref.prefetch %arg0[%[[NEXT]], %[[J]]], read, locality<2>, data
// CHECK-NOT: memref.prefetch
func.func @forall(%x: memref<?x?xf32>, %n: index, %m: index, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<16xf32>
  scf.forall (%i) in (%n) {
    %s = scf.for %j = %c0 to %m step %c16 iter_args(%acc = %init) -> (vector<16xf32>) {
      %v = vector.transfer_read %x[%i, %j], %pad : memref<?x?xf32>, vector<16xf32>
      %a = arith.addf %v, %acc : vector<16xf32>
      scf.yield %a : vector<16xf32>
    }
    scf.for %j = %c0 to %m step %c16 {
      vector.transfer_write %s, %out[%i, %j] : vector<16xf32>, memref<?x?xf32>
    }
  }
  return
}

// -----

// Left alone: one inner loop (the hardware follows a single stream), inner
// loops over different ranges, a scalar loop (a prefetch per element), a read
// whose address depends on a loaded value, and a row loop of step 2.
// CHECK-LABEL: func.func @refused
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @refused(%x: memref<64x256xf32>, %idx: memref<64xindex>, %out: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x256xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x256xf32>
    }
  }
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c128 step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x256xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x256xf32>
    }
    scf.for %j = %c0 to %c256 step %c16 {
      memref.store %pad, %out[%i, %j] : memref<64x256xf32>
    }
  }
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = memref.load %x[%i, %j] : memref<64x256xf32>
      memref.store %v, %out[%i, %j] : memref<64x256xf32>
    }
    scf.for %j = %c0 to %c256 step %c1 {
      memref.store %pad, %out[%i, %j] : memref<64x256xf32>
    }
  }
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c256 step %c16 {
      %r = memref.load %idx[%i] : memref<64xindex>
      %v = vector.transfer_read %x[%r, %j], %pad {in_bounds = [true]} : memref<64x256xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x256xf32>
    }
    scf.for %j = %c0 to %c256 step %c16 {
      memref.store %pad, %out[%i, %j] : memref<64x256xf32>
    }
  }
  scf.for %i = %c0 to %c64 step %c2 {
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x256xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x256xf32>
    }
    scf.for %j = %c0 to %c256 step %c16 {
      memref.store %pad, %out[%i, %j] : memref<64x256xf32>
    }
  }
  return
}

// -----

// Three inner loops: the prefetches go into the one with the most work per
// iteration after the first (the exp-like middle one), not the short last one.
// CHECK-LABEL: func.func @heaviest
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c16 {
// CHECK-NOT: memref.prefetch
// CHECK: scf.for %[[J:.*]] = %c0 to %c256 step %c16 {
// CHECK-NEXT: memref.prefetch %arg0[%{{.*}}, %[[J]]], read, locality<3>, data
// CHECK: math.exp
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c16 {
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @heaviest(%x: memref<64x256xf32>, %tmp: memref<256xf32>, %out: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x256xf32>, vector<16xf32>
      vector.transfer_write %v, %tmp[%j] {in_bounds = [true]} : vector<16xf32>, memref<256xf32>
    }
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %tmp[%j], %pad {in_bounds = [true]} : memref<256xf32>, vector<16xf32>
      %e = math.exp %v : vector<16xf32>
      %f = arith.mulf %e, %e : vector<16xf32>
      %g = arith.addf %f, %v : vector<16xf32>
      vector.transfer_write %g, %tmp[%j] {in_bounds = [true]} : vector<16xf32>, memref<256xf32>
    }
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %tmp[%j], %pad {in_bounds = [true]} : memref<256xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x256xf32>
    }
  }
  return
}

// -----

// The cache level follows the next row's bytes over all streams: 2048 f32
// (8 KiB, the most that goes to L1) in @l1_row; 4096 f32 in @l2_row and two
// streams of 1536 f32 (12 KiB together) in @l2_streams go to L2, where they
// do not evict the current row and its temporaries from a 32 KiB L1.
// CHECK-LABEL: func.func @l1_row
// CHECK: memref.prefetch %arg0[%{{.*}}, %{{.*}}], read, locality<3>, data
// CHECK-LABEL: func.func @l2_row
// CHECK: memref.prefetch %arg0[%{{.*}}, %{{.*}}], read, locality<2>, data
// CHECK-LABEL: func.func @l2_streams
// CHECK-DAG: memref.prefetch %arg0[%{{.*}}, %{{.*}}], read, locality<2>, data
// CHECK-DAG: memref.prefetch %arg1[%{{.*}}, %{{.*}}], read, locality<2>, data
func.func @l1_row(%x: memref<8x2048xf32>, %out: memref<8x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %n = arith.constant 2048 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %n step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<8x2048xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<8x2048xf32>
    }
    scf.for %j = %c0 to %n step %c16 {
      %v = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true]} : memref<8x2048xf32>, vector<16xf32>
      %e = math.exp %v : vector<16xf32>
      vector.transfer_write %e, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<8x2048xf32>
    }
  }
  return
}
func.func @l2_row(%x: memref<8x4096xf32>, %out: memref<8x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %n = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %n step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<8x4096xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<8x4096xf32>
    }
    scf.for %j = %c0 to %n step %c16 {
      %v = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true]} : memref<8x4096xf32>, vector<16xf32>
      %e = math.exp %v : vector<16xf32>
      vector.transfer_write %e, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<8x4096xf32>
    }
  }
  return
}
func.func @l2_streams(%x: memref<8x1536xf32>, %y: memref<8x1536xf32>, %out: memref<8x1536xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %n = arith.constant 1536 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %n step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<8x1536xf32>, vector<16xf32>
      %w = vector.transfer_read %y[%i, %j], %pad {in_bounds = [true]} : memref<8x1536xf32>, vector<16xf32>
      %s = arith.addf %v, %w : vector<16xf32>
      vector.transfer_write %s, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<8x1536xf32>
    }
    scf.for %j = %c0 to %n step %c16 {
      %v = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true]} : memref<8x1536xf32>, vector<16xf32>
      %e = math.exp %v : vector<16xf32>
      vector.transfer_write %e, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<8x1536xf32>
    }
  }
  return
}
