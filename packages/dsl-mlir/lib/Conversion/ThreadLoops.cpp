//===- ThreadLoops.cpp - thread loops: guards to bounds, vectorizer hints -===//
//
// A kernel's threads run on the CPU as `scf.for` loops over their ids
// (ThreadLoops.h). Kernels guard their work by the thread's global index
// (`i = block_id * block_dim + thread_id; if i < n: ...`), which leaves a
// branch in every iteration and keeps LLVM from vectorizing the loop. For
// each thread loop, innermost first, whose body is pure ops and one
// `scf.if` (no results, no else):
//  * a conjunct of the condition of the form `iv + off <pred> limit` (signed
//    `<`, `<=`, `>`, `>=` or `==`, `off` and `limit` defined outside the loop)
//    narrows the loop's bounds instead;
//  * a conjunct defined outside the loop becomes an `scf.if` around it (it
//    then guards the enclosing thread loop, which is refined in turn);
//  * the other conjuncts stay in the loop's `scf.if` (or the `scf.if` goes
//    away when none is left).
// Conjuncts are the leaves of `arith.andi` trees and of short-circuit ands
// (`scf.if %a -> i1 { ... yield %b } else { yield false }`, which dsl-parser
// emits for `a and x[i] > 0`); a short-circuit whose `a` became bounds
// evaluates `b` unconditionally. The ops before the guard may read memory
// (the iterations cut off would only have read).
// Pure loop-invariant ops are hoisted first so that offsets and limits are
// found outside. A loop narrowed from constant bounds gets a copy over those
// bounds for the blocks whose threads all pass the guard (a trip count LLVM
// knows). Each x loop that holds no other loop then gets an
// `llvm.loop_annotation` asking LLVM's loop vectorizer to vectorize it (the
// JIT's LLVM pipeline runs the vectorizer on such loops only), with its
// accesses declared parallel: threads between barriers do not depend on each
// other (two threads writing, or one writing and one reading, the same
// element without a barrier between is a data race, as on a GPU), so LLVM
// needs no run-time alias checks. dsl-loop-annotations, after the conversion
// to the LLVM dialect, tags the loop's loads and stores with the group.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"
#include "dsl/Conversion/RuntimeChecks.h"
#include "dsl/Conversion/ThreadLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLTHREADLOOPS
#define GEN_PASS_DEF_DSLLOOPANNOTATIONS
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;
using namespace mlir::dsl;

