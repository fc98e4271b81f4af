//===- PrefetchRows.cpp - prefetch the next row of a fused row loop -------===//
//
// A fused row op (softmax, layer norm: dsl-fuse-rows) walks each row several
// times: the first inner loop reads the row from memory, the later ones find
// it in L1 and compute. The hardware prefetchers follow a stream only within
// a 4 KiB page and stop while the core computes, so every row starts with
// cache misses and the memory sits idle during the compute loops: the time is
// the sum of both, not the larger. Software prefetches of the next row, spread
// over a computing inner loop (one per cache line), overlap them: a C model of
// a 4096x1024 softmax on this project's AVX-512 host went from 52% to 70% of a
// copy's bandwidth.
//
// A row loop is an `scf.for` or a one-dimensional `scf.forall` of step 1
// whose body holds at least two innermost `scf.for` loops over the same
// range. Each memref read in one of them (a `vector.transfer_read` or
// `memref.load`) whose innermost index is that loop's induction variable and
// whose address depends on the row (through views and index arithmetic
// computed in the row loop) is prefetched in the inner loop with the most
// work per iteration after the first: the read's address with the row's
// induction variable replaced by the next row (the row itself on the last
// iteration) and the inner loop's by the prefetching loop's, plus one
// prefetch per further cache line its step covers (clamped to the range).
// A prefetch never faults and changes no value.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLPREFETCHROWS
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

/// Bytes of a cache line (x86 and most AArch64 cores).
constexpr int64_t kLineBytes = 64;
/// Most prefetches per iteration of the prefetching loop, and most streams.
constexpr int64_t kMaxLines = 8;
constexpr unsigned kMaxStreams = 4;
/// Fewest bytes a step of the prefetching loop must cover.
constexpr int64_t kMinStepBytes = 16;
/// Most bytes of the next row (all streams together) prefetched into L1; a
/// longer or dynamic row goes to L2. L1d is 32 KiB on most x86 cores, and the
/// row loop also keeps the current row and its temporaries there: prefetching
/// a 32 KiB row of a 1151x8192 softmax into L1 evicted them (softmax 5.5 ->
/// 4.2-4.5 ms, layer norm 4.0 -> 3.0-3.4 ms here with L2 prefetches; no change
/// at 4 KiB rows).
constexpr int64_t kMaxL1RowBytes = 8 * 1024;
/// `memref.prefetch` locality hints: x86's prefetcht0 (L1) and prefetcht1 (L2).
constexpr unsigned kLocalityL1 = 3, kLocalityL2 = 2;

int64_t elementBytes(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  return std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// The row loop: its induction variable, upper bound and body.
struct RowLoop {
  Operation *op;
  Value iv;
  OpFoldResult upper;
  Block *body;
};

std::optional<RowLoop> asRowLoop(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    if (getConstantIntValue(loop.getStep()) != 1 || !loop.getInitArgs().empty())
      return std::nullopt;
    return RowLoop{op, loop.getInductionVar(), loop.getUpperBound(),
                   loop.getBody()};
  }
  auto forall = dyn_cast<scf::ForallOp>(op);
  if (!forall || forall.getRank() != 1 || !forall.getOutputs().empty() ||
      getConstantIntValue(forall.getMixedStep()[0]) != 1)
    return std::nullopt;
  return RowLoop{op, forall.getInductionVars()[0],
                 forall.getMixedUpperBound()[0], forall.getBody()};
}

/// The innermost `scf.for` loops directly in `body`, in order.
SmallVector<scf::ForOp> innerLoops(Block *body) {
  SmallVector<scf::ForOp> loops;
  for (auto loop : body->getOps<scf::ForOp>()) {
    bool innermost = true;
    loop.getBody()->walk([&](LoopLikeOpInterface) { innermost = false; });
    if (innermost)
      loops.push_back(loop);
  }
  return loops;
}

