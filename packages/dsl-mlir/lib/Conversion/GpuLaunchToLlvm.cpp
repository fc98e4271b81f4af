//===- GpuLaunchToLlvm.cpp - host side of gpu.launch_func -----------------===//
//
// Converts the operands of `gpu.launch_func` to LLVM types: memref operands
// are expanded into their descriptor fields (the parameter list
// `convert-gpu-to-nvvm` gives the kernel), sizes become i64, and the stream
// operand (`asyncObject`) is kept.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLGPULAUNCHTOLLVM
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

struct LaunchLowering : ConvertOpToLLVMPattern<gpu::LaunchFuncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(gpu::LaunchFuncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getAsyncToken() || !op.getAsyncDependencies().empty())
      return op.emitError("async tokens are not supported on launches; pass a stream");
    Location loc = op.getLoc();
    SmallVector<Value, 4> args = getTypeConverter()->promoteOperands(
        loc, op.getKernelOperands(), adaptor.getKernelOperands(), rewriter,
        /*useBarePtrCallConv=*/false);
    gpu::KernelDim3 grid{adaptor.getGridSizeX(), adaptor.getGridSizeY(),
                         adaptor.getGridSizeZ()};
    gpu::KernelDim3 block{adaptor.getBlockSizeX(), adaptor.getBlockSizeY(),
                          adaptor.getBlockSizeZ()};
    std::optional<gpu::KernelDim3> cluster;
    if (op.hasClusterSize())
      cluster = gpu::KernelDim3{adaptor.getClusterSizeX(),
                                adaptor.getClusterSizeY(),
                                adaptor.getClusterSizeZ()};
    gpu::LaunchFuncOp::create(rewriter, loc, op.getKernelAttr(), grid, block,
                              adaptor.getDynamicSharedMemorySize(), args,
                              adaptor.getAsyncObject(), cluster);
    rewriter.eraseOp(op);
    return success();
  }
};

struct DslGpuLaunchToLlvm
    : dsl::impl::DslGpuLaunchToLlvmBase<DslGpuLaunchToLlvm> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    patterns.add<LaunchLowering>(converter);
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<gpu::LaunchFuncOp>([&](gpu::LaunchFuncOp op) {
      return converter.isLegal(op->getOperandTypes());
    });
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
