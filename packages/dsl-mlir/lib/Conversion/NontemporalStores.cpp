//===- NontemporalStores.cpp - streaming stores into large outputs --------===//
//
// A plain store into memory that is not in the cache first reads the line it
// writes (read-for-ownership), so an op whose output is larger than the
// caches moves the output's bytes twice: on this project's machines a
// layer norm over 16 MiB reached 55% of a copy's bandwidth with plain stores
// and 75% with non-temporal ones (docs/dialect.md, "Row ops").
//
// The candidates are unmasked, in-bounds 1-D `vector.transfer_write`s into a
// function argument that the function only writes, of 4- or 8-byte elements
// and a size of at least `min-bytes` (or a size known at run time only),
// reached through views that keep the innermost dimension contiguous and
// move its start by whole 16-byte steps. x86's vector streaming stores need
// 16-byte aligned addresses (an unaligned one faults), so the innermost loop
// around them is versioned on the argument's alignment: `scf.if` its first
// element and its strides are 16-byte multiples (and, for dynamic sizes, it
// has `min-bytes`), a copy of the loop with `vector.store {nontemporal,
// alignment = 16}`, else the loop unchanged. Arrays from numpy are 16-byte
// aligned, so are their rows when a row's bytes are a multiple of 16. LLVM
// splits a 64-byte streaming store with 16-byte alignment into four, so a loop
// whose stores are all of whole 64-byte vectors at 64-byte steps is versioned
// on 64-byte alignment first (dsl-runtime allocates large results so), with
// `alignment = 64` stores: one `vmovntps` of a whole AVX-512 register each.
//
// Streaming stores are weakly ordered: a fence (x86's `sfence`; elsewhere
// `llvm.fence seq_cst`) follows the outermost op around them in the function
// or in an `scf.forall` body, so that a thread that synchronizes with this one (the
// caller of a parallel function waiting for its tasks) sees the data.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLNONTEMPORALSTORES
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

/// Bytes of alignment the streaming stores assume (checked at run time).
constexpr int64_t kAlign = 16;
/// Alignment of the wide streaming stores: a 64-byte vector stored at a
/// 64-byte aligned address is one `vmovntps` of a whole register (with 16-byte
/// alignment LLVM splits it into four 16-byte ones: a copy of 16 MiB took
/// 0.62 ms against 0.74 ms on this project's AVX-512 host).
constexpr int64_t kWideAlign = 64;
/// How deep `isMultipleOf` looks through loops and arithmetic.
constexpr unsigned kMaxDepth = 8;

bool isMultipleOf(Value v, int64_t k, unsigned depth);

bool isMultipleOf(OpFoldResult ofr, int64_t k, unsigned depth) {
  if (auto v = dyn_cast<Value>(ofr))
    return isMultipleOf(v, k, depth);
  std::optional<int64_t> c = getConstantIntValue(ofr);
  return c && *c % k == 0;
}

/// Whether index `v` is a multiple of `k` whenever it is used: a constant, an
/// induction variable whose lower bound and step are, or sums and products.
bool isMultipleOf(Value v, int64_t k, unsigned depth) {
  if (depth > kMaxDepth)
    return false;
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c % k == 0;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast_or_null<scf::ForOp>(owner))
      return arg == loop.getInductionVar() &&
             isMultipleOf(loop.getLowerBound(), k, depth + 1) &&
             isMultipleOf(loop.getStep(), k, depth + 1);
    if (auto loop = dyn_cast_or_null<scf::ForallOp>(owner)) {
      for (auto [i, iv] : llvm::enumerate(loop.getInductionVars()))
        if (iv == arg)
          return isMultipleOf(loop.getMixedLowerBound()[i], k, depth + 1) &&
                 isMultipleOf(loop.getMixedStep()[i], k, depth + 1);
    }
    return false;
  }
  Operation *def = v.getDefiningOp();
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(def))
    return isMultipleOf(mul.getLhs(), k, depth + 1) ||
           isMultipleOf(mul.getRhs(), k, depth + 1);
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
    return isMultipleOf(def->getOperand(0), k, depth + 1) &&
           isMultipleOf(def->getOperand(1), k, depth + 1);
  return false;
}