/// The ops computing `v` inside the row loop (views, index arithmetic) in
/// `slice`; false when `v` depends on anything but values from outside the
/// row loop, its induction variable and that of `inner`. `dependsOnRow`
/// is set when the row's induction variable is reached.
bool collectSlice(Value v, const RowLoop &row, scf::ForOp inner,
                  llvm::SetVector<Operation *> &slice, bool &dependsOnRow,
                  unsigned depth = 0) {
  if (depth > 16)
    return false;
  if (v == row.iv) {
    dependsOnRow = true;
    return true;
  }
  if (v == inner.getInductionVar())
    return true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return !row.op->isAncestor(v.getParentBlock()->getParentOp());
  if (!row.op->isProperAncestor(def))
    return true;
  if (slice.contains(def))
    return true;
  if ((def->getBlock() != row.body && def->getBlock() != inner.getBody()) ||
      def->getNumRegions() != 0 || !isPure(def))
    return false;
  for (Value operand : def->getOperands())
    if (!collectSlice(operand, row, inner, slice, dependsOnRow, depth + 1))
      return false;
  slice.insert(def);
  return true;
}

/// A read of one row's memory by an inner loop, to prefetch for the next row.
struct Stream {
  Value memref;
  SmallVector<Value> indices;
  scf::ForOp inner;
  llvm::SetVector<Operation *> slice;
};

std::optional<Stream> asStream(Operation *op, const RowLoop &row,
                               scf::ForOp inner) {
  Value memref;
  SmallVector<Value> indices;
  if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
    memref = read.getBase();
    indices.assign(read.getIndices().begin(), read.getIndices().end());
  } else if (auto load = dyn_cast<memref::LoadOp>(op)) {
    memref = load.getMemRef();
    indices.assign(load.getIndices().begin(), load.getIndices().end());
  }
  if (!memref || !isa<MemRefType>(memref.getType()) || indices.empty() ||
      indices.back() != inner.getInductionVar())
    return std::nullopt;
  Stream s{memref, indices, inner, {}};
  bool dependsOnRow = false;
  if (!collectSlice(memref, row, inner, s.slice, dependsOnRow))
    return std::nullopt;
  for (Value index : ArrayRef(indices).drop_back())
    if (index == inner.getInductionVar() ||
        !collectSlice(index, row, inner, s.slice, dependsOnRow))
      return std::nullopt;
  if (!dependsOnRow)
    return std::nullopt;
  // The slice in program order (the row body's ops before the inner loop's),
  // so that clones see their operands first.
  SmallVector<Operation *> ordered(s.slice.begin(), s.slice.end());
  llvm::sort(ordered, [&](Operation *a, Operation *b) {
    if (a->getBlock() == b->getBlock())
      return a->isBeforeInBlock(b);
    return a->getBlock() == row.body;
  });
  s.slice = llvm::SetVector<Operation *>(ordered.begin(), ordered.end());
  return s;
}

/// Prefetches `s` for row `next` at the top of `target`'s body (of constant
/// step `step`).
void emitPrefetches(const Stream &s, const RowLoop &row, Value next,
                    scf::ForOp target, int64_t step, unsigned locality) {
  int64_t eltBytes = elementBytes(s.memref);
  int64_t lines =
      std::clamp<int64_t>((step * eltBytes + kLineBytes - 1) / kLineBytes, 1,
                          kMaxLines);
  Location loc = target.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(target.getBody());
  Value lastIndex;
  if (lines > 1) {
    OpBuilder before(target);
    Value one = arith::ConstantIndexOp::create(before, loc, 1);
    lastIndex = arith::SubIOp::create(before, loc, target.getUpperBound(), one);
  }
  for (int64_t line = 0; line < lines; ++line) {
    Value col = target.getInductionVar();
    if (line > 0) {
      Value offset = arith::ConstantIndexOp::create(
          b, loc, line * std::max<int64_t>(1, kLineBytes / eltBytes));
      col = arith::MinSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, col, offset), lastIndex);
    }
    IRMapping map;
    map.map(row.iv, next);
    map.map(scf::ForOp(s.inner).getInductionVar(), col);
    for (Operation *op : s.slice)
      b.clone(*op, map);
    SmallVector<Value> indices = llvm::map_to_vector(
        s.indices, [&](Value v) { return map.lookupOrDefault(v); });
    memref::PrefetchOp::create(b, loc, map.lookupOrDefault(s.memref), indices,
                               /*isWrite=*/false, locality,
                               /*isDataCache=*/true);
  }
}

