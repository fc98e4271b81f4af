//===- Jit.cpp - ExecutionEngine with a chosen LLVM pipeline --------------===//
//
// The runtime's JIT: MLIR's ExecutionEngine with the LLVM IR pipeline given
// as text and the code generation level set apart. LLVM's default O2/O3
// pipeline costs ~15 ms per small module here, most of it for code that
// MLIR already vectorized; a short pipeline (inline the internalized
// function into its C wrapper, clean up) and O3 code generation keep the
// generated code's speed at about a third of the compile time.
//
//===----------------------------------------------------------------------===//

#include "dsl-c/Jit.h"

#include "mlir/CAPI/ExecutionEngine.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace {

char *copyString(const std::string &text) {
  char *out = static_cast<char *>(std::malloc(text.size() + 1));
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

/// Drops LLVM's optimization remarks, which its default handler prints to
/// stderr (into the user's program output): e.g. "loop not vectorized" for a
/// kernel's thread loop that asked for vectorization and cannot have it.
/// Warnings and errors are left to the default handler.
struct DropRemarks : llvm::DiagnosticHandler {
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    return info.getSeverity() == llvm::DS_Remark;
  }
};

/// `inner`, run with remarks dropped (the module's context is the JIT's own).
std::function<llvm::Error(llvm::Module *)>
withoutRemarks(std::function<llvm::Error(llvm::Module *)> inner) {
  return [inner = std::move(inner)](llvm::Module *m) -> llvm::Error {
    m->getContext().setDiagnosticHandler(std::make_unique<DropRemarks>());
    return inner(m);
  };
}

/// Runs `pipeline` (new pass manager text) over an LLVM module.
std::function<llvm::Error(llvm::Module *)>
makePipelineTransformer(std::string pipeline, llvm::TargetMachine *tm) {
  return [pipeline = std::move(pipeline), tm](llvm::Module *m) -> llvm::Error {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm;
    if (llvm::Error err = pb.parsePassPipeline(mpm, pipeline))
      return err;
    mpm.run(*m, mam);
    return llvm::Error::success();
  };
}

} // namespace

extern "C" MlirExecutionEngine
dslExecutionEngineCreate(MlirModule op, MlirStringRef llvmPasses,
                         int codegenOptLevel, int numPaths,
                         const MlirStringRef *sharedLibPaths,
                         bool enableObjectDump, char **error) {
  static bool initOnce = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmParser();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initOnce;
  auto fail = [&](const std::string &message) {
    if (error)
      *error = copyString(message);
    return MlirExecutionEngine{nullptr};
  };
  if (codegenOptLevel < 0 || codegenOptLevel > 3)
    return fail("codegen opt level must be 0..3");

  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder)
    return fail(llvm::toString(tmBuilder.takeError()));
  tmBuilder->setCodeGenOptLevel(static_cast<llvm::CodeGenOptLevel>(codegenOptLevel));
  auto tm = tmBuilder->createTargetMachine();
  if (!tm)
    return fail(llvm::toString(tm.takeError()));

  // Check the pipeline text now: a bad one is an error here, not at lookup.
  std::string pipeline = unwrap(llvmPasses).str();
  if (!pipeline.empty()) {
    llvm::PassBuilder pb(tm->get());
    llvm::ModulePassManager probe;
    if (llvm::Error err = pb.parsePassPipeline(probe, pipeline))
      return fail("invalid LLVM pass pipeline '" + pipeline + "': " +
                  llvm::toString(std::move(err)));
  }

  SmallVector<StringRef> libPaths;
  for (int i = 0; i < numPaths; ++i)
    libPaths.push_back(unwrap(sharedLibPaths[i]));

  // ExecutionEngineOptions holds a function_ref: the transformer must outlive
  // create(), which runs it (a pipeline that fails to parse was rejected above).
  std::function<llvm::Error(llvm::Module *)> transformer = withoutRemarks(
      pipeline.empty()
          ? makeOptimizingTransformer(codegenOptLevel, /*sizeLevel=*/0, tm->get())
          : makePipelineTransformer(pipeline, tm->get()));
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(codegenOptLevel);
  options.sharedLibPaths = libPaths;
  options.enableObjectDump = enableObjectDump;
  auto engine = ExecutionEngine::create(unwrap(op), options, std::move(*tm));
  if (!engine)
    return fail(llvm::toString(engine.takeError()));
  return wrap(engine->release());
}

extern "C" void dslFreeString(char *text) { std::free(text); }
