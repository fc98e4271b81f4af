//===- FuseElementwise.cpp - elementwise fusion that recomputes cheap values -===//
//
// Upstream `linalg-fuse-elementwise-ops` fuses a producer into its consumer
// only when the consumer is its one use. A value used twice (softmax's
// `e = exp(x - max)`, read by the row sum and by the division) is then
// materialized as a full-size temporary: an allocation per call, written and
// read back (for tensors over 32 MiB malloc maps fresh pages, and every call
// page-faults the whole temporary: a 4x cliff at 1152x8192 f32). This pass
// applies the same patterns, but also fuses an elementwise producer with up to
// `kMaxUses` uses, all of them linalg ops: each consumer recomputes it, and once
// fused into every one the temporary is gone.
//
// Both kinds of fusion are bounded, or compiling long programs blows up: a
// recomputed producer is copied into each consumer, and consumers that are in
// turn recomputed compound (a DAG of shared subexpressions grew exponentially:
// 60 statements took a second, 100 never finished). Only a small producer
// (`kMaxRecomputedOps`) is recomputed, and no fusion makes a body larger than
// `kMaxFusedOps`: each fusion copies the producer's body, so an unbounded chain
// is quadratic. Past these sizes the work per element dwarfs one temporary.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"
#include "dsl/Conversion/RowOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLFUSEELEMENTWISE
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

/// The most uses of a value that fusion recomputes instead of storing.
constexpr unsigned kMaxUses = 3;

/// The largest body (in operations) recomputed in each of several consumers.
constexpr unsigned kMaxRecomputedOps = 16;

/// The largest body a fusion may produce.
constexpr unsigned kMaxFusedOps = 256;

/// The operations in the body of `op` (a linalg op), nested ones included,
/// counted up to `limit + 1`: enough to compare with `limit`, at bounded cost.
unsigned bodySize(Operation *op, unsigned limit) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return 0;
  unsigned count = 0;
  linalgOp.getBlock()->walk([&](Operation *) {
    return ++count > limit ? WalkResult::interrupt() : WalkResult::advance();
  });
  return count;
}

/// Whether `producer` (an elementwise linalg op) may be fused into the
/// consumers of its results: one use, or a few uses that are all linalg ops
/// when its body is small enough to recompute.
bool fusible(Operation *producer) {
  if (!producer)
    return false;
  if (producer->hasOneUse())
    return true;
  auto linalgOp = dyn_cast<linalg::GenericOp>(producer);
  if (!linalgOp || linalgOp.getNumReductionLoops() != 0 || producer->getNumResults() != 1)
    return false;
  if (bodySize(producer, kMaxRecomputedOps) > kMaxRecomputedOps)
    return false;
  unsigned uses = 0;
  for (Operation *user : producer->getUsers()) {
    if (!isa<linalg::LinalgOp>(user) || ++uses > kMaxUses)
      return false;
  }
  return true;
}

/// Whether `op`'s body computes a math function beyond the cheap ones (exp,
/// log, tanh, sqrt...: tens of instructions per vector, or a slow divide).
bool costly(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return false;
  WalkResult found = linalgOp.getBlock()->walk([](Operation *inner) {
    bool cheap = isa<math::AbsFOp, math::AbsIOp, math::CopySignOp, math::FmaOp>(inner);
    return isa<math::MathDialect>(inner->getDialect()) && !cheap ? WalkResult::interrupt()
                                                                : WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Whether dsl-fuse-rows will compute `producer` one row at a time, beside
/// its users: it runs over rows, and so do all its users, among them a row
/// reduction and an op that is not one (softmax's `exp(x - max)`, read by the
/// row sum and by the division). Stored for a row, in the cache, it costs
/// less than computed again in each user.
bool rowTemporary(Operation *producer) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(producer);
  if (!linalgOp || !dsl::indexesRows(linalgOp))
    return false;
  bool reduced = false, other = false;
  for (Operation *user : producer->getUsers()) {
    auto consumer = dyn_cast<linalg::LinalgOp>(user);
    if (!consumer || !dsl::indexesRows(consumer) || user->getBlock() != producer->getBlock())
      return false;
    (dsl::isRowReduction(user) ? reduced : other) = true;
  }
  return reduced && other;
}

/// Whether fusing into `operand` would recompute the producer for each of
/// several iterations of a reduction consumer: its map leaves out some of the
/// consumer's loops (a matmul operand read once per column of the other:
/// `matmul(exp(x), w)` would evaluate exp N times per element, and a packed
/// or converted copy of an operand would be undone).
bool multipliesWork(OpOperand *operand) {
  auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
  if (!consumer || consumer.getNumReductionLoops() == 0)
    return false;
  AffineMap map = consumer.getMatchingIndexingMap(operand);
  for (unsigned d = 0, e = map.getNumDims(); d < e; ++d)
    if (!map.isFunctionOfDim(d))
      return true;
  return false;
}

/// Whether fusing `operand`'s producer into its owner stays within
/// `kMaxFusedOps`.
bool smallEnough(OpOperand *operand) {
  unsigned producer = bodySize(operand->get().getDefiningOp(), kMaxFusedOps);
  unsigned consumer = bodySize(operand->getOwner(), kMaxFusedOps);
  return producer + consumer <= kMaxFusedOps;
}

struct DslFuseElementwise : dsl::impl::DslFuseElementwiseBase<DslFuseElementwise> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    bool rows = rowTemporaries;
    linalg::ControlFusionFn control = [rows](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      if (rows && producer && !producer->hasOneUse() && costly(producer) &&
          rowTemporary(producer))
        return false;
      return fusible(producer) && !multipliesWork(operand) && smallEnough(operand);
    };
    linalg::ControlFusionFn oneUse = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, oneUse);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, oneUse);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     GreedyRewriteConfig().setUseTopDownTraversal())))
      signalPassFailure();
  }
};

} // namespace
