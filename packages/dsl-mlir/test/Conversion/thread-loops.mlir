// RUN: dsl-opt %s --pass-pipeline='builtin.module(func.func(dsl-thread-loops))' --split-input-file | FileCheck %s

// The guard `block * 256 + t < n` of a vector add becomes the bound of the
// thread loop; blocks whose 256 threads all pass it run a copy over the
// constant bounds. Both loops ask LLVM to vectorize them.
// Each loop lists an access group of its own as parallel accesses.
// CHECK-DAG: #[[VEC:.*]] = #llvm.loop_vectorize<disable = false>
// CHECK-DAG: #[[G1:.*]] = #llvm.access_group<id = distinct[0]<>>
// CHECK-DAG: #[[G2:.*]] = #llvm.access_group<id = distinct[1]<>>
// CHECK-DAG: #[[ANN1:.*]] = #llvm.loop_annotation<vectorize = #[[VEC]], parallelAccesses = #[[G1]]>
// CHECK-DAG: #[[ANN2:.*]] = #llvm.loop_annotation<vectorize = #[[VEC]], parallelAccesses = #[[G2]]>
// CHECK-LABEL: func.func @vadd(
// CHECK-SAME: %[[X:.*]]: memref<?xf32>, %[[Z:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[B:.*]]: index)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[M:.*]] = arith.muli %[[B]], %[[C256]]
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %[[M]]
// CHECK: %[[LIM:.*]] = arith.subi %[[N]], %[[OFF]]
// CHECK: %[[UB:.*]] = arith.minsi %[[C256]], %[[LIM]]
// CHECK: %[[SAME_LB:.*]] = arith.cmpi eq, %[[C0]], %[[C0]]
// CHECK: %[[SAME_UB:.*]] = arith.cmpi eq, %[[UB]], %[[C256]]
// CHECK: %[[WHOLE:.*]] = arith.andi %[[SAME_LB]], %[[SAME_UB]]
// CHECK: scf.if %[[WHOLE]] {
// CHECK-NEXT: scf.for %[[T:.*]] = %[[C0]] to %[[C256]]
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK-NEXT: } {llvm.loop_annotation = #[[ANN1]]}
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %{{.*}} = %[[C0]] to %[[UB]]
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK-NEXT: } {llvm.loop_annotation = #[[ANN2]]}
// CHECK-NOT: dsl.thread_loop
func.func @vadd(%x: memref<?xf32>, %z: memref<?xf32>, %n: index, %b: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  scf.for %t = %c0 to %c256 step %c1 {
    %m = arith.muli %b, %c256 : index
    %i = arith.addi %m, %t : index
    %ok = arith.cmpi slt, %i, %n : index
    scf.if %ok {
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %z[%i] : memref<?xf32>
    }
  } {dsl.thread_loop = 0 : i64}
  return
}

// -----

// A 2-D stencil's guard: the column conditions (with `>=` and a `- 1`)
// bound the x loop; the row conditions do not depend on it and guard the x
// loop from outside, where they bound the y loop in turn.
// CHECK-LABEL: func.func @stencil(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x?xf32>, %[[R0:[a-z0-9]+]]: index, %[[C0:[a-z0-9]+]]: index, %[[M:[a-z0-9]+]]: index, %[[N:[a-z0-9]+]]: index)
// CHECK: %[[XLB:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK: %[[XUB:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[YLB:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK: %[[YUB:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[WHOLE:.*]] = arith.andi
// CHECK: scf.for %[[TY:.*]] = %[[YLB]] to %[[YUB]]
// CHECK: scf.if %[[WHOLE]] {
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}}
// CHECK: } else {
// CHECK: scf.for %[[TX:.*]] = %[[XLB]] to %[[XUB]]
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK-NEXT: } {llvm.loop_annotation = #{{[a-z_0-9]+}}}
// CHECK-NEXT: }
// CHECK-NEXT: }{{$}}
func.func @stencil(%a: memref<?x?xf32>, %r0: index, %c0: index, %m: index, %n: index) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  scf.for %ty = %z to %c4 step %one {
    scf.for %tx = %z to %c64 step %one {
      %r = arith.addi %r0, %ty : index
      %c = arith.addi %c0, %tx : index
      %mlast = arith.subi %m, %one : index
      %nlast = arith.subi %n, %one : index
      %r_lo = arith.cmpi sge, %r, %one : index
      %r_hi = arith.cmpi slt, %r, %mlast : index
      %c_lo = arith.cmpi sge, %c, %one : index
      %c_hi = arith.cmpi slt, %c, %nlast : index
      %rows = arith.andi %r_lo, %r_hi : i1
      %rc = arith.andi %rows, %c_lo : i1
      %ok = arith.andi %rc, %c_hi : i1
      scf.if %ok {
        %cm = arith.subi %c, %one : index
        %v = memref.load %a[%r, %cm] : memref<?x?xf32>
        memref.store %v, %a[%r, %c] : memref<?x?xf32>
      }
    } {dsl.thread_loop = 0 : i64}
  } {dsl.thread_loop = 1 : i64}
  return
}