/// The cache level the next row goes to: L1 when every stream's row is known
/// and all of them together take at most kMaxL1RowBytes, else L2.
unsigned rowLocality(ArrayRef<Stream> streams, scf::ForOp target) {
  std::optional<int64_t> lower = getConstantIntValue(target.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(target.getUpperBound());
  if (!lower || !upper)
    return kLocalityL2;
  int64_t bytes = 0;
  for (const Stream &s : streams)
    bytes += std::max<int64_t>(0, *upper - *lower) * elementBytes(s.memref);
  return bytes <= kMaxL1RowBytes ? kLocalityL1 : kLocalityL2;
}

/// Ops in `loop`'s body, nested ones included: its work per iteration.
int64_t bodySize(scf::ForOp loop) {
  int64_t n = 0;
  loop.getBody()->walk([&](Operation *) { ++n; });
  return n;
}

/// The inner loop that carries the prefetches: the one doing the most work
/// per iteration after the first (which reads the row from memory itself),
/// so that the prefetches overlap computation rather than bunching up in a
/// short loop (a C model of softmax: 60% of copy bandwidth prefetching in its
/// exp loop, 53% in its division loop). The last one of equal size.
scf::ForOp prefetchingLoop(ArrayRef<scf::ForOp> loops) {
  scf::ForOp best;
  int64_t bestSize = -1;
  for (scf::ForOp loop : loops.drop_front()) {
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    int64_t size = bodySize(loop);
    if (step && *step > 0 && size >= bestSize) {
      best = loop;
      bestSize = size;
    }
  }
  return best;
}

/// Adds the prefetches of the next row to `op` if it is a row loop.
void prefetchNextRow(Operation *op) {
  std::optional<RowLoop> row = asRowLoop(op);
  if (!row)
    return;
  SmallVector<scf::ForOp> loops = innerLoops(row->body);
  if (loops.size() < 2)
    return;
  scf::ForOp target = prefetchingLoop(loops);
  if (!target)
    return;
  int64_t step = *getConstantIntValue(target.getStep());
  SmallVector<Stream> streams;
  llvm::SmallDenseSet<Value> roots;
  for (scf::ForOp inner : loops) {
    if (inner == target ||
        !isEqualConstantIntOrValue(inner.getLowerBound(), target.getLowerBound()) ||
        !isEqualConstantIntOrValue(inner.getUpperBound(), target.getUpperBound()))
      continue;
    inner.getBody()->walk([&](Operation *read) {
      if (streams.size() >= kMaxStreams)
        return;
      std::optional<Stream> s = asStream(read, *row, inner);
      // A scalar loop (a few bytes per step) would prefetch each line many
      // times over.
      if (!s || step * elementBytes(s->memref) < kMinStepBytes)
        return;
      // One stream per buffer, whatever views it is read through.
      if (roots.insert(memref::skipViewLikeOps(cast<MemrefValue>(s->memref))).second)
        streams.push_back(std::move(*s));
    });
  }
  if (streams.empty())
    return;
  // next = iv + 1 < upper ? iv + 1 : iv (the last row prefetches itself).
  OpBuilder b(target);
  Location loc = op->getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value plus = arith::AddIOp::create(b, loc, row->iv, one);
  Value upper = getValueOrCreateConstantIndexOp(b, loc, row->upper);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        plus, upper);
  Value next = arith::SelectOp::create(b, loc, inRange, plus, row->iv);
  unsigned locality = rowLocality(streams, target);
  for (const Stream &s : streams)
    emitPrefetches(s, *row, next, target, step, locality);
}

struct DslPrefetchRows : dsl::impl::DslPrefetchRowsBase<DslPrefetchRows> {
  void runOnOperation() override {
    SmallVector<Operation *> loops;
    getOperation().walk([&](Operation *op) {
      if (isa<scf::ForOp, scf::ForallOp>(op))
        loops.push_back(op);
    });
    if (loops.empty())  // no row loop: the IR is unchanged (no verification)
      return markAllAnalysesPreserved();
    for (Operation *op : loops)
      prefetchNextRow(op);
  }
};

} // namespace
