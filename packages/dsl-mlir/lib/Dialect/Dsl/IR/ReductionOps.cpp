//===- ReductionOps.cpp - sum, max, min, mean, argmax ---------------------===//

#include "Diagnostics.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

using namespace mlir;
using namespace mlir::dsl;
using namespace mlir::dsl::diag;

SmallVector<int64_t> mlir::dsl::reducedShape(ArrayRef<int64_t> shape,
                                             ArrayRef<int64_t> axes,
                                             bool keepdim) {
  SmallVector<int64_t> out;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(i)))
      out.push_back(d);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

/// Axes are in [0, rank) without repeats.
static LogicalResult verifyAxes(Operation *op, RankedTensorType input,
                                ArrayRef<int64_t> axes) {
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= input.getRank())
      return op->emitOpError("axis ")
             << axis << " is out of range for input " << typeStr(input)
             << " of rank " << input.getRank() << ": expected 0.."
             << input.getRank() - 1;
    if (llvm::is_contained(axes.take_front(i), axis))
      return op->emitOpError("axis ")
             << axis << " is repeated in " << listStr(axes);
  }
  return success();
}

static LogicalResult verifyReducedResult(Operation *op, RankedTensorType input,
                                         ArrayRef<int64_t> axes, bool keepdim,
                                         Type element, Type result) {
  auto expected =
      RankedTensorType::get(reducedShape(input.getShape(), axes, keepdim),
                            element);
  if (result == expected)
    return success();
  return op->emitOpError("result must be ")
         << typeStr(expected) << " (input " << typeStr(input)
         << " reduced over " << listStr(axes)
         << (keepdim ? " with keepdim" : "") << "), got " << typeStr(result);
}

static LogicalResult verifyReduction(Operation *op, Value input,
                                     ArrayRef<int64_t> axes, bool keepdim,
                                     Value result) {
  auto type = cast<RankedTensorType>(input.getType());
  if (axes.empty())
    return op->emitOpError("expects at least one axis to reduce over input ")
           << typeStr(type);
  if (failed(verifyAxes(op, type, axes)))
    return failure();
  return verifyReducedResult(op, type, axes, keepdim, type.getElementType(),
                             result.getType());
}

#define DSL_REDUCTION_VERIFIER(OP)                                             \
  LogicalResult OP::verify() {                                                 \
    if (failed(verifyUnsignedMarker(getOperation(), getIsUnsigned(),        \
                                    "is_unsigned", getInput())))               \
      return failure();                                                        \
    return verifyReduction(getOperation(), getInput(), getAxes(),              \
                           getKeepdim(), getResult());                         \
  }
DSL_REDUCTION_VERIFIER(SumOp)
DSL_REDUCTION_VERIFIER(MaxOp)
DSL_REDUCTION_VERIFIER(MinOp)
DSL_REDUCTION_VERIFIER(MeanOp)
#undef DSL_REDUCTION_VERIFIER

LogicalResult ArgmaxOp::verify() {
  if (failed(verifyUnsignedMarker(getOperation(), getIsUnsigned(),
                                  "is_unsigned", getInput())))
    return failure();
  auto type = getInput().getType();
  int64_t axis = getAxis();
  if (failed(verifyAxes(getOperation(), type, {axis})))
    return failure();
  return verifyReducedResult(getOperation(), type, {axis}, getKeepdim(),
                             IntegerType::get(getContext(), 64),
                             getResult().getType());
}