// -----

// A conjunct that is not an affine comparison of the thread id (here a
// parity test, and an unsigned comparison) stays in the loop; the others
// still bound it. With a comparison on both sides `i > lo` and `i <= hi`.
// CHECK-LABEL: func.func @residual(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?xi32>, %[[LO:[a-z0-9]+]]: index, %[[HI:[a-z0-9]+]]: index)
// CHECK: %[[LB:.*]] = arith.maxsi
// CHECK: %[[UB:.*]] = arith.minsi
// CHECK: } else {
// CHECK: scf.for %[[T:.*]] = %[[LB]] to %[[UB]]
// CHECK: %[[EVEN:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: %[[ULT:.*]] = arith.cmpi ult, %[[T]], %[[HI]] : index
// CHECK: %[[BOTH:.*]] = arith.andi %[[EVEN]], %[[ULT]] : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK: memref.store
func.func @residual(%x: memref<?xi32>, %lo: index, %hi: index) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %two = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %v = arith.constant 7 : i32
  scf.for %t = %z to %c128 step %one {
    %above = arith.cmpi sgt, %t, %lo : index
    %below = arith.cmpi sle, %t, %hi : index
    %r = arith.remsi %t, %two : index
    %even = arith.cmpi eq, %r, %z : index
    %ult = arith.cmpi ult, %t, %hi : index
    %a = arith.andi %above, %even : i1
    %b = arith.andi %a, %below : i1
    %ok = arith.andi %b, %ult : i1
    scf.if %ok {
      memref.store %v, %x[%t] : memref<?xi32>
    }
  } {dsl.thread_loop = 0 : i64}
  return
}

// -----

// A side effect outside the guard keeps the loop as it is; a thread loop
// around another loop is not marked for the vectorizer; a y loop is never.
// CHECK-LABEL: func.func @unchanged(
// CHECK: scf.for %{{.*}} = %[[Z:.*]] to %[[C64:.*]] step
// CHECK: memref.store
// CHECK: scf.if
// CHECK: } {llvm.loop_annotation =
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: scf.for
// CHECK: }
// CHECK-NEXT: }{{$}}
// CHECK-NOT: llvm.loop_annotation
// CHECK-NOT: dsl.thread_loop
// CHECK: return
func.func @unchanged(%x: memref<?xf32>, %n: index) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  scf.for %t = %z to %c64 step %one {
    memref.store %f, %x[%t] : memref<?xf32>
    %ok = arith.cmpi slt, %t, %n : index
    scf.if %ok {
      memref.store %f, %x[%n] : memref<?xf32>
    }
  } {dsl.thread_loop = 0 : i64}
  scf.for %t = %z to %c64 step %one {
    scf.for %j = %z to %n step %one {
      memref.store %f, %x[%j] : memref<?xf32>
    }
  } {dsl.thread_loop = 0 : i64}
  scf.for %t = %z to %c64 step %one {
    memref.store %f, %x[%t] : memref<?xf32>
  } {dsl.thread_loop = 1 : i64}
  return
}

// -----

// dsl-parser's short-circuit `i < n and flag and x[i] > 0` (an scf.if, since
// the last operand reads): its leading conjuncts bound the loop and guard it
// from outside, the read then happens in every iteration left, and the
// store stays guarded by its result. Reading ops before the guard do not
// stop the rewrite (the iterations cut off would only have read).
// CHECK-LABEL: func.func @short_circuit(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?xf32>, %[[N:[a-z0-9]+]]: index, %[[FLAG:[a-z0-9]+]]: i1)
// CHECK: %[[UB:.*]] = arith.minsi
// CHECK: scf.if %[[FLAG]] {
// CHECK: } {llvm.loop_annotation = #{{[a-z_0-9]+}}}
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %[[T:.*]] = %{{.*}} to %[[UB]]
// CHECK-NEXT: memref.load %[[X]][%[[T]]]
// CHECK: %[[SC:.*]] = scf.if %{{.*}} -> (i1) {
// CHECK: scf.if %[[SC]] {
// CHECK-NEXT: memref.store
func.func @short_circuit(%x: memref<?xf32>, %n: index, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %t = %c0 to %c64 step %c1 {
    %before = memref.load %x[%t] : memref<?xf32>
    %lt = arith.cmpi slt, %t, %n : index
    %a = arith.andi %lt, %flag : i1
    %sc = scf.if %a -> (i1) {
      %v = memref.load %x[%t] : memref<?xf32>
      %pos = arith.cmpf ogt, %v, %zero : f32
      scf.yield %pos : i1
    } else {
      %false = arith.constant false
      scf.yield %false : i1
    }
    scf.if %sc {
      memref.store %before, %x[%t] : memref<?xf32>
    }
  } {dsl.thread_loop = 0 : i64}
  return
}