/// For `memref.expand_shape`: whether every dimension split out of the
/// innermost one (whose stride is the product of the later sizes of its
/// group) is of size 1 or has a stride that is a multiple of `k`.
bool keepsInnerSteps(memref::ExpandShapeOp op, int64_t k) {
  MemRefType type = op.getResultType();
  ReassociationIndices group = op.getReassociationIndices().back();
  int64_t stride = 1;
  for (size_t i = group.size() - 1; i > 0; --i) {
    int64_t size = type.getDimSize(group[i]);
    if (ShapedType::isDynamic(size))
      return false;
    stride *= size;
    if (stride % k != 0 && type.getDimSize(group[i - 1]) != 1)
      return false;
  }
  return true;
}

/// The argument of `fn` that `memref` views, when every view on the way keeps
/// the innermost dimension contiguous and moves its start by a multiple of `k`
/// elements; null otherwise.
BlockArgument alignedRoot(Value memref, int64_t k, func::FuncOp fn) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(memref))
      return arg.getOwner() == &fn.getBody().front() ? arg : BlockArgument();
    Operation *def = memref.getDefiningOp();
    if (auto view = dyn_cast_or_null<memref::SubViewOp>(def)) {
      int64_t last = view.getSourceType().getRank() - 1;
      if (last < 0 || view.getDroppedDims().test(last) ||
          !isConstantIntValue(view.getMixedStrides()[last], 1) ||
          !isMultipleOf(view.getMixedOffsets()[last], k, 0))
        return {};
      memref = view.getSource();
    } else if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(def)) {
      if (!keepsInnerSteps(expand, k))
        return {};
      memref = expand.getSrc();
    } else if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(def)) {
      memref = collapse.getSrc();
    } else if (auto cast = dyn_cast_or_null<memref::CastOp>(def)) {
      memref = cast.getSource();
    } else {
      return {};
    }
  }
}

/// Elements per `align` bytes of `type`'s element type; 0 when it is not of 4
/// or 8 bytes.
int64_t elementsPerStep(MemRefType type, int64_t align) {
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return bits == 32 || bits == 64 ? align / (bits / 8) : 0;
}

/// The argument a candidate store writes (null when `op` is not one): its
/// vector's address is a multiple of `align` bytes whenever the argument's
/// first element and strides are.
BlockArgument candidateRoot(vector::TransferWriteOp op, func::FuncOp fn,
                            int64_t align = kAlign) {
  auto dest = dyn_cast<MemRefType>(op.getBase().getType());
  VectorType vector = op.getVectorType();
  if (!dest || op.getMask() || vector.getRank() != 1 ||
      vector.isScalable() || !op.getPermutationMap().isMinorIdentity() ||
      !llvm::all_of(op.getInBoundsValues(), [](bool b) { return b; }) ||
      !dest.getElementType().isIntOrFloat())
    return {};
  int64_t k = elementsPerStep(dest, align);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (k == 0 || vector.getNumElements() % k != 0 ||
      failed(dest.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1 || !isMultipleOf(op.getIndices().back(), k, 0))
    return {};
  return alignedRoot(op.getBase(), k, fn);
}

/// Whether `arg` is only written in the function: every use, through views,
/// is a store into it or a size query.
bool onlyWritten(Value arg) {
  SmallVector<Value> todo{arg};
  while (!todo.empty()) {
    Value v = todo.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<memref::SubViewOp, memref::ExpandShapeOp,
              memref::CollapseShapeOp, memref::CastOp>(user)) {
        todo.push_back(user->getResult(0));
        continue;
      }
      if (isa<memref::DimOp, vector::TransferWriteOp>(user))
        continue; // a memref is only ever a transfer_write's destination
      if (auto store = dyn_cast<memref::StoreOp>(user);
          store && store.getMemRef() == v && store.getValueToStore() != v)
        continue;
      if (auto store = dyn_cast<vector::StoreOp>(user);
          store && store.getBase() == v)
        continue;
      if (auto copy = dyn_cast<memref::CopyOp>(user);
          copy && copy.getTarget() == v && copy.getSource() != v)
        continue;
      return false;
    }
  }
  return true;
}

