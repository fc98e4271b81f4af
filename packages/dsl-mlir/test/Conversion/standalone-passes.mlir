// Every dsl pass runs on its own, on IR that loads none of the dialects it
// creates (each declares them as dependent dialects).
// RUN: dsl-opt %s --dsl-emit-c-interface='internalize=true' | FileCheck %s --check-prefix=EMIT
// EMIT: func.func @f{{.*}} attributes {llvm.emit_c_interface, llvm.linkage = #llvm.linkage<internal>}
// RUN: dsl-opt %s --dsl-check-lowerable | FileCheck %s --check-prefix=CHECK
// CHECK: func.func @f
// RUN: dsl-opt %s --convert-dsl-to-linalg | FileCheck %s --check-prefix=LINALG
// LINALG: linalg.generic
// RUN: dsl-opt %s --convert-dsl-to-linalg --split-input-file | dsl-opt --pass-pipeline='builtin.module(func.func(dsl-tile))' | FileCheck %s --check-prefix=TILE
// TILE: scf.for
// RUN: dsl-opt %s --convert-dsl-to-linalg | dsl-opt --pass-pipeline='builtin.module(func.func(dsl-tile),func.func(dsl-vectorize))' | FileCheck %s --check-prefix=VEC
// VEC: vector.

func.func @f(%a: tensor<64xf32>) -> tensor<64xf32> {
  %0 = dsl.exp %a : tensor<64xf32>
  return %0 : tensor<64xf32>
}
