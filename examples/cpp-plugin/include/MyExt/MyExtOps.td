//===- MyExtOps.td - the `myext` dialect -------------------*- tablegen -*-===//
#ifndef MYEXT_OPS
#define MYEXT_OPS

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MyExt_Dialect : Dialect {
  let name = "myext";
  let cppNamespace = "::myext";
  let summary = "An example dialect that dsl-mlir loads as a plugin";
}

class MyExt_Op<string mnemonic, list<Trait> traits = []>
    : Op<MyExt_Dialect, mnemonic, traits>;

def MyExt_SquareOp : MyExt_Op<"square", [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise x * x";
  let description = [{
    `myext.square %x : tensor<?xf32>` squares every element of a ranked
    tensor of floats. The plugin's pass `myext-lower-square` rewrites it into
    `dsl.mul %x, %x`, which dsl-mlir's pipelines compile.
  }];
  let arguments = (ins RankedTensorOf<[AnyFloat]>:$input);
  let results = (outs RankedTensorOf<[AnyFloat]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

#endif // MYEXT_OPS
