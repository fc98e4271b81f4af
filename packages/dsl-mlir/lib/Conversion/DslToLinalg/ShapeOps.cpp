//===- ShapeOps.cpp - lowering of transpose, reshape, concat, slices ------===//
//
// transpose is a parallel linalg.generic (it fuses with elementwise
// neighbours); reshape, expand_dims and squeeze are tensor reshapes (views
// after bufferization); concat, slice and assemble are tensor slice ops.
// The run-time offsets of slice and assemble are checked once per op
// (dsl/Conversion/RuntimeChecks.h).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "dsl/Conversion/RuntimeChecks.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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
/// Dynamic sizes other than the axis must agree with the first input's at
/// run time (checked once; ValueError).
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
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType(), dyn);
    auto insertAll = [&](OpBuilder &b) {
      Value result = empty;
      OpFoldResult offset = b.getIndexAttr(0);
      for (auto [i, v] : llvm::enumerate(op.getInputs())) {
        if (isZeroInteger(sizes[i][axis]))
          continue; // nothing to insert (and offset == size would not verify)
        SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
        offsets[axis] = offset;
        result = tensor::InsertSliceOp::create(b, loc, v, result, offsets,
                                               sizes[i], unitStrides(b, rank));
        if (i + 1 < sizes.size())
          offset = add(offset, sizes[i][axis]);
      }
      return result;
    };
    SmallVector<RuntimeCheck> checks = sameSizes(rewriter, op, sizes);
    Value ok = allPass(rewriter, loc, checks);
    auto module = op->getParentOfType<ModuleOp>();
    if (isConstantTrue(ok) || !module) {
      rewriter.replaceOp(op, insertAll(rewriter));
      return success();
    }
    // Dynamic sizes other than the axis differ: report, give an empty result.
    auto guarded = scf::IfOp::create(
        rewriter, loc, ok,
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, insertAll(b)); },
        [&](OpBuilder &b, Location l) {
          for (const RuntimeCheck &c : checks)
            emitCheck(b, l, module, c.ok, c.kind, c.message, c.values);
          scf::YieldOp::create(b, l, empty);
        });
    rewriter.replaceOp(op, guarded.getResult(0));
    return success();
  }

  /// Each input's sizes other than the axis equal the first input's (checked
  /// where one of them is dynamic).
  static SmallVector<RuntimeCheck>
  sameSizes(OpBuilder &b, ConcatOp op, ArrayRef<SmallVector<OpFoldResult>> sizes) {
    Location loc = op.getLoc();
    std::string message =
        (op->getName().getStringRef() + " at " + describeLocation(loc) +
         ": input {0} has size {1} in dimension {2} but the first input has {3}")
            .str();
    SmallVector<RuntimeCheck> checks;
    for (size_t i = 1; i < sizes.size(); ++i) {
      for (auto [d, size] : llvm::enumerate(sizes[i])) {
        if (static_cast<int64_t>(d) == op.getAxis() ||
            (getConstantIntValue(size) && getConstantIntValue(sizes[0][d])))
          continue;
        Value mine = getValueOrCreateConstantIndexOp(b, loc, size);
        Value first = getValueOrCreateConstantIndexOp(b, loc, sizes[0][d]);
        Value ok = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                 mine, first);
        checks.push_back({ok, RuntimeErrorKind::Value, message,
                          {arith::ConstantIndexOp::create(b, loc, i), mine,
                           arith::ConstantIndexOp::create(b, loc, d), first}});
      }
    }
    return checks;
  }
};

/// The run-time checks that a window of `sizes` at `offsets` lies inside
/// `extents`, one per dimension (offset, dimension, size, extent reported).
struct WindowChecks {
  SmallVector<RuntimeCheck> checks;
  /// Every size is statically known to fit its extent: clamping a bad offset
  /// to 0 then gives an in-bounds window (no branch around the op needed).
  bool sizesFit = true;
};

WindowChecks checkWindow(OpBuilder &b, Location loc, StringRef message,
                         ValueRange offsets, ArrayRef<OpFoldResult> sizes,
                         ArrayRef<OpFoldResult> extents) {
  WindowChecks result;
  for (auto [d, off] : llvm::enumerate(offsets)) {
    std::optional<int64_t> s = getConstantIntValue(sizes[d]);
    std::optional<int64_t> e = getConstantIntValue(extents[d]);
    Value size = getValueOrCreateConstantIndexOp(b, loc, sizes[d]);
    Value extent = getValueOrCreateConstantIndexOp(b, loc, extents[d]);
    Value ok;
    if (s && e && *s <= *e) {
      // 0 <= off <= extent - size, as one unsigned comparison.
      Value room = arith::ConstantIndexOp::create(b, loc, *e - *s);
      ok = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ule, off, room);
    } else {
      result.sizesFit = false;
      Value fits = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::sle,
                                                 size, extent);
      Value room = b.createOrFold<arith::SubIOp>(loc, extent, size);
      Value inRoom = b.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::ule, off, room);
      ok = b.createOrFold<arith::AndIOp>(loc, fits, inRoom);
    }
    Value dim = arith::ConstantIndexOp::create(b, loc, d);
    result.checks.push_back({ok, RuntimeErrorKind::Index, message.str(),
                             {off, dim, size, extent}});
  }
  return result;
}

