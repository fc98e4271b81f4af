//===- Passes.h - dsl passes and pipelines ------------------------*- C++ -*-===//
#ifndef DSL_CONVERSION_PASSES_H
#define DSL_CONVERSION_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class DialectRegistry;
namespace dsl {

#define GEN_PASS_DECL
#include "dsl/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dsl/Conversion/Passes.h.inc"

/// Register the named pipelines (`dsl-to-llvm-cpu`).
void registerDslPipelines();

/// Register the passes of the NVPTX path and `dsl-to-llvm-nvptx`.
void registerGpuPasses();

/// Register the NVVM target and the GPU/NVVM translations to LLVM IR.
void registerGpuTargets(DialectRegistry &registry);

/// Register every dialect, interface and translation the toolkit uses.
void registerDslDialects(DialectRegistry &registry);

/// Register our passes, pipelines and the upstream passes our pipelines and
/// tests name (idempotent).
void registerDslPassesAndPipelines();

} // namespace dsl
} // namespace mlir

#endif // DSL_CONVERSION_PASSES_H
