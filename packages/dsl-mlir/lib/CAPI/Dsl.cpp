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

/// The plugins of --load-dialect-plugin / --load-pass-plugin, with the kind
/// each option needs (both the `--opt=path` and the `--opt path` spellings,
/// with one or two dashes).
static llvm::SmallVector<std::pair<mlir::dsl::PluginKind, llvm::StringRef>>
pluginArguments(int argc, char **argv) {
  using mlir::dsl::PluginKind;
  llvm::SmallVector<std::pair<PluginKind, llvm::StringRef>> plugins;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--")
      break;
    if (!arg.consume_front("-"))
      continue;
    arg.consume_front("-");
    for (auto [option, kind] :
         {std::pair{"load-dialect-plugin", PluginKind::Dialect},
          std::pair{"load-pass-plugin", PluginKind::Pass}}) {
      llvm::StringRef rest = arg;
      if (!rest.consume_front(option))
        continue;
      if (rest.consume_front("="))
        plugins.emplace_back(kind, rest);
      else if (rest.empty() && i + 1 < argc)
        plugins.emplace_back(kind, argv[++i]);
    }
  }
  return plugins;
}

int dslMlirOptMain(int argc, char **argv) {
  // mlir-opt only warns about a plugin it cannot load; we refuse to run.
  for (auto [kind, path] : pluginArguments(argc, argv)) {
    std::string error;
    if (!mlir::dsl::checkPlugin(path, kind, error)) {
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