std::string windowMessage(Operation *op, StringRef what, StringRef of) {
  return (op->getName().getStringRef() + " at " + describeLocation(op->getLoc()) +
          ": offset {0} in dimension {1} is out of bounds (" + what +
          " of size {2} in " + of + " of size {3})")
      .str();
}

/// `offsets` where a failed check is replaced by 0.
SmallVector<OpFoldResult> clampedOffsets(OpBuilder &b, Location loc,
                                         const WindowChecks &w) {
  SmallVector<OpFoldResult> offsets;
  Value zero;
  for (const RuntimeCheck &c : w.checks) {
    Value off = c.values[0];
    if (isConstantTrue(c.ok)) {
      offsets.push_back(getAsOpFoldResult(off));
      continue;
    }
    if (!zero)
      zero = arith::ConstantIndexOp::create(b, loc, 0);
    offsets.push_back(arith::SelectOp::create(b, loc, c.ok, off, zero).getResult());
  }
  return offsets;
}

/// True when one of `sizes` is a constant 0: the window holds no element.
/// (Upstream's slice verifiers refuse offset 0 in a dimension of size 0, so an
/// empty window never becomes a tensor slice op.)
static bool isEmptyWindow(ArrayRef<OpFoldResult> sizes) {
  return llvm::any_of(sizes, [](OpFoldResult s) {
    std::optional<int64_t> c = getConstantIntValue(s);
    return c && *c == 0;
  });
}

/// The window is checked once per op: with static sizes a bad offset is
/// reported and clamped (no branch around the slice); otherwise the slice
/// runs only when the whole window is in bounds, else an uninitialized
/// tensor stands in (the call raises IndexError after it returns).
struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getResult().getType();
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a module");
    SmallVector<OpFoldResult> sizes;
    for (int64_t s : type.getShape())
      sizes.push_back(rewriter.getIndexAttr(s));
    WindowChecks w = checkWindow(rewriter, loc,
                                 windowMessage(op, "a window", "a dimension"),
                                 op.getOffsets(), sizes,
                                 sizesOf(rewriter, loc, op.getSource()));
    auto strides = unitStrides(rewriter, type.getRank());
    if (w.sizesFit && isEmptyWindow(sizes)) {
      emitChecks(rewriter, loc, module, w.checks);
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    if (w.sizesFit) {
      emitChecks(rewriter, loc, module, w.checks);
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, type, op.getSource(), clampedOffsets(rewriter, loc, w), sizes,
          strides);
      return success();
    }
    SmallVector<OpFoldResult> offsets(op.getOffsets().begin(),
                                      op.getOffsets().end());
    auto guarded = scf::IfOp::create(
        rewriter, loc, allPass(rewriter, loc, w.checks),
        [&](OpBuilder &b, Location l) {
          Value r = tensor::ExtractSliceOp::create(b, l, type, op.getSource(),
                                                   offsets, sizes, strides);
          scf::YieldOp::create(b, l, r);
        },
        [&](OpBuilder &b, Location l) {
          for (const RuntimeCheck &c : w.checks)
            emitCheck(b, l, module, c.ok, c.kind, c.message, c.values);
          Value empty = tensor::EmptyOp::create(b, l, type.getShape(),
                                                type.getElementType());
          scf::YieldOp::create(b, l, empty);
        });
    rewriter.replaceOp(op, guarded.getResult(0));
    return success();
  }
};

/// Checked like a slice; when the tile's sizes are not statically known to
/// fit, a failed check leaves the destination unchanged.
struct AssembleLowering : OpRewritePattern<AssembleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AssembleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a module");
    int64_t rank = op.getType().getRank();
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, op.getSrc());
    WindowChecks w = checkWindow(rewriter, loc,
                                 windowMessage(op, "a tile", "a destination"),
                                 op.getOffsets(), sizes,
                                 sizesOf(rewriter, loc, op.getDst()));
    auto strides = unitStrides(rewriter, rank);
    if (w.sizesFit && isEmptyWindow(sizes)) {
      emitChecks(rewriter, loc, module, w.checks);
      rewriter.replaceOp(op, op.getDst());
      return success();
    }
    if (w.sizesFit) {
      emitChecks(rewriter, loc, module, w.checks);
      rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
          op, op.getSrc(), op.getDst(), clampedOffsets(rewriter, loc, w), sizes,
          strides);
      return success();
    }
    SmallVector<OpFoldResult> offsets(op.getOffsets().begin(),
                                      op.getOffsets().end());
    auto guarded = scf::IfOp::create(
        rewriter, loc,
        allPass(rewriter, loc, w.checks),
        [&](OpBuilder &b, Location l) {
          Value r = isEmptyWindow(sizes)
                        ? op.getDst()
                        : tensor::InsertSliceOp::create(b, l, op.getSrc(),
                                                        op.getDst(), offsets,
                                                        sizes, strides)
                              .getResult();
          scf::YieldOp::create(b, l, r);
        },
        [&](OpBuilder &b, Location l) {
          for (const RuntimeCheck &c : w.checks)
            emitCheck(b, l, module, c.ok, c.kind, c.message, c.values);
          scf::YieldOp::create(b, l, op.getDst());
        });
    rewriter.replaceOp(op, guarded.getResult(0));
    return success();
  }
};

} // namespace

void mlir::dsl::populateShapeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<TransposeLowering, ReshapeLowering, ExpandDimsLowering,
               SqueezeLowering, ConcatLowering, SliceLowering,
               AssembleLowering>(patterns.getContext());
}
