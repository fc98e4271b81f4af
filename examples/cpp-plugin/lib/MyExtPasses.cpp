//===- MyExtPasses.cpp - myext.square -> dsl.mul --------------------------===//
//
// A pass of the plugin that builds ops of dsl-mlir's own `dsl` dialect through
// its C++ API (the installed dsl headers; the code lives in libDslPythonCAPI.so).
//
//===----------------------------------------------------------------------===//
#include "MyExt/MyExtDialect.h"
#include "MyExt/MyExtPasses.h"

#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace myext {
#define GEN_PASS_DEF_MYEXTLOWERSQUARE
#include "MyExt/MyExtPasses.h.inc"
} // namespace myext

using namespace mlir;

namespace {

struct SquareToMul : OpRewritePattern<myext::SquareOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(myext::SquareOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<dsl::MulOp>(op, op.getType(), op.getInput(),
                                            op.getInput());
    return success();
  }
};

struct MyExtLowerSquare
    : myext::impl::MyExtLowerSquareBase<MyExtLowerSquare> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SquareToMul>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
