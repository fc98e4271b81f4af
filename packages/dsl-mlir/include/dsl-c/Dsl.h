/*===- Dsl.h - C API of the dsl toolkit ---------------------------*- C -*-===*/
#ifndef DSL_C_DSL_H
#define DSL_C_DSL_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Dsl, dsl);

/// Insert every dialect, interface model and LLVM translation the toolkit
/// uses (builtin, func, arith, math, scf, cf, memref, tensor, linalg, vector,
/// llvm, bufferization, index, affine, ub, gpu, nvvm, irdl, pdl, dsl).
MLIR_CAPI_EXPORTED void dslRegisterDialects(MlirDialectRegistry registry);

/// Register the dsl passes, named pipelines and the upstream passes they use.
/// Idempotent and thread-safe.
MLIR_CAPI_EXPORTED void dslRegisterPasses(void);

/// mlir-opt's main with the toolkit's dialects and passes (used by dsl-opt).
/// Plugins named by --load-dialect-plugin / --load-pass-plugin are checked
/// as dslLoadPlugin checks them (a failure is an error, not a warning).
MLIR_CAPI_EXPORTED int dslMlirOptMain(int argc, char **argv);

/// The release a plugin must have been built against, as plugins record it
/// (DSL_MLIR_ABI_VERSION of dsl/Version.h): "dsl-mlir X.Y.Z (MLIR A.B.C)".
MLIR_CAPI_EXPORTED MlirStringRef dslGetPluginAbiVersion(void);

/// What dslLoadPlugin found. The strings belong to the plugin library, which
/// stays loaded for the life of the process.
typedef struct DslPluginInfo {
  const char *name;    ///< the plugin's name (from its entry point)
  const char *version; ///< the plugin's own version string
  bool hasDialects;    ///< it exports mlirGetDialectPluginInfo
  bool hasPasses;      ///< it exports mlirGetPassPluginInfo
  bool alreadyLoaded;  ///< a previous call loaded it (passes registered then)
} DslPluginInfo;

/// Load a dialect and/or pass plugin: a shared library linked against this
/// library that exports the upstream MLIR plugin entry points
/// (mlirGetDialectPluginInfo, mlirGetPassPluginInfo) and includes
/// dsl/Plugin.h. Its dialects are inserted into `registry` (skipped when
/// null; done on every call, so one plugin can fill several registries), its
/// passes into the global pass registry (once per process).
///
/// Refused, with a message passed to `onError` (may be null): a missing file,
/// a library that cannot be loaded (the loader's message; unresolved symbols
/// are demangled), no entry point, another plugin API version, and a plugin
/// built against another dsl-mlir release (both releases named). Never
/// aborts. The library is opened RTLD_LOCAL and never unloaded.
MLIR_CAPI_EXPORTED MlirLogicalResult
dslLoadPlugin(MlirStringRef path, MlirDialectRegistry registry,
              DslPluginInfo *info, MlirStringCallback onError,
              void *userData);

#ifdef __cplusplus
}
#endif

#endif /* DSL_C_DSL_H */
