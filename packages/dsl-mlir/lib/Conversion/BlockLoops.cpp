//===- BlockLoops.cpp - the threads of a block as loops, around barriers --===//
//
// See BlockLoops.h. The steps, on the outlined kernel:
//  1. every barrier must be nested only in scf.for loops ("barrier loops");
//  2. the iter_args of barrier loops move to per-thread arrays (a barrier
//     loop runs once per block, so its carried values cannot be SSA values);
//  3. pure ops whose operands every thread has alike (arguments other than
//     the thread ids, barrier-loop induction variables, results of such ops)
//     move before the segments: they are computed once per block;
//  4. the other ops between barriers (and barrier loops) become segments, each
//     wrapped in loops over the threads (z, y, x), whose induction variables
//     replace the thread ids;
//  5. a value a segment computes and another segment uses goes through a
//     per-thread array: stored where it is computed, loaded where it is used.
// Arrays are `memref.alloca`s of the block's thread count, in an
// `memref.alloca_scope` around the body (released when the block is done).
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/BlockLoops.h"
#include "dsl/Conversion/ThreadLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

struct ThreadLoops {
  scf::ForOp outer;
  Value ids[3]; // x, y, z
};

class BlockLowering {
public:
  BlockLowering(func::FuncOp fn, unsigned first) : fn(fn), first(first) {}

