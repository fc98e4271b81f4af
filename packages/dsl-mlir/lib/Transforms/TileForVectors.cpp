//===- TileForVectors.cpp - the dsl-tile pass -----------------------------===//
//
// Tiles linalg ops on tensors into tiles that dsl-vectorize turns into
// vector code, and peels partial tiles off so that the main loops have
// static tile shapes.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/OptionChecks.h"
#include "dsl/Conversion/PackMatmul.h"
#include "dsl/Conversion/Passes.h"
#include "dsl/Conversion/RowOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/TargetParser/Host.h"

#include <thread>

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLTILEFORVECTORS
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

bool mlir::dsl::tooSmallForThreads(ArrayRef<int64_t> ranges) {
  constexpr int64_t kMinParallelIterations = int64_t(1) << 16;
  int64_t work = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r))
      return false;
    work = std::min<int64_t>(work * std::max<int64_t>(r, 1), kMinParallelIterations);
  }
  return work < kMinParallelIterations;
}

namespace {

constexpr StringLiteral kVectorSizes = "dsl.vector_sizes";

bool touchesI1(linalg::LinalgOp op) {
  return llvm::any_of(op->getOperandTypes(), [](Type t) {
    auto s = dyn_cast<ShapedType>(t);
    return s && s.getElementType().isInteger(1);
  });
}

/// Ops dsl-vectorize can handle (a cheap structural test; the vectorizer's
/// own precondition runs on the tiles).
bool isCandidate(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0 || touchesI1(op))
    return false;
  // Empty iteration spaces have nothing to vectorize (and no tiles).
  if (llvm::is_contained(op.getStaticLoopRanges(), 0))
    return false;
  // A reduction with several results (argmax) has no vector combiner.
  return op.getNumReductionLoops() == 0 || op.getNumDpsInits() == 1;
}

/// A reduction whose innermost loop reduces (a row reduction): its vector
/// chunks are accumulated elementwise, reduced across lanes once at the end.
bool reducesInnermost(linalg::LinalgOp op) {
  return op.getNumReductionLoops() > 0 && op.getNumDpsInits() == 1 &&
         op.getIteratorTypesArray().back() == utils::IteratorType::reduction;
}

/// A reduction whose innermost loop reduces a dimension that is not the
/// contiguous one of its input (a column reduction, `sum(x, axis=0)`): the
/// loop over the input's last dimension becomes the innermost one, so that
/// the vector chunks read contiguous elements and accumulate into the result
/// elementwise, row after row (as numpy does), instead of gathering a column.
linalg::LinalgOp contiguousInnermost(RewriterBase &rewriter, linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !reducesInnermost(op) || op.getNumDpsInputs() == 0)
    return op;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  if (map.getNumResults() == 0)
    return op;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  unsigned inner = op.getNumLoops() - 1;
  if (!last || last.getPosition() == inner ||
      op.getIteratorTypesArray()[last.getPosition()] != utils::IteratorType::parallel)
    return op;
  SmallVector<unsigned> order;
  for (unsigned d = 0; d <= inner; ++d)
    if (d != last.getPosition())
      order.push_back(d);
  order.push_back(last.getPosition());
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::GenericOp> swapped = linalg::interchangeGenericOp(rewriter, generic, order);
  return succeeded(swapped) ? cast<linalg::LinalgOp>(swapped->getOperation()) : op;
}

/// Tags `op` for dsl-vectorize with vector sizes = its static loop ranges
/// (ops created with static shapes, e.g. the merge of a partial reduction).
void tagStatic(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.hasDynamicShape() || linalgOp.getNumLoops() == 0)
    return;
  op->setAttr(kVectorSizes, DenseI64ArrayAttr::get(
                                op->getContext(), linalgOp.getStaticLoopRanges()));
}

