//===- Dsl.cpp - C API of the dsl toolkit ---------------------------------===//

#include "dsl-c/Dsl.h"

#include "Plugins.h"

#include "dsl/Conversion/Passes.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/raw_ostream.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Dsl, dsl, mlir::dsl::DslDialect)

void dslRegisterDialects(MlirDialectRegistry registry) {
  mlir::dsl::registerDslDialects(*unwrap(registry));
}

void dslRegisterPasses(void) { mlir::dsl::registerDslPassesAndPipelines(); }

/// The plugin paths of --load-dialect-plugin / --load-pass-plugin (both the
/// `--opt=path` and the `--opt path` spellings, with one or two dashes).
static llvm::SmallVector<llvm::StringRef> pluginArguments(int argc,
                                                          char **argv) {
  llvm::SmallVector<llvm::StringRef> paths;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--")
      break;
    if (!arg.consume_front("-"))
      continue;
    arg.consume_front("-");
    for (llvm::StringRef option : {"load-dialect-plugin", "load-pass-plugin"}) {
      llvm::StringRef rest = arg;
      if (!rest.consume_front(option))
        continue;
      if (rest.consume_front("="))
        paths.push_back(rest);
      else if (rest.empty() && i + 1 < argc)
        paths.push_back(argv[++i]);
    }
  }
  return paths;
}

int dslMlirOptMain(int argc, char **argv) {
  // mlir-opt only warns about a plugin it cannot load; we refuse to run.
  for (llvm::StringRef path : pluginArguments(argc, argv)) {
    std::string error;
    if (!mlir::dsl::checkPlugin(path, error)) {
      llvm::errs() << "dsl-opt: error: " << error << "\n";
      return 1;
    }
  }
  mlir::DialectRegistry registry;
  mlir::dsl::registerDslDialects(registry);
  mlir::dsl::registerDslPassesAndPipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "dsl-opt: the dsl toolkit's MLIR optimizer driver\n",
      registry));
}
