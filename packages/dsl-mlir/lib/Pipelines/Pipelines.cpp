//===- Pipelines.cpp - named lowering pipelines ---------------------------===//

#include "CheckedPipeline.h"

#include "dsl/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Async/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

using namespace mlir;

namespace {

struct CpuPipelineOptions : PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse chains of elementwise linalg ops"),
      llvm::cl::init(true)};
  Option<bool> fuseRows{
      *this, "fuse-rows",
      llvm::cl::desc("Fuse row reductions and the op that consumes them into "
                     "one loop over rows (dsl-fuse-rows; with vectorize)"),
      llvm::cl::init(true)};
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile linalg ops and turn the tiles into vector code "
                     "(dsl-tile, dsl-vectorize); otherwise scalar loops, "
                     "left to LLVM's loop vectorizer"),
      llvm::cl::init(true)};
  Option<int64_t> vectorSize{
      *this, "vector-size",
      llvm::cl::desc("Elements per vector step in the innermost loop of "
                     "non-matmul ops"),
      llvm::cl::init(16)};
  ListOption<int64_t> matmulTileSizes{
      *this, "matmul-tile-sizes",
      llvm::cl::desc("Register tile M,N,K of matmuls, N a power of two "
                     "(default per target-vector-bits: 12 x two 64-byte "
                     "vectors x 1, 12,32,1 in f32, or 6,16,1 with 256 bits)")};
  Option<int64_t> matmulKBlock{
      *this, "matmul-k-block",
      llvm::cl::desc("K block of matmuls with a larger K, so that the "
                     "streamed block of B stays in L2 (0: none)"),
      llvm::cl::init(256)};
  Option<int64_t> matmulNBlock{
      *this, "matmul-n-block",
      llvm::cl::desc("N block of matmuls with a larger N, rounded up to whole "
                     "register tiles (0: none)"),
      llvm::cl::init(256)};
  Option<bool> matmulPackB{
      *this, "matmul-pack-b",
      llvm::cl::desc("Copy the block of B that a matmul's register tiles "
                     "stream into contiguous panels of one tile's width, "
                     "with at least 64 rows of A (dsl-tile's matmul-pack-b)"),
      llvm::cl::init(true)};
  Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the outermost parallel loop of every op on several "
                     "threads (scf.forall -> async-parallel-for); the JIT "
                     "must load the dsl async runtime library"),
      llvm::cl::init(false)};
  Option<int64_t> numThreads{
      *this, "num-threads",
      llvm::cl::desc("Threads to split work for (0: ask the runtime)"),
      llvm::cl::init(0)};
  Option<int64_t> targetVectorBits{
      *this, "target-vector-bits",
      llvm::cl::desc("Vector register width the default matmul register tile "
                     "is sized for (512, 256, 128; 0: this host's)"),
      llvm::cl::init(0)};
  Option<int64_t> nontemporalMinBytes{
      *this, "nontemporal-min-bytes",
      llvm::cl::desc("Smallest output buffer written with non-temporal "
                     "(streaming) vector stores, in bytes (0: none; "
                     "dsl-nontemporal-stores)"),
      llvm::cl::init(8 << 20)};
  Option<bool> prefetchRows{
      *this, "prefetch-rows",
      llvm::cl::desc("Prefetch the next row of a fused row loop while "
                     "computing this one (dsl-prefetch-rows)"),
      llvm::cl::init(true)};
  Option<bool> internalizeEntries{
      *this, "internalize-entries",
      llvm::cl::desc("Keep only the _mlir_ciface_ entries of public functions "
                     "visible (faster JIT; ExecutionEngine.invoke(name) then "
                     "does not find them)"),
      llvm::cl::init(false)};
  Option<bool> boundscheck{
      *this, "boundscheck",
      llvm::cl::desc("Check the indices of every element access of kernels "
                     "(an access out of range is an IndexError after the call)"),
      llvm::cl::init(false)};
  Option<bool> vectorizeThreadLoops{
      *this, "vectorize-thread-loops",
      llvm::cl::desc("Turn guards on kernel thread ids into loop bounds and have "
                     "LLVM vectorize the loops over a block's threads "
                     "(dsl-thread-loops)"),
      llvm::cl::init(true)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Polynomial approximations of vector exp/log/tanh "
                     "(otherwise libm calls per element)"),
      llvm::cl::init(true)};
  Option<bool> avx512Exp{
      *this, "avx512-exp",
      llvm::cl::desc("With approximate-math: f32 exp of our own (dsl-vectorize), "
                     "through vscalefps on AVX-512 hosts, exponent bits elsewhere"),
      llvm::cl::init(true)};
};

std::string listText(ArrayRef<int64_t> xs) {
  std::string s;
  for (auto [i, x] : llvm::enumerate(xs))
    s += (i ? "," : "") + std::to_string(x);
  return s;
}

