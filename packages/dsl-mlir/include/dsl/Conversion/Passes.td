//===- Passes.td - dsl passes ----------------------------------*- tablegen -*-===//

#ifndef DSL_CONVERSION_PASSES_TD
#define DSL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertDslToLinalg : Pass<"convert-dsl-to-linalg"> {
  let summary = "Lower dsl ops to linalg, tensor and arith";
  let description = [{
    Elementwise ops, casts and matmul become `linalg.generic` ops over
    `tensor.empty` destinations (so that elementwise fusion applies);
    `dsl.full` becomes `linalg.fill`; `dsl.slice` becomes
    `tensor.extract_slice`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def DslEmitCInterface : Pass<"dsl-emit-c-interface", "::mlir::ModuleOp"> {
  let summary = "Mark public function definitions with llvm.emit_c_interface";
  let description = [{
    Every public `func.func` with a body gets the `llvm.emit_c_interface`
    unit attribute so that `convert-func-to-llvm` emits its
    `_mlir_ciface_<name>` wrapper (the entry the runtime calls).
  }];
}

def DslLowerStridedCopies : Pass<"dsl-lower-strided-copies"> {
  let summary = "Turn memref.copy between non-contiguous layouts into linalg.copy";
  let description = [{
    `memref.copy` between identity layouts lowers to a `memcpy`; any other
    copy would call the `memrefCopy` runtime function, which a JIT'd module
    cannot resolve without the MLIR runner utilities. This pass rewrites
    those copies into `linalg.copy` so that they become plain loops.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def DslMaterializeLoopYields : Pass<"dsl-materialize-loop-yields"> {
  let summary = "Write the tensors a loop yields into its loop-carried buffers";
  let description = [{
    Before one-shot bufferization: every tensor yielded by an `scf.for` that is
    not its own iteration argument is wrapped in
    `bufferization.materialize_in_destination ... in %iter_arg`, so the loop
    keeps one buffer per carried tensor (updated in place at the end of each
    iteration) instead of returning a fresh allocation per iteration, which
    would need run-time ownership tracking to free.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

#endif // DSL_CONVERSION_PASSES_TD
