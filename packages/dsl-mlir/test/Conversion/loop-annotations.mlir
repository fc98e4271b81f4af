// RUN: dsl-opt %s --dsl-loop-annotations | FileCheck %s

// The annotation convert-scf-to-cf leaves on a back edge as a discardable
// attribute becomes the branch's loop_annotation (emitted as !llvm.loop).
// The access group it lists as parallel accesses goes on the loads and stores
// of the loop (header, body, latch), not on those before or after it.
// CHECK: #[[GROUP:.*]] = #llvm.access_group<id = distinct[{{.*}}]<>>
// CHECK: #[[ANN:.*]] = #llvm.loop_annotation<vectorize = #{{.*}}, parallelAccesses = #[[GROUP]]>
// CHECK-LABEL: llvm.func @f(
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: ^bb1(
// CHECK: llvm.load %{{.*}} {access_groups = [#[[GROUP]]]} : !llvm.ptr -> i64
// CHECK: ^bb2:
// CHECK: llvm.load %{{.*}} {access_groups = [#[[GROUP]]]} : !llvm.ptr -> f32
// CHECK: llvm.store %{{.*}}, %{{.*}} {access_groups = [#[[GROUP]]]} : f32, !llvm.ptr
// CHECK: llvm.br ^bb1(%{{.*}} : i64) {loop_annotation = #[[ANN]]}
// CHECK: ^bb3:
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK-NOT: llvm.loop_annotation =
#vec = #llvm.loop_vectorize<disable = false>
#group = #llvm.access_group<id = distinct[0]<>>
#ann = #llvm.loop_annotation<vectorize = #vec, parallelAccesses = #group>
llvm.func @f(%p: !llvm.ptr, %q: !llvm.ptr) {
  %0 = llvm.mlir.constant(0 : i64) : i64
  %1 = llvm.mlir.constant(1 : i64) : i64
  %n = llvm.load %p : !llvm.ptr -> i64
  llvm.br ^bb1(%0 : i64)
^bb1(%i: i64):
  %m = llvm.load %p : !llvm.ptr -> i64
  %c = llvm.icmp "slt" %i, %m : i64
  llvm.cond_br %c, ^bb2, ^bb3
^bb2:
  %a = llvm.getelementptr %q[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %a : !llvm.ptr -> f32
  llvm.store %v, %a : f32, !llvm.ptr
  %next = llvm.add %i, %1 : i64
  llvm.br ^bb1(%next : i64) {llvm.loop_annotation = #ann}
^bb3:
  %w = llvm.mlir.constant(0.0 : f32) : f32
  llvm.store %w, %q : f32, !llvm.ptr
  llvm.return
}
