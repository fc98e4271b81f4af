//===- ResultSizeChecks.cpp - out-params no smaller than their results -----===//
//
// A result whose size is known only at run time (`pl.arange(n)` returned as
// `tensor<?xf32>`) is written into the caller's output array, whose size the
// dispatcher cannot know in advance. buffer-results-to-out-params replaces
// the result's allocation by the out-param, so the loops that fill it run to
// the computed size whatever the array holds. Two passes around it:
//
// - dsl-mark-result-sizes (just before): after each returned memref.alloc of
//   a function's entry block, `memref.dim %alloc, i == %size_i` for each
//   dynamic size, marked `dsl.result_size = [result, dim]`. Nothing may fold
//   it before the next pass (the pipeline runs none in between).
// - dsl-check-result-sizes (just after): the marked comparisons now read the
//   out-param's size. Each failing one reports a ValueError through the
//   error hook (RuntimeChecks.h) and the rest of the block, which writes the
//   out-param, runs only when they hold. Copies into out-params
//   (memref.copy into a function argument) are checked the same way.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"
#include "dsl/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLMARKRESULTSIZES
#define GEN_PASS_DEF_DSLCHECKRESULTSIZES
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;
using namespace mlir::dsl;

namespace {

constexpr StringLiteral kMarker = "dsl.result_size";

/// Marks the sizes of the returned allocations of `fn` (see the file header).
void markResultSizes(func::FuncOp fn) {
  Block &entry = fn.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
  if (!ret)
    return;
  for (auto [k, v] : llvm::enumerate(ret.getOperands())) {
    auto alloc = v.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != &entry || alloc.getDynamicSizes().empty())
      continue;
    OpBuilder b(alloc->getNextNode());
    // The user's `return` line: the check reports there.
    Location loc = ret.getLoc();
    MemRefType type = alloc.getType();
    unsigned next = 0;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (!type.isDynamicDim(i))
        continue;
      Value size = alloc.getDynamicSizes()[next++];
      Value dim = memref::DimOp::create(
          b, loc, alloc, arith::ConstantIndexOp::create(b, loc, i));
      auto ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, dim, size);
      ok->setAttr(kMarker, b.getDenseI64ArrayAttr({int64_t(k), i}));
    }
  }
}

std::string functionPlace(func::FuncOp fn) {
  return ("function " + fn.getSymName() + " at " + describeLocation(fn.getLoc()))
      .str();
}

/// Reports each failing marked comparison, then runs the rest of its block
/// only when it holds.
void guardResultSizes(func::FuncOp fn, ModuleOp module) {
  SmallVector<arith::CmpIOp> marked;
  fn.walk([&](arith::CmpIOp op) {
    if (op->hasAttr(kMarker))
      marked.push_back(op);
  });
  for (arith::CmpIOp ok : marked) {
    auto where = cast<DenseI64ArrayAttr>(ok->getAttr(kMarker)).asArrayRef();
    ok->removeAttr(kMarker);
    Block *block = ok->getBlock();
    Operation *terminator = block->getTerminator();
    if (terminator->getNumOperands() != 0)
      continue; // results left in registers: nothing is written past them
    OpBuilder b(ok->getContext());
    b.setInsertionPointAfter(ok);
    Location loc = ok.getLoc();
    std::string message =
        ("return at " + describeLocation(loc) + ": result " + Twine(where[0]) +
         " has size {0} in dimension {1}, but its output array has size {2}")
            .str();
    Value dim = arith::ConstantIndexOp::create(b, loc, where[1]);
    emitCheck(b, loc, module, ok, RuntimeErrorKind::Value, message,
              {ok.getRhs(), dim, ok.getLhs()});
    // Everything after the check (but the terminator) runs only when it holds.
    Operation *first = b.getInsertionPoint() == block->end()
                           ? nullptr
                           : &*b.getInsertionPoint();
    if (!first || first == terminator)
      continue;
    auto guard = scf::IfOp::create(b, loc, ok.getResult(), /*withElse=*/false);
    Block *then = guard.thenBlock();
    Operation *yield = then->getTerminator();
    while (&*std::next(Block::iterator(guard)) != terminator)
      std::next(Block::iterator(guard))->moveBefore(yield);
  }
}

/// `memref.copy %src, %out` into a function argument: only when the sizes
/// agree (a smaller out-param would be written past its end).
void guardCopiesIntoArguments(func::FuncOp fn, ModuleOp module) {
  SmallVector<memref::CopyOp> copies;
  fn.walk([&](memref::CopyOp copy) {
    auto arg = dyn_cast<BlockArgument>(copy.getTarget());
    auto type = dyn_cast<MemRefType>(copy.getTarget().getType());
    if (arg && arg.getOwner() == &fn.getBody().front() && type &&
        !type.hasStaticShape())
      copies.push_back(copy);
  });
  for (memref::CopyOp copy : copies) {
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    auto type = cast<MemRefType>(copy.getTarget().getType());
    auto arg = cast<BlockArgument>(copy.getTarget());
    std::string message =
        (functionPlace(fn) + ": the value written into argument " +
         Twine(arg.getArgNumber()) +
         " has size {0} in dimension {1}, but the array has size {2}")
            .str();
    SmallVector<RuntimeCheck> checks;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (!type.isDynamicDim(i))
        continue;
      Value index = arith::ConstantIndexOp::create(b, loc, i);
      Value from = memref::DimOp::create(b, loc, copy.getSource(), index);
      Value to = memref::DimOp::create(b, loc, copy.getTarget(), index);
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, from, to);
      checks.push_back({ok, RuntimeErrorKind::Value, message, {from, index, to}});
    }
    Value all = allPass(b, loc, checks);
    emitChecks(b, loc, module, checks);
    auto guard = scf::IfOp::create(b, loc, all, /*withElse=*/false);
    copy->moveBefore(guard.thenBlock()->getTerminator());
  }
}

struct DslMarkResultSizes
    : mlir::dsl::impl::DslMarkResultSizesBase<DslMarkResultSizes> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp fn) {
      if (!fn.isExternal())
        markResultSizes(fn);
    });
  }
};

struct DslCheckResultSizes
    : mlir::dsl::impl::DslCheckResultSizesBase<DslCheckResultSizes> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([&](func::FuncOp fn) {
      if (fn.isExternal())
        return;
      guardResultSizes(fn, module);
      guardCopiesIntoArguments(fn, module);
    });
  }
};

} // namespace