  LogicalResult run() {
    Block &entry = fn.getBody().front();
    for (unsigned d = 0; d < 3; ++d) {
      tid[d] = entry.getArgument(first + 3 + d);
      bdim[d] = entry.getArgument(first + 6 + d);
    }
    scope = wrapInAllocaScope();
    Block &body = scope.getBodyRegion().front();
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    Location loc = fn.getLoc();
    threads = arith::MulIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bdim[0], bdim[1]), bdim[2]);
    allocaPoint = b.saveInsertionPoint();
    SmallVector<gpu::ShuffleOp> shuffles;
    fn.walk([&](gpu::ShuffleOp op) { shuffles.push_back(op); });
    for (gpu::ShuffleOp op : shuffles)
      if (failed(rewriteShuffle(op)))
        return failure();
    if (failed(checkBarriers()))
      return failure();
    for (unsigned i = 0; i < entry.getNumArguments(); ++i)
      if (i < first + 3 || i >= first + 6)
        uniform.insert(entry.getArgument(i));
    SmallVector<scf::ForOp> loops;
    fn.walk([&](scf::ForOp loop) {  // post-order: inner loops first
      if (barrierLoops.contains(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(demoteIterArgs(loop)))
        return failure();
    if (failed(segment(body)))
      return failure();
    for (ThreadLoops &t : wrapped)
      for (unsigned d = 0; d < 3; ++d)
        tid[d].replaceUsesWithIf(t.ids[d], [&](OpOperand &use) {
          return t.outer->isProperAncestor(use.getOwner());
        });
    for (ThreadLoops &t : wrapped)
      if (failed(demoteCrossingValues(t)))
        return failure();
    for (unsigned d = 0; d < 3; ++d)
      for (OpOperand &use : tid[d].getUses())
        return use.getOwner()->emitError(
            "the cpu backend needs every thread of the block to compute this alike "
            "(it decides a loop that holds a barrier), but it depends on the thread id");
    return success();
  }

private:
  /// Barriers only at the top level or in nests of scf.for loops.
  LogicalResult checkBarriers() {
    WalkResult result = fn.walk([&](gpu::BarrierOp barrier) {
      for (Operation *p = barrier->getParentOp(); p != scope; p = p->getParentOp()) {
        auto loop = dyn_cast<scf::ForOp>(p);
        if (!loop) {
          barrier.emitError("the cpu backend runs barriers at the top level of a kernel "
                            "or in for loops only, not inside '")
              << p->getName() << "'";
          return WalkResult::interrupt();
        }
        barrierLoops.insert(loop);
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// A warp shuffle as a store of every thread's value, a barrier and a load of
  /// the source lane's (the own value when the source is outside the warp, the
  /// width or the block).
  LogicalResult rewriteShuffle(gpu::ShuffleOp op) {
    Location loc = op.getLoc();
    FailureOr<Value> array = perThread(op.getValue().getType(), op);
    if (failed(array))
      return failure();
    OpBuilder b(op);
    memref::StoreOp::create(b, loc, op.getValue(), *array, linear(b, loc, tid));
    gpu::BarrierOp::create(b, loc);
    Value self = linear(b, loc, tid);
    Type index = b.getIndexType();
    Value warp = arith::ConstantIndexOp::create(b, loc, 32);
    Value lane = arith::RemUIOp::create(b, loc, self, warp);
    Value base = arith::SubIOp::create(b, loc, self, lane);
    Value offset = arith::IndexCastUIOp::create(b, loc, index, op.getOffset());
    Value width = arith::IndexCastUIOp::create(b, loc, index, op.getWidth());
    Value source;
    switch (op.getMode()) {
    case gpu::ShuffleMode::XOR:
      source = arith::XOrIOp::create(b, loc, lane, offset);
      break;
    case gpu::ShuffleMode::DOWN:
      source = arith::AddIOp::create(b, loc, lane, offset);
      break;
    case gpu::ShuffleMode::UP:  // lane - offset, "negative" (huge) when before lane 0
      source = arith::SubIOp::create(b, loc, lane, offset);
      break;
    case gpu::ShuffleMode::IDX:
      source = offset;
      break;
    }
    Value inWarp = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, source, width);
    Value at = arith::AddIOp::create(b, loc, base, source);
    Value inBlock = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at, threads);
    Value valid = arith::AndIOp::create(b, loc, inWarp, inBlock);
    Value safe = arith::SelectOp::create(b, loc, valid, at, self);
    Value result = memref::LoadOp::create(b, loc, *array, safe);
    op.getShuffleResult().replaceAllUsesWith(result);
    op.getValid().replaceAllUsesWith(valid);
    op.erase();
    return success();
  }

  /// Moves the body (all but the return) into an alloca_scope.
  memref::AllocaScopeOp wrapInAllocaScope() {
    Block &entry = fn.getBody().front();
    Operation *ret = entry.getTerminator();
    OpBuilder b(ret);
    auto op = memref::AllocaScopeOp::create(b, fn.getLoc(), TypeRange{});
    Block *body = new Block();
    op.getBodyRegion().push_back(body);
    body->getOperations().splice(body->end(), entry.getOperations(), entry.begin(),
                                 op->getIterator());
    OpBuilder end = OpBuilder::atBlockEnd(body);
    memref::AllocaScopeReturnOp::create(end, fn.getLoc(), ValueRange{});
    return op;
  }

  /// (tz * by + ty) * bx + tx from the thread-id values `ids`.
  Value linear(OpBuilder &b, Location loc, ArrayRef<Value> ids) {
    Value v = arith::MulIOp::create(b, loc, ids[2], bdim[1]);
    v = arith::AddIOp::create(b, loc, v, ids[1]);
    v = arith::MulIOp::create(b, loc, v, bdim[0]);
    return arith::AddIOp::create(b, loc, v, ids[0]);
  }

  /// A per-thread array of `type` (at the top of the alloca scope).
  FailureOr<Value> perThread(Type type, Operation *where) {
    if (!type.isIntOrIndexOrFloat())
      return where->emitError("the cpu backend cannot keep a value of type ")
             << type << " per thread across a barrier";
    OpBuilder b(fn.getContext());
    b.restoreInsertionPoint(allocaPoint);
    Value array = memref::AllocaOp::create(
        b, where->getLoc(), MemRefType::get({ShapedType::kDynamic}, type), ValueRange{threads});
    allocaPoint = b.saveInsertionPoint();
    return array;
  }

  /// A barrier loop's iter_args become per-thread arrays (loaded at the top of
  /// its body, stored before its yield and read after it).
  LogicalResult demoteIterArgs(scf::ForOp loop) {
    if (loop.getNumRegionIterArgs() == 0)
      return success();
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    SmallVector<Value> arrays;
    for (auto [init, type] : llvm::zip(loop.getInitArgs(), loop->getResultTypes())) {
      FailureOr<Value> array = perThread(type, loop);
      if (failed(array))
        return failure();
      memref::StoreOp::create(b, loc, init, *array, linear(b, loc, tid));
      arrays.push_back(*array);
    }
    auto plain = scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                                    loop.getStep());
    Block *oldBody = loop.getBody(), *newBody = plain.getBody();
    auto yield = cast<scf::YieldOp>(oldBody->getTerminator());
    OpBuilder inner = OpBuilder::atBlockBegin(newBody);
    for (auto [arg, array] : llvm::zip(loop.getRegionIterArgs(), arrays))
      arg.replaceAllUsesWith(
          memref::LoadOp::create(inner, loc, array, linear(inner, loc, tid)).getResult());
    loop.getInductionVar().replaceAllUsesWith(plain.getInductionVar());
    newBody->getOperations().splice(newBody->getTerminator()->getIterator(),
                                    oldBody->getOperations(), oldBody->begin(),
                                    yield->getIterator());
    OpBuilder last(newBody->getTerminator());
    for (auto [value, array] : llvm::zip(yield.getOperands(), arrays))
      memref::StoreOp::create(last, loc, value, array, linear(last, loc, tid));
    OpBuilder after(loop);
    after.setInsertionPointAfter(plain);
    for (auto [result, array] : llvm::zip(loop.getResults(), arrays))
      result.replaceAllUsesWith(
          memref::LoadOp::create(after, loc, array, linear(after, loc, tid)).getResult());
    barrierLoops.erase(loop);
    barrierLoops.insert(plain);
    loop.erase();
    return success();
  }

  bool isUniformOp(Operation &op) {
    if (op.getNumRegions() || op.hasTrait<OpTrait::IsTerminator>() || !isMemoryEffectFree(&op))
      return false;
    return llvm::all_of(op.getOperands(), [&](Value v) { return uniform.contains(v); });
  }

  /// Cuts `block` (the body of the scope or of a barrier loop) into segments.
  LogicalResult segment(Block &block) {
    // Uniform prefix: computed once per block, before the segments.
    Operation *prefixEnd = &block.front();
    while (prefixEnd != block.getTerminator() &&
           (isa<memref::AllocaOp>(prefixEnd) || isUniformOpAndMark(*prefixEnd)))
      prefixEnd = prefixEnd->getNextNode();
    for (Operation &op : llvm::make_early_inc_range(
             llvm::make_range(prefixEnd->getIterator(), block.end()))) {
      if (&op != block.getTerminator() && isUniformOpAndMark(op))
        op.moveBefore(prefixEnd);
    }
    SmallVector<Operation *> current;
    for (Operation &op : llvm::make_early_inc_range(
             llvm::make_range(prefixEnd->getIterator(), block.end()))) {
      if (&op == block.getTerminator())
        break;
      if (isa<gpu::BarrierOp>(op)) {
        wrap(current);
        op.erase();
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op); loop && barrierLoops.contains(loop)) {
        wrap(current);
        uniform.insert(loop.getInductionVar());
        if (failed(segment(*loop.getBody())))
          return failure();
        continue;
      }
      current.push_back(&op);
    }
    wrap(current);
    return success();
  }

  bool isUniformOpAndMark(Operation &op) {
    if (!isUniformOp(op))
      return false;
    for (Value r : op.getResults())
      uniform.insert(r);
    return true;
  }

  /// Moves `ops` into loops over the block's threads.
  void wrap(SmallVectorImpl<Operation *> &ops) {
    if (ops.empty())
      return;
    Location loc = ops.front()->getLoc();
    OpBuilder b(ops.front());
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    ThreadLoops t;
    Block *innermost = nullptr;
    for (int d = 2; d >= 0; --d) {
      auto loop = scf::ForOp::create(b, loc, zero, bdim[d], one);
      dsl::markThreadLoop(loop, d);
      if (d == 2)
        t.outer = loop;
      t.ids[d] = loop.getInductionVar();
      innermost = loop.getBody();
      b.setInsertionPoint(innermost->getTerminator());
    }
    for (Operation *op : ops)
      op->moveBefore(innermost->getTerminator());
    wrapped.push_back(t);
    ops.clear();
  }

  /// The thread loops enclosing `op`, if any.
  ThreadLoops *loopsOf(Operation *op) {
    for (ThreadLoops &t : wrapped)
      if (t.outer->isProperAncestor(op))
        return &t;
    return nullptr;
  }

  /// Values of `t`'s segment used outside it go through per-thread arrays.
  LogicalResult demoteCrossingValues(ThreadLoops &t) {
    SmallVector<Operation *> defs;
    t.outer.walk([&](Operation *op) {
      for (Value r : op->getResults())
        for (OpOperand &use : r.getUses())
          if (!t.outer->isProperAncestor(use.getOwner())) {
            defs.push_back(op);
            return;
          }
    });
    for (Operation *def : defs) {
      for (Value r : def->getResults()) {
        SmallVector<OpOperand *> outside;
        for (OpOperand &use : r.getUses())
          if (!t.outer->isProperAncestor(use.getOwner()))
            outside.push_back(&use);
        if (outside.empty())
          continue;
        FailureOr<Value> array = perThread(r.getType(), def);
        if (failed(array))
          return failure();
        OpBuilder b(def);
        b.setInsertionPointAfter(def);
        memref::StoreOp::create(b, def->getLoc(), r, *array,
                                linear(b, def->getLoc(), ArrayRef<Value>(t.ids, 3)));
        for (OpOperand *use : outside) {
          Operation *user = use->getOwner();
          ThreadLoops *there = loopsOf(user);
          if (!there)
            return user->emitError("the cpu backend needs every thread of the block to "
                                   "compute this alike (it decides a loop that holds a "
                                   "barrier), but it is computed per thread");
          OpBuilder ub(user);
          Value loaded = memref::LoadOp::create(
              ub, user->getLoc(), *array,
              linear(ub, user->getLoc(), ArrayRef<Value>(there->ids, 3)));
          use->set(loaded);
        }
      }
    }
    return success();
  }

  func::FuncOp fn;
  unsigned first;
  Value tid[3], bdim[3];
  Value threads;
  memref::AllocaScopeOp scope;
  OpBuilder::InsertPoint allocaPoint;
  llvm::SmallPtrSet<Operation *, 8> barrierLoops;
  llvm::DenseSet<Value> uniform;
  SmallVector<ThreadLoops> wrapped;
};

} // namespace

LogicalResult mlir::dsl::runThreadsAsLoops(func::FuncOp fn, unsigned first) {
  return BlockLowering(fn, first).run();
}
