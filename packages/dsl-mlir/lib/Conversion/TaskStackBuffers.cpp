//===- TaskStackBuffers.cpp - parallel iterations' temporaries on the stack -===//
//
// The iterations of an `scf.forall` run at once on several threads: a buffer
// one of them allocates cannot be hoisted out of the loop and shared, as
// `buffer-loop-hoisting` does for sequential loops. A fused row loop made
// parallel paid a `malloc` and a `free` per row and temporary (a layer norm's
// row mean and variance are one-element buffers), and the threads contend in
// the allocator. Small temporaries of static shape go on the stack of the
// thread that runs the iteration instead: `memref.alloca` at the start of the
// body, between a stack save and a stack restore that release them at the end
// of each iteration. Iterations of a sequential loop inside the body share the buffer
// (a fresh buffer per iteration of a loop is only ever used within that
// iteration when it neither escapes nor is yielded, which is checked).
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLTASKSTACKBUFFERS
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

/// How many times `max-bytes` one iteration may put on the stack.
constexpr int64_t kPerIteration = 4;

/// Whether the buffer `value` (an allocation or a view of it) is only read,
/// written or viewed: no op could keep it beyond the iteration.
bool staysLocal(Value value) {
  SmallVector<Value> todo{value};
  while (!todo.empty()) {
    Value v = todo.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1 &&
          isa<MemRefType>(user->getResult(0).getType())) {
        todo.push_back(user->getResult(0));
        continue;
      }
      if (auto store = dyn_cast<memref::StoreOp>(user)) {
        if (store.getValueToStore() == v)
          return false; // the buffer itself stored somewhere
        continue;
      }
      if (isa<memref::DeallocOp>(user) && v == value)
        continue; // erased with the allocation
      if (isa<memref::LoadOp, memref::DimOp, memref::CopyOp,
              vector::TransferReadOp, vector::TransferWriteOp,
              vector::LoadOp, vector::StoreOp, linalg::LinalgOp>(user))
        continue;
      return false;
    }
  }
  return true;
}

/// Bytes of a static memref type (0 when unknown).
int64_t staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrFloat())
    return 0;
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * ((bits + 7) / 8);
}

struct DslTaskStackBuffers
    : dsl::impl::DslTaskStackBuffersBase<DslTaskStackBuffers> {
  using Base::Base;

  void runOnOperation() override {
    if (maxBytes <= 0)
      return;
    SmallVector<scf::ForallOp> loops;
    getOperation().walk([&](scf::ForallOp op) { loops.push_back(op); });
    for (scf::ForallOp loop : loops) {
      promote(loop);
      scope(loop);
    }
  }

  /// The allocations of `loop`'s body (not of a nested forall) to move.
  SmallVector<memref::AllocOp> candidates(scf::ForallOp loop) {
    SmallVector<memref::AllocOp> found;
    int64_t total = 0;
    loop.getBody()->walk([&](memref::AllocOp alloc) {
      if (alloc->getParentOfType<scf::ForallOp>() != loop)
        return;
      int64_t bytes = staticBytes(alloc.getType());
      if (bytes == 0 || bytes > maxBytes ||
          total + bytes > kPerIteration * maxBytes || !staysLocal(alloc))
        return;
      total += bytes;
      found.push_back(alloc);
    });
    return found;
  }

  void promote(scf::ForallOp loop) {
    if (!loop.getOutputs().empty()) // tensor semantics: not bufferized yet
      return;
    SmallVector<memref::AllocOp> allocs = candidates(loop);
    if (allocs.empty())
      return;
    Block *body = loop.getBody();
    OpBuilder b = OpBuilder::atBlockBegin(body);
    SmallVector<Value> allocas;
    for (memref::AllocOp alloc : allocs)
      allocas.push_back(memref::AllocaOp::create(b, alloc.getLoc(),
                                                 alloc.getType(),
                                                 alloc.getAlignmentAttr()));
    // (erased after all are created: the builder's insertion point may be
    // one of them)
    for (auto [alloc, alloca] : llvm::zip_equal(allocs, allocas)) {
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.replaceAllUsesWith(alloca);
      alloc.erase();
    }
  }

  /// A body with allocas saves the stack pointer first and restores it before
  /// its terminator, so that each iteration releases its allocas. The forall
  /// is an allocation scope, but async-parallel-for clones its body into an
  /// `scf.for` over a task's iterations, where the allocas would pile up (and
  /// a `memref.alloca_scope` here would be inlined by canonicalize, and must
  /// hold one block, which convert-scf-to-cf breaks).
  void scope(scf::ForallOp loop) {
    Block *body = loop.getBody();
    if (isa<LLVM::StackSaveOp>(body->front()) ||
        !llvm::any_of(*body, [](Operation &op) { return isa<memref::AllocaOp>(op); }))
      return;
    OpBuilder b = OpBuilder::atBlockBegin(body);
    Value saved = LLVM::StackSaveOp::create(
        b, loop.getLoc(), LLVM::LLVMPointerType::get(b.getContext()));
    b.setInsertionPoint(body->getTerminator());
    LLVM::StackRestoreOp::create(b, loop.getLoc(), saved);
  }
};

} // namespace
