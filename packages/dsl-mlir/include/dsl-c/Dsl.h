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
MLIR_CAPI_EXPORTED int dslMlirOptMain(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* DSL_C_DSL_H */
