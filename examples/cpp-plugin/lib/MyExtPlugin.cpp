//===- MyExtPlugin.cpp - the plugin entry points --------------------------===//
//
// What dsl_mlir.load_plugin() and dsl-opt --load-dialect-plugin /
// --load-pass-plugin call. dsl/Plugin.h also records the dsl-mlir release this
// library is built against, which the loaders check.
//
//===----------------------------------------------------------------------===//
#include "MyExt/MyExtDialect.h"
#include "MyExt/MyExtPasses.h"

#include "dsl/Plugin.h"

DSL_MLIR_PLUGIN_EXPORT mlir::DialectPluginLibraryInfo mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "myext", MYEXT_VERSION,
          [](mlir::DialectRegistry *registry) {
            registry->insert<myext::MyExtDialect>();
          }};
}

DSL_MLIR_PLUGIN_EXPORT mlir::PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "myext", MYEXT_VERSION,
          []() { myext::registerMyExtPasses(); }};
}