/// Whether streaming stores may write `arg`, known before run time: only
/// written, of a size that may reach `minBytes`, with static strides that
/// keep rows aligned.
bool eligible(BlockArgument arg, int64_t minBytes) {
  auto type = cast<MemRefType>(arg.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  if (type.hasStaticShape() && type.getNumElements() * bytes < minBytes)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  for (int64_t stride : ArrayRef(strides).drop_back())
    if (!ShapedType::isDynamic(stride) && (stride * bytes) % kAlign != 0)
      return false;
  return onlyWritten(arg);
}

/// `i1`: `arg`'s first element and strides are `alignBytes`-aligned (and,
/// with dynamic sizes, it has at least `minBytes`); built at the function's
/// entry.
Value alignedAtRunTime(OpBuilder &b, Location loc, BlockArgument arg,
                       int64_t minBytes, int64_t alignBytes) {
  auto type = cast<MemRefType>(arg.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  auto index = [&](int64_t c) -> Value {
    return arith::ConstantIndexOp::create(b, loc, c);
  };
  Value zero = index(0), align = index(alignBytes), size = index(bytes);
  auto isAligned = [&](Value byteCount) -> Value {
    Value rest = arith::RemUIOp::create(b, loc, byteCount, align);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rest, zero);
  };
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, arg);
  Value first = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, arg);
  first = arith::AddIOp::create(
      b, loc, first, arith::MulIOp::create(b, loc, meta.getOffset(), size));
  Value cond = isAligned(first);
  for (Value stride : meta.getStrides().drop_back())
    cond = arith::AndIOp::create(
        b, loc, cond,
        isAligned(arith::MulIOp::create(b, loc, stride, size)));
  if (!type.hasStaticShape()) {
    Value total = size;
    for (Value dim : meta.getSizes())
      total = arith::MulIOp::create(b, loc, total, dim);
    Value large = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                        total, index(minBytes));
    cond = arith::AndIOp::create(b, loc, cond, large);
  }
  return cond;
}

/// `scf.if %cond` around `loop`: a copy of it in each branch, returned (then,
/// else); the caller makes the candidate stores of the then copy streaming.
std::pair<scf::ForOp, scf::ForOp> version(scf::ForOp loop, Value cond) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto ifOp = scf::IfOp::create(b, loc, loop->getResultTypes(), cond,
                                /*addThenBlock=*/true, /*addElseBlock=*/true);
  Block *blocks[2] = {ifOp.thenBlock(), ifOp.elseBlock()};
  scf::ForOp copies[2];
  for (int i = 0; i < 2; ++i) {
    bool terminated = blocks[i]->mightHaveTerminator();
    OpBuilder inner = terminated ? OpBuilder(blocks[i]->getTerminator())
                                 : OpBuilder::atBlockEnd(blocks[i]);
    copies[i] = cast<scf::ForOp>(inner.clone(*loop));
    if (!terminated)
      scf::YieldOp::create(inner, loc, copies[i]->getResults());
  }
  loop->replaceAllUsesWith(ifOp->getResults());
  loop->erase();
  return {copies[0], copies[1]};
}

/// The candidate stores in `loop` into one of `roots`, checked for `align`.
SmallVector<vector::TransferWriteOp>
candidatesIn(scf::ForOp loop, const llvm::SetVector<BlockArgument> &roots,
             func::FuncOp fn, int64_t align) {
  SmallVector<vector::TransferWriteOp> writes;
  loop.walk([&](vector::TransferWriteOp w) {
    BlockArgument root = candidateRoot(w, fn, align);
    if (root && roots.contains(root))
      writes.push_back(w);
  });
  return writes;
}

/// Whether every candidate store in `loop` writes a whole number of 64-byte
/// vectors at addresses that are 64-byte multiples when its argument is
/// 64-byte aligned (then the loop gets a wide streaming copy too).
bool allWide(scf::ForOp loop, const llvm::SetVector<BlockArgument> &roots,
             func::FuncOp fn) {
  SmallVector<vector::TransferWriteOp> writes =
      candidatesIn(loop, roots, fn, kAlign);
  return llvm::all_of(writes, [&](vector::TransferWriteOp w) {
    int64_t bytes = w.getVectorType().getNumElements() *
                    w.getVectorType().getElementTypeBitWidth() / 8;
    return bytes % kWideAlign == 0 && candidateRoot(w, fn, kWideAlign);
  });
}

