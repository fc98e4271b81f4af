//===- MaterializeLoopYields.cpp - in-place loop-carried tensors ----------===//
//
// Each tensor an scf.for yields is written into the loop's own carried buffer
// (bufferization.materialize_in_destination ... in %iter_arg). When the yielded
// value comes from an scf.if inside the loop, each branch writes into that
// buffer instead, recursively. One-shot bufferization then keeps one buffer per
// carried tensor: no allocation escapes an iteration, so no run-time ownership
// bookkeeping is needed to free it.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLMATERIALIZELOOPYIELDS
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

/// Whether `v` already is `dest` updated in place: a chain of
/// destination-style ops (insert_slice, transfer_write, linalg, ...) and
/// loops whose destinations lead back to `dest`. Such a value bufferizes
/// into `dest`'s buffer by itself; wrapping it would be a read-after-write
/// conflict.
bool updatesInPlace(Value v, Value dest) {
  while (v != dest) {
    auto result = dyn_cast<OpResult>(v);
    if (!result)
      return false;
    Operation *op = result.getOwner();
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
      v = dps.getTiedOpOperand(result)->get();
    } else if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      v = forOp.getInitArgs()[result.getResultNumber()];
    } else {
      return false;
    }
  }
  return true;
}

/// Make operand `idx` of terminator `term` be written into `dest`.
void writeInto(Operation *term, unsigned idx, Value dest, scf::ForOp loop) {
  Value v = term->getOperand(idx);
  if (v == dest || !isa<RankedTensorType>(v.getType()) ||
      updatesInPlace(v, dest))
    return;
  if (auto ifOp = v.getDefiningOp<scf::IfOp>()) {
    if (v.hasOneUse() && loop->isProperAncestor(ifOp) && !ifOp.getElseRegion().empty()) {
      unsigned r = cast<OpResult>(v).getResultNumber();
      writeInto(ifOp.thenYield(), r, dest, loop);
      writeInto(ifOp.elseYield(), r, dest, loop);
      return;
    }
  }
  OpBuilder b(term);
  auto copy = bufferization::MaterializeInDestinationOp::create(b, term->getLoc(), v, dest);
  term->setOperand(idx, copy.getResult());
}

struct DslMaterializeLoopYields
    : dsl::impl::DslMaterializeLoopYieldsBase<DslMaterializeLoopYields> {
  void runOnOperation() override {
    getOperation()->walk([](scf::ForOp loop) {
      Operation *yield = loop.getBody()->getTerminator();
      for (auto [i, iterArg] : llvm::enumerate(loop.getRegionIterArgs()))
        writeInto(yield, i, iterArg, loop);
    });
  }
};
} // namespace