namespace {

/// The `scf.if` that computes `a and b` with `b` evaluated only when `a` holds
/// (dsl-parser's `and` of an operand that may fault): one i1 result, its else
/// yielding false; null for anything else.
scf::IfOp shortCircuitAnd(Value v) {
  auto op = v.getDefiningOp<scf::IfOp>();
  if (!op || op.getNumResults() != 1 || !op.elseBlock())
    return nullptr;
  auto yield = cast<scf::YieldOp>(op.elseBlock()->getTerminator());
  std::optional<int64_t> value = getConstantIntValue(yield.getOperand(0));
  return value && *value == 0 ? op : nullptr;
}

/// The leaves of `cond`, a tree of `arith.andi` and short-circuit ands. The
/// result of a short-circuit `a and b` is a leaf (standing for `b`) after the
/// leaves of `a`; those ifs go to `shortCircuits`.
void conjuncts(Value cond, SmallVectorImpl<Value> &leaves,
               SmallVectorImpl<scf::IfOp> &shortCircuits) {
  if (auto both = cond.getDefiningOp<arith::AndIOp>()) {
    conjuncts(both.getLhs(), leaves, shortCircuits);
    conjuncts(both.getRhs(), leaves, shortCircuits);
    return;
  }
  if (scf::IfOp sc = shortCircuitAnd(cond)) {
    conjuncts(sc.getCondition(), leaves, shortCircuits);
    shortCircuits.push_back(sc);
  }
  leaves.push_back(cond);
}

/// Whether every conjunct of `cond` is in `known` (true wherever the loop runs).
bool allKnown(Value cond, const llvm::SmallPtrSetImpl<Value> &known) {
  SmallVector<Value> leaves;
  SmallVector<scf::IfOp> inner;
  conjuncts(cond, leaves, inner);
  return llvm::all_of(leaves, [&](Value leaf) { return known.contains(leaf); });
}

/// Whether `op` writes or frees nothing (reads and allocations may be skipped:
/// no thread outside the narrowed bounds would have used what they produce).
bool onlyReads(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects = getEffectsRecursively(op);
  return effects && llvm::all_of(*effects, [](const MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Read, MemoryEffects::Allocate>(e.getEffect());
         });
}

/// A value `off`, built before `loop`, with `v == iv + off`; failure when `v`
/// is not the induction variable plus and minus values defined outside.
FailureOr<Value> offsetFromIv(OpBuilder &b, Value v, scf::ForOp loop) {
  Location loc = loop.getLoc();
  if (v == loop.getInductionVar())
    return arith::ConstantIndexOp::create(b, loc, 0).getResult();
  if (loop.isDefinedOutsideOfLoop(v))
    return failure();
  if (auto add = v.getDefiningOp<arith::AddIOp>()) {
    for (auto [inner, other] : {std::pair(add.getLhs(), add.getRhs()),
                                std::pair(add.getRhs(), add.getLhs())}) {
      if (!loop.isDefinedOutsideOfLoop(other))
        continue;
      FailureOr<Value> off = offsetFromIv(b, inner, loop);
      if (succeeded(off))
        return arith::AddIOp::create(b, loc, *off, other).getResult();
    }
    return failure();
  }
  if (auto sub = v.getDefiningOp<arith::SubIOp>()) {
    if (!loop.isDefinedOutsideOfLoop(sub.getRhs()))
      return failure();
    FailureOr<Value> off = offsetFromIv(b, sub.getLhs(), loop);
    if (succeeded(off))
      return arith::SubIOp::create(b, loc, *off, sub.getRhs()).getResult();
  }
  return failure();
}

/// The predicate of `b <pred> a` for `a <pred> b`.
arith::CmpIPredicate swapped(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::slt: return P::sgt;
  case P::sle: return P::sge;
  case P::sgt: return P::slt;
  case P::sge: return P::sle;
  default: return pred;
  }
}

struct Bounds {
  SmallVector<Value> lower, upper;
  bool empty() const { return lower.empty() && upper.empty(); }
};

/// Adds the bounds on the induction variable that `cmp` states, when it
/// compares `iv + off` with a value defined outside `loop` (signed or `==`).
bool addBounds(OpBuilder &b, arith::CmpIOp cmp, scf::ForOp loop, Bounds &bounds) {
  using P = arith::CmpIPredicate;
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  P pred = cmp.getPredicate();
  if (!loop.isDefinedOutsideOfLoop(rhs)) {
    std::swap(lhs, rhs);
    pred = swapped(pred);
  }
  if (!loop.isDefinedOutsideOfLoop(rhs) || !lhs.getType().isIndex() ||
      !llvm::is_contained({P::slt, P::sle, P::sgt, P::sge, P::eq}, pred))
    return false;
  FailureOr<Value> off = offsetFromIv(b, lhs, loop);
  if (failed(off))
    return false;
  Location loc = cmp.getLoc();
  Value limit = arith::SubIOp::create(b, loc, rhs, *off);  // iv <pred> limit
  auto next = [&] {
    return arith::AddIOp::create(b, loc, limit, arith::ConstantIndexOp::create(b, loc, 1))
        .getResult();
  };
  switch (pred) {
  case P::slt: bounds.upper.push_back(limit); break;
  case P::sle: bounds.upper.push_back(next()); break;
  case P::sgt: bounds.lower.push_back(next()); break;
  case P::sge: bounds.lower.push_back(limit); break;
  default:  // eq
    bounds.lower.push_back(limit);
    bounds.upper.push_back(next());
  }
  return true;
}

/// The `scf.if` that guards all the side effects of `loop`'s body: the body
/// is ops that only read, that `scf.if` (no results, nothing in its else) and
/// the yield.
scf::IfOp soleGuard(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() != 0 || loop.getConstantStep() != 1)
    return nullptr;
  scf::IfOp guard;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto ifOp = dyn_cast<scf::IfOp>(op);
    if (ifOp && !guard && ifOp.getNumResults() == 0 &&
        (!ifOp.elseBlock() || ifOp.elseBlock()->without_terminator().empty())) {
      guard = ifOp;
      continue;
    }
    if (!onlyReads(&op))
      return nullptr;
  }
  return guard;
}

