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

/// The LLVM IR (text) of `module`, an operation in the LLVM dialect (and the
/// others with a registered translation). Returns false when translation
/// fails, with MLIR's error diagnostics in `error`. Both strings are owned by
/// the caller (free with dslFreeString).
MLIR_CAPI_EXPORTED bool dslTranslateToLLVMIR(MlirOperation module,
                                             char **llvmIR, char **error);

/// The host assembly of a module of LLVM IR (text), compiled as the JIT
/// compiles it: `llvmPasses` and `codegenOptLevel` as above. Returns false on
/// failure with a description in `error`; on success `assembly` holds the
/// text. Both strings are owned by the caller (free with dslFreeString).
MLIR_CAPI_EXPORTED bool dslEmitAssembly(MlirStringRef llvmIR,
                                        MlirStringRef llvmPasses,
                                        int codegenOptLevel, char **assembly,
                                        char **error);

/// Frees a string returned by this API.
MLIR_CAPI_EXPORTED void dslFreeString(char *text);

#ifdef __cplusplus
}
#endif

#endif /* DSL_C_JIT_H */
