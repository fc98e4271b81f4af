//===- GpuPipeline.cpp - the NVPTX pipeline of kernels --------------------===//
//
// `dsl-to-llvm-nvptx`: a module of host functions (scalars, memrefs,
// `gpu.launch_func`) and a `gpu.module` of kernels becomes LLVM dialect host
// code whose launches call the `mgpu*` runtime ABI, with the kernels embedded
// as PTX (`gpu.binary`, format `isa`: no CUDA toolkit is needed to compile;
// the driver JIT-compiles the PTX when the module is loaded).
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ComplexToLLVM/ComplexToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

using namespace mlir;

namespace {

struct NvptxPipelineOptions : PassPipelineOptions<NvptxPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target GPU architecture (sm_XX)"),
                           llvm::cl::init("sm_80")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX ISA version feature of the target (+ptxXX)"),
      llvm::cl::init("+ptx80")};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("LLVM optimization level of kernels"),
                       llvm::cl::init(3)};
};

/// The textual pipeline behind `dsl-to-llvm-nvptx` (docs/kernels.md).
std::string nvptxPipelineText(const NvptxPipelineOptions &opts) {
  std::string target = "nvvm-attach-target{chip=" + opts.chip.getValue() +
                       " features=" + opts.features.getValue() +
                       " O=" + std::to_string(opts.optLevel) + "}";
  return "dsl-emit-c-interface,inline,canonicalize,cse,"
         "convert-scf-to-cf," +
         target +
         ",gpu.module(convert-gpu-to-nvvm),"
         "expand-strided-metadata,lower-affine,"
         "finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,"
         "convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
         "convert-ub-to-llvm,dsl-gpu-launch-to-llvm,reconcile-unrealized-casts,"
         "gpu-module-to-binary{format=isa},canonicalize,cse";
}

void buildNvptxPipeline(OpPassManager &pm, const NvptxPipelineOptions &opts) {
  if (failed(parsePassPipeline(nvptxPipelineText(opts), pm, llvm::errs())))
    llvm::report_fatal_error("dsl-to-llvm-nvptx: internal pipeline text is invalid");
}

} // namespace

void mlir::dsl::registerGpuPasses() {
  registerGpuNVVMAttachTarget();
  registerGpuModuleToBinaryPass();
  registerConvertGpuOpsToNVVMOps();
  registerGpuToLLVMConversionPass();
  PassPipelineRegistration<NvptxPipelineOptions>(
      "dsl-to-llvm-nvptx",
      "Lower host functions with gpu.launch_func and their gpu.module of "
      "kernels to LLVM dialect host code with the kernels embedded as PTX",
      buildNvptxPipeline);
}

void mlir::dsl::registerGpuTargets(DialectRegistry &registry) {
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  // gpu-to-llvm and convert-gpu-to-nvvm find the patterns of other dialects
  // through these interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertComplexToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  gpu::registerConvertGpuToLLVMInterface(registry);
}
