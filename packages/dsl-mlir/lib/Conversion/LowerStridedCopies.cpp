//===- LowerStridedCopies.cpp - memref.copy without the runtime library ---===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLLOWERSTRIDEDCOPIES
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {
bool isContiguous(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && m.getLayout().isIdentity();
}

struct DslLowerStridedCopies
    : dsl::impl::DslLowerStridedCopiesBase<DslLowerStridedCopies> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp op) {
      if (!isContiguous(op.getSource().getType()) ||
          !isContiguous(op.getTarget().getType()))
        copies.push_back(op);
    });
    if (copies.empty())
      return markAllAnalysesPreserved();
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp op : copies) {
      rewriter.setInsertionPoint(op);
      linalg::CopyOp::create(rewriter, op.getLoc(), ValueRange{op.getSource()},
                             ValueRange{op.getTarget()});
      rewriter.eraseOp(op);
    }
  }
};
} // namespace
