//===- MyExtPasses.td - passes of the `myext` plugin --------*- tablegen -*-===//
#ifndef MYEXT_PASSES
#define MYEXT_PASSES

include "mlir/Pass/PassBase.td"

def MyExtLowerSquare : Pass<"myext-lower-square"> {
  let summary = "Rewrite myext.square x into dsl.mul x, x";
  let dependentDialects = ["::mlir::dsl::DslDialect"];
}

#endif // MYEXT_PASSES
