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
include "mlir/IR/EnumAttr.td"
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

// The element types the lowering handles (docs/dialect.md, "Element types"):
// one entry per dtype of dsl-core's table. Other integer widths (i0, i2,
// i128, ...) and other float formats are refused by the verifier.
def Dsl_Element : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64],
                            "f16, bf16, f32, f64, i1, i8, i16, i32 or i64">;
def Dsl_FloatElement : AnyTypeOf<[F16, BF16, F32, F64], "f16, bf16, f32 or f64">;
def Dsl_Tensor : RankedTensorOf<[Dsl_Element]>;
def Dsl_FloatTensor : RankedTensorOf<[Dsl_FloatElement]>;
def Dsl_Tensor2D : 2DTensorOf<[Dsl_Element]>;
def Dsl_Tensor2DOr3D : TensorRankOf<[Dsl_Element], [2, 3]>;
def Dsl_I64Tensor : RankedTensorOf<[I64]>;
def Dsl_TensorOrScalar
    : AnyTypeOf<[Dsl_Tensor, Dsl_Element],
                "ranked tensor or scalar of f16, bf16, f32, f64, i1, i8, i16, "
                "i32 or i64">;
def Dsl_Condition : AnyTypeOf<[RankedTensorOf<[I1]>, I1],
                              "ranked tensor of i1 or i1 scalar">;

// Every static shape an op uses has nonzero sizes whose product, and byte
// size, fit in a signed 64-bit integer (checked before the op's own verifier,
// which may multiply dimensions).
def Dsl_SizedShapes : NativeOpTrait<"SizedShapes"> {
  let cppNamespace = "::mlir::OpTrait::dsl";
}

class Dsl_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dsl_Dialect, mnemonic, !listconcat([Pure, Dsl_SizedShapes], traits)>;

//===----------------------------------------------------------------------===//
// Elementwise unary operations.
//===----------------------------------------------------------------------===//

class Dsl_UnaryOp<string mnemonic, string what, TypeConstraint operandType>
    : Dsl_Op<mnemonic> {
  let summary = "elementwise " # what;
  let description = [{
    Applies }] # what # [{ to every element; the result has the operand's
    type. Example:

    ```mlir
    %y = dsl.}] # mnemonic # [{ %x : tensor<64x128xf32>
    ```
    `is_unsigned` (integer elements only) reads the elements as unsigned
    integers: `abs` and `relu` are then the identity.
  }];
  let arguments = (ins operandType:$x, UnitAttr:$is_unsigned);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $x attr-dict `:` custom<UnaryTypes>(type($x), type($result))
  }];
  let hasVerifier = 1;
}

def Dsl_ExpOp : Dsl_UnaryOp<"exp", "the exponential `e^x`", Dsl_FloatTensor>;
def Dsl_LogOp : Dsl_UnaryOp<"log", "the natural logarithm", Dsl_FloatTensor>;
def Dsl_SqrtOp : Dsl_UnaryOp<"sqrt", "the square root", Dsl_FloatTensor>;
def Dsl_RsqrtOp : Dsl_UnaryOp<"rsqrt", "the reciprocal square root `1/sqrt(x)`",
                              Dsl_FloatTensor>;
def Dsl_TanhOp : Dsl_UnaryOp<"tanh", "the hyperbolic tangent", Dsl_FloatTensor>;
def Dsl_AbsOp : Dsl_UnaryOp<"abs", "the absolute value (wrapping for the most "
                            "negative integer)", Dsl_Tensor>;
def Dsl_NegOp : Dsl_UnaryOp<"neg", "negation (wrapping for integers)", Dsl_Tensor>;
def Dsl_ReluOp : Dsl_UnaryOp<"relu", "`maximum(x, 0)` (NaN stays NaN)", Dsl_Tensor>;

//===----------------------------------------------------------------------===//
// Elementwise binary operations, with scalars and numpy broadcasting.
//===----------------------------------------------------------------------===//

