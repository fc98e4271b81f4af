//===- CheckedPipeline.h - pipelines whose options are validated ----------===//
//
// `PassPipelineRegistration<Options>` prints option errors on stderr and
// checks no ranges. The dsl pipelines register through this instead: the
// option text is checked (names, value syntax: OptionChecks.h), parsed, then
// the values are checked; every problem goes to the pipeline parser's error
// handler, so it is part of the Python exception and of dsl-opt's error.
//
//===----------------------------------------------------------------------===//
#ifndef DSL_LIB_PIPELINES_CHECKEDPIPELINE_H
#define DSL_LIB_PIPELINES_CHECKEDPIPELINE_H

#include "dsl/Conversion/OptionChecks.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir::dsl {

template <typename Options>
void registerCheckedPipeline(
    StringRef name, StringRef description, ArrayRef<OptionSpec> specs,
    std::function<std::string(const Options &)> checkValues,
    std::function<LogicalResult(OpPassManager &, const Options &,
                                llvm::raw_ostream &)>
        build) {
  std::string owner = name.str();
  std::vector<OptionSpec> known(specs.begin(), specs.end());
  registerPassPipeline(
      name, description,
      [=](OpPassManager &pm, StringRef text,
          function_ref<LogicalResult(const Twine &)> errorHandler)
          -> LogicalResult {
        std::string error = checkOptionText(owner, text, known);
        if (!error.empty())
          return errorHandler(error);
        Options options;
        std::string parseErrors;
        llvm::raw_string_ostream parseStream(parseErrors);
        if (failed(options.parseFromString(text, parseStream)))
          return errorHandler(owner + ": invalid options '" + text +
                              "': " + parseErrors);
        error = checkValues(options);
        if (!error.empty())
          return errorHandler(error);
        std::string buildErrors;
        llvm::raw_string_ostream buildStream(buildErrors);
        if (failed(build(pm, options, buildStream)))
          return errorHandler(owner + ": " + buildErrors);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}

} // namespace mlir::dsl

#endif // DSL_LIB_PIPELINES_CHECKEDPIPELINE_H
