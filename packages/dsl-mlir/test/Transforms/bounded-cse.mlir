// RUN: dsl-opt %s --pass-pipeline='builtin.module(func.func(dsl-bounded-cse))' | FileCheck %s --check-prefix=ALL
// RUN: dsl-opt %s --pass-pipeline='builtin.module(func.func(dsl-bounded-cse{max-region-ops=1}))' | FileCheck %s --check-prefix=BODIES

// Two loops with the same bounds and the same (merged) destination, identical
// bodies. Within the bound the function gets upstream `cse`: the empty
// tensors, then the loops, are merged, and so is the duplicated addf inside.
// Past it (two loops, bound 1) only each loop's body is simplified: the
// duplicated addf goes, the loops and their destinations stay.

// ALL-LABEL: func.func @two_loops
// ALL-COUNT-1: tensor.empty
// ALL-COUNT-1: scf.for
// ALL-NOT: scf.for
// ALL: arith.addf
// ALL-NOT: arith.addf
// ALL: return %[[R:.*]], %[[R]]

// BODIES-LABEL: func.func @two_loops
// BODIES: tensor.empty
// BODIES: scf.for
// BODIES: arith.addf
// BODIES-NOT: arith.addf
// BODIES: scf.yield
// BODIES: tensor.empty
// BODIES: scf.for
// BODIES: arith.addf
// BODIES-NOT: arith.addf
// BODIES: scf.yield
func.func @two_loops(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %e0 = tensor.empty() : tensor<64xf32>
  %a = scf.for %i = %c0 to %c64 step %c1 iter_args(%t = %e0) -> (tensor<64xf32>) {
    %v = tensor.extract %x[%i] : tensor<64xf32>
    %s = arith.addf %v, %v : f32
    %s2 = arith.addf %v, %v : f32
    %m = arith.mulf %s, %s2 : f32
    %u = tensor.insert %m into %t[%i] : tensor<64xf32>
    scf.yield %u : tensor<64xf32>
  }
  %e1 = tensor.empty() : tensor<64xf32>
  %b = scf.for %i = %c0 to %c64 step %c1 iter_args(%t = %e1) -> (tensor<64xf32>) {
    %v = tensor.extract %x[%i] : tensor<64xf32>
    %s = arith.addf %v, %v : f32
    %s2 = arith.addf %v, %v : f32
    %m = arith.mulf %s, %s2 : f32
    %u = tensor.insert %m into %t[%i] : tensor<64xf32>
    scf.yield %u : tensor<64xf32>
  }
  return %a, %b : tensor<64xf32>, tensor<64xf32>
}
