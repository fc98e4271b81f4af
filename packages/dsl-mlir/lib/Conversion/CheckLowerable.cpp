//===- CheckLowerable.cpp - refuse types the lowering cannot handle -------===//

#include "dsl/Conversion/Passes.h"
#include "dsl/Dialect/Dsl/IR/TypeChecks.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLCHECKLOWERABLE
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {
struct DslCheckLowerable
    : dsl::impl::DslCheckLowerableBase<DslCheckLowerable> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(dsl::checkLowerable(getOperation())))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
