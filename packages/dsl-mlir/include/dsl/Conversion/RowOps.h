//===- RowOps.h - recognizing row ops for dsl-fuse-rows ---------*- C++ -*-===//
//
// Shared by dsl-fuse-rows (which fuses row reductions and their consumer into
// a loop over rows) and dsl-fuse-elementwise (which leaves a costly value that
// such a loop will hold one row of unfused, instead of recomputing it).
//
//===----------------------------------------------------------------------===//

#ifndef DSL_CONVERSION_ROWOPS_H
#define DSL_CONVERSION_ROWOPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::dsl {

/// A linalg op on tensors whose first loop is parallel and gives the rows of
/// every result (a row tile of a result is a row tile of its loops), and that
/// is not a contraction (a matmul keeps its own blocking).
bool indexesRows(linalg::LinalgOp op);

/// A reduction along the innermost loop of a row-indexed op (the sum, max or
/// mean of each row).
bool isRowReduction(Operation *op);

/// Whether an op of static loop ranges `ranges` has too little work (under
/// 2^16 iterations) to pay for a fork and join of the thread pool (tens of
/// microseconds: the fills of a softmax's 4096 row accumulators made it
/// slower on 2 threads than on 1); dynamic sizes are distributed. Shared by dsl-tile and
/// dsl-fuse-rows.
bool tooSmallForThreads(ArrayRef<int64_t> ranges);

} // namespace mlir::dsl

#endif // DSL_CONVERSION_ROWOPS_H