class Dsl_BinaryOp<string mnemonic, string what,
                   TypeConstraint operandType = Dsl_TensorOrScalar>
    : Dsl_Op<mnemonic> {
  let summary = "elementwise " # what # " with broadcasting";
  let description = [{
    Elementwise }] # what # [{ of two operands of the same element type.
    Either operand may be a scalar of the element type (applied to every
    element) and two tensors broadcast as in numpy: shapes are aligned on
    the right, missing leading dimensions count as 1, and a dimension of
    static size 1 stretches to the other operand's size. The result is a
    tensor of the broadcast shape. A dynamic dimension (`?`) never
    broadcasts at run time: against a static size `n` it is assumed to be
    `n`, against another `?` the two are assumed equal.

    ```mlir
    %z = dsl.}] # mnemonic # [{ %x, %y : tensor<64x128xf32>
    %w = dsl.}] # mnemonic # [{ %x, %c : (tensor<64x128xf32>, f32) -> tensor<64x128xf32>
    %v = dsl.}] # mnemonic # [{ %x, %row : (tensor<64x128xf32>, tensor<1x128xf32>) -> tensor<64x128xf32>
    %u = dsl.}] # mnemonic # [{ %a, %b {is_unsigned} : tensor<64xi8>
    ```
    `is_unsigned` (integer elements only) reads both operands as unsigned
    integers (it changes `div`, `maximum` and `minimum`; `add`, `sub` and
    `mul` wrap identically either way).
  }];
  let arguments = (ins operandType:$lhs, operandType:$rhs, UnitAttr:$is_unsigned);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:`
    custom<ElementwiseTypes>(type($lhs), type($rhs), type($result))
  }];
  let hasVerifier = 1;
}

def Dsl_AddOp : Dsl_BinaryOp<"add", "addition">;
def Dsl_SubOp : Dsl_BinaryOp<"sub", "subtraction">;
def Dsl_MulOp : Dsl_BinaryOp<"mul", "multiplication">;
def Dsl_DivOp : Dsl_BinaryOp<"div", "division (rounding toward zero for "
                                    "integers; x / 0 is 0)">;
def Dsl_MaximumOp : Dsl_BinaryOp<"maximum", "maximum (NaN-propagating like "
                                            "`numpy.maximum`)">;
def Dsl_MinimumOp : Dsl_BinaryOp<"minimum", "minimum (NaN-propagating like "
                                            "`numpy.minimum`)">;
def Dsl_PowOp : Dsl_BinaryOp<"pow", "power `lhs ^ rhs` of floating-point values",
    AnyTypeOf<[Dsl_FloatTensor, Dsl_FloatElement],
              "ranked tensor or scalar of f16, bf16, f32 or f64">>;

//===----------------------------------------------------------------------===//
// Comparison and selection.
//===----------------------------------------------------------------------===//

def Dsl_CmpPredicate : I64EnumAttr<"CmpPredicate", "dsl.cmp predicate", [
    I64EnumAttrCase<"eq", 0>, I64EnumAttrCase<"ne", 1>,
    I64EnumAttrCase<"lt", 2>, I64EnumAttrCase<"le", 3>,
    I64EnumAttrCase<"gt", 4>, I64EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::dsl";
}

def Dsl_CmpOp : Dsl_Op<"cmp"> {
  let summary = "elementwise comparison with broadcasting, producing i1";
  let description = [{
    Compares two operands elementwise with the predicate `eq`, `ne`, `lt`,
    `le`, `gt` or `ge`. Operands follow the rules of `dsl.add` (scalars,
    numpy broadcasting); the result is an `i1` tensor of the broadcast
    shape. Floats compare as numpy does: every predicate but `ne` is false
    when an operand is NaN, `ne` is true. Integers compare as signed values,
    or as unsigned values with `is_unsigned`.

    ```mlir
    %m = dsl.cmp lt, %x, %y : tensor<64xf32>
    %n = dsl.cmp ge, %x, %c : (tensor<64xf32>, f32) -> tensor<64xi1>
    ```
    The short form `: T` means both operands are `T` and the result is `T`
    with `i1` elements.
  }];
  let arguments = (ins Dsl_CmpPredicate:$predicate, Dsl_TensorOrScalar:$lhs,
                       Dsl_TensorOrScalar:$rhs, UnitAttr:$is_unsigned);
  let results = (outs RankedTensorOf<[I1]>:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:`
    custom<CompareTypes>(type($lhs), type($rhs), type($result))
  }];
  let hasVerifier = 1;
}

def Dsl_SelectOp : Dsl_Op<"select"> {
  let summary = "elementwise choice between two operands, with broadcasting";
  let description = [{
    `result[i] = cond[i] ? a[i] : b[i]` (numpy `where`). `cond` is an `i1`
    tensor or scalar, `a` and `b` tensors or scalars of the result's element
    type; all three broadcast together as in `dsl.add`.

    ```mlir
    %r = dsl.select %m, %x, %y : tensor<64xf32>
    %s = dsl.select %m, %x, %zero : (tensor<64xi1>, tensor<64xf32>, f32) -> tensor<64xf32>
    ```
    The short form `: T` means `a`, `b` and the result are `T` and `cond`
    is `T` with `i1` elements.
  }];
  let arguments = (ins Dsl_Condition:$cond, Dsl_TensorOrScalar:$a,
                       Dsl_TensorOrScalar:$b);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $a `,` $b attr-dict `:`
    custom<SelectTypes>(type($cond), type($a), type($b), type($result))
  }];
  let hasVerifier = 1;
}

