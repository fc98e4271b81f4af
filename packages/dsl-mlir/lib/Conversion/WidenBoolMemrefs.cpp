//===- WidenBoolMemrefs.cpp - memrefs of i1 as one byte per element -------===//
//
// A memref of i1 holds one byte per element at the C ABI (numpy's bool
// layout), but MemRefToLLVM does not lower loads and stores of sub-byte
// elements. This pass retypes every memref of i1 to a memref of i8 (same
// descriptor, same strides in elements), turning loads into `!= 0` and
// stores into zero extensions. Run it after linalg ops became loops.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLWIDENBOOLMEMREFS
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

struct LoadLowering : OpConversionPattern<memref::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value byte = memref::LoadOp::create(rewriter, loc, adaptor.getMemref(),
                                        adaptor.getIndices(),
                                        op.getNontemporal());
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getIntegerAttr(byte.getType(), 0));
    rewriter.replaceOpWithNewOp<arith::CmpIOp>(op, arith::CmpIPredicate::ne,
                                               byte, zero);
    return success();
  }
};

struct StoreLowering : OpConversionPattern<memref::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value byte = arith::ExtUIOp::create(rewriter, op.getLoc(),
                                        rewriter.getI8Type(),
                                        adaptor.getValue());
    rewriter.replaceOpWithNewOp<memref::StoreOp>(
        op, byte, adaptor.getMemref(), adaptor.getIndices(),
        op.getNontemporal());
    return success();
  }
};

/// Any other memref-typed op without regions (alloc, subview, reshapes,
/// casts, copy, dealloc, ...) is type-agnostic: clone it with new types.
struct Retype : ConversionPattern {
  Retype(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/0, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumRegions() != 0 || !isa<memref::MemRefDialect>(op->getDialect()))
      return rewriter.notifyMatchFailure(op, "not a region-free memref op");
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    Operation *clone = rewriter.clone(*op);
    clone->setOperands(operands);
    for (auto [result, type] : llvm::zip(clone->getResults(), types))
      result.setType(type);
    rewriter.replaceOp(op, clone->getResults());
    return success();
  }
};

bool isBoolMemref(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getElementType().isInteger(1);
}

/// Whether any value, block argument, signature or global under `root` is a
/// memref of i1 (most modules have none: the pass then leaves them as they are).
bool hasBoolMemrefs(Operation *root) {
  auto any = [](TypeRange types) { return llvm::any_of(types, isBoolMemref); };
  return root
      ->walk([&](Operation *op) {
        bool found = any(op->getOperandTypes()) || any(op->getResultTypes());
        for (Region &region : op->getRegions())
          for (Block &block : region)
            found = found || any(block.getArgumentTypes());
        if (auto fn = dyn_cast<FunctionOpInterface>(op))
          found = found || any(fn.getArgumentTypes()) || any(fn.getResultTypes());
        if (auto global = dyn_cast<memref::GlobalOp>(op))
          found = found || isBoolMemref(global.getType());
        return found ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

struct DslWidenBoolMemrefs
    : dsl::impl::DslWidenBoolMemrefsBase<DslWidenBoolMemrefs> {
  void runOnOperation() override {
    if (!hasBoolMemrefs(getOperation()))
      return markAllAnalysesPreserved();
    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type t) { return t; });
    converter.addConversion([ctx](MemRefType t) -> Type {
      if (!t.getElementType().isInteger(1))
        return t;
      return MemRefType::get(t.getShape(), IntegerType::get(ctx, 8),
                             t.getLayout(), t.getMemorySpace());
    });
    auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                          Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, type, inputs)
          .getResult(0);
    };
    converter.addSourceMaterialization(materialize);
    converter.addTargetMaterialization(materialize);

    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    RewritePatternSet patterns(ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    patterns.add<LoadLowering, StoreLowering>(converter, ctx);
    patterns.add<Retype>(converter, ctx);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
