//===- DslDialect.cpp - the `dsl` dialect: registration, type formats -----===//
//
// Verifiers live beside their op families: ElementwiseOps.cpp,
// ReductionOps.cpp, ShapeOps.cpp, TensorOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace mlir::dsl;

#include "dsl/Dialect/Dsl/IR/DslOpsDialect.cpp.inc"
#include "dsl/Dialect/Dsl/IR/DslOpsEnums.cpp.inc"

namespace {
/// dsl ops are pure functions of their operands: a call of a function made of
/// them may be inlined anywhere (the pipeline inlines before bufferization, so
/// calls of functions with dynamically shaped results need no out-params).
struct DslInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void DslDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dsl/Dialect/Dsl/IR/DslOps.cpp.inc"
      >();
  addInterfaces<DslInlinerInterface>();
}

//===----------------------------------------------------------------------===//
// Custom type lists. Each has a short form for the common case and a long
// form that spells every type (so that invalid IR still round-trips).
//===----------------------------------------------------------------------===//

/// `T` with i1 elements, or a null type when `t` is not a ranked tensor.
static Type withI1Elements(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r ? r.clone(IntegerType::get(t.getContext(), 1)) : Type();
}

/// `(A, B, ...) -> R`: the long form, after its `(` has been consumed.
static ParseResult parseLongForm(OpAsmParser &parser,
                                 ArrayRef<Type *> operands, Type &result) {
  for (auto [i, t] : llvm::enumerate(operands))
    if ((i && parser.parseComma()) || parser.parseType(*t))
      return failure();
  return failure(parser.parseRParen() || parser.parseArrow() ||
                 parser.parseType(result));
}

static void printLongForm(OpAsmPrinter &p, ArrayRef<Type> operands,
                          Type result) {
  p << "(";
  llvm::interleaveComma(operands, p);
  p << ") -> " << result;
}

/// Binary elementwise ops: `: T` when both operands and the result are `T`.
static ParseResult parseElementwiseTypes(OpAsmParser &parser, Type &lhs,
                                         Type &rhs, Type &result) {
  if (succeeded(parser.parseOptionalLParen()))
    return parseLongForm(parser, {&lhs, &rhs}, result);
  if (parser.parseType(result))
    return failure();
  lhs = rhs = result;
  return success();
}

static void printElementwiseTypes(OpAsmPrinter &p, Operation *, Type lhs,
                                  Type rhs, Type result) {
  if (lhs == rhs && rhs == result)
    p << result;
  else
    printLongForm(p, {lhs, rhs}, result);
}

/// Unary ops: `: T`, or `: T -> R` when the result type differs.
static ParseResult parseUnaryTypes(OpAsmParser &parser, Type &x,
                                   Type &result) {
  if (parser.parseType(x))
    return failure();
  result = x;
  if (succeeded(parser.parseOptionalArrow()))
    return parser.parseType(result);
  return success();
}

static void printUnaryTypes(OpAsmPrinter &p, Operation *, Type x,
                            Type result) {
  p << x;
  if (result != x)
    p << " -> " << result;
}

/// dsl.cmp: `: T` when both operands are the tensor type `T` and the result
/// is `T` with i1 elements.
static ParseResult parseCompareTypes(OpAsmParser &parser, Type &lhs,
                                     Type &rhs, Type &result) {
  if (succeeded(parser.parseOptionalLParen()))
    return parseLongForm(parser, {&lhs, &rhs}, result);
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseType(lhs))
    return failure();
  rhs = lhs;
  result = withI1Elements(lhs);
  if (!result)
    return parser.emitError(loc, "the short form `: T` needs a tensor type, "
                                 "use `(lhs, rhs) -> result`");
  return success();
}

static void printCompareTypes(OpAsmPrinter &p, Operation *, Type lhs,
                              Type rhs, Type result) {
  if (lhs == rhs && result && withI1Elements(lhs) == result)
    p << lhs;
  else
    printLongForm(p, {lhs, rhs}, result);
}

/// dsl.select: `: T` when `a`, `b` and the result are the tensor type `T`
/// and `cond` is `T` with i1 elements.
static ParseResult parseSelectTypes(OpAsmParser &parser, Type &cond, Type &a,
                                    Type &b, Type &result) {
  if (succeeded(parser.parseOptionalLParen()))
    return parseLongForm(parser, {&cond, &a, &b}, result);
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseType(result))
    return failure();
  a = b = result;
  cond = withI1Elements(result);
  if (!cond)
    return parser.emitError(loc, "the short form `: T` needs a tensor type, "
                                 "use `(cond, a, b) -> result`");
  return success();
}

static void printSelectTypes(OpAsmPrinter &p, Operation *, Type cond, Type a,
                             Type b, Type result) {
  if (a == b && b == result && withI1Elements(result) == cond)
    p << result;
  else
    printLongForm(p, {cond, a, b}, result);
}

/// dsl.assemble: `: S into D`, plus `-> R` when the result is not `D`.
static ParseResult parseAssembleTypes(OpAsmParser &parser, Type &src,
                                      Type &dst, Type &result) {
  if (parser.parseType(src) || parser.parseKeyword("into") ||
      parser.parseType(dst))
    return failure();
  result = dst;
  if (succeeded(parser.parseOptionalArrow()))
    return parser.parseType(result);
  return success();
}

static void printAssembleTypes(OpAsmPrinter &p, Operation *, Type src,
                               Type dst, Type result) {
  p << src << " into " << dst;
  if (result != dst)
    p << " -> " << result;
}

#define GET_OP_CLASSES
#include "dsl/Dialect/Dsl/IR/DslOps.cpp.inc"
