//===- PackMatmul.cpp - micro-panels of a matmul's B operand ---------------===//
//
// Read in place, B costs a matmul's register tiles one row per k step: on
// this project's 2-core AVX2 host, rows 2-8 KiB apart put a K block of 256
// on 128-256 pages against a 64-entry L1 TLB, and the hardware prefetchers
// see a stride instead of a stream (0.70-0.88x of OpenBLAS with an ideal
// inner loop). Packing the block once into panels of nr columns, each row of
// a panel right after the previous one, makes the tiles' reads of B one
// contiguous stream, reused by every row strip of A.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/PackMatmul.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineExpr.h"

using namespace mlir;

namespace {

/// L1 data cache size below which B is left in place (it stays cached).
constexpr int64_t kL1Bytes = 32 * 1024;

/// Whether `op`'s indexing maps are A[m,k], B[k,n], C[m,n].
bool hasStandardMaps(linalg::LinalgOp op) {
  MLIRContext *ctx = op.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  SmallVector<AffineMap> expected = {AffineMap::get(3, 0, {m, k}, ctx),
                                     AffineMap::get(3, 0, {k, n}, ctx),
                                     AffineMap::get(3, 0, {m, n}, ctx)};
  return op.getNumDpsInputs() == 2 && op.getNumDpsInits() == 1 &&
         op.getIndexingMapsArray() == expected;
}

OpFoldResult apply(RewriterBase &rewriter, Location loc, AffineExpr expr,
                   ArrayRef<OpFoldResult> operands) {
  return affine::makeComposedFoldedAffineApply(rewriter, loc, expr, operands);
}

SmallVector<OpFoldResult> ones(RewriterBase &rewriter, size_t rank) {
  return SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1));
}

/// Whether `size` is a constant zero (nothing to copy).
bool isZero(OpFoldResult size) {
  std::optional<int64_t> c = getConstantIntValue(size);
  return c && *c == 0;
}

} // namespace

bool mlir::dsl::shouldPackMatmulB(linalg::LinalgOp op) {
  if (!hasStandardMaps(op) || !op.hasPureTensorSemantics())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t n = ranges[1], k = ranges[2];
  if (ShapedType::isDynamic(n) || ShapedType::isDynamic(k))
    return true;
  Type elt = getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
  int64_t bytes = std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
  return n * k * bytes > kL1Bytes;
}

mlir::dsl::PackedB mlir::dsl::packMatmulB(RewriterBase &rewriter, linalg::LinalgOp op,
                                          int64_t nr,
                                          SmallVectorImpl<linalg::LinalgOp> &copies) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value b = op.getDpsInputOperand(1)->get();
  Type elt = getElementTypeOrSelf(b.getType());
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx);
  OpFoldResult rows = tensor::getMixedSize(rewriter, loc, b, 0);
  OpFoldResult cols = tensor::getMixedSize(rewriter, loc, b, 1);
  OpFoldResult whole = apply(rewriter, loc, d0.floorDiv(nr), {cols});
  OpFoldResult panels = apply(rewriter, loc, d0.ceilDiv(nr), {cols});
  OpFoldResult wholeCols = apply(rewriter, loc, d0.floorDiv(nr) * nr, {cols});
  OpFoldResult rest = apply(rewriter, loc, d0 % nr, {cols});
  OpFoldResult zero = rewriter.getIndexAttr(0), width = rewriter.getIndexAttr(nr);
  Value packed = tensor::EmptyOp::create(rewriter, loc, {panels, rows, width}, elt);

  if (!isZero(whole)) {
    // B[:, :whole*nr] as [K][whole][nr], transposed into panels [whole][K][nr].
    Value src = tensor::ExtractSliceOp::create(rewriter, loc, b, {zero, zero},
                                               {rows, wholeCols}, ones(rewriter, 2));
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamic;
    dispatchIndexOpFoldResults({rows, whole, width}, dynamic, shape);
    auto expandedType = RankedTensorType::get(shape, elt);
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, expandedType, src, {{0}, {1, 2}}, {rows, whole, width});
    SmallVector<OpFoldResult> panelSizes = {whole, rows, width};
    Value dest = tensor::ExtractSliceOp::create(rewriter, loc, packed, {zero, zero, zero},
                                                panelSizes, ones(rewriter, 3));
    auto transpose = linalg::TransposeOp::create(rewriter, loc, expanded, dest,
                                                 ArrayRef<int64_t>{1, 0, 2});
    copies.push_back(cast<linalg::LinalgOp>(transpose.getOperation()));
    packed = tensor::InsertSliceOp::create(rewriter, loc, transpose->getResult(0), packed,
                                           {zero, zero, zero}, panelSizes, ones(rewriter, 3));
  }
  if (!isZero(rest)) {
    // The partial last panel: columns [whole*nr, N) into its first columns.
    Value src = tensor::ExtractSliceOp::create(rewriter, loc, b, {zero, wholeCols},
                                               {rows, rest}, ones(rewriter, 2));
    SmallVector<OpFoldResult> offsets = {whole, zero, zero};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1), rows, rest};
    auto panelType = tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(
        2, cast<RankedTensorType>(packed.getType()), sizes);
    Value dest = tensor::ExtractSliceOp::create(rewriter, loc, panelType, packed, offsets,
                                                sizes, ones(rewriter, 3));
    auto copy = linalg::CopyOp::create(rewriter, loc, ValueRange{src}, ValueRange{dest});
    copies.push_back(cast<linalg::LinalgOp>(copy.getOperation()));
    packed = tensor::InsertSliceOp::create(rewriter, loc, copy->getResult(0), packed,
                                           offsets, sizes, ones(rewriter, 3));
  }
  // Rows of all panels one after the other: a register tile's slice of them
  // is then a plain 2-D slice (the sizes of a rank-reducing one do not fold
  // for the vectorizer's masks, which then stay in the K loop).
  auto flat = tensor::CollapseShapeOp::create(rewriter, loc, packed,
                                              ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  return {flat, rows};
}

LogicalResult mlir::dsl::readPackedB(RewriterBase &rewriter, linalg::LinalgOp tiled, Value b,
                                     const PackedB &packed, int64_t nr) {
  OpOperand *operand = tiled.getDpsInputOperand(1);
  auto slice = operand->get().getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || slice.getSource() != b || !slice.hasUnitStride())
    return failure();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(slice);
  Location loc = slice.getLoc();
  AffineExpr k, n, rows;
  bindDims(rewriter.getContext(), k, n);
  bindSymbols(rewriter.getContext(), rows);
  SmallVector<OpFoldResult> from = slice.getMixedOffsets();
  // The tile starts at a multiple of nr (its width): at column 0 of panel
  // n / nr, whose row k is row (n / nr) * K + k of the flattened panels.
  OpFoldResult row = apply(rewriter, loc, n.floorDiv(nr) * rows + k, {from[0], from[1], packed.rows});
  SmallVector<OpFoldResult> offsets = {row, rewriter.getIndexAttr(0)};
  Value read = tensor::ExtractSliceOp::create(rewriter, loc, slice.getType(), packed.panels,
                                              offsets, slice.getMixedSizes(), ones(rewriter, 2));
  rewriter.modifyOpInPlace(tiled, [&] { operand->set(read); });
  if (slice->use_empty())
    rewriter.eraseOp(slice);
  return success();
}
