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
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

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

void initializeNativeTarget() {
  static bool initOnce = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmParser();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initOnce;
}

/// The host's description (CPU name and features), detected once per process:
/// `detectHost` asks the CPU for its features, ~0.3 ms per call.
llvm::Expected<llvm::orc::JITTargetMachineBuilder> hostBuilder() {
  static std::mutex mutex;
  static std::optional<llvm::orc::JITTargetMachineBuilder> host;
  std::lock_guard<std::mutex> lock(mutex);
  if (!host) {
    auto detected = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!detected)
      return detected.takeError();
    host.emplace(std::move(*detected));
  }
  return *host;
}

/// The host's TargetMachine at `codegenOptLevel` (0-3), as the JIT makes it.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
hostTargetMachine(int codegenOptLevel) {
  if (codegenOptLevel < 0 || codegenOptLevel > 3)
    return llvm::createStringError("codegen opt level must be 0..3");
  auto tmBuilder = hostBuilder();
  if (!tmBuilder)
    return tmBuilder.takeError();
  tmBuilder->setCodeGenOptLevel(static_cast<llvm::CodeGenOptLevel>(codegenOptLevel));
  return tmBuilder->createTargetMachine();
}

/// Host TargetMachines kept for `dslEmitAssembly` (its LLVM IR pipeline and
/// code generation): a new one builds its subtarget (instruction and lowering
/// tables) again on first use, ~0.7 ms, each call. A machine is lent to one thread at a time
/// (its subtarget map is not thread-safe) and returned when the lease ends;
/// at most `kKept` idle ones per opt level stay (never freed: they live as
/// long as LLVM's own statics, so process exit never tears them down first).
class TargetPool {
public:
  static constexpr size_t kKept = 4;

  /// A machine lent from the pool, returned when the lease goes away.
  class Lease {
  public:
    Lease(int level, llvm::TargetMachine *tm) : level(level), tm(tm) {}
    Lease(Lease &&other) noexcept : level(other.level), tm(other.tm) {
      other.tm = nullptr;
    }
    Lease(const Lease &) = delete;
    Lease &operator=(const Lease &) = delete;
    Lease &operator=(Lease &&) = delete;
    ~Lease() {
      if (tm)
        TargetPool::get().giveBack(level, tm);
    }
    llvm::TargetMachine *get() const { return tm; }

  private:
    int level;
    llvm::TargetMachine *tm;
  };

  static TargetPool &get() {
    static TargetPool *pool = new TargetPool(); // intentionally never destroyed
    return *pool;
  }

  llvm::Expected<Lease> lend(int codegenOptLevel) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto &idle = free[codegenOptLevel];
      if (!idle.empty()) {
        llvm::TargetMachine *tm = idle.back();
        idle.pop_back();
        return Lease(codegenOptLevel, tm);
      }
    }
    auto tm = hostTargetMachine(codegenOptLevel);
    if (!tm)
      return tm.takeError();
    return Lease(codegenOptLevel, tm->release());
  }

private:
  void giveBack(int level, llvm::TargetMachine *tm) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (free[level].size() < kKept) {
        free[level].push_back(tm);
        return;
      }
    }
    delete tm;
  }

  std::mutex mutex;
  std::vector<llvm::TargetMachine *> free[4];
};

/// An error unless `pipeline` (new pass manager text; empty: the default one)
/// parses: a bad one is reported before any code is compiled.
llvm::Error checkPipeline(const std::string &pipeline, llvm::TargetMachine *tm) {
  if (pipeline.empty())
    return llvm::Error::success();
  llvm::PassBuilder pb(tm);
  llvm::ModulePassManager probe;
  if (llvm::Error err = pb.parsePassPipeline(probe, pipeline))
    return llvm::createStringError("invalid LLVM pass pipeline '" + pipeline +
                                   "': " + llvm::toString(std::move(err)));
  return llvm::Error::success();
}

/// A host TargetMachine at `codegenOptLevel` lent from the pool, once
/// `pipeline` is known to parse (targets initialized on first use).
llvm::Expected<TargetPool::Lease>
prepareTarget(int codegenOptLevel, const std::string &pipeline) {
  initializeNativeTarget();
  if (codegenOptLevel < 0 || codegenOptLevel > 3)
    return llvm::createStringError("codegen opt level must be 0..3");
  auto tm = TargetPool::get().lend(codegenOptLevel);
  if (!tm)
    return tm.takeError();
  if (llvm::Error err = checkPipeline(pipeline, tm->get()))
    return std::move(err);
  return tm;
}

/// Collects the error diagnostics of a context while alive, one per line,
/// instead of letting them print to stderr.
struct CollectErrors {
  explicit CollectErrors(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          if (diag.getSeverity() == DiagnosticSeverity::Error)
            os << "\n" << diag.getLocation() << ": error: " << diag.str();
          return success();
        }) {}
  std::string text;
  llvm::raw_string_ostream os{text};
  ScopedDiagnosticHandler handler;
};

