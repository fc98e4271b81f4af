//===- ValueSemantics.cpp - tensors are values at function boundaries -----===//
//
// Before one-shot bufferization:
// - every tensor parameter of a function definition is marked
//   `bufferization.writable = false`, so that an in-place update of a value
//   that is (or aliases) a parameter writes into a copy, never into the
//   caller's buffer;
// - a returned tensor that is a parameter, or that the same return already
//   returns, becomes `bufferization.alloc_tensor() copy(%v)`, so that every
//   result has a buffer of its own (buffer-results-to-out-params then writes
//   each into its own out-param).
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLVALUESEMANTICS
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

void markParametersReadOnly(func::FuncOp fn) {
  auto readOnly = BoolAttr::get(fn.getContext(), false);
  for (BlockArgument arg : fn.getArguments())
    if (isa<TensorType>(arg.getType()))
      fn.setArgAttr(arg.getArgNumber(),
                    bufferization::BufferizationDialect::kWritableAttrName,
                    readOnly);
}

/// Give each returned tensor that is a parameter or returned twice a copy.
void copySharedResults(func::FuncOp fn, func::ReturnOp ret) {
  Block &entry = fn.getBody().front();
  llvm::SmallPtrSet<Value, 4> seen;
  OpBuilder b(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    Value v = operand.get();
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      continue;
    auto arg = dyn_cast<BlockArgument>(v);
    bool isParameter = arg && arg.getOwner() == &entry;
    if (seen.insert(v).second && !isParameter)
      continue;
    auto copy = bufferization::AllocTensorOp::create(b, ret.getLoc(), type,
                                                     ValueRange{}, v);
    operand.set(copy.getResult());
  }
}

struct DslValueSemantics
    : dsl::impl::DslValueSemanticsBase<DslValueSemantics> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      markParametersReadOnly(fn);
      fn.walk([&](func::ReturnOp ret) { copySharedResults(fn, ret); });
    }
  }
};
} // namespace
