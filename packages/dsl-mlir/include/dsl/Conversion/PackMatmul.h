//===- PackMatmul.h - micro-panels of a matmul's B operand ------*- C++ -*-===//
//
// dsl-tile copies the block of B that a matmul's register tiles stream into
// contiguous micro-panels, GotoBLAS's layout: panel p holds columns
// [p*nr, (p+1)*nr) of every row of the block, row after row, so that each k
// step of a register tile reads nr consecutive elements and the next k step
// the nr after them (one sequential stream instead of one row of B per k
// step, rows kilobytes apart).
//
//===----------------------------------------------------------------------===//

#ifndef DSL_CONVERSION_PACKMATMUL_H
#define DSL_CONVERSION_PACKMATMUL_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dsl {

/// Whether `op` is a matmul in the standard layout (A[m,k], B[k,n],
/// C[m,n]) whose B block may be worth packing: it does not fit in the L1
/// cache (or is dynamic). Whether enough rows of A reuse it is the caller's.
bool shouldPackMatmulB(linalg::LinalgOp op);

/// The micro-panels of a matmul's B operand (K x N) in panel width nr: a
/// tensor<(ceil(N/nr) * K) x nr> whose row p*K + k holds B[k, p*nr + j] at
/// column j (the last panel's columns past N are never read).
struct PackedB {
  Value panels;
  OpFoldResult rows; // K
};

/// Builds the micro-panels of `op`'s B operand before `op`. The copies that
/// fill them (a transpose of the whole panels, a copy of the partial one) are
/// appended to `copies` for the caller to tile.
PackedB packMatmulB(RewriterBase &rewriter, linalg::LinalgOp op, int64_t nr,
                    SmallVectorImpl<linalg::LinalgOp> &copies);

/// Makes the register tile `tiled` (a tile of the matmul whose B operand
/// `b` was packed by packMatmulB with panel width `nr`) read its slice of B
/// from the panels. Its N tile must start at a multiple of `nr` and be at
/// most `nr` wide. Fails, changing nothing, when the tile's B operand is not
/// a slice of `b`.
LogicalResult readPackedB(RewriterBase &rewriter, linalg::LinalgOp tiled, Value b,
                          const PackedB &packed, int64_t nr);

} // namespace mlir::dsl

#endif // DSL_CONVERSION_PACKMATMUL_H
