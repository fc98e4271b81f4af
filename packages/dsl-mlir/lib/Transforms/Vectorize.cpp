//===- Vectorize.cpp - the dsl-vectorize pass -----------------------------===//
//
// Vectorizes the linalg tiles made by dsl-tile, keeps accumulators in
// registers across their loops and lowers the high-level vector ops
// (contract, multi_reduction, math functions) to what LLVM compiles well.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/MinMaxReductions.h"
#include "dsl/Conversion/OptionChecks.h"
#include "dsl/Conversion/Passes.h"
#include "dsl/Conversion/ScalefExp.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLVECTORIZE
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

constexpr StringLiteral kVectorSizes = "dsl.vector_sizes";

/// The innermost dimension of `op`'s (first) result: the vector lanes.
std::optional<unsigned> laneDim(linalg::LinalgOp op) {
  if (op.getNumDpsInits() == 0)
    return std::nullopt;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (map.getNumResults() == 0)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
  return dim ? std::optional<unsigned>(dim.getPosition()) : std::nullopt;
}

/// The vector sizes of a static tile: its own shape, except for an edge tile
/// of a contraction (e.g. 31 of the 32 columns of a register tile), whose
/// lanes are rounded up to a power of two and masked: LLVM splits the FMA
/// chains of odd-length vectors into slow pieces (3x at 257x255x253).
SmallVector<int64_t> staticVectorSizes(linalg::LinalgOp op) {
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  std::optional<unsigned> lanes = laneDim(op);
  if (lanes && linalg::isaContractionOpInterface(op))
    sizes[*lanes] = static_cast<int64_t>(llvm::PowerOf2Ceil(sizes[*lanes]));
  return sizes;
}

/// Vectorize one tagged op: static tiles at their own shape (edge tiles of
/// contractions masked to a power of two), dynamic (partial) tiles masked to
/// the tile sizes.
void vectorizeOne(RewriterBase &rewriter, linalg::LinalgOp op) {
  auto sizes = op->getAttrOfType<DenseI64ArrayAttr>(kVectorSizes);
  op->removeAttr(kVectorSizes);
  SmallVector<int64_t> vectorSizes;
  if (op.hasDynamicShape()) {
    vectorSizes.assign(sizes.asArrayRef().begin(), sizes.asArrayRef().end());
  } else {
    SmallVector<int64_t> padded = staticVectorSizes(op);
    if (padded != op.getStaticLoopRanges())
      vectorSizes = std::move(padded);
  }
  SmallVector<bool> scalable(vectorSizes.size(), false);
  if (failed(linalg::vectorizeOpPrecondition(op, vectorSizes, scalable)))
    return;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
      rewriter, op, vectorSizes, scalable,
      /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
      /*assumeDynamicDimsMatchVecSizes=*/false,
      /*createNamedContraction=*/true);
  if (succeeded(result))
    rewriter.replaceOp(op, result->replacements);
}

/// The math functions replaced by polynomial approximations (a few ulp in
/// f32); sqrt and rsqrt stay exact hardware instructions.
bool isApproximated(StringRef name) {
  name.consume_front("math.");
  return llvm::is_contained({"exp", "expm1", "log", "log1p", "log2", "tanh", "erf"},
                            name);
}

/// A float contraction of rank 2 whose reduction dimension (the last) has
/// size 1 and whose operands all index the dimensions in order, acc[p] +=
/// lhs[p, 0] * rhs[p, 0]: an elementwise FMA. A matmul tile of one row becomes such a
/// contraction once its unit M dimension is cast away (both operands then
/// index N and K), which the outer-product lowering cannot take and lowers as
/// one scalar reduction per lane: a 1 x 1024 x 1024 matmul ran at 2.7 GFLOP/s,
/// slower than one of 4 rows, and so did the one-row edge strip of an M of
/// 6k + 1. Not inside a vector.mask (the mask's lowering handles it).
struct UnitReductionContractToFma : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    auto accType = dyn_cast<VectorType>(op.getAccType());
    VectorType lhsType = op.getLhsType();
    if (op.getKind() != vector::CombiningKind::ADD || !accType ||
        isa<vector::MaskOp>(op->getParentOp()) || lhsType != op.getRhsType() ||
        !isa<FloatType>(accType.getElementType()) ||
        lhsType.getElementType() != accType.getElementType() ||
        lhsType.getShape().back() != 1 ||
        accType.getShape() != lhsType.getShape().drop_back())
      return failure();
    SmallVector<vector::IteratorType> iters = op.getIteratorTypesArray();
    unsigned rank = iters.size();
    // Rank 2 only: larger tiles (12x32x1) are outer products already.
    if (rank != 2 || iters.front() != vector::IteratorType::parallel ||
        iters.back() != vector::IteratorType::reduction)
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    AffineMap parallel = AffineMap::getMultiDimIdentityMap(rank, op.getContext())
                             .getMajorSubMap(rank - 1);
    if (!maps[0].isIdentity() || maps[1] != maps[0] || maps[2] != parallel)
      return failure();
    Location loc = op.getLoc();
    Value lhs = vector::ShapeCastOp::create(rewriter, loc, accType, op.getLhs());
    Value rhs = vector::ShapeCastOp::create(rewriter, loc, accType, op.getRhs());
    rewriter.replaceOpWithNewOp<vector::FMAOp>(op, lhs, rhs, op.getAcc());
    return success();
  }
};

