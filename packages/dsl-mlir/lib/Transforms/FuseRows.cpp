//===- FuseRows.cpp - the dsl-fuse-rows pass -------------------------------===//
//
// Row ops (softmax, layer norm, rms norm) are a few linalg ops after
// elementwise fusion: row reductions (max, sum, mean) and an elementwise op
// that reads the input again with the reductions' results. Run one after the
// other, each op is a pass over the whole tensor: a tensor larger than the
// caches is read from memory once per reduction and once more by the final op
// (layer norm of 1151x8192 f32: three reads and a write, 44% of the copy
// bandwidth). This pass tiles the final op by rows and fuses the row
// reductions it reads (and their producers) into the row loop: each row is
// reduced and consumed while it is in the cache, and the tensor is read from
// memory once.
//
// Only ops whose first loop is parallel and indexes the rows of their results
// are fused, and only producers that nothing outside the fused group uses (a
// value also used elsewhere stays a whole-tensor op: fusing it would compute
// it twice). A producer whose slice would be its whole result (a column
// reduction, a broadcast row) is never fused into the row loop, or every row
// would recompute it.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"
#include "dsl/Conversion/RowOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLFUSEROWS
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;
using dsl::indexesRows;
using dsl::isRowReduction;

bool mlir::dsl::indexesRows(linalg::LinalgOp op) {
  if (!op || !op.hasPureTensorSemantics() || op.getNumLoops() < 2 ||
      op.getIteratorTypesArray().front() != utils::IteratorType::parallel ||
      linalg::isaContractionOpInterface(op))
    return false;
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (map.getNumResults() == 0)
      return false;
    auto first = dyn_cast<AffineDimExpr>(map.getResult(0));
    return first && first.getPosition() == 0;
  });
}

bool mlir::dsl::isRowReduction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && indexesRows(linalgOp) && linalgOp.getNumReductionLoops() > 0 &&
         linalgOp.getIteratorTypesArray().back() == utils::IteratorType::reduction;
}

namespace {

bool isReshape(Operation *op) {
  return isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

/// The op that computes `value`, looking through reshapes.
Operation *producerOf(Value value) {
  Operation *op = value.getDefiningOp();
  while (isReshape(op))
    op = op->getOperand(0).getDefiningOp();
  return op;
}

/// Whether every use of `op`'s results is an op of `group`, directly or
/// through reshapes whose uses are.
bool usedOnlyBy(Operation *op, const llvm::SetVector<Operation *> &group) {
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    return group.contains(user) || (isReshape(user) && usedOnlyBy(user, group));
  });
}

/// The ops that fuse into a row loop of `consumer`: it, and transitively the
/// row-indexed producers (fills included) used only by the group.
llvm::SetVector<Operation *> fusionGroup(linalg::LinalgOp consumer) {
  llvm::SetVector<Operation *> group;
  group.insert(consumer);
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < group.size(); ++i) {
      for (Value operand : group[i]->getOperands()) {
        Operation *producer = producerOf(operand);
        auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(producer);
        if (!linalgOp || group.contains(producer) || !indexesRows(linalgOp) ||
            producer->getBlock() != consumer->getBlock() || !usedOnlyBy(producer, group))
          continue;
        group.insert(producer);
        grew = true;
      }
    }
  }
  return group;
}

/// Whether fusing `group` into a row loop saves passes over memory: the
/// consumer runs along rows (not over one value per row) and the group holds
/// a row reduction besides it.
bool worthFusing(const llvm::SetVector<Operation *> &group) {
  auto consumer = cast<linalg::LinalgOp>(group.front());
  if (consumer.getStaticLoopRanges().back() == 1)
    return false;
  return llvm::any_of(group.getArrayRef().drop_front(), isRowReduction);
}

/// Whether `slice` takes a part of its source's rows (a tile of a row loop),
/// not all of them.
bool takesSomeRows(tensor::ExtractSliceOp slice) {
  RankedTensorType source = slice.getSourceType();
  RankedTensorType result = slice.getResultType();
  return source.getRank() > 0 && result.getRank() == source.getRank() &&
         (source.isDynamicDim(0) || result.isDynamicDim(0) ||
          result.getDimSize(0) < source.getDimSize(0));
}

