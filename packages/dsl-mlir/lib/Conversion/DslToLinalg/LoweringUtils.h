//===- LoweringUtils.h - helpers shared by the dsl -> linalg patterns -----===//
#ifndef DSL_LIB_CONVERSION_DSLTOLINALG_LOWERINGUTILS_H
#define DSL_LIB_CONVERSION_DSLTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dsl {

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A tensor.empty of type `t`; its dynamic sizes are read from `like`, a
/// tensor of the same shape.
Value emptyLike(OpBuilder &b, Location loc, RankedTensorType t, Value like);

/// A parallel linalg.generic producing `resultType` from `operands`: tensor
/// operands are read with numpy broadcasting (size-1 dimensions and missing
/// leading dimensions map to the constant 0 / nothing), scalar operands are
/// used directly by `body`, which receives one value per operand. A dynamic
/// dimension of an operand read along a result dimension must have the
/// result's size at run time (the type says so, numpy would broadcast a 1):
/// when `what` (the op's name) is given, that is checked once and a mismatch
/// reports a ValueError and computes an empty result (see RuntimeChecks.h).
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, BodyFn body, StringRef what = "");

/// Convert a scalar between element types (nonzero -> true for i1). Integers
/// are signed unless `fromUnsigned` (the source: zero extension, uitofp) or
/// `toUnsigned` (the result: fptoui) says otherwise; i1 is always unsigned.
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to,
                    bool fromUnsigned = false, bool toUnsigned = false);

/// The reassociation that drops the dimensions `dropped` (all of size 1)
/// from a shape of rank `rank`: each dropped dimension joins the group of
/// the next kept one (the last group when none follows). Empty when every
/// dimension is dropped (a rank-0 side).
SmallVector<ReassociationIndices> reassociationDropping(int64_t rank,
                                                        ArrayRef<int64_t> dropped);

/// `source` reshaped to `type`, which has the same dimensions plus or minus
/// the unit dimensions `unitDims` (positions in the larger shape).
Value reshapeUnitDims(OpBuilder &b, Location loc, Value source,
                      RankedTensorType type, ArrayRef<int64_t> unitDims);

/// The tensor.dim sizes / static sizes of every dimension of `v`.
SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc, Value v);

void populateElementwiseLoweringPatterns(RewritePatternSet &patterns);
void populateReductionLoweringPatterns(RewritePatternSet &patterns);
void populateShapeLoweringPatterns(RewritePatternSet &patterns);
void populateTensorLoweringPatterns(RewritePatternSet &patterns);

} // namespace mlir::dsl

#endif // DSL_LIB_CONVERSION_DSLTOLINALG_LOWERINGUTILS_H
