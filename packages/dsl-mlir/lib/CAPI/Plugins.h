//===- Plugins.h - plugin checks shared by the C API and dsl-opt ----------===//
#ifndef DSL_LIB_CAPI_PLUGINS_H
#define DSL_LIB_CAPI_PLUGINS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::dsl {

/// Load `path` (RTLD_GLOBAL, as mlir::DialectPlugin does after us) and check
/// it as dslLoadPlugin does, without registering anything. False with
/// `error` set when dslLoadPlugin would refuse it.
bool checkPlugin(llvm::StringRef path, std::string &error);

} // namespace mlir::dsl

#endif // DSL_LIB_CAPI_PLUGINS_H
