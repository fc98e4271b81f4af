//===- EmitCInterface.cpp - mark entry functions for the C interface ------===//

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
  void runOnOperation() override {
    UnitAttr unit = UnitAttr::get(&getContext());
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal())
        fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), unit);
  }
};
} // namespace