/// Patterns that simplify freshly vectorized code on tensors.
void populateCleanupPatterns(RewritePatternSet &patterns) {
  patterns.add<UnitReductionContractToFma>(patterns.getContext());
  // Broadcasting reads become reads + vector.broadcast/transpose, which the
  // contraction patterns fold into the indexing maps of vector.contract.
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  vector::populateVectorReductionToContractPatterns(patterns);
  // Elementwise tiles are 1x..x1xV: make them 1-D (LLVM-friendly) vectors.
  vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
  // vector.mask { transfer } -> masked transfers (no mask regions remain).
  vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
  tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
  // A reduction over unit dimensions only (a column reduction's 1xV tile) is
  // the elementwise combination with its accumulator, not a reduction that
  // the lowering would scalarize lane by lane.
  vector::MultiDimReductionOp::getCanonicalizationPatterns(patterns,
                                                           patterns.getContext());
  vector::TransferReadOp::getCanonicalizationPatterns(patterns,
                                                      patterns.getContext());
  vector::TransferWriteOp::getCanonicalizationPatterns(patterns,
                                                       patterns.getContext());
}

/// Lowering of high-level vector ops to FMAs, reductions and broadcasts.
void populateVectorLoweringPatterns(RewritePatternSet &patterns) {
  vector::populateVectorContractLoweringPatterns(
      patterns, vector::VectorContractLowering::OuterProduct);
  vector::populateVectorMultiReductionLoweringPatterns(
      patterns, vector::VectorMultiReductionLowering::InnerReduction);
  // Square transposing tiles (dsl-tile): 16x16 of 32-bit elements become the
  // unpack/shuffle sequence of a register transpose (12x faster than numpy's
  // strided copy at 2048^2 f32, 1.6x faster than element-wise lowering).
  vector::populateVectorTransposeLoweringPatterns(
      patterns, vector::VectorTransposeLowering::Shuffle16x16);
}

/// Moves the loop-invariant, side-effect-free, speculatable ops of `loop`
/// that touch no tensor or memref (index arithmetic, masks) out of it. Reads
/// stay: hoisted out of a loop that runs zero times they could read out of
/// bounds after bufferization.
void hoistIndexComputations(LoopLikeOpInterface loop) {
  auto touchesMemory = [](Type t) { return isa<TensorType, BaseMemRefType>(t); };
  moveLoopInvariantCode(
      loop.getLoopRegions(),
      [&](Value v, Region *) { return loop.isDefinedOutsideOfLoop(v); },
      [&](Operation *op, Region *) {
        return op->getNumRegions() == 0 && isPure(op) &&
               llvm::none_of(op->getOperandTypes(), touchesMemory) &&
               llvm::none_of(op->getResultTypes(), touchesMemory);
      },
      [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
}

/// Lets LLVM sum the lanes of a floating-point add/mul reduction as a tree.
/// The lanes are already partial results of a reordered reduction (each
/// lane accumulated a strided slice of the row), so their order carries no
/// meaning; summed in lane order they form one dependent chain (64 scalar
/// adds, ~256 cycles per row of a softmax or layer norm), as a tree six
/// vector adds.
void reassociateLaneReductions(func::FuncOp fn) {
  fn.walk([](vector::ReductionOp op) {
    auto kind = op.getKind();
    if (!isa<FloatType>(op.getDest().getType()) ||
        (kind != vector::CombiningKind::ADD && kind != vector::CombiningKind::MUL))
      return;
    op.setFastmath(op.getFastmath() | arith::FastMathFlags::reassoc);
  });
}

struct DslVectorize : dsl::impl::DslVectorizeBase<DslVectorize> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    static constexpr dsl::OptionSpec specs[] = {
        {"approximate-math", dsl::OptionKind::Bool},
        {"avx512-exp", dsl::OptionKind::Bool},
        {"lower-vector-ops", dsl::OptionKind::Bool}};
    if (failed(dsl::checkPassOptionText(getArgument(), options, specs,
                                        errorHandler)))
      return failure();
    return Base::initializeOptions(options, errorHandler);
  }

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<linalg::LinalgOp> ops;
    fn.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kVectorSizes))
        ops.push_back(op);
    });
    IRRewriter rewriter(ctx);
    for (linalg::LinalgOp op : ops)
      vectorizeOne(rewriter, op);

    RewritePatternSet cleanup(ctx);
    populateCleanupPatterns(cleanup);
    if (failed(applyPatternsGreedily(fn, std::move(cleanup))))
      return signalPassFailure();

    // Innermost loops first: a register tile climbs out of K, then further.
    // Invariant index and mask computations move out first, so that the
    // subsets they define are invariant too: a masked edge tile's accumulator
    // then stays in registers across K instead of being read and written per
    // step (257x255x253 f32: 0.79x -> 1.15x numpy; dynamic 0.59x -> 1.0x).
    fn.walk([&](LoopLikeOpInterface loop) {
      hoistIndexComputations(loop);
      hoistLoopInvariantSubsets(rewriter, loop);
    });

    if (!lowerVectorOps)
      return;
    RewritePatternSet lowering(ctx);
    populateVectorLoweringPatterns(lowering);
    if (approximateMath) {
      // Preferred over upstream's exp (higher benefit) where it applies.
      if (avx512Exp)
        dsl::populateScalefExpPatterns(lowering, dsl::hostHasAvx512());
      populateMathF32ExpansionPatterns(lowering, isApproximated);
      populateMathPolynomialApproximationPatterns(lowering, isApproximated);
    }
    if (failed(applyPatternsGreedily(fn, std::move(lowering))))
      return signalPassFailure();
    reassociateLaneReductions(fn);
    dsl::speedUpMinMaxReductions(fn);
  }
};

} // namespace
