// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-nontemporal-stores{min-bytes=4096}))' | FileCheck %s
// RUN: dsl-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dsl-nontemporal-stores{min-bytes=0}))' | FileCheck %s --check-prefix=OFF

// A large output written row by row: the row loop's inner loop is versioned on
// the output's alignment. Its stores are whole 64-byte vectors at 64-byte steps,
// so first on 64 bytes (first element and row stride): whole-register
// streaming stores; else on 16 bytes: streaming stores LLVM splits; else the
// loop as it was. A fence follows the outermost loop.
// CHECK-LABEL: func.func @rows
// CHECK: %[[PTR64:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[FIRST64:.*]] = arith.addi %[[PTR64]]
// CHECK: %[[REM64:.*]] = arith.remui %[[FIRST64]], %c64
// CHECK: %[[OK64:.*]] = arith.cmpi eq, %[[REM64]]
// CHECK: %[[ALIGNED64:.*]] = arith.andi %[[OK64]]
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[FIRST:.*]] = arith.addi %[[PTR]]
// CHECK: %[[REM:.*]] = arith.remui %[[FIRST]], %c16
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[REM]]
// CHECK: %[[ALIGNED:.*]] = arith.andi %[[OK]]
// CHECK: scf.for
// CHECK: scf.if %[[ALIGNED64]] {
// CHECK:   scf.for
// CHECK:     vector.store %{{.*}}, %{{.*}} {alignment = 64 : i64, nontemporal = true} : memref<1x16xf32, strided<[1024, 1], offset: ?>>, vector<16xf32>
// CHECK: } else {
// CHECK: scf.if %[[ALIGNED]] {
// CHECK:   scf.for
// CHECK:     vector.store %{{.*}}, %{{.*}} {alignment = 16 : i64, nontemporal = true} : memref<1x16xf32, strided<[1024, 1], offset: ?>>, vector<16xf32>
// CHECK: } else {
// CHECK:   scf.for
// CHECK:     vector.transfer_write
// CHECK: {{llvm.call_intrinsic "llvm.x86.sse.sfence"|llvm.fence seq_cst}}
// CHECK-NEXT: return
// OFF-LABEL: func.func @rows
// OFF-NOT: nontemporal
// OFF-NOT: {{sfence|llvm.fence}}
func.func @rows(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  scf.for %i = %c0 to %c64 step %c1 {
    %row = memref.subview %out[%i, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x1024xf32>, vector<16xf32>
      %w = arith.addf %v, %v : vector<16xf32>
      %piece = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x1024xf32, strided<[1024, 1], offset: ?>> to memref<1x16xf32, strided<[1024, 1], offset: ?>>
      vector.transfer_write %w, %piece[%c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x16xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// Stores of 16-byte vectors: no 64-byte copy (a 64-byte aligned output gains
// nothing), only the 16-byte one.
// CHECK-LABEL: func.func @narrow
// CHECK-NOT: %c64
// CHECK: scf.if
// CHECK:   vector.store {{.*}} {alignment = 16 : i64, nontemporal = true} {{.*}} vector<4xf32>
// CHECK: } else {
// CHECK:   vector.transfer_write
func.func @narrow(%x: memref<4096xf32>, %out: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c4096 = arith.constant 4096 : index
  %pad = ub.poison : f32
  scf.for %j = %c0 to %c4096 step %c4 {
    %v = vector.transfer_read %x[%j], %pad {in_bounds = [true]} : memref<4096xf32>, vector<4xf32>
    vector.transfer_write %v, %out[%j] {in_bounds = [true]} : vector<4xf32>, memref<4096xf32>
  }
  return
}

// -----

// Dynamic sizes: the size is checked at run time too; a loop with results
// keeps them through the scf.if.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[BASE:.*]], %[[OFFSET:.*]], %[[SIZE:.*]], %[[STRIDE:.*]] = memref.extract_strided_metadata %arg1
// CHECK: %[[BYTES:.*]] = arith.muli %c4{{.*}}, %[[SIZE]]
// CHECK: %[[LARGE:.*]] = arith.cmpi uge, %[[BYTES]], %c4096
// CHECK: %[[COND:.*]] = arith.andi %{{.*}}, %[[LARGE]]
// CHECK: %[[R:.*]] = scf.if %[[COND]] -> (vector<16xf32>) {
// CHECK:   vector.store {{.*}}nontemporal = true
// CHECK: {{llvm.call_intrinsic "llvm.x86.sse.sfence"|llvm.fence seq_cst}}
// CHECK: return %[[R]]
func.func @dynamic(%x: memref<?xf32>, %out: memref<?xf32>, %n: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %pad = ub.poison : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %acc = scf.for %j = %c0 to %n step %c16 iter_args(%a = %zero) -> (vector<16xf32>) {
    %v = vector.transfer_read %x[%j], %pad {in_bounds = [true]} : memref<?xf32>, vector<16xf32>
    vector.transfer_write %v, %out[%j] {in_bounds = [true]} : vector<16xf32>, memref<?xf32>
    %s = arith.addf %a, %v : vector<16xf32>
    scf.yield %s : vector<16xf32>
  }
  return %acc : vector<16xf32>
}

// -----

// Left alone: a buffer under min-bytes, one the function also reads, an
// offset that is not a whole 16 bytes, 2-byte elements, a masked store.
// CHECK-LABEL: func.func @small
// CHECK-NOT: nontemporal
// CHECK-NOT: llvm.fence
func.func @small(%x: memref<256xf32>, %out: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %pad = ub.poison : f32
  scf.for %j = %c0 to %c256 step %c16 {
    %v = vector.transfer_read %x[%j], %pad {in_bounds = [true]} : memref<256xf32>, vector<16xf32>
    vector.transfer_write %v, %out[%j] {in_bounds = [true]} : vector<16xf32>, memref<256xf32>
  }
  return
}

// CHECK-LABEL: func.func @read_back
// CHECK-NOT: nontemporal
func.func @read_back(%out: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %pad = ub.poison : f32
  scf.for %j = %c0 to %c4096 step %c16 {
    %v = vector.transfer_read %out[%j], %pad {in_bounds = [true]} : memref<4096xf32>, vector<16xf32>
    %w = arith.addf %v, %v : vector<16xf32>
    vector.transfer_write %w, %out[%j] {in_bounds = [true]} : vector<16xf32>, memref<4096xf32>
  }
  return
}

// CHECK-LABEL: func.func @odd_offset
// CHECK-NOT: nontemporal
func.func @odd_offset(%x: memref<4096xf32>, %out: memref<4096xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c4080 = arith.constant 4080 : index
  %pad = ub.poison : f32
  scf.for %j = %c1 to %c4080 step %c16 {
    %v = vector.transfer_read %x[%j], %pad {in_bounds = [true]} : memref<4096xf32>, vector<16xf32>
    vector.transfer_write %v, %out[%j] {in_bounds = [true]} : vector<16xf32>, memref<4096xf32>
  }
  return
}

// CHECK-LABEL: func.func @half
// CHECK-NOT: nontemporal
func.func @half(%x: memref<8192xf16>, %out: memref<8192xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c8192 = arith.constant 8192 : index
  %pad = ub.poison : f16
  scf.for %j = %c0 to %c8192 step %c32 {
    %v = vector.transfer_read %x[%j], %pad {in_bounds = [true]} : memref<8192xf16>, vector<32xf16>
    vector.transfer_write %v, %out[%j] {in_bounds = [true]} : vector<32xf16>, memref<8192xf16>
  }
  return
}

// CHECK-LABEL: func.func @masked
// CHECK-NOT: nontemporal
func.func @masked(%x: memref<4096xf32>, %out: memref<4096xf32>, %m: vector<16xi1>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %pad = ub.poison : f32
  scf.for %j = %c0 to %c4096 step %c16 {
    %v = vector.transfer_read %x[%j], %pad {in_bounds = [true]} : memref<4096xf32>, vector<16xf32>
    vector.transfer_write %v, %out[%j], %m {in_bounds = [true]} : vector<16xf32>, memref<4096xf32>
  }
  return
}

// -----

// Parallel rows: the fence ends each task's work, inside the scf.forall body.
// CHECK-LABEL: func.func @forall
// CHECK: scf.forall
// CHECK: scf.if
// CHECK: vector.store {{.*}}nontemporal = true
// CHECK: {{llvm.call_intrinsic "llvm.x86.sse.sfence"|llvm.fence seq_cst}}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @forall(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  scf.forall (%i) in (64) {
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x1024xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x1024xf32>
    }
  }
  return
}
