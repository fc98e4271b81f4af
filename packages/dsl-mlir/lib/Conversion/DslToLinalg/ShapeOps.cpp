//===- ShapeOps.cpp - lowering of transpose, reshape, concat, slices ------===//
//
// transpose is a parallel linalg.generic (it fuses with elementwise
// neighbours); reshape, expand_dims and squeeze are tensor reshapes (views
// after bufferization); concat, slice and assemble are tensor slice ops.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace mlir::dsl;

namespace {

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    ArrayRef<int64_t> perm = op.getPermutation();
    // result[d0, ..] = x[..]: x's dimension perm[k] is the loop dimension k.
    SmallVector<AffineExpr> exprs(perm.size());
    for (auto [k, p] : llvm::enumerate(perm))
      exprs[p] = rewriter.getAffineDimExpr(k);
    SmallVector<AffineMap> maps = {
        AffineMap::get(type.getRank(), 0, exprs, getContext()),
        rewriter.getMultiDimIdentityMap(type.getRank())};
    SmallVector<Value> dyn;
    for (auto [k, p] : llvm::enumerate(perm))
      if (type.isDynamicDim(k))
        dyn.push_back(tensor::DimOp::create(rewriter, loc, op.getX(), p));
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType(), dyn);
    SmallVector<utils::IteratorType> iters(type.getRank(),
                                           utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getX()},
        ValueRange{init}, maps, iters,
        [](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l, a[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Static reshape: collapse to 1-D, then expand to the target (a step is
/// skipped when that side is 1-D). A rank-0 side has one element: the other
/// side is all ones and one reshape with the empty reassociation suffices.
struct ReshapeLowering : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    auto src = op.getX().getType();
    auto dst = op.getType();
    SmallVector<ReassociationIndices> none;
    auto all = [](int64_t rank) {
      return SmallVector<ReassociationIndices>{
          llvm::to_vector(llvm::seq<int64_t>(0, rank))};
    };
    Value result = x;
    if (src == dst)
      result = x;
    else if (src.getRank() == 0)
      result = tensor::ExpandShapeOp::create(rewriter, loc, dst, x, none);
    else if (dst.getRank() == 0)
      result = tensor::CollapseShapeOp::create(rewriter, loc, dst, x, none);
    else {
      if (src.getRank() > 1)
        result = tensor::CollapseShapeOp::create(
            rewriter, loc, src.clone({src.getNumElements()}), x,
            all(src.getRank()));
      if (dst.getRank() > 1)
        result = tensor::ExpandShapeOp::create(rewriter, loc, dst, result,
                                               all(dst.getRank()));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ExpandDimsLowering : OpRewritePattern<ExpandDimsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ExpandDimsOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeUnitDims(rewriter, op.getLoc(), op.getX(),
                                           op.getType(), {op.getAxis()}));
    return success();
  }
};

struct SqueezeLowering : OpRewritePattern<SqueezeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SqueezeOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeUnitDims(rewriter, op.getLoc(), op.getX(),
                                           op.getType(), {op.getAxis()}));
    return success();
  }
};

SmallVector<OpFoldResult> unitStrides(OpBuilder &b, int64_t rank) {
  return SmallVector<OpFoldResult>(rank, b.getIndexAttr(1));
}

/// tensor.empty + one tensor.insert_slice per input at a running offset.
struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    int64_t axis = op.getAxis(), rank = type.getRank();
    SmallVector<Value> dyn;
    OpFoldResult total = rewriter.getIndexAttr(0);
    auto add = [&](OpFoldResult a, OpFoldResult b) -> OpFoldResult {
      auto ca = getConstantIntValue(a), cb = getConstantIntValue(b);
      if (ca && cb)
        return rewriter.getIndexAttr(*ca + *cb);
      return arith::AddIOp::create(
                 rewriter, loc, getValueOrCreateConstantIndexOp(rewriter, loc, a),
                 getValueOrCreateConstantIndexOp(rewriter, loc, b))
          .getResult();
    };
    SmallVector<SmallVector<OpFoldResult>> sizes;
    for (Value v : op.getInputs()) {
      sizes.push_back(sizesOf(rewriter, loc, v));
      total = add(total, sizes.back()[axis]);
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      OpFoldResult s = d == axis ? total : sizes.front()[d];
      dyn.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, s));
    }
    Value result = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           type.getElementType(), dyn);
    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (auto [i, v] : llvm::enumerate(op.getInputs())) {
      if (isZeroInteger(sizes[i][axis]))
        continue; // nothing to insert (and offset == size would not verify)
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = offset;
      result = tensor::InsertSliceOp::create(rewriter, loc, v, result, offsets,
                                             sizes[i], unitStrides(rewriter, rank));
      if (i + 1 < sizes.size())
        offset = add(offset, sizes[i][axis]);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getResult().getType();
    SmallVector<OpFoldResult> offsets(op.getOffsets().begin(),
                                      op.getOffsets().end());
    SmallVector<OpFoldResult> sizes;
    for (int64_t s : type.getShape())
      sizes.push_back(rewriter.getIndexAttr(s));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, op.getSource(), offsets, sizes,
        unitStrides(rewriter, type.getRank()));
    return success();
  }
};

struct AssembleLowering : OpRewritePattern<AssembleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AssembleOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<OpFoldResult> offsets(op.getOffsets().begin(),
                                      op.getOffsets().end());
    int64_t rank = op.getType().getRank();
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, op.getSrc(), op.getDst(), offsets,
        sizesOf(rewriter, op.getLoc(), op.getSrc()),
        unitStrides(rewriter, rank));
    return success();
  }
};

} // namespace

void mlir::dsl::populateShapeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<TransposeLowering, ReshapeLowering, ExpandDimsLowering,
               SqueezeLowering, ConcatLowering, SliceLowering,
               AssembleLowering>(patterns.getContext());
}
