//===- EmitCInterface.cpp - mark entry functions for the C interface ------===//

#include "dsl/Conversion/OptionChecks.h"
#include "dsl/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLEMITCINTERFACE
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {
struct DslEmitCInterface
    : dsl::impl::DslEmitCInterfaceBase<DslEmitCInterface> {
  using Base::Base;
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    static constexpr dsl::OptionSpec specs[] = {
        {"internalize", dsl::OptionKind::Bool}};
    if (failed(dsl::checkPassOptionText(getArgument(), options, specs,
                                        errorHandler)))
      return failure();
    return Base::initializeOptions(options, errorHandler);
  }
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    UnitAttr unit = UnitAttr::get(ctx);
    auto internal = LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal);
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn.isPublic() || fn.isExternal())
        continue;
      fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), unit);
      if (internalize)
        fn->setAttr("llvm.linkage", internal);
    }
  }
};
} // namespace
