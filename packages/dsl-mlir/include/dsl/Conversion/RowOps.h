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

} // namespace mlir::dsl

#endif // DSL_CONVERSION_ROWOPS_H