/// Replaces `loop`, whose bounds were narrowed from the constants `lb` and
/// `ub`, by `scf.if (bounds == (lb, ub)) { loop from lb to ub } else { loop }`:
/// the blocks whose threads all pass the guard run a loop whose trip count
/// LLVM knows (no remainder loop).
void versionForWholeRange(scf::ForOp loop, Value lb, Value ub) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value sameLb = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, loop.getLowerBound(), lb);
  Value sameUb = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, loop.getUpperBound(), ub);
  Value whole = arith::AndIOp::create(b, loc, sameLb, sameUb);
  auto fork = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
  b.setInsertionPoint(fork.thenBlock()->getTerminator());
  auto constant = cast<scf::ForOp>(b.clone(*loop));
  constant.setLowerBound(lb);
  constant.setUpperBound(ub);
  loop->moveBefore(fork.elseBlock()->getTerminator());
}

/// One step of the rewrite described at the top of the file; whether it
/// changed `loop`.
bool refineGuard(scf::ForOp loop) {
  scf::IfOp guard = soleGuard(loop);
  if (!guard)
    return false;
  SmallVector<Value> leaves, hoisted, residual;
  SmallVector<scf::IfOp> shortCircuits;
  conjuncts(guard.getCondition(), leaves, shortCircuits);
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Bounds bounds;
  llvm::SmallPtrSet<Value, 8> known;  // true wherever the narrowed loop runs
  for (Value leaf : leaves) {
    if (std::optional<int64_t> c = getConstantIntValue(leaf); c && *c != 0) {
      known.insert(leaf);  // `true`: nothing to hoist (LICM moves it out)
      continue;
    }
    if (loop.isDefinedOutsideOfLoop(leaf)) {
      hoisted.push_back(leaf);
      known.insert(leaf);
      continue;
    }
    auto cmp = leaf.getDefiningOp<arith::CmpIOp>();
    if (cmp && addBounds(b, cmp, loop, bounds))
      known.insert(leaf);
    else
      residual.push_back(leaf);
  }
  if (hoisted.empty() && bounds.empty())
    return false;
  // A short-circuit `a and b` whose `a` is now known evaluates `b` always.
  for (scf::IfOp sc : shortCircuits)
    if (allKnown(sc.getCondition(), known)) {
      OpBuilder sb(sc);
      sc.getConditionMutable().assign(arith::ConstantIntOp::create(sb, sc.getLoc(), sb.getI1Type(), 1));
    }
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  for (Value l : bounds.lower)
    lb = arith::MaxSIOp::create(b, loc, lb, l);
  for (Value u : bounds.upper)
    ub = arith::MinSIOp::create(b, loc, ub, u);
  loop.setLowerBound(lb);
  loop.setUpperBound(ub);
  if (residual.empty()) {
    Block *then = guard.thenBlock();
    then->getTerminator()->erase();
    loop.getBody()->getOperations().splice(Block::iterator(guard), then->getOperations());
    guard.erase();
  } else {
    OpBuilder gb(guard);
    guard.getConditionMutable().assign(allOf(gb, guard.getLoc(), residual));
  }
  if (!hoisted.empty()) {
    auto outer = scf::IfOp::create(b, loc, allOf(b, loc, hoisted), /*withElseRegion=*/false);
    loop->moveBefore(outer.thenBlock()->getTerminator());
  }
  return true;
}

