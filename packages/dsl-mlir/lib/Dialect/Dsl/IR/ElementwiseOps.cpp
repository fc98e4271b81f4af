//===- ElementwiseOps.cpp - unary, binary, cmp, select, broadcast ---------===//

#include "Diagnostics.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::dsl;
using namespace mlir::dsl::diag;

//===----------------------------------------------------------------------===//
// Broadcasting rules (shared with the lowering).
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> mlir::dsl::shapeOf(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return t.getShape();
  return {};
}

/// Dimension `i` of the result of rank `rank` as seen by `shape` (aligned on
/// the right; missing leading dimensions are 1).
static int64_t alignedDim(ArrayRef<int64_t> shape, int64_t rank, int64_t i) {
  int64_t j = i - (rank - static_cast<int64_t>(shape.size()));
  return j >= 0 ? shape[j] : 1;
}

static std::optional<int64_t> broadcastDim(int64_t a, int64_t b) {
  if (a == b || b == 1)
    return a;
  if (a == 1)
    return b;
  if (ShapedType::isDynamic(a))
    return b; // assumed equal at run time
  if (ShapedType::isDynamic(b))
    return a;
  return std::nullopt;
}

FailureOr<SmallVector<int64_t>>
mlir::dsl::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                           int64_t *badDim) {
  int64_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    std::optional<int64_t> d =
        broadcastDim(alignedDim(a, rank, i), alignedDim(b, rank, i));
    if (!d) {
      if (badDim)
        *badDim = i;
      return failure();
    }
    out.push_back(*d);
  }
  return out;
}

namespace {
/// An operand taking part in a broadcast, with its name for diagnostics.
struct Named {
  StringRef name;
  Value value;
};
} // namespace

/// Checks that `operands` broadcast together (at least one a tensor) and that
/// the result is the broadcast shape with `element` elements.
static LogicalResult verifyBroadcast(Operation *op, ArrayRef<Named> operands,
                                     Type element, Type result) {
  if (llvm::none_of(operands, [](const Named &n) {
        return isa<RankedTensorType>(n.value.getType());
      })) {
    InFlightDiagnostic d =
        op->emitOpError("expects at least one tensor operand, got");
    for (auto [i, n] : llvm::enumerate(operands))
      d << (i ? " and " : " ") << n.name << " " << typeStr(n.value.getType());
    return d;
  }
  for (auto [i, x] : llvm::enumerate(operands))
    for (const Named &y : operands.drop_front(i + 1)) {
      ArrayRef<int64_t> sx = shapeOf(x.value.getType());
      ArrayRef<int64_t> sy = shapeOf(y.value.getType());
      int64_t bad = 0;
      if (succeeded(broadcastShapes(sx, sy, &bad)))
        continue;
      int64_t rank = std::max(sx.size(), sy.size());
      return op->emitOpError("operands ")
             << typeStr(x.value.getType()) << " and "
             << typeStr(y.value.getType())
             << " are not broadcast-compatible: dimension " << bad << " is "
             << dimStr(alignedDim(sx, rank, bad)) << " vs "
             << dimStr(alignedDim(sy, rank, bad));
    }
  SmallVector<int64_t> shape;
  for (const Named &n : operands)
    shape = *broadcastShapes(shape, shapeOf(n.value.getType()));
  auto expected = RankedTensorType::get(shape, element);
  if (result == expected)
    return success();
  InFlightDiagnostic d = op->emitOpError("result must be ")
                         << typeStr(expected) << " (the broadcast of";
  for (auto [i, n] : llvm::enumerate(operands))
    d << (i ? " and " : " ") << n.name << " " << typeStr(n.value.getType());
  return d << "), got " << typeStr(result);
}

/// Binary ops and dsl.select: the data operands share one element type.
static LogicalResult verifySameElement(Operation *op, Named a, Named b) {
  Type ea = getElementTypeOrSelf(a.value.getType());
  Type eb = getElementTypeOrSelf(b.value.getType());
  if (ea == eb)
    return success();
  return op->emitOpError("operands must have the same element type, got ")
         << a.name << " " << typeStr(a.value.getType()) << " and " << b.name
         << " " << typeStr(b.value.getType());
}