def Dsl_BroadcastOp : Dsl_Op<"broadcast"> {
  let summary = "explicit numpy broadcast to a larger shape";
  let description = [{
    Stretches the static size-1 dimensions of `x` (and prepends missing
    leading dimensions) to the result shape. Every other dimension must
    match the result. A dynamic result dimension must come from a dynamic
    source dimension (its size is read from `x`).

    ```mlir
    %b = dsl.broadcast %x : tensor<1x8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$x);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions.
//===----------------------------------------------------------------------===//

class Dsl_ReduceOp<string mnemonic, string what,
                   TypeConstraint inputType = Dsl_Tensor>
    : Dsl_Op<mnemonic> {
  let summary = what # " over a list of axes";
  let description = [{
    Reduces `input` over the dimensions listed in `axes` (each in
    `[0, rank)`, no repeats, at least one) with }] # what # [{. The result
    has the input's element type and the input's shape without the reduced
    dimensions, or with them set to 1 when `keepdim` is present.

    ```mlir
    %s = dsl.}] # mnemonic # [{ %x [1] keepdim : tensor<64x128xf32> -> tensor<64x1xf32>
    %t = dsl.}] # mnemonic # [{ %x [0, 1] : tensor<64x128xf32> -> tensor<f32>
    ```
    `is_unsigned` (integer elements only) reads the elements as unsigned
    integers (it changes `max` and `min`).
  }];
  let arguments = (ins inputType:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdim, UnitAttr:$is_unsigned);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $input $axes (`keepdim` $keepdim^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Dsl_SumOp : Dsl_ReduceOp<"sum", "the sum (f16/bf16 accumulate in f32; "
                                    "integers wrap)">;
def Dsl_MaxOp : Dsl_ReduceOp<"max", "the maximum (NaN-propagating)">;
def Dsl_MinOp : Dsl_ReduceOp<"min", "the minimum (NaN-propagating)">;
def Dsl_MeanOp : Dsl_ReduceOp<"mean", "the arithmetic mean of floating-point "
                                      "values (f16/bf16 accumulate in f32)",
                              Dsl_FloatTensor>;

def Dsl_ArgmaxOp : Dsl_Op<"argmax"> {
  let summary = "index of the maximum along one axis";
  let description = [{
    The i64 index of the first maximal element along `axis`, as
    `numpy.argmax` (the first NaN counts as the maximum). The result shape
    is the input shape without `axis`, or with it set to 1 with `keepdim`.
    `is_unsigned` (integer elements only) compares the elements as unsigned.

    ```mlir
    %i = dsl.argmax %x axis 1 : tensor<64x128xf32> -> tensor<64xi64>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$input, I64Attr:$axis, UnitAttr:$keepdim,
                       UnitAttr:$is_unsigned);
  let results = (outs Dsl_I64Tensor:$result);
  let assemblyFormat = [{
    $input `axis` $axis (`keepdim` $keepdim^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape operations.
//===----------------------------------------------------------------------===//

def Dsl_TransposeOp : Dsl_Op<"transpose"> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    `result` dimension `i` is `x` dimension `permutation[i]` (numpy
    `transpose(x, permutation)`).

    ```mlir
    %t = dsl.transpose %x [1, 0] : tensor<64x128xf32> -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$x, DenseI64ArrayAttr:$permutation);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $x $permutation attr-dict `:` type($x) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Dsl_ReshapeOp : Dsl_Op<"reshape"> {
  let summary = "the same elements, row-major, in another static shape";
  let description = [{
    Both shapes must be static with the same number of elements.

    ```mlir
    %r = dsl.reshape %x : tensor<64x128xf32> -> tensor<8192xf32>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$x);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Dsl_ConcatOp : Dsl_Op<"concat"> {
  let summary = "joins tensors along an existing axis";
  let description = [{
    All inputs have the same rank and element type and agree in every
    dimension but `axis`; the result's `axis` dimension is the sum.

    ```mlir
    %c = dsl.concat %a, %b axis 0 : tensor<2x8xf32>, tensor<3x8xf32> -> tensor<5x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Dsl_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` $axis attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Dsl_ExpandDimsOp : Dsl_Op<"expand_dims"> {
  let summary = "inserts a dimension of size 1";
  let description = [{
    The result is `x` with a new dimension of size 1 at `axis`
    (`0 <= axis <= rank`).

    ```mlir
    %e = dsl.expand_dims %x axis 0 : tensor<8xf32> -> tensor<1x8xf32>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$x, I64Attr:$axis);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $x `axis` $axis attr-dict `:` type($x) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Dsl_SqueezeOp : Dsl_Op<"squeeze"> {
  let summary = "removes a dimension of static size 1";
  let description = [{
    ```mlir
    %s = dsl.squeeze %x axis 0 : tensor<1x8xf32> -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$x, I64Attr:$axis);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $x `axis` $axis attr-dict `:` type($x) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Dsl_AssembleOp : Dsl_Op<"assemble"> {
  let summary = "a copy of `dst` with `src` written at the given offsets";
  let description = [{
    The value-semantics update used by loops that build a result tile by
    tile: `src` is inserted into (a copy of) `dst` starting at the index
    offsets, one per dimension, with unit strides. Both have the same rank
    and element type; the result has `dst`'s type. Bufferization writes in
    place when `dst` is not used afterwards.

    ```mlir
    %r = dsl.assemble %acc, %tile [%i, %c0] : tensor<64x128xf32> into tensor<1024x128xf32>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$dst, Dsl_Tensor:$src, Variadic<Index>:$offsets);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $dst `,` $src `[` $offsets `]` attr-dict `:`
    custom<AssembleTypes>(type($src), type($dst), type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix multiplication.
//===----------------------------------------------------------------------===//

def Dsl_MatmulOp : Dsl_Op<"matmul"> {
  let summary = "matrix multiplication (2-D or batched 3-D) with optional transposes";
  let description = [{
    `result = op(lhs) x op(rhs)` where `op` transposes the last two dimensions
    of its operand when the matching unit attribute (`a_trans`, `b_trans`) is
    present. The result element type is given by the result type: f16 inputs
    may accumulate into f32; it must be of the same kind (float/integer) and
    at least as wide. `is_unsigned` (integer elements only) zero-extends the
    operands to a wider result instead of sign-extending them.

    Batched: with a 3-D operand the leading dimension is a batch of matrices
    and the result is 3-D. A 2-D operand is used for every batch, and so is a
    3-D one whose batch size is a static 1 (numpy's broadcasting); otherwise
    the batch sizes must be equal (dynamic ones are checked at run time, as
    are dynamic contracting sizes: a mismatch is a ValueError).

    ```mlir
    %c = dsl.matmul %a, %b {b_trans} : tensor<64x128xf16>, tensor<64x128xf16> -> tensor<64x64xf32>
    %d = dsl.matmul %x, %w : tensor<8x64x128xf32>, tensor<128x32xf32> -> tensor<8x64x32xf32>
    ```
  }];
  let arguments = (ins Dsl_Tensor2DOr3D:$lhs, Dsl_Tensor2DOr3D:$rhs,
                       UnitAttr:$a_trans, UnitAttr:$b_trans,
                       UnitAttr:$is_unsigned);
  let results = (outs Dsl_Tensor2DOr3D:$result);
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
    extension/truncation, integer <-> integer by extension/truncation,
    integer <-> float by value, anything -> i1 as `!= 0`). Integers are
    signed unless marked: `source_unsigned` reads the source as unsigned
    (zero extension, `uitofp`), `result_unsigned` makes the result unsigned
    (`fptoui` from floats). Shapes must match.

    ```mlir
    %y = dsl.cast %x : tensor<64x128xf16> to tensor<64x128xf32>
    %z = dsl.cast %b {source_unsigned} : tensor<64xi8> to tensor<64xi64>
    ```
  }];
  let arguments = (ins Dsl_Tensor:$source, UnitAttr:$source_unsigned,
                       UnitAttr:$result_unsigned);
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

def Dsl_ArangeOp : Dsl_Op<"arange", [AllTypesMatch<["start", "step"]>]> {
  let summary = "a 1-D tensor of evenly spaced values";
  let description = [{
    `result[i] = start + i * step` for `i` in `[0, n)`, `n` the result's
    size (from the index operand when it is dynamic). `start` and `step`
    have the result's element type; floats compute `start + float(i) *
    step` like `numpy.arange`.

    ```mlir
    %r = dsl.arange %c0, %c1 : f32 -> tensor<16xf32>
    %s = dsl.arange %a, %b [%n] : i32 -> tensor<?xi32>
    ```
  }];
  let arguments = (ins Dsl_Element:$start, Dsl_Element:$step,
                       Variadic<Index>:$dynamic_sizes);
  let results = (outs Dsl_Tensor:$result);
  let assemblyFormat = [{
    $start `,` $step (`[` $dynamic_sizes^ `]`)? attr-dict `:` type($start) `->`
    type($result)
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
