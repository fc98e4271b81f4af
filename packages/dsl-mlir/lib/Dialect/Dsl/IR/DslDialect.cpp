//===- DslDialect.cpp - the `dsl` dialect: ops, formats, verifiers --------===//

#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::dsl;

#include "dsl/Dialect/Dsl/IR/DslOpsDialect.cpp.inc"

void DslDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dsl/Dialect/Dsl/IR/DslOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `tensor<64x?xf32>` as text, for diagnostics.
static std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

static bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Elementwise types print as `: T` when all three agree and as
/// `: (L, R) -> T` otherwise (so that invalid IR still round-trips).
static ParseResult parseElementwiseTypes(OpAsmParser &parser, Type &lhs,
                                         Type &rhs, Type &result) {
  if (succeeded(parser.parseOptionalLParen())) {
    if (parser.parseType(lhs) || parser.parseComma() ||
        parser.parseType(rhs) || parser.parseRParen() ||
        parser.parseArrow() || parser.parseType(result))
      return failure();
    return success();
  }
  if (parser.parseType(result))
    return failure();
  lhs = rhs = result;
  return success();
}

static void printElementwiseTypes(OpAsmPrinter &p, Operation *, Type lhs,
                                  Type rhs, Type result) {
  if (lhs == rhs && rhs == result) {
    p << result;
    return;
  }
  p << "(" << lhs << ", " << rhs << ") -> " << result;
}

static LogicalResult verifyElementwise(Operation *op, Value lhs, Value rhs,
                                       Value result) {
  auto l = cast<RankedTensorType>(lhs.getType());
  auto r = cast<RankedTensorType>(rhs.getType());
  auto o = cast<RankedTensorType>(result.getType());
  if (l.getElementType() != r.getElementType())
    return op->emitOpError("operands must have the same element type, got lhs ")
           << typeStr(l) << " and rhs " << typeStr(r);
  if (l.getShape() != r.getShape())
    return op->emitOpError("operands must have the same shape, got lhs ")
           << typeStr(l) << " and rhs " << typeStr(r);
  if (o != l)
    return op->emitOpError("result type must equal the operand type ")
           << typeStr(l) << ", got " << typeStr(o);
  return success();
}

#define DSL_BINARY_VERIFIER(OP)                                                \
  LogicalResult OP::verify() {                                                 \
    return verifyElementwise(getOperation(), getLhs(), getRhs(), getResult()); \
  }
DSL_BINARY_VERIFIER(AddOp)
DSL_BINARY_VERIFIER(SubOp)
DSL_BINARY_VERIFIER(MulOp)
DSL_BINARY_VERIFIER(DivOp)
#undef DSL_BINARY_VERIFIER

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

static int64_t dimOf(RankedTensorType t, bool transposed, unsigned i) {
  return t.getDimSize(transposed ? 1 - i : i);
}

static std::string dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

LogicalResult MatmulOp::verify() {
  auto a = getLhs().getType();
  auto b = getRhs().getType();
  auto c = getResult().getType();
  Type ea = a.getElementType(), eb = b.getElementType(), ec = c.getElementType();
  if (ea != eb)
    return emitOpError("operands must have the same element type, got ")
           << typeStr(a) << " and " << typeStr(b);
  if (isa<FloatType>(ea) != isa<FloatType>(ec))
    return emitOpError("result element type ")
           << ec << " must be of the same kind (float or integer) as " << ea;
  if (ec.getIntOrFloatBitWidth() < ea.getIntOrFloatBitWidth())
    return emitOpError("result element type ")
           << ec << " must be at least as wide as the operand element type "
           << ea;
  int64_t m = dimOf(a, getATrans(), 0), ka = dimOf(a, getATrans(), 1);
  int64_t kb = dimOf(b, getBTrans(), 0), n = dimOf(b, getBTrans(), 1);
  if (!dimsCompatible(ka, kb))
    return emitOpError("contracting dimensions differ: lhs ")
           << typeStr(a) << (getATrans() ? " (transposed)" : "")
           << " contributes K=" << dimStr(ka) << " but rhs " << typeStr(b)
           << (getBTrans() ? " (transposed)" : "")
           << " contributes K=" << dimStr(kb);
  if (!dimsCompatible(c.getDimSize(0), m) ||
      !dimsCompatible(c.getDimSize(1), n))
    return emitOpError("result shape must be ")
           << dimStr(m) << "x" << dimStr(n) << " (M x N), got " << typeStr(c);
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto s = getSource().getType();
  auto r = getResult().getType();
  if (s.getShape() != r.getShape())
    return emitOpError("source and result must have the same shape, got ")
           << typeStr(s) << " and " << typeStr(r);
  return success();
}

//===----------------------------------------------------------------------===//
// Constructors
//===----------------------------------------------------------------------===//

static LogicalResult verifyDynamicSizes(Operation *op, RankedTensorType t,
                                        OperandRange sizes) {
  int64_t expected = t.getNumDynamicDims();
  if (static_cast<int64_t>(sizes.size()) != expected)
    return op->emitOpError("expects one index operand per dynamic dimension of ")
           << typeStr(t) << ": " << expected << " expected, got "
           << sizes.size();
  return success();
}

LogicalResult CreateTensorOp::verify() {
  return verifyDynamicSizes(getOperation(), getResult().getType(),
                            getDynamicSizes());
}

LogicalResult FullOp::verify() {
  auto t = getResult().getType();
  if (getValue().getType() != t.getElementType())
    return emitOpError("fill value of type ")
           << getValue().getType() << " does not match the element type "
           << t.getElementType() << " of " << typeStr(t);
  return verifyDynamicSizes(getOperation(), t, getDynamicSizes());
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  auto s = getSource().getType();
  auto r = getResult().getType();
  if (s.getElementType() != r.getElementType())
    return emitOpError("result element type ")
           << r.getElementType() << " must match the source element type "
           << s.getElementType();
  if (s.getRank() != r.getRank())
    return emitOpError("result rank ")
           << r.getRank() << " must equal the source rank " << s.getRank();
  if (static_cast<int64_t>(getOffsets().size()) != s.getRank())
    return emitOpError("expects one offset per dimension: ")
           << s.getRank() << " expected, got " << getOffsets().size();
  if (!r.hasStaticShape())
    return emitOpError("result sizes must be static, got ") << typeStr(r);
  for (auto [i, pair] : llvm::enumerate(llvm::zip(s.getShape(), r.getShape()))) {
    auto [src, res] = pair;
    if (!ShapedType::isDynamic(src) && res > src)
      return emitOpError("slice size ")
             << res << " exceeds source size " << src << " in dimension " << i;
  }
  return success();
}

#define GET_OP_CLASSES
#include "dsl/Dialect/Dsl/IR/DslOps.cpp.inc"