static LogicalResult verifyBinary(Operation *op, Value lhs, Value rhs,
                                  Value result, Type resultElement) {
  Named l{"lhs", lhs}, r{"rhs", rhs};
  if (failed(verifySameElement(op, l, r)))
    return failure();
  if (!resultElement)
    resultElement = getElementTypeOrSelf(lhs.getType());
  return verifyBroadcast(op, {l, r}, resultElement, result.getType());
}

#define DSL_BINARY_VERIFIER(OP)                                                \
  LogicalResult OP::verify() {                                                 \
    if (failed(verifyUnsignedMarker(getOperation(), getIsUnsigned(),        \
                                    "is_unsigned", getLhs())))                 \
      return failure();                                                        \
    return verifyBinary(getOperation(), getLhs(), getRhs(), getResult(),       \
                        Type());                                               \
  }
DSL_BINARY_VERIFIER(AddOp)
DSL_BINARY_VERIFIER(SubOp)
DSL_BINARY_VERIFIER(MulOp)
DSL_BINARY_VERIFIER(DivOp)
DSL_BINARY_VERIFIER(MaximumOp)
DSL_BINARY_VERIFIER(MinimumOp)
DSL_BINARY_VERIFIER(PowOp)
#undef DSL_BINARY_VERIFIER

LogicalResult CmpOp::verify() {
  if (failed(verifyUnsignedMarker(getOperation(), getIsUnsigned(),
                                  "is_unsigned", getLhs())))
    return failure();
  return verifyBinary(getOperation(), getLhs(), getRhs(), getResult(),
                      IntegerType::get(getContext(), 1));
}

LogicalResult SelectOp::verify() {
  Named a{"a", getA()}, b{"b", getB()};
  if (failed(verifySameElement(getOperation(), a, b)))
    return failure();
  return verifyBroadcast(getOperation(), {{"cond", getCond()}, a, b},
                         getElementTypeOrSelf(getA().getType()),
                         getResult().getType());
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

static LogicalResult verifyUnary(Operation *op, Value x, Value result) {
  if (x.getType() == result.getType())
    return success();
  return op->emitOpError("result type must equal the operand type ")
         << typeStr(x.getType()) << ", got " << typeStr(result.getType());
}

#define DSL_UNARY_VERIFIER(OP)                                                 \
  LogicalResult OP::verify() {                                                 \
    if (failed(verifyUnsignedMarker(getOperation(), getIsUnsigned(),        \
                                    "is_unsigned", getX())))                   \
      return failure();                                                        \
    return verifyUnary(getOperation(), getX(), getResult());                   \
  }
DSL_UNARY_VERIFIER(ExpOp)
DSL_UNARY_VERIFIER(LogOp)
DSL_UNARY_VERIFIER(SqrtOp)
DSL_UNARY_VERIFIER(RsqrtOp)
DSL_UNARY_VERIFIER(TanhOp)
DSL_UNARY_VERIFIER(AbsOp)
DSL_UNARY_VERIFIER(NegOp)
DSL_UNARY_VERIFIER(ReluOp)
#undef DSL_UNARY_VERIFIER

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto x = getX().getType();
  auto r = getResult().getType();
  if (x.getElementType() != r.getElementType())
    return emitOpError("result element type ")
           << r.getElementType() << " must match the operand element type "
           << x.getElementType();
  int64_t rank = r.getRank(), lead = rank - x.getRank();
  if (lead < 0)
    return emitOpError("operand ")
           << typeStr(x) << " has a higher rank than the result "
           << typeStr(r);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t rd = r.getDimSize(i);
    if (i < lead) {
      if (ShapedType::isDynamic(rd))
        return emitOpError("result dimension ")
               << i << " of " << typeStr(r)
               << " is dynamic but not in the operand " << typeStr(x)
               << ": its size is unknown";
      continue;
    }
    int64_t xd = x.getDimSize(i - lead);
    if (xd == 1 && ShapedType::isDynamic(rd))
      return emitOpError("result dimension ")
             << i << " of " << typeStr(r)
             << " is dynamic but the operand " << typeStr(x)
             << " has size 1 there: its size is unknown";
    if (xd != 1 && !dimsCompatible(xd, rd))
      return emitOpError("operand ")
             << typeStr(x) << " cannot be broadcast to " << typeStr(r)
             << ": dimension " << i << " is " << dimStr(xd) << " vs "
             << dimStr(rd);
  }
  return success();
}
