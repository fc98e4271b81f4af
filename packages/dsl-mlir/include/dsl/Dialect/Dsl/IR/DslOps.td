//===- DslOps.td - the `dsl` dialect, defined once --------------*- tablegen -*-===//
//
// The single source of the `dsl` dialect: mlir-tblgen generates the C++ op
// classes (lib/Dialect/Dsl/IR) and the Python op classes
// (dsl_mlir._mlir.dialects.dsl) from this file.
//
//===----------------------------------------------------------------------===//

#ifndef DSL_DIALECT_DSL_IR_DSLOPS_TD
#define DSL_DIALECT_DSL_IR_DSLOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Dsl_Dialect : Dialect {
  let name = "dsl";
  let cppNamespace = "::mlir::dsl";
  let summary = "Tensor-level operations of the Python DSL";
  let description = [{
    Value-semantics operations on builtin ranked tensors. The dialect is
    lowered to linalg/tensor/arith by `convert-dsl-to-linalg`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

//===----------------------------------------------------------------------===//
// Types accepted by the dialect.
//===----------------------------------------------------------------------===//

def Dsl_Element : AnyTypeOf<[F16, BF16, F32, F64, AnySignlessInteger],
                            "f16, bf16, f32, f64 or signless integer">;
def Dsl_Tensor : RankedTensorOf<[Dsl_Element]>;
def Dsl_Tensor2D : 2DTensorOf<[Dsl_Element]>;

class Dsl_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dsl_Dialect, mnemonic, !listconcat([Pure], traits)>;

//===----------------------------------------------------------------------===//
// Elementwise binary operations.
//===----------------------------------------------------------------------===//

class Dsl_BinaryOp<string mnemonic, string what>
    : Dsl_Op<mnemonic> {
  let summary = "elementwise " # what;
  let description = [{
    Elementwise }] # what # [{ of two tensors of the same shape and element
    type. Example:

    ```mlir
    %z = dsl.}] # mnemonic # [{ %x, %y : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$lhs, Dsl_Tensor:$rhs);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:`
    custom<ElementwiseTypes>(type($lhs), type($rhs), type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 0;
}

def Dsl_AddOp : Dsl_BinaryOp<"add", "addition">;
def Dsl_SubOp : Dsl_BinaryOp<"sub", "subtraction">;
def Dsl_MulOp : Dsl_BinaryOp<"mul", "multiplication">;
def Dsl_DivOp : Dsl_BinaryOp<"div", "division (signed for integers)">;

//===----------------------------------------------------------------------===//
// Matrix multiplication.
//===----------------------------------------------------------------------===//

def Dsl_MatmulOp : Dsl_Op<"matmul"> {
  let summary = "2-D matrix multiplication with optional transposes";
  let description = [{
    `result = op(lhs) x op(rhs)` where `op` transposes its operand when the
    matching unit attribute (`a_trans`, `b_trans`) is present. The result
    element type is given by the result type: f16 inputs may accumulate into
    f32; it must be of the same kind (float/integer) and at least as wide.

    ```mlir
    %c = dsl.matmul %a, %b {b_trans} : tensor<64x128xf16>, tensor<64x128xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Dsl_Tensor2D:$lhs, Dsl_Tensor2D:$rhs,
                       UnitAttr:$a_trans, UnitAttr:$b_trans);
  let results = (outs Dsl_Tensor2D:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Element type conversion.
//===----------------------------------------------------------------------===//

def Dsl_CastOp : Dsl_Op<"cast"> {
  let summary = "elementwise element type conversion";
  let description = [{
    Converts every element to the result's element type (float <-> float by
    extension/truncation, integer <-> integer by sign extension/truncation,
    integer <-> float as signed values). Shapes must match.

    ```mlir
    %y = dsl.cast %x : tensor<64x128xf16> to tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$source);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Constructors.
//===----------------------------------------------------------------------===//

def Dsl_CreateTensorOp : Dsl_Op<"create_tensor"> {
  let summary = "a new tensor with undefined contents";
  let description = [{
    Creates a tensor of the result type. Dynamic dimensions (`?`) take their
    sizes from the index operands, in order.

    ```mlir
    %t = dsl.create_tensor : tensor<64x128xf32>
    %u = dsl.create_tensor [%n] : tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = "(`[` $dynamic_sizes^ `]`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Dsl_FullOp : Dsl_Op<"full"> {
  let summary = "a new tensor filled with a scalar";
  let description = [{
    Creates a tensor of the result type with every element equal to `value`,
    whose type must be the result's element type.

    ```mlir
    %t = dsl.full %cst : f32 -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Dsl_Element:$value, Variadic<Index>:$dynamic_sizes);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $value (`[` $dynamic_sizes^ `]`)? attr-dict `:` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Slicing.
//===----------------------------------------------------------------------===//

def Dsl_SliceOp : Dsl_Op<"slice"> {
  let summary = "a static-size window of a tensor at dynamic offsets";
  let description = [{
    Extracts the window of the result's (static) shape starting at the given
    offsets, one index operand per dimension, with unit strides.

    ```mlir
    %w = dsl.slice %k[%i, %c0] : tensor<1024x128xf16> -> tensor<64x128xf16>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$source, Variadic<Index>:$offsets);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $source `[` $offsets `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // DSL_DIALECT_DSL_IR_DSLOPS_TD
