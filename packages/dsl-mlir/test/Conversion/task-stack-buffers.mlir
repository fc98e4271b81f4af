// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-task-stack-buffers{max-bytes=4096}))' | FileCheck %s

// Small static temporaries of a parallel iteration (a row's mean, a row buffer
// used in a sequential loop) go on the stack, released at the end of each
// iteration (stack save and restore);
// the others stay: a dynamic size, one over max-bytes, one yielded by a loop,
// one stored into memory, one outside the forall. The moved ones lose their
// dealloc.
// CHECK-LABEL: func.func @rows
// CHECK: %[[OUTSIDE:.*]] = memref.alloc() : memref<4xf32>
// CHECK: scf.forall
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: %[[MEAN:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1xf32>
// CHECK-NEXT: %[[ROW:.*]] = memref.alloca() : memref<1x256xf32>
// CHECK-NOT: memref.alloca
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.alloc() : memref<2048xf32>
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: memref.store %{{.*}}, %arg2
// CHECK-NEXT: memref.dealloc %{{.*}} : memref<2048xf32>
// CHECK-NEXT: llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @rows(%x: memref<64x256xf32>, %n: index, %keep: memref<1xmemref<16xf32>>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %f = arith.constant 1.0 : f32
  %outside = memref.alloc() : memref<4xf32>
  scf.forall (%i) in (64) {
    %mean = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
    memref.store %f, %mean[%c0] : memref<1xf32>
    scf.for %j = %c0 to %c256 step %c1 {
      %row = memref.alloc() : memref<1x256xf32>
      %v = memref.load %x[%i, %j] : memref<64x256xf32>
      memref.store %v, %row[%c0, %j] : memref<1x256xf32>
      %view = memref.subview %row[0, 0] [1, 16] [1, 1] : memref<1x256xf32> to memref<1x16xf32, strided<[256, 1]>>
      %w = memref.load %view[%c0, %c1] : memref<1x16xf32, strided<[256, 1]>>
    }
    %dyn = memref.alloc(%n) : memref<?xf32>
    memref.store %f, %dyn[%c0] : memref<?xf32>
    %big = memref.alloc() : memref<2048xf32>
    memref.store %f, %big[%c0] : memref<2048xf32>
    %carried = memref.alloc() : memref<8xf32>
    %last = scf.for %j = %c0 to %c1 step %c1 iter_args(%b = %carried) -> (memref<8xf32>) {
      scf.yield %b : memref<8xf32>
    }
    %stored = memref.alloc() : memref<16xf32>
    memref.store %stored, %keep[%c0] : memref<1xmemref<16xf32>>
    memref.dealloc %mean : memref<1xf32>
    memref.dealloc %big : memref<2048xf32>
  }
  return %outside : memref<4xf32>
}

// -----

// No candidate: the forall is left as it was.
// CHECK-LABEL: func.func @none
// CHECK: scf.forall
// CHECK-NOT: stacksave
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
func.func @none(%n: index) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  scf.forall (%i) in (8) {
    %dyn = memref.alloc(%n) : memref<?xf32>
    memref.store %f, %dyn[%c0] : memref<?xf32>
  }
  return
}