/// Partial-reduction tiling clones the op's body into each chunk without
/// shifting its `linalg.index` ops (unlike ordinary tiling): an index-dependent
/// body (a fused `dsl.arange`) would restart at 0 in every chunk. Adds the
/// chunk loop's induction variable to the indices of dimension `inner`.
void offsetChunkIndices(RewriterBase &rewriter, Operation *tiled,
                        MutableArrayRef<LoopLikeOpInterface> loops,
                        int64_t inner) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(tiled);
  auto loop = loops.empty() ? scf::ForOp()
                            : dyn_cast<scf::ForOp>(loops.front().getOperation());
  if (!linalgOp || !loop || !linalgOp.hasIndexSemantics())
    return;
  SmallVector<OpFoldResult> offsets(linalgOp.getNumLoops(),
                                    rewriter.getIndexAttr(0));
  offsets[inner] = loop.getInductionVar();
  rewriter.setInsertionPoint(tiled);
  linalg::offsetIndices(rewriter, linalgOp, offsets);
}

/// Vector registers of partial results a row reduction carries.
constexpr int64_t kReductionRegisters = 4;

/// Rows of A from which a matmul's B is packed into panels. The copy costs
/// one strided read and one write of each block of B; the panels save about a
/// quarter of the FMA time of each strip of A that reads them, so the copy
/// pays from about 60 rows (measured on a Zen 3 AVX2 host with K = N = 1024:
/// even from 12 to 48 rows, 2.5x slower at 6 rows).
constexpr int64_t kPackMinRows = 64;

/// Rows of a column reduction added per pass over a block of the result.
constexpr int64_t kColumnRows = 8;

bool isMatmul(linalg::LinalgOp op) {
  return op.getNumLoops() == 3 && op.getNumParallelLoops() == 2 &&
         linalg::isaContractionOpInterface(op);
}

/// The loop along which an input of an elementwise op is contiguous, when it
/// is not the innermost loop (a transposing read, `y = x^T`): tiling it too
/// gives square tiles that dsl-vectorize reads row by row and transposes in
/// registers, instead of gathering a strided column per vector (7x slower).
std::optional<unsigned> transposedDim(linalg::LinalgOp op) {
  unsigned inner = op.getNumLoops() - 1;
  if (op.getNumReductionLoops() != 0 || inner == 0)
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() == 0 || !map.isProjectedPermutation())
      continue;
    auto last = cast<AffineDimExpr>(map.getResults().back());
    if (last.getPosition() != inner && map.isFunctionOfDim(inner))
      return last.getPosition();
  }
  return std::nullopt;
}