struct DslFuseRows : dsl::impl::DslFuseRowsBase<DslFuseRows> {
  using Base::Base;

  /// Tiles `consumer` by one row and fuses `group` into the row loop.
  LogicalResult fuse(RewriterBase &rewriter, linalg::LinalgOp consumer,
                     const llvm::SetVector<Operation *> &group) {
    SmallVector<int64_t> sizes(consumer.getNumLoops(), 0);
    sizes.front() = 1;
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
    if (parallel && !dsl::tooSmallForThreads(consumer.getStaticLoopRanges()))
      tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp slice, OpResult producer,
            bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!group.contains(producer.getOwner()) || !takesSomeRows(slice))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    RewritePatternSet cleanup(rewriter.getContext());
    tensor::populateBubbleUpExtractSliceOpPatterns(cleanup);
    options.cleanupPatterns = FrozenRewritePatternSet(std::move(cleanup));
    rewriter.setInsertionPoint(consumer);
    FailureOr<scf::SCFTileAndFuseResult> fused = scf::tileConsumerAndFuseProducersUsingSCF(
        rewriter, cast<TilingInterface>(consumer.getOperation()), options);
    if (failed(fused))
      return failure();
    for (OpResult result : consumer->getResults())
      rewriter.replaceAllUsesWith(result, fused->replacements.lookup(result));
    // The fused producers are dead now: erase them, users first (the group
    // lists every op before its producers).
    for (Operation *op : group)
      eraseIfDead(rewriter, op);
    return success();
  }

  /// A producer used by two fused ops is fused once for each, along index
  /// computations that differ only until folded: folds them, then merges the
  /// copies (one reduction per row, not two). The row loop's bounds are read
  /// (tensor.dim) from the fused consumer's operands, i.e. from the original
  /// producers: read from their operands instead, or the whole-tensor
  /// producers stay alive and run before the loop (dynamic sizes).
  static void tidy(RewriterBase &rewriter, func::FuncOp func) {
    MLIRContext *ctx = rewriter.getContext();
    RewritePatternSet patterns(ctx);
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    affine::AffineLinearizeIndexOp::getCanonicalizationPatterns(patterns, ctx);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    (void)applyPatternsGreedily(func, std::move(patterns));
    DominanceInfo dominance(func);
    eliminateCommonSubExpressions(rewriter, dominance, func);
  }

  /// Erases `op` and the reshapes between it and its former users once
  /// nothing uses them.
  static void eraseIfDead(RewriterBase &rewriter, Operation *op) {
    SmallVector<Operation *> reshapes;
    for (Operation *user : op->getUsers())
      if (isReshape(user))
        reshapes.push_back(user);
    for (Operation *reshape : reshapes)
      eraseIfDead(rewriter, reshape);
    if (op->use_empty())
      rewriter.eraseOp(op);
  }

  void runOnOperation() override {
    // Nothing to fuse without a row reduction (most functions): no rewrite.
    if (!getOperation().walk([](Operation *op) {
          return isRowReduction(op) ? WalkResult::interrupt() : WalkResult::advance();
        }).wasInterrupted())
      return markAllAnalysesPreserved();
    // The run-time checks of dynamic sizes read them with tensor.dim of the
    // ops' results; read from the operands instead, they no longer keep a
    // fused producer alive.
    RewritePatternSet dims(&getContext());
    memref::populateResolveRankedShapedTypeResultDimsPatterns(dims);
    if (failed(applyPatternsGreedily(getOperation(), std::move(dims))))
      return signalPassFailure();
    SmallVector<linalg::LinalgOp> consumers;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (indexesRows(op) && !isa<linalg::FillOp>(op.getOperation()))
        consumers.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    llvm::DenseSet<Operation *> gone;
    bool fusedAny = false;
    for (linalg::LinalgOp consumer : llvm::reverse(consumers)) {
      if (gone.contains(consumer))
        continue;
      llvm::SetVector<Operation *> group = fusionGroup(consumer);
      if (!worthFusing(group))
        continue;
      gone.insert(group.begin(), group.end());
      fusedAny |= succeeded(fuse(rewriter, consumer, group));
    }
    if (fusedAny)
      tidy(rewriter, getOperation());
  }
};

} // namespace
