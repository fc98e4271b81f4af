//===- Plugin.h - what a dsl-mlir plugin includes -----------------*- C++ -*-===//
//
// A dsl-mlir plugin is a shared library built against the installed dsl-mlir
// (find_package(DslMLIR), add_dsl_mlir_plugin) that exports the upstream MLIR
// plugin entry points:
//
//   DSL_MLIR_PLUGIN_EXPORT mlir::DialectPluginLibraryInfo mlirGetDialectPluginInfo();
//   DSL_MLIR_PLUGIN_EXPORT mlir::PassPluginLibraryInfo mlirGetPassPluginInfo();
//
// (either or both). Including this header also records, in the plugin, the
// dsl-mlir version it was compiled against (`dslPluginAbiVersion`):
// dsl_mlir.load_plugin() and dsl-opt refuse a plugin built against another
// dsl-mlir release. Never include this header in dsl-mlir itself.
//
//===----------------------------------------------------------------------===//
#ifndef DSL_PLUGIN_H
#define DSL_PLUGIN_H

#include "dsl/Version.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

/// Declares a plugin entry point: C linkage, exported even when the plugin is
/// compiled with -fvisibility=hidden (add_dsl_mlir_plugin does).
#define DSL_MLIR_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

/// The dsl-mlir release this plugin was built against (DSL_MLIR_ABI_VERSION).
/// Weak, so that every translation unit may include this header.
extern "C" __attribute__((weak, visibility("default"))) const char *
dslPluginAbiVersion(void) {
  return DSL_MLIR_ABI_VERSION;
}

#endif // DSL_PLUGIN_H