struct DslTileForVectors
    : dsl::impl::DslTileForVectorsBase<DslTileForVectors> {
  using Base::Base;

  /// Option names, value syntax and ranges are errors of the pipeline parser
  /// (dsl/Conversion/OptionChecks.h), not only messages on stderr.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    static constexpr dsl::OptionSpec specs[] = {
        {"vector-size", dsl::OptionKind::Int},
        {"matmul-tile-sizes", dsl::OptionKind::IntList},
        {"matmul-k-block", dsl::OptionKind::Int},
        {"matmul-n-block", dsl::OptionKind::Int},
        {"matmul-pack-b", dsl::OptionKind::Bool},
        {"parallel", dsl::OptionKind::Bool},
        {"num-threads", dsl::OptionKind::Int},
        {"target-vector-bits", dsl::OptionKind::Int}};
    if (failed(dsl::checkPassOptionText(getArgument(), options, specs,
                                        errorHandler)) ||
        failed(Base::initializeOptions(options, errorHandler)))
      return failure();
    for (std::string error :
         {dsl::checkVectorSize(getArgument(), vectorSize),
          dsl::checkMatmulTileSizes(getArgument(), matmulTileSizes),
          dsl::checkIntRange(getArgument(), "matmul-k-block", matmulKBlock, 0,
                             1 << 20),
          dsl::checkIntRange(getArgument(), "matmul-n-block", matmulNBlock, 0,
                             1 << 20),
          dsl::checkIntRange(getArgument(), "num-threads", numThreads, 0,
                             4096),
          dsl::checkTargetVectorBits(getArgument(), targetVectorBits)})
      if (!error.empty())
        return errorHandler(error);
    return success();
  }

  /// The matmul register tile: `matmul-tile-sizes`, or by default sized for
  /// the vector registers (`target-vector-bits`, 0: this host's):
  ///  - 512 (AVX-512, 32 registers): 12 rows of two vectors of the accumulator
  ///    type (24 accumulators; 12x32 for f32, 12x16 for f64). When the rows of
  ///    A are a dynamic distance apart, 8 rows: their addresses are then a
  ///    chain of additions, LLVM loads all 12 broadcasts before the FMAs and
  ///    spills accumulators (0.58x -> 0.99x numpy at 512^3 with dynamic sizes).
  ///  - 256 or less (AVX2, 16 registers): 6 rows of two vectors (12
  ///    accumulators, 6x16 for f32): 12x32 spilled to 0.76x of OpenBLAS's AVX2
  ///    kernels, 6x16 matches them.
  SmallVector<int64_t> registerTile(linalg::LinalgOp op) {
    if (matmulTileSizes.size() == 3)
      return SmallVector<int64_t>(matmulTileSizes.begin(), matmulTileSizes.end());
    Type acc = getElementTypeOrSelf(op.getDpsInits().front().getType());
    int64_t bytes = std::max<int64_t>(1, acc.getIntOrFloatBitWidth() / 8);
    int64_t vectorBytes = (targetVectorBits > 0 ? targetVectorBits : hostVectorBits()) / 8;
    int64_t cols = std::max<int64_t>(1, std::min<int64_t>(64, 2 * vectorBytes / bytes));
    if (vectorBytes < 64)
      return {6, cols, 1};
    int64_t rows = hasDynamicRowStride(op.getDpsInputOperand(0)->get()) ? 8 : 12;
    return {rows, cols, 1};
  }

  /// The width of this host's vector registers: 512 with AVX-512F, else 256.
  static int64_t hostVectorBits() {
    static const int64_t bits = [] {
      llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
      auto avx512 = features.find("avx512f");
      return avx512 != features.end() && avx512->second ? 512 : 256;
    }();
    return bits;
  }

  /// Whether the rows of `lhs` (a matmul operand, possibly a tile of one) lie
  /// a dynamic distance apart: the innermost size of the tensor it is sliced
  /// from is dynamic.
  static bool hasDynamicRowStride(Value lhs) {
    while (auto slice = lhs.getDefiningOp<tensor::ExtractSliceOp>())
      lhs = slice.getSource();
    auto type = dyn_cast<RankedTensorType>(lhs.getType());
    return type && type.getRank() > 0 && type.isDynamicDim(type.getRank() - 1);
  }

  SmallVector<int64_t> tileSizes(linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> sizes(ranges.size(), 1);
    if (isMatmul(op)) {
      SmallVector<int64_t> mm = registerTile(op);
      sizes.assign(mm.begin(), mm.end());
    } else {
      sizes.back() = vectorSize;
      if (std::optional<unsigned> d = transposedDim(op))
        sizes[*d] = vectorSize; // a square tile: contiguous reads, a register transpose
    }
    for (auto [s, r] : llvm::zip(sizes, ranges))
      if (!ShapedType::isDynamic(r))
        s = std::max<int64_t>(1, std::min(s, r));
    return sizes;
  }

  /// Tiles `op` by `sizes`; the tiled op replaces `op`, its loops are
  /// appended to `loops`.
  FailureOr<linalg::LinalgOp> tile(RewriterBase &rewriter, linalg::LinalgOp op,
                                   ArrayRef<int64_t> sizes,
                                   SmallVectorImpl<scf::ForOp> &loops,
                                   ArrayRef<int64_t> interchange = {}) {
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
    options.setInterchange(interchange);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled) || tiled->tiledOps.size() != 1)
      return failure();
    rewriter.replaceOp(op, tiled->replacements);
    for (LoopLikeOpInterface loop : tiled->loops)
      if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
        loops.push_back(forOp);
    return cast<linalg::LinalgOp>(tiled->tiledOps.front());
  }

  /// Matmuls first get N and K block loops (`matmul-n-block`,
  /// `matmul-k-block`), so that the block of B the register tiles stream
  /// (K block x N block) stays in the L2 cache and the K block of a strip of
  /// A rows in L1. The N block is rounded up to whole register tiles. Block
  /// loops over static sizes are peeled (their partial block then has static
  /// tiles); over dynamic sizes they are not: the register loops inside are
  /// peeled anyway, and a peeled copy of the whole nest would double the code.
  FailureOr<linalg::LinalgOp> blockForCache(RewriterBase &rewriter,
                                            linalg::LinalgOp op,
                                            SmallVectorImpl<scf::ForOp> &loops) {
    if (!isMatmul(op))
      return op;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t nr = registerTile(op)[1];
    SmallVector<int64_t> sizes = {0, static_cast<int64_t>(llvm::alignTo(matmulNBlock, nr)),
                                  matmulKBlock};
    for (unsigned d : {1u, 2u})
      if (sizes[d] <= 0 || (!ShapedType::isDynamic(ranges[d]) && ranges[d] <= sizes[d]))
        sizes[d] = 0;
    if (sizes[1] == 0 && sizes[2] == 0)
      return op;
    SmallVector<scf::ForOp> blocks; // one per blocked dimension, in order
    FailureOr<linalg::LinalgOp> blocked = tile(rewriter, op, sizes, blocks);
    auto block = blocks.begin();
    for (unsigned d : {1u, 2u})
      if (sizes[d] != 0 && block != blocks.end()) {
        if (!ShapedType::isDynamic(ranges[d]))
          loops.push_back(*block);
        ++block;
      }
    return blocked;
  }

  /// Register tiles for `op` (after blockForCache): a matmul whose B is
  /// worth packing (dsl::shouldPackMatmulB) reads it from panels when A has
  /// at least kPackMinRows rows: decided here when `rows`, the M of the
  /// matmul before threads split it, is static, at run time when it is dynamic (an scf.if
  /// between a packed and an in-place copy of the nest). Other ops: tiles of
  /// tileSizes.
  void tileMatmulOrElementwise(RewriterBase &rewriter, linalg::LinalgOp op, int64_t rows,
                               SmallVectorImpl<scf::ForOp> &loops) {
    if (!matmulPackB || !isMatmul(op) || !dsl::shouldPackMatmulB(op))
      return tileRegisters(rewriter, op, false, loops);
    if (!ShapedType::isDynamic(rows))
      return tileRegisters(rewriter, op, rows >= kPackMinRows, loops);
    auto [many, few] = splitOnRows(rewriter, op, kPackMinRows);
    tileRegisters(rewriter, many, true, loops);
    tileRegisters(rewriter, few, false, loops);
  }

  /// Tiles `op` for registers (tileSizes), a matmul's B read from panels
  /// built before it when `pack`.
  void tileRegisters(RewriterBase &rewriter, linalg::LinalgOp op, bool pack,
                     SmallVectorImpl<scf::ForOp> &loops) {
    SmallVector<int64_t> sizes = tileSizes(op);
    int64_t nr = isMatmul(op) ? registerTile(op)[1] : 0;
    Value b = op.getNumDpsInputs() > 1 ? op.getDpsInputOperand(1)->get() : Value();
    std::optional<dsl::PackedB> panels;
    if (pack)
      panels = packB(rewriter, op, nr, loops);
    // One row of A (a vector-matrix product): K outside N, so each k step
    // reads a row of B's block contiguously instead of each tile walking
    // down a column of B, one page per k step when rows are 4 KiB or more
    // apart (1x1024x1024 f32 on Zen 3: 0.54 -> 0.35 ms). With 4 rows the
    // accumulators kept in registers across K win (0.41 vs 0.79 ms).
    SmallVector<int64_t> order;
    if (isMatmul(op) && op.getStaticLoopRanges().front() == 1)
      order = {0, 2, 1};
    op->setAttr(kVectorSizes, rewriter.getDenseI64ArrayAttr(sizes));
    FailureOr<linalg::LinalgOp> tiled = tile(rewriter, op, sizes, loops, order);
    if (failed(tiled))
      op->removeAttr(kVectorSizes);
    else if (panels)
      (void)dsl::readPackedB(rewriter, *tiled, b, *panels, nr);
  }

  /// Replaces `op` by `scf.if (rows of A >= minRows)` with a copy of `op` in
  /// each branch; returns the copies (then, else).
  static std::pair<linalg::LinalgOp, linalg::LinalgOp>
  splitOnRows(RewriterBase &rewriter, linalg::LinalgOp op, int64_t minRows) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value rows = tensor::DimOp::create(rewriter, loc, op.getDpsInputOperand(0)->get(), 0);
    Value min = arith::ConstantIndexOp::create(rewriter, loc, minRows);
    Value enough = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, rows, min);
    auto ifOp = scf::IfOp::create(rewriter, loc, op->getResultTypes(), enough,
                                  /*addThenBlock=*/true, /*addElseBlock=*/true);
    auto copyInto = [&](Region &region) {
      Block &block = region.front();
      rewriter.setInsertionPointToStart(&block);
      Operation *copy = rewriter.clone(*op);
      if (block.mightHaveTerminator())
        rewriter.eraseOp(block.getTerminator());
      rewriter.setInsertionPointToEnd(&block);
      scf::YieldOp::create(rewriter, loc, copy->getResults());
      return cast<linalg::LinalgOp>(copy);
    };
    linalg::LinalgOp many = copyInto(ifOp.getThenRegion());
    linalg::LinalgOp few = copyInto(ifOp.getElseRegion());
    rewriter.replaceOp(op, ifOp.getResults());
    return {many, few};
  }

  /// Packs the block of B that `op`'s register tiles will stream into
  /// panels one register tile wide (dsl/Conversion/PackMatmul.h), before
  /// `op`: once per N and K block, reused by every row strip of A. The copies
  /// are tiled like elementwise ops.
  dsl::PackedB packB(RewriterBase &rewriter, linalg::LinalgOp op, int64_t nr,
                     SmallVectorImpl<scf::ForOp> &loops) {
    SmallVector<linalg::LinalgOp> copies;
    dsl::PackedB panels = dsl::packMatmulB(rewriter, op, nr, copies);
    for (linalg::LinalgOp copy : copies) {
      SmallVector<int64_t> sizes = tileSizes(copy);
      copy->setAttr(kVectorSizes, rewriter.getDenseI64ArrayAttr(sizes));
      if (failed(tile(rewriter, copy, sizes, loops)))
        copy->removeAttr(kVectorSizes);
    }
    return panels;
  }

  /// The chunk of a row reduction's partial results: `vector-size`
  /// elements, doubled up to four vector registers of the result type while
  /// the row (if static) holds two chunks. One register of partial results
  /// makes the loop a chain of dependent adds or maxes (latency-bound: 4-7
  /// cycles per vector); four independent ones overlap (a softmax row of
  /// 8192 f32 in the cache: 1.6x faster).
  int64_t reductionChunk(linalg::LinalgOp op, int64_t length) {
    Type acc = getElementTypeOrSelf(op.getDpsInits().front().getType());
    int64_t bits = std::max<int64_t>(8, acc.getIntOrFloatBitWidth());
    int64_t vectorBits = targetVectorBits > 0 ? targetVectorBits : hostVectorBits();
    int64_t wanted = kReductionRegisters * std::max<int64_t>(1, vectorBits / bits);
    int64_t chunk = vectorSize;
    while (chunk * 2 <= wanted && (ShapedType::isDynamic(length) || chunk * 2 <= length / 2))
      chunk *= 2;
    return chunk;
  }

  /// Row reductions: one row per tile (FullReduction on every outer
  /// reduction loop), then the innermost loop tiled by `reductionChunk` as a
  /// partial reduction: a vector of partial results carried along the row and
  /// merged (one cross-lane reduction) after the loop.
  LogicalResult tileRowReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                                 SmallVectorImpl<scf::ForOp> &loops) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t inner = static_cast<int64_t>(ranges.size()) - 1;
    int64_t length = ranges.back();
    SmallVector<int64_t> rows(ranges.size(), 1);
    rows.back() = 0;
    FailureOr<linalg::LinalgOp> row = tile(rewriter, op, rows, loops);
    if (failed(row))
      return failure();
    int64_t chunk = reductionChunk(op, length);
    if (!ShapedType::isDynamic(length) && length <= chunk) {
      tagStatic(*row); // the whole row is one vector
      return success();
    }
    SmallVector<int64_t> sizes(ranges.size(), 0);
    sizes.back() = chunk;
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
    options.setReductionTilingStrategy(
        ReductionTilingStrategy::PartialReductionOuterReduction);
    options.setReductionDims({static_cast<unsigned>(inner)});
    rewriter.setInsertionPoint(*row);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(row->getOperation()), options);
    if (failed(tiled)) {
      tagStatic(*row);
      return success();
    }
    rewriter.replaceOp(*row, tiled->replacements);
    SmallVector<int64_t> vectorSizes(ranges.size(), 1);
    vectorSizes.back() = chunk;
    for (Operation *t : tiled->tiledOps) {
      t->setAttr(kVectorSizes, rewriter.getDenseI64ArrayAttr(vectorSizes));
      offsetChunkIndices(rewriter, t, tiled->loops, inner);
    }
    for (Value init : tiled->initialValues)
      tagStatic(init.getDefiningOp());
    for (Operation *merge : tiled->mergeOps)
      tagStatic(merge);
    for (LoopLikeOpInterface loop : tiled->loops)
      if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
        loops.push_back(forOp);
    return success();
  }

  /// Reductions over outer loops whose innermost loop is parallel (column
  /// reductions, `sum(x, axis=0)`): rows are taken eight at a time, the
  /// innermost loop in blocks of eight vectors, and the eight rows of a block
  /// are added in an inner loop, so that the block's accumulators stay in
  /// registers across them (their reads and writes are loop-invariant subsets
  /// that dsl-vectorize hoists) while the rows stream through contiguously.
  LogicalResult tileColumnReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                                    SmallVectorImpl<scf::ForOp> &loops) {
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    size_t n = iters.size();
    SmallVector<int64_t> rows(n, 0), block(n, 0), step(n, 0), vector(n, 1);
    for (auto [d, it] : llvm::enumerate(iters)) {
      bool reduces = it == utils::IteratorType::reduction;
      rows[d] = reduces ? kColumnRows : 1;
      step[d] = reduces ? 1 : 0;
    }
    rows.back() = 0;
    block.back() = vectorSize;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (!ShapedType::isDynamic(ranges.back()))
      block.back() = std::max<int64_t>(1, std::min(block.back(), ranges.back()));
    vector.back() = block.back();
    FailureOr<linalg::LinalgOp> strip = tile(rewriter, op, rows, loops);
    if (failed(strip))
      return failure();
    FailureOr<linalg::LinalgOp> tiled = tile(rewriter, *strip, block, loops);
    if (failed(tiled))
      return failure();
    (*tiled)->setAttr(kVectorSizes, rewriter.getDenseI64ArrayAttr(vector));
    if (failed(tile(rewriter, *tiled, step, loops)))
      (*tiled)->removeAttr(kVectorSizes);
    return success();
  }

  /// With `parallel`: the outermost loop, if parallel, becomes an
  /// scf.forall whose iterations are independent tasks (not in an op already
  /// inside one: a row loop of dsl-fuse-rows is a task per row).
  FailureOr<linalg::LinalgOp> distribute(RewriterBase &rewriter,
                                         linalg::LinalgOp op) {
    if (!parallel ||
        op.getIteratorTypesArray().front() != utils::IteratorType::parallel ||
        op->getParentOfType<scf::ForallOp>())
      return op;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t outer = ranges.front();
    if (outer == 1 || dsl::tooSmallForThreads(ranges))
      return op;
    int64_t chunk = 1;
    if (isMatmul(op)) {
      // One M block per thread: each streams its K blocks of B from L2.
      int64_t threads = numThreads > 0 ? numThreads
                                       : std::max<int64_t>(
                                             1, std::thread::hardware_concurrency());
      int64_t mr = registerTile(op)[0];
      chunk = ShapedType::isDynamic(outer)
                  ? 8 * mr
                  : llvm::divideCeil(llvm::divideCeil(outer, threads), mr) * mr;
    } else if (ranges.size() == 1) {
      chunk = 64 * vectorSize;
    }
    SmallVector<int64_t> sizes(ranges.size(), 0);
    sizes.front() = chunk;
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled) || tiled->tiledOps.size() != 1)
      return op;
    rewriter.replaceOp(op, tiled->replacements);
    return cast<linalg::LinalgOp>(tiled->tiledOps.front());
  }

  void runOnOperation() override {
    // Vectors of other lengths are legal but LLVM splits them badly (a
    // vector<48xf32> FMA chain ran 40x slower than vector<32xf32>).
    if (!llvm::isPowerOf2_64(vectorSize))
      return emitError(getOperation().getLoc(),
                       "dsl-tile: vector-size must be a power of two, got ")
                 << static_cast<int64_t>(vectorSize),
             signalPassFailure();
    if (!matmulTileSizes.empty() &&
        (matmulTileSizes.size() != 3 ||
         llvm::any_of(matmulTileSizes, [](int64_t s) { return s < 1; }) ||
         !llvm::isPowerOf2_64(matmulTileSizes[1])))
      return emitError(getOperation().getLoc(),
                       "dsl-tile: matmul-tile-sizes must be three positive "
                       "sizes M,N,K with N a power of two"),
             signalPassFailure();
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isCandidate(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    SmallVector<scf::ForOp> loops;
    for (linalg::LinalgOp original : ops) {
      int64_t rows = original.getStaticLoopRanges().front();
      linalg::LinalgOp op = *distribute(rewriter, contiguousInnermost(rewriter, original));
      if (!isMatmul(op) && reducesInnermost(op)) {
        (void)tileRowReduction(rewriter, op, loops);
        continue;
      }
      if (!isMatmul(op) && op.getNumReductionLoops() > 0 && op.getNumDpsInits() == 1) {
        (void)tileColumnReduction(rewriter, op, loops);
        continue;
      }
      FailureOr<linalg::LinalgOp> blocked = blockForCache(rewriter, op, loops);
      if (failed(blocked))
        continue;
      tileMatmulOrElementwise(rewriter, *blocked, rows, loops);
    }
    // Peel partial tiles: the main loop then has static tile sizes.
    // Innermost loops first: peeling an outer loop then clones inner loops
    // whose bounds fold to constants in the partial iteration (peeled outer
    // loops first would leave the clones' inner tiles dynamic, i.e. masked).
    for (scf::ForOp loop : llvm::reverse(loops)) {
      scf::ForOp partial;
      rewriter.setInsertionPoint(loop);
      (void)scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial);
    }
  }
};

} // namespace
