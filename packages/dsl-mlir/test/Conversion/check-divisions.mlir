// RUN: dsl-opt %s --dsl-check-divisions | FileCheck %s

// A divisor that may be zero: checked (a ZeroDivisionError through the hook),
// and replaced by 1 where it is 0 or, for signed ops, where the quotient
// overflows (smallest value by -1).
// The messages name the op's location; the hook reports a ZeroDivisionError ('Z').
// CHECK: llvm.mlir.global internal constant @__dsl_error_message_{{.*}}("Z{{.*}}check-divisions.mlir:{{[0-9]+}}:8: integer division or modulo by zero\00")
// CHECK-LABEL: func.func @signed(
// CHECK-SAME: %[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[B]], %[[ZERO]] : i32
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[B]], %[[ZERO]] : i32
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[M1:.*]] = arith.constant -1 : i32
// CHECK: %[[ISMIN:.*]] = arith.cmpi eq, %[[A]], %[[MIN]] : i32
// CHECK: %[[ISM1:.*]] = arith.cmpi eq, %[[B]], %[[M1]] : i32
// CHECK: %[[OVF:.*]] = arith.andi %[[ISMIN]], %[[ISM1]] : i1
// CHECK: %[[UNSAFE:.*]] = arith.ori %[[Z]], %[[OVF]] : i1
// CHECK: scf.if
// CHECK: llvm.call
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[SAFE:.*]] = arith.select %[[UNSAFE]], %[[ONE]], %[[B]] : i32
// CHECK: arith.floordivsi %[[A]], %[[SAFE]] : i32
func.func @signed(%a: i32, %b: i32) -> i32 {
  %q = arith.floordivsi %a, %b : i32
  return %q : i32
}

// Unsigned ops only check for zero; index divisions too.
// CHECK-LABEL: func.func @unsigned_and_index(
// CHECK: %[[UNSAFE:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK-NOT: arith.andi
// CHECK: %[[SAFE:.*]] = arith.select %[[UNSAFE]], %{{.*}}, %{{.*}} : i64
// CHECK: arith.remui %{{.*}}, %[[SAFE]] : i64
// CHECK: %[[ISMIN:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK: arith.divsi
func.func @unsigned_and_index(%a: i64, %b: i64, %i: index, %j: index) -> (i64, index) {
  %r = arith.remui %a, %b : i64
  %q = arith.divsi %i, %j : index
  return %r, %q : i64, index
}

// Constant divisors other than 0 (and -1 for signed ops) need no check;
// a constant 0 is still reported.
// CHECK-LABEL: func.func @constants(
// CHECK: arith.ceildivsi %{{.*}}, %[[C7:.*]] : index
// CHECK: arith.divui %{{.*}}, %[[CM1:.*]] : i32
// CHECK: arith.cmpi ne
// CHECK: llvm.call
// CHECK: arith.remsi
func.func @constants(%i: index, %a: i32) -> (index, i32, i32) {
  %c7 = arith.constant 7 : index
  %m1 = arith.constant -1 : i32
  %z = arith.constant 0 : i32
  %q = arith.ceildivsi %i, %c7 : index
  %u = arith.divui %a, %m1 : i32
  %r = arith.remsi %a, %z : i32
  return %q, %u, %r : index, i32, i32
}