bool holdsLoops(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](Operation *op) {
        return isa<LoopLikeOpInterface>(op) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The discardable attribute that convert-scf-to-cf copies from an `scf.for`
/// to the back edge of its loop.
constexpr StringLiteral kLoopAnnotationAttr = "llvm.loop_annotation";

/// Asks LLVM's loop vectorizer to vectorize `loop`, whose iterations (threads
/// between two barriers) access memory independently: the annotation lists a
/// fresh access group as the loop's parallel accesses, which
/// dsl-loop-annotations puts on every load and store of the loop.
void requestVectorization(scf::ForOp loop) {
  MLIRContext *ctx = loop.getContext();
  auto enable = BoolAttr::get(ctx, false);  // `disable = false`: vectorize.enable
  auto vectorize = LLVM::LoopVectorizeAttr::get(ctx, enable, {}, {}, {}, {}, {}, {});
  auto group = LLVM::AccessGroupAttr::get(ctx);
  auto annotation = LLVM::LoopAnnotationAttr::get(ctx, {}, vectorize, {}, {}, {}, {}, {}, {},
                                                  {}, {}, {}, {}, {}, {}, {group});
  loop->setAttr(kLoopAnnotationAttr, annotation);
}

struct DslThreadLoops : dsl::impl::DslThreadLoopsBase<DslThreadLoops> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {  // post-order: inner loops first
      if (loop->hasAttr(kThreadLoopAttr))
        loops.push_back(loop);
    });
    if (loops.empty())  // no thread loop (no kernel launch): nothing to do
      return markAllAnalysesPreserved();
    for (scf::ForOp loop : loops) {
      Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
      do
        moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
      while (refineGuard(loop));
      auto dim = loop->getAttrOfType<IntegerAttr>(kThreadLoopAttr);
      bool narrowed = loop.getLowerBound() != lb || loop.getUpperBound() != ub;
      if (narrowed && dim && dim.getInt() == 0 && getConstantIntValue(lb) &&
          getConstantIntValue(ub))
        versionForWholeRange(loop, lb, ub);
    }
    loops.clear();
    getOperation().walk([&](scf::ForOp loop) {  // with the copies of versioning
      if (loop->hasAttr(kThreadLoopAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto dim = loop->getAttrOfType<IntegerAttr>(kThreadLoopAttr);
      loop->removeAttr(kThreadLoopAttr);
      if (dim && dim.getInt() == 0 && !holdsLoops(loop))
        requestVectorization(loop);
    }
  }
};

/// The blocks of the natural loop of the back edge `latch -> header`.
llvm::SetVector<Block *> loopBlocks(Block *latch, Block *header) {
  llvm::SetVector<Block *> blocks;
  blocks.insert(header);
  SmallVector<Block *> work{latch};
  while (!work.empty()) {
    Block *block = work.pop_back_val();
    if (blocks.insert(block))
      llvm::append_range(work, block->getPredecessors());
  }
  return blocks;
}

/// Adds `groups` to the access groups of every load and store in `blocks`.
void tagAccesses(const llvm::SetVector<Block *> &blocks, ArrayRef<LLVM::AccessGroupAttr> groups) {
  for (Block *block : blocks)
    for (Operation &op : *block) {
      auto access = dyn_cast<LLVM::AccessGroupOpInterface>(op);
      if (!access)
        continue;
      SmallVector<Attribute> all;
      if (ArrayAttr old = access.getAccessGroupsOrNull())
        llvm::append_range(all, old);
      llvm::append_range(all, groups);
      access.setAccessGroups(ArrayAttr::get(op.getContext(), all));
    }
}

/// Moves the loop annotation each back edge carries as a discardable attribute
/// into the branch's own `loop_annotation`, which the translation to LLVM IR
/// emits as `!llvm.loop` metadata; the access groups an annotation lists as
/// parallel accesses go on every load and store of the loop.
struct DslLoopAnnotations : dsl::impl::DslLoopAnnotationsBase<DslLoopAnnotations> {
  void runOnOperation() override {
    bool changed = false;
    getOperation().walk([&](Operation *op) {
      auto annotation = op->getAttrOfType<LLVM::LoopAnnotationAttr>(kLoopAnnotationAttr);
      if (!annotation)
        return;
      changed = true;
      op->removeAttr(kLoopAnnotationAttr);
      if (auto br = dyn_cast<LLVM::BrOp>(op)) {
        br.setLoopAnnotationAttr(annotation);
        tagAccesses(loopBlocks(br->getBlock(), br.getDest()),
                    annotation.getParallelAccesses());
      } else if (auto condBr = dyn_cast<LLVM::CondBrOp>(op)) {
        condBr.setLoopAnnotationAttr(annotation);
      }
    });
    if (!changed)
      markAllAnalysesPreserved();
  }
};

} // namespace
