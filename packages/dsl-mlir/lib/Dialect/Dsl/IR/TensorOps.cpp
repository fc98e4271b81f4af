//===- TensorOps.cpp - matmul, cast and constructors ----------------------===//

#include "Diagnostics.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

using namespace mlir;
using namespace mlir::dsl;
using namespace mlir::dsl::diag;

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// Dimension `i` (0: rows, 1: columns) of the matrices of `t` (the last two
/// dimensions), swapped when `transposed`.
static int64_t dimOf(RankedTensorType t, bool transposed, unsigned i) {
  int64_t rows = t.getRank() - 2;
  return t.getDimSize(rows + (transposed ? 1 - i : i));
}

/// The batch size of a batched matmul's result from its operands' (rank 3:
/// the leading dimension; a static 1 or a 2-D operand broadcasts), or
/// failure when two batch sizes cannot match.
static FailureOr<int64_t> batchOf(RankedTensorType a, RankedTensorType b) {
  int64_t ba = a.getRank() == 3 ? a.getDimSize(0) : 1;
  int64_t bb = b.getRank() == 3 ? b.getDimSize(0) : 1;
  if (ba == 1)
    return bb;
  if (bb == 1)
    return ba;
  if (!dimsCompatible(ba, bb))
    return failure();
  return ShapedType::isDynamic(ba) ? bb : ba;
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyUnsignedMarker(getOperation(), getIsUnsigned(),
                                  "is_unsigned", getLhs())))
    return failure();
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
  bool batched = a.getRank() == 3 || b.getRank() == 3;
  if (c.getRank() != (batched ? 3 : 2))
    return emitOpError("result must be ")
           << (batched ? "3-D (a batch of matrices)" : "2-D") << ", got "
           << typeStr(c);
  int64_t rows = c.getRank() - 2;
  if (!dimsCompatible(c.getDimSize(rows), m) ||
      !dimsCompatible(c.getDimSize(rows + 1), n))
    return emitOpError("result matrices must be ")
           << dimStr(m) << "x" << dimStr(n) << " (M x N), got " << typeStr(c);
  if (!batched)
    return success();
  FailureOr<int64_t> batch = batchOf(a, b);
  if (failed(batch))
    return emitOpError("batch sizes differ: lhs ")
           << typeStr(a) << " and rhs " << typeStr(b)
           << " (only a static 1 or a 2-D operand broadcasts)";
  if (!dimsCompatible(c.getDimSize(0), *batch))
    return emitOpError("result batch size must be ")
           << dimStr(*batch) << ", got " << typeStr(c);
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto s = getSource().getType();
  auto r = getResult().getType();
  if (failed(verifyUnsignedMarker(getOperation(), getSourceUnsigned(),
                                  "source_unsigned", getSource())) ||
      failed(verifyUnsignedMarker(getOperation(), getResultUnsigned(),
                                  "result_unsigned", getResult())))
    return failure();
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

LogicalResult ArangeOp::verify() {
  auto t = getResult().getType();
  if (t.getRank() != 1)
    return emitOpError("result must be a 1-D tensor, got ") << typeStr(t);
  if (getStart().getType() != t.getElementType())
    return emitOpError("start and step of type ")
           << getStart().getType() << " do not match the element type "
           << t.getElementType() << " of " << typeStr(t);
  return verifyDynamicSizes(getOperation(), t, getDynamicSizes());
}
