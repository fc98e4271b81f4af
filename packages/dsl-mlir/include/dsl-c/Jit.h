/*===- Jit.h - the toolkit's ExecutionEngine constructor ----------*- C -*-===*/
#ifndef DSL_C_JIT_H
#define DSL_C_JIT_H

#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Like mlirExecutionEngineCreate, with the LLVM IR optimization and the code
/// generation set apart: `llvmPasses` is a new-pass-manager pipeline text run
/// on the translated module (empty: LLVM's default pipeline at
/// `codegenOptLevel`), `codegenOptLevel` (0-3) drives instruction selection
/// and register allocation. Returns a null engine on failure and, when
/// `error` is given, a description of it (owned by the caller, free with
/// dslFreeString).
MLIR_CAPI_EXPORTED MlirExecutionEngine dslExecutionEngineCreate(
    MlirModule op, MlirStringRef llvmPasses, int codegenOptLevel, int numPaths,
    const MlirStringRef *sharedLibPaths, bool enableObjectDump, char **error);

/// Frees a string returned by this API.
MLIR_CAPI_EXPORTED void dslFreeString(char *text);

#ifdef __cplusplus
}
#endif

#endif /* DSL_C_JIT_H */