/// The textual pipeline behind `dsl-to-llvm-cpu` (documented in
/// docs/dialect.md).
std::string cpuPipelineText(const CpuPipelineOptions &opts) {
  std::string p = "dsl-lower-launches-to-cpu";
  if (opts.boundscheck)
    p += "{boundscheck}";
  // No canonicalization inside `inline`: it would erase dsl ops whose results
  // are unused before convert-dsl-to-linalg emits their run-time checks (the
  // interpreter, and Python, raise there; the checks outlive the dead ops).
  p += ",inline{default-pipeline=},convert-dsl-to-linalg,canonicalize,";
  if (opts.vectorizeThreadLoops)
    p += "func.func(dsl-thread-loops),";
  p += "dsl-check-divisions,";
  bool fuseRows = opts.vectorize && opts.fuseRows;
  if (opts.fuseElementwise)
    p += fuseRows ? "func.func(dsl-fuse-elementwise{row-temporaries})," : "func.func(dsl-fuse-elementwise),";
  if (fuseRows)
    p += opts.parallel ? "func.func(dsl-fuse-rows{parallel})," : "func.func(dsl-fuse-rows),";
  if (opts.vectorize) {
    p += "func.func(dsl-tile{vector-size=" + std::to_string(opts.vectorSize);
    p += " matmul-k-block=" + std::to_string(opts.matmulKBlock);
    p += " matmul-n-block=" + std::to_string(opts.matmulNBlock);
    p += opts.matmulPackB ? " matmul-pack-b=true" : " matmul-pack-b=false";
    p += " target-vector-bits=" + std::to_string(opts.targetVectorBits);
    if (opts.parallel)
      p += " parallel num-threads=" + std::to_string(opts.numThreads);
    if (!opts.matmulTileSizes.empty())
      p += " matmul-tile-sizes=" + listText(opts.matmulTileSizes);
    p += "}),canonicalize,func.func(dsl-vectorize{approximate-math=";
    p += opts.approximateMath ? "true" : "false";
    p += opts.avx512Exp ? " avx512-exp=true" : " avx512-exp=false";
    // Loop-invariant reads of tensors (a row's mean or max inside the loop
    // along the row) and the math on them move out of the loop. CSE bounded
    // in the number of loops: `cse` is quadratic in it (dsl-bounded-cse).
    p += "}),canonicalize,func.func(dsl-bounded-cse),loop-invariant-code-motion,";
  }
  p += "dsl-materialize-loop-yields,dsl-value-semantics,"
       "one-shot-bufferize{bufferize-function-boundaries "
       "function-boundary-type-conversion=identity-layout-map},"
       // Folds loop-carried buffers so that a result computed by a loop nest
       // is returned as its allocation, which the next pass then replaces
       // by the out-param (no copy).
       "canonicalize,dsl-mark-result-sizes,"
       "buffer-results-to-out-params{hoist-static-allocs hoist-dynamic-allocs modify-public-functions},"
       "dsl-check-result-sizes,";
  // A fused row loop allocates its row temporaries (softmax's exp of a row)
  // once, before the loop, instead of a malloc/free per row. Not out of
  // parallel loops, whose iterations run at once on several threads (there,
  // dsl-task-stack-buffers puts small ones on the stack of each task).
  if (!opts.parallel)
    p += "func.func(buffer-loop-hoisting),";
  p += "ownership-based-buffer-deallocation,canonicalize,"
       "buffer-deallocation-simplification,bufferization-lower-deallocations,"
       "cse,canonicalize,dsl-lower-strided-copies,"
       "func.func(convert-linalg-to-loops),";
  if (opts.prefetchRows)
    p += "func.func(dsl-prefetch-rows),";
  if (opts.nontemporalMinBytes > 0)
    p += "func.func(dsl-nontemporal-stores{min-bytes=" +
         std::to_string(opts.nontemporalMinBytes) + "}),";
  p += "dsl-emit-c-interface{internalize=";
  p += opts.internalizeEntries ? "true" : "false";
  p += "},dsl-widen-bool-memrefs,";
  if (opts.parallel) {
    p += "func.func(dsl-task-stack-buffers),scf-forall-to-parallel,"
         "async-parallel-for{async-dispatch num-workers=";
    p += std::to_string(opts.numThreads > 0 ? opts.numThreads : -1);
    p += " min-task-size=1},async-to-async-runtime,async-runtime-ref-counting,"
         "async-runtime-ref-counting-opt,arith-expand,convert-async-to-llvm,";
  }
  p += "convert-vector-to-scf{full-unroll=true},"
       "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
       "math-extend-to-supported-types,dsl-expand-float-conversions,"
       "finalize-memref-to-llvm,convert-vector-to-llvm{enable-x86vector},"
       "convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,"
       "convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
       "convert-ub-to-llvm,reconcile-unrealized-casts,dsl-loop-annotations,dsl-bf16-as-i16";
  return p;
}