/// Makes the candidate stores of `loop` streaming stores assuming `align`.
void makeStreaming(scf::ForOp loop, const llvm::SetVector<BlockArgument> &roots,
                   func::FuncOp fn, int64_t align) {
  for (vector::TransferWriteOp w : candidatesIn(loop, roots, fn, align)) {
    OpBuilder b(w);
    vector::StoreOp::create(b, w.getLoc(), w.getVector(), w.getBase(),
                            w.getIndices(), /*nontemporal=*/true,
                            llvm::MaybeAlign(align));
    w.erase();
  }
}

/// The op to put the fence after: `op`'s outermost ancestor in the function
/// body or in the body of the `scf.forall` / `scf.parallel` it runs in.
Operation *fenceAnchor(Operation *op, func::FuncOp fn) {
  Operation *current = op;
  while (true) {
    Operation *parent = current->getParentOp();
    if (parent == fn.getOperation() ||
        isa<scf::ForallOp, scf::ParallelOp>(parent))
      return current;
    current = parent;
  }
}

struct DslNontemporalStores
    : dsl::impl::DslNontemporalStoresBase<DslNontemporalStores> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (minBytes <= 0 || fn.isExternal())
      return markAllAnalysesPreserved();
    // The innermost loop around each candidate, with the arguments it writes.
    llvm::MapVector<Operation *, llvm::SetVector<BlockArgument>> loops;
    llvm::DenseMap<BlockArgument, bool> allowed;
    fn.walk([&](vector::TransferWriteOp op) {
      BlockArgument root = candidateRoot(op, fn);
      if (!root)
        return;
      auto [it, fresh] = allowed.try_emplace(root, false);
      if (fresh)
        it->second = eligible(root, minBytes);
      auto loop = op->getParentOfType<scf::ForOp>();
      if (it->second && loop && fn->isProperAncestor(loop))
        loops[loop.getOperation()].insert(root);
    });
    // A candidate loop inside another is versioned with it (its copy in the
    // outer loop's streaming copy is rewritten there).
    for (auto &[op, roots] : loops) {
      Operation *outermost = nullptr;
      for (Operation *outer = op->getParentOp(); outer != fn.getOperation();
           outer = outer->getParentOp())
        if (loops.count(outer))
          outermost = outer;
      if (outermost) {
        loops[outermost].insert(roots.begin(), roots.end());
        roots.clear();
      }
    }
    loops.remove_if([](auto &entry) { return entry.second.empty(); });
    if (loops.empty())
      return markAllAnalysesPreserved();
    OpBuilder entry = OpBuilder::atBlockBegin(&fn.getBody().front());
    llvm::DenseMap<std::pair<BlockArgument, int64_t>, Value> conditions;
    auto condition = [&](const llvm::SetVector<BlockArgument> &roots,
                         int64_t align) {
      Value cond;
      for (BlockArgument root : roots) {
        Value &c = conditions[{root, align}];
        if (!c)
          c = alignedAtRunTime(entry, fn.getLoc(), root, minBytes, align);
        cond = cond ? arith::AndIOp::create(entry, fn.getLoc(), cond, c) : c;
      }
      return cond;
    };
    llvm::SetVector<Operation *> anchors;
    for (auto &[op, roots] : loops) {
      auto loop = cast<scf::ForOp>(op);
      // 64-byte aligned: whole-register streaming stores; else 16-byte
      // aligned: streaming stores LLVM splits; else the loop as it was.
      if (allWide(loop, roots, fn)) {
        auto [wide, rest] = version(loop, condition(roots, kWideAlign));
        makeStreaming(wide, roots, fn, kWideAlign);
        loop = rest;
      }
      scf::ForOp streaming = version(loop, condition(roots, kAlign)).first;
      makeStreaming(streaming, roots, fn, kAlign);
      anchors.insert(fenceAnchor(streaming->getParentOp(), fn));
    }
    bool x86 = llvm::Triple(llvm::sys::getProcessTriple()).isX86();
    for (Operation *anchor : anchors) {
      OpBuilder b(anchor->getContext());
      b.setInsertionPointAfter(anchor);
      if (x86) // LLVM's seq_cst fence on x86 is a locked add, which AMD does
               // not document as ordering streaming stores; sfence does.
        LLVM::CallIntrinsicOp::create(
            b, anchor->getLoc(), b.getStringAttr("llvm.x86.sse.sfence"),
            ValueRange{});
      else
        LLVM::FenceOp::create(b, anchor->getLoc(),
                              LLVM::AtomicOrdering::seq_cst);
    }
  }
};

} // namespace
