//===- Plugins.h - plugin checks shared by the C API and dsl-opt ----------===//
#ifndef DSL_LIB_CAPI_PLUGINS_H
#define DSL_LIB_CAPI_PLUGINS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::dsl {

/// What a plugin option of dsl-opt needs the library to export.
enum class PluginKind {
  Dialect, ///< --load-dialect-plugin: mlirGetDialectPluginInfo
  Pass,    ///< --load-pass-plugin: mlirGetPassPluginInfo
};

/// Load `path` (RTLD_GLOBAL, as mlir::DialectPlugin does after us) and check
/// it as dslLoadPlugin does, without registering anything, and that it
/// exports the entry point of `kind` (upstream's loader aborts on a
/// missing one). False with `error` set when it is refused.
bool checkPlugin(llvm::StringRef path, PluginKind kind, std::string &error);

} // namespace mlir::dsl

#endif // DSL_LIB_CAPI_PLUGINS_H