/// The LLVM IR transformer of the JIT: `pipeline`, or LLVM's default one at
/// `codegenOptLevel` when empty; optimization remarks dropped.
std::function<llvm::Error(llvm::Module *)>
makeTransformer(const std::string &pipeline, int codegenOptLevel,
                llvm::TargetMachine *tm) {
  return withoutRemarks(
      pipeline.empty()
          ? makeOptimizingTransformer(codegenOptLevel, /*sizeLevel=*/0, tm)
          : makePipelineTransformer(pipeline, tm));
}

} // namespace

extern "C" bool dslTranslateToLLVMIR(MlirOperation module, char **llvmIR,
                                     char **error) {
  Operation *op = unwrap(module);
  CollectErrors errors(op->getContext());
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> translated = translateModuleToLLVMIR(op, context);
  if (!translated) {
    if (error)
      *error = copyString(errors.text.empty() ? "translation to LLVM IR failed"
                                              : errors.text);
    return false;
  }
  std::string text;
  llvm::raw_string_ostream out(text);
  translated->print(out, nullptr);
  *llvmIR = copyString(text);
  return true;
}

extern "C" bool dslEmitAssembly(MlirStringRef llvmIR, MlirStringRef llvmPasses,
                                int codegenOptLevel, char **assembly,
                                char **error) {
  auto fail = [&](const std::string &message) {
    if (error)
      *error = copyString(message);
    return false;
  };
  std::string pipeline = unwrap(llvmPasses).str();
  auto tm = prepareTarget(codegenOptLevel, pipeline);
  if (!tm)
    return fail(llvm::toString(tm.takeError()));

  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseIR(
      llvm::MemoryBufferRef(unwrap(llvmIR), "llvm-ir"), diagnostic, context);
  if (!module) {
    std::string text;
    llvm::raw_string_ostream os(text);
    diagnostic.print("llvm-ir", os);
    return fail("could not read the LLVM IR: " + text);
  }
  module->setTargetTriple(tm->get()->getTargetTriple());
  module->setDataLayout(tm->get()->createDataLayout());
  if (llvm::Error err = makeTransformer(pipeline, codegenOptLevel, tm->get())(module.get()))
    return fail(llvm::toString(std::move(err)));

  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager codegen;
  if (tm->get()->addPassesToEmitFile(codegen, os, nullptr,
                                 llvm::CodeGenFileType::AssemblyFile))
    return fail("the host target cannot emit assembly");
  codegen.run(*module);
  *assembly = copyString(std::string(text.str()));
  return true;
}

extern "C" MlirExecutionEngine
dslExecutionEngineCreate(MlirModule op, MlirStringRef llvmPasses,
                         int codegenOptLevel, int numPaths,
                         const MlirStringRef *sharedLibPaths,
                         bool enableObjectDump, char **error) {
  auto fail = [&](const std::string &message) {
    if (error)
      *error = copyString(message);
    return MlirExecutionEngine{nullptr};
  };
  std::string pipeline = unwrap(llvmPasses).str();
  initializeNativeTarget();
  // Not from the pool: the engine keeps this machine and generates the code
  // with it, so the subtarget the LLVM IR pipeline builds on it is built once
  // per compile (a pooled machine for the pipeline and a fresh one here made
  // code generation build a second subtarget: ~1 ms more, measured).
  auto tm = hostTargetMachine(codegenOptLevel);
  if (!tm)
    return fail(llvm::toString(tm.takeError()));
  if (llvm::Error err = checkPipeline(pipeline, tm->get()))
    return fail(llvm::toString(std::move(err)));

  SmallVector<StringRef> libPaths;
  for (int i = 0; i < numPaths; ++i)
    libPaths.push_back(unwrap(sharedLibPaths[i]));

  // ExecutionEngineOptions holds a function_ref: the transformer must outlive
  // create(), which runs it (a pipeline that fails to parse was rejected above).
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeTransformer(pipeline, codegenOptLevel, tm->get());
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(codegenOptLevel);
  options.sharedLibPaths = libPaths;
  options.enableObjectDump = enableObjectDump;
  // MLIR's diagnostics (an op with no LLVM IR translation) join the error
  // instead of going to stderr.
  Operation *module = unwrap(op).getOperation();
  CollectErrors errors(module->getContext());
  auto engine = ExecutionEngine::create(module, options, std::move(*tm));
  if (!engine)
    return fail(llvm::toString(engine.takeError()) + errors.text);
  return wrap(engine->release());
}

extern "C" void dslFreeString(char *text) { std::free(text); }
