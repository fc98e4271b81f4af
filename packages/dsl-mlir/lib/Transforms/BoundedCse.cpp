//===- BoundedCse.cpp - CSE linear in the number of loops -----------------===//
//
// `cse` compares the regions of every pair of operations with equal hashes,
// and a hash ignores regions: all tiled loops of one shape match, so a
// generated function with thousands of them took seconds (and the merged
// tensor.empty destinations slowed bufferization too). Past a bound on the
// top-level operations with regions, each of their regions is simplified on
// its own instead. See the pass's description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLBOUNDEDCSE
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

/// The operations with regions directly in the blocks of `func`'s body.
SmallVector<Operation *> topLevelRegionOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  for (Block &block : func.getBody())
    for (Operation &op : block)
      if (op.getNumRegions() > 0)
        ops.push_back(&op);
  return ops;
}

struct DslBoundedCse : dsl::impl::DslBoundedCseBase<DslBoundedCse> {
  using DslBoundedCseBase::DslBoundedCseBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    DominanceInfo &dominance = getAnalysis<DominanceInfo>();
    bool changed = false;
    SmallVector<Operation *> regionOps = topLevelRegionOps(func);
    if (static_cast<int64_t>(regionOps.size()) <= maxRegionOps) {
      eliminateCommonSubExpressions(rewriter, dominance, func, &changed);
    } else {
      for (Operation *op : regionOps) {
        bool opChanged = false;
        eliminateCommonSubExpressions(rewriter, dominance, op, &opChanged);
        changed |= opChanged;
      }
    }
    if (!changed)  // nothing merged: the IR is unchanged (no verification)
      return markAllAnalysesPreserved();
    // As `cse`: erasing operations keeps the dominance of those left.
    markAnalysesPreserved<DominanceInfo, PostDominanceInfo>();
  }
};

} // namespace
