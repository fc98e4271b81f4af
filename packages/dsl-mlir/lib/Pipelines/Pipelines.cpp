//===- Pipelines.cpp - named lowering pipelines ---------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
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
};

/// The textual pipeline behind `dsl-to-llvm-cpu` (documented in docs/abi.md).
std::string cpuPipelineText(const CpuPipelineOptions &opts) {
  std::string p = "inline,convert-dsl-to-linalg,canonicalize,";
  if (opts.fuseElementwise)
    p += "func.func(linalg-fuse-elementwise-ops),";
  p += "dsl-materialize-loop-yields,"
       "one-shot-bufferize{bufferize-function-boundaries "
       "function-boundary-type-conversion=identity-layout-map},"
       "buffer-results-to-out-params{hoist-static-allocs hoist-dynamic-allocs modify-public-functions},"
       "ownership-based-buffer-deallocation,canonicalize,"
       "buffer-deallocation-simplification,bufferization-lower-deallocations,"
       "cse,canonicalize,dsl-lower-strided-copies,"
       "func.func(convert-linalg-to-loops),"
       "dsl-emit-c-interface,"
       "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
       "finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,"
       "convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
       "convert-ub-to-llvm,reconcile-unrealized-casts";
  return p;
}

void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &opts) {
  if (failed(parsePassPipeline(cpuPipelineText(opts), pm, llvm::errs())))
    llvm::report_fatal_error("dsl-to-llvm-cpu: internal pipeline text is invalid");
}

void registerUpstreamPasses() {
  registerCanonicalizerPass();
  registerCSEPass();
  registerInlinerPass();
  registerSymbolDCEPass();
  registerLinalgElementwiseOpFusionPass();
  registerConvertLinalgToLoopsPass();
  bufferization::registerOneShotBufferizePass();
  bufferization::registerBufferResultsToOutParamsPass();
  bufferization::registerOwnershipBasedBufferDeallocationPass();
  bufferization::registerBufferDeallocationSimplificationPass();
  bufferization::registerLowerDeallocationsPass();
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
}

} // namespace

void mlir::dsl::registerDslPipelines() {
  PassPipelineRegistration<CpuPipelineOptions>(
      "dsl-to-llvm-cpu",
      "Lower a module of func.func over tensors (dsl, linalg, arith) to the "
      "LLVM dialect for the CPU ExecutionEngine, with C interfaces for "
      "public functions",
      buildCpuPipeline);
}

void mlir::dsl::registerDslPassesAndPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerUpstreamPasses();
    registerDslPasses();
    registerDslPipelines();
  });
}