/// The options' names and kinds, checked before MLIR parses them.
constexpr dsl::OptionSpec kCpuOptionSpecs[] = {
    {"fuse-elementwise", dsl::OptionKind::Bool},
    {"fuse-rows", dsl::OptionKind::Bool},
    {"vectorize", dsl::OptionKind::Bool},
    {"vector-size", dsl::OptionKind::Int},
    {"matmul-tile-sizes", dsl::OptionKind::IntList},
    {"matmul-k-block", dsl::OptionKind::Int},
    {"matmul-n-block", dsl::OptionKind::Int},
    {"matmul-pack-b", dsl::OptionKind::Bool},
    {"parallel", dsl::OptionKind::Bool},
    {"num-threads", dsl::OptionKind::Int},
    {"target-vector-bits", dsl::OptionKind::Int},
    {"nontemporal-min-bytes", dsl::OptionKind::Int},
    {"prefetch-rows", dsl::OptionKind::Bool},
    {"internalize-entries", dsl::OptionKind::Bool},
    {"boundscheck", dsl::OptionKind::Bool},
    {"approximate-math", dsl::OptionKind::Bool},
    {"avx512-exp", dsl::OptionKind::Bool},
    {"vectorize-thread-loops", dsl::OptionKind::Bool},
};

/// The ranges of the options (docs/dialect.md); "" when all are valid.
std::string checkCpuOptions(const CpuPipelineOptions &opts) {
  constexpr StringLiteral owner = "dsl-to-llvm-cpu";
  for (std::string error :
       {dsl::checkVectorSize(owner, opts.vectorSize),
        dsl::checkMatmulTileSizes(owner, opts.matmulTileSizes),
        dsl::checkIntRange(owner, "matmul-k-block", opts.matmulKBlock, 0,
                           1 << 20),
        dsl::checkIntRange(owner, "matmul-n-block", opts.matmulNBlock, 0,
                           1 << 20),
        dsl::checkIntRange(owner, "num-threads", opts.numThreads, 0, 4096),
        dsl::checkIntRange(owner, "nontemporal-min-bytes",
                           opts.nontemporalMinBytes, 0, int64_t{1} << 40),
        dsl::checkTargetVectorBits(owner, opts.targetVectorBits)})
    if (!error.empty())
      return error;
  return "";
}

LogicalResult buildCpuPipeline(OpPassManager &pm,
                               const CpuPipelineOptions &opts,
                               llvm::raw_ostream &errors) {
  // Types and sizes no later pass could handle are refused first.
  pm.addPass(dsl::createDslCheckLowerable());
  return parsePassPipeline(cpuPipelineText(opts), pm, errors);
}

void registerUpstreamPasses() {
  registerCanonicalizerPass();
  registerCSEPass();
  registerLoopInvariantCodeMotionPass();
  registerInlinerPass();
  registerSymbolDCEPass();
  registerLinalgElementwiseOpFusionPass();
  registerConvertLinalgToLoopsPass();
  bufferization::registerOneShotBufferizePass();
  bufferization::registerBufferResultsToOutParamsPass();
  bufferization::registerOwnershipBasedBufferDeallocationPass();
  bufferization::registerBufferDeallocationSimplificationPass();
  bufferization::registerLowerDeallocationsPass();
  bufferization::registerBufferLoopHoistingPass();
  memref::registerExpandStridedMetadataPass();
  registerSCFToControlFlowPass();
  registerLowerAffinePass();
  registerFinalizeMemRefToLLVMConversionPass();
  registerConvertMathToLLVMPass();
  registerArithToLLVMConversionPass();
  registerConvertIndexToLLVMPass();
  registerConvertControlFlowToLLVMPass();
  registerConvertFuncToLLVMPass();
  registerUBToLLVMConversionPass();
  registerReconcileUnrealizedCastsPass();
  registerConvertVectorToSCF();
  registerConvertVectorToLLVMPass();
  registerConvertMathToLibmPass();
  math::registerMathExtendToSupportedTypes();
  registerSCFForallToParallelLoop();
  registerAsyncParallelForPass();
  registerAsyncToAsyncRuntimePass();
  registerAsyncRuntimeRefCountingPass();
  registerAsyncRuntimeRefCountingOptPass();
  arith::registerArithExpandOpsPass();
  registerConvertAsyncToLLVMPass();
}

} // namespace

void mlir::dsl::registerDslPipelines() {
  dsl::registerCheckedPipeline<CpuPipelineOptions>(
      "dsl-to-llvm-cpu",
      "Lower a module of func.func over tensors (dsl, linalg, arith) to the "
      "LLVM dialect for the CPU ExecutionEngine, with C interfaces for "
      "public functions",
      kCpuOptionSpecs, checkCpuOptions, buildCpuPipeline);
}

void mlir::dsl::registerDslPassesAndPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerUpstreamPasses();
    registerDslPasses();
    registerDslPipelines();
    registerGpuPasses();
  });
}
