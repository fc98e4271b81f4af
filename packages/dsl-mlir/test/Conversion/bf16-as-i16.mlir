// RUN: dsl-opt %s --dsl-bf16-as-i16 --split-input-file | FileCheck %s

// Data movement carries i16; fpext becomes a shift into the f32 bits; the
// truncation's final bitcast to bf16 folds away.
// CHECK-LABEL: llvm.func @move
// CHECK-NOT: bf16
// CHECK: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<8xi1>, vector<8xi16>) -> vector<8xi16>
// CHECK: llvm.shufflevector %{{.*}} : vector<8xi16>
// CHECK: llvm.zext %{{.*}} : vector<4xi16> to vector<4xi32>
// CHECK: llvm.shl
// CHECK: llvm.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: llvm.store %{{.*}} : i16, !llvm.ptr
// CHECK: llvm.return
llvm.func @move(%p: !llvm.ptr, %q: !llvm.ptr, %m: vector<8xi1>, %bits: i16) -> vector<4xf32> {
  %pass = llvm.mlir.constant(dense<1.0> : vector<8xbf16>) : vector<8xbf16>
  %v = llvm.intr.masked.load %p, %m, %pass {alignment = 2 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xbf16>) -> vector<8xbf16>
  %s = llvm.shufflevector %v, %v [0, 2, 4, 6] : vector<8xbf16>
  %w = llvm.fpext %s : vector<4xbf16> to vector<4xf32>
  %b = llvm.bitcast %bits : i16 to bf16
  llvm.store %b, %q : bf16, !llvm.ptr
  llvm.return %w : vector<4xf32>
}

// -----

// Arguments, results and calls keep bf16 (the ABI) behind bitcasts; compares
// compare the f32 extensions; constants keep their bits.
// CHECK-LABEL: llvm.func @boundary(%{{.*}}: bf16, %{{.*}}: !llvm.ptr) -> bf16
// CHECK: llvm.bitcast %{{.*}} : bf16 to i16
// CHECK: llvm.mlir.constant(16256 : i16) : i16
// CHECK: llvm.fcmp "olt" %{{.*}}, %{{.*}} : f32
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i16
// CHECK: %[[R:.*]] = llvm.bitcast %{{.*}} : i16 to bf16
// CHECK: llvm.return %[[R]] : bf16
llvm.func @boundary(%x: bf16, %p: !llvm.ptr) -> bf16 {
  %one = llvm.mlir.constant(1.0 : bf16) : bf16
  %lt = llvm.fcmp "olt" %x, %one : bf16
  %r = llvm.select %lt, %x, %one : i1, bf16
  llvm.return %r : bf16
}
