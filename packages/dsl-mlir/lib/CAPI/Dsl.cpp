//===- Dsl.cpp - C API of the dsl toolkit ---------------------------------===//

#include "dsl-c/Dsl.h"

#include "Plugins.h"

#include "dsl/Conversion/Passes.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

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

/// MLIR's parser recurses once per bracket level: 100,000 nested `[` overflow
/// the stack. As `dsl_mlir.parse_module` (MAX_NESTING in api.py), dsl-opt
/// refuses text nesting brackets deeper than this, before parsing it.
constexpr int kMaxNesting = 512;

/// The offset of the first bracket nested deeper than kMaxNesting in `text`
/// (strings, `//` comments, `->` and `>=` skipped), if any.
static std::optional<size_t> tooDeep(llvm::StringRef text) {
  int depth = 0;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    char next = i + 1 < n ? text[i + 1] : '\0';
    if (c == '"') { // a string: up to the closing quote (escapes skipped)
      for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && next == '/') {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        return std::nullopt;
    } else if ((c == '-' && next == '>') || (c == '>' && next == '=')) {
      ++i; // `->` and `>=` are not brackets
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNesting)
        return i;
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

/// Reports where `buffer` nests too deeply; true when it does.
static bool refuseDeepNesting(const llvm::MemoryBuffer &buffer,
                              llvm::StringRef name) {
  llvm::StringRef text = buffer.getBuffer();
  std::optional<size_t> at = tooDeep(text);
  if (!at)
    return false;
  llvm::StringRef before = text.take_front(*at);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column = *at - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) + 1;
  llvm::errs() << name << ":" << line << ":" << column
               << ": error: brackets nested deeper than " << kMaxNesting
               << " levels; dsl-opt refuses the input (MLIR's parser recurses "
                  "once per level)\n";
  return true;
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
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "dsl-opt: the dsl toolkit's MLIR optimizer driver\n",
      registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (input != "-" || config.shouldShowDialects() || config.shouldListPasses()) {
    // A file is read twice (here, then by MlirOptMain); one that cannot be
    // read is MlirOptMain's error to report.
    if (input != "-")
      if (auto buffer = llvm::MemoryBuffer::getFile(input, /*IsText=*/true))
        if (refuseDeepNesting(**buffer, input))
          return 1;
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));
  }
  // stdin can be read once: check the text, then hand MlirOptMain the buffer.
  auto buffer = llvm::MemoryBuffer::getSTDIN();
  if (!buffer) {
    llvm::errs() << "dsl-opt: error: cannot read stdin: "
                 << buffer.getError().message() << "\n";
    return 1;
  }
  if (refuseDeepNesting(**buffer, "<stdin>"))
    return 1;
  std::string error;
  auto out = mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(out->os(), std::move(*buffer), registry,
                                     config)))
    return 1;
  out->keep();
  return 0;
}
