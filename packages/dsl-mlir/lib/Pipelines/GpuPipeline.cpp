//===- GpuPipeline.cpp - the NVPTX pipeline of kernels --------------------===//
//
// `dsl-to-llvm-nvptx`: a module of host functions (scalars, memrefs,
// `gpu.launch_func`) and a `gpu.module` of kernels becomes LLVM dialect host
// code whose launches call the `mgpu*` runtime ABI, with the kernels embedded
// as PTX (`gpu.binary`, format `isa`: no CUDA toolkit is needed to compile;
// the driver JIT-compiles the PTX when the module is loaded).
//
//===----------------------------------------------------------------------===//

#include "CheckedPipeline.h"

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
#include "llvm/Support/Regex.h"

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

constexpr dsl::OptionSpec kNvptxOptionSpecs[] = {
    {"chip", dsl::OptionKind::String},
    {"features", dsl::OptionKind::String},
    {"opt-level", dsl::OptionKind::Int},
};

/// The values go into nvvm-attach-target's option text and to LLVM's NVPTX
/// back end, which asserts on what it does not know: sm_XX[a|f] chips,
/// +ptxXX-style features, optimization levels 0..3.
std::string checkNvptxOptions(const NvptxPipelineOptions &opts) {
  constexpr StringLiteral owner = "dsl-to-llvm-nvptx";
  if (!llvm::Regex("^sm_[1-9][0-9]{1,2}[af]?$").match(opts.chip.getValue()))
    return dsl::optionRangeError(owner, "chip",
                                 "an NVIDIA architecture such as sm_80 or "
                                 "sm_90a",
                                 "'" + opts.chip.getValue() + "'");
  if (!llvm::Regex("^[+-][a-z][a-z0-9.]*(,[+-][a-z][a-z0-9.]*)*$")
           .match(opts.features.getValue()))
    return dsl::optionRangeError(owner, "features",
                                 "a comma-separated list of target features "
                                 "such as +ptx80",
                                 "'" + opts.features.getValue() + "'");
  return dsl::checkIntRange(owner, "opt-level", opts.optLevel, 0, 3);
}

LogicalResult buildNvptxPipeline(OpPassManager &pm,
                                 const NvptxPipelineOptions &opts,
                                 llvm::raw_ostream &errors) {
  pm.addPass(dsl::createDslCheckLowerable());
  return parsePassPipeline(nvptxPipelineText(opts), pm, errors);
}

} // namespace

void mlir::dsl::registerGpuPasses() {
  registerGpuNVVMAttachTarget();
  registerGpuModuleToBinaryPass();
  registerConvertGpuOpsToNVVMOps();
  registerGpuToLLVMConversionPass();
  dsl::registerCheckedPipeline<NvptxPipelineOptions>(
      "dsl-to-llvm-nvptx",
      "Lower host functions with gpu.launch_func and their gpu.module of "
      "kernels to LLVM dialect host code with the kernels embedded as PTX",
      kNvptxOptionSpecs, checkNvptxOptions, buildNvptxPipeline);
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
