//===- DslToLinalg.cpp - lower dsl ops to linalg/tensor/arith -------------===//
//
// One rewrite pattern per op. Elementwise ops, casts and matmul become
// linalg.generic ops over tensor.empty destinations so that upstream
// elementwise fusion and tiling apply to them.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_CONVERTDSLTOLINALG
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;
using namespace mlir::dsl;

namespace {

/// A tensor.empty of type `t`, its dynamic sizes read from `like` (same shape).
Value emptyLike(OpBuilder &b, Location loc, RankedTensorType t, Value like) {
  SmallVector<Value> dyn;
  for (auto [i, d] : llvm::enumerate(t.getShape()))
    if (ShapedType::isDynamic(d))
      dyn.push_back(tensor::DimOp::create(b, loc, like, i));
  return tensor::EmptyOp::create(b, loc, t.getShape(), t.getElementType(), dyn);
}

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A parallel linalg.generic applying `body` to the elements of `inputs`.
Value elementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                  ValueRange inputs, BodyFn body) {
  Value init = emptyLike(b, loc, resultType, inputs.front());
  AffineMap id = b.getMultiDimIdentityMap(resultType.getRank());
  SmallVector<AffineMap> maps(inputs.size() + 1, id);
  SmallVector<utils::IteratorType> iters(resultType.getRank(),
                                         utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args.drop_back()));
      });
  return generic.getResult(0);
}

/// Convert a scalar between element types (signed semantics for integers).
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  if (fromF && toF) {
    if (fromF.getWidth() == toF.getWidth()) // f16 <-> bf16 through f32
      v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    if (cast<FloatType>(v.getType()).getWidth() < toF.getWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (!fromF && !toF) {
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (fw < tw && fw == 1)
      return arith::ExtUIOp::create(b, loc, to, v);
    if (fw < tw)
      return arith::ExtSIOp::create(b, loc, to, v);
    if (tw == 1) { // nonzero -> true
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(from));
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
    }
    return arith::TruncIOp::create(b, loc, to, v);
  }
  if (toF)
    return from.isInteger(1) ? Value(arith::UIToFPOp::create(b, loc, to, v))
                             : Value(arith::SIToFPOp::create(b, loc, to, v));
  if (to.isInteger(1)) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(from));
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
  }
  return arith::FPToSIOp::create(b, loc, to, v);
}

template <typename DslOp, typename FloatOp, typename IntOp>
struct BinaryLowering : OpRewritePattern<DslOp> {
  using OpRewritePattern<DslOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(DslOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    bool isFloat = isa<FloatType>(type.getElementType());
    Value result = elementwise(
        rewriter, op.getLoc(), type, {op.getLhs(), op.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          if (isFloat)
            return FloatOp::create(b, loc, a[0], a[1]);
          return IntOp::create(b, loc, a[0], a[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct CastLowering : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getResult().getType();
    Type to = type.getElementType();
    Value result = elementwise(
        rewriter, op.getLoc(), type, {op.getSource()},
        [&](OpBuilder &b, Location loc, ValueRange a) {
          return convertScalar(b, loc, a[0], to);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct MatmulLowering : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getResult().getType();
    Type acc = type.getElementType();
    bool aT = op.getATrans(), bT = op.getBTrans();
    SmallVector<Value> dyn;
    if (type.isDynamicDim(0))
      dyn.push_back(tensor::DimOp::create(rewriter, loc, op.getLhs(), aT ? 1 : 0));
    if (type.isDynamicDim(1))
      dyn.push_back(tensor::DimOp::create(rewriter, loc, op.getRhs(), bT ? 0 : 1));
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), acc, dyn);
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(acc));
    Value init = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);

    MLIRContext *ctx = rewriter.getContext();
    AffineExpr m, n, k;
    bindDims(ctx, m, n, k);
    auto map = [&](AffineExpr x, AffineExpr y) {
      return AffineMap::get(3, 0, {x, y}, ctx);
    };
    SmallVector<AffineMap> maps = {aT ? map(k, m) : map(m, k),
                                   bT ? map(n, k) : map(k, n), map(m, n)};
    SmallVector<utils::IteratorType> iters = {utils::IteratorType::parallel,
                                              utils::IteratorType::parallel,
                                              utils::IteratorType::reduction};
    bool isFloat = isa<FloatType>(acc);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getLhs(), op.getRhs()},
        ValueRange{init}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = convertScalar(b, l, a[0], acc);
          Value y = convertScalar(b, l, a[1], acc);
          Value r = isFloat ? Value(arith::AddFOp::create(
                                  b, l, a[2], arith::MulFOp::create(b, l, x, y)))
                            : Value(arith::AddIOp::create(
                                  b, l, a[2], arith::MulIOp::create(b, l, x, y)));
          linalg::YieldOp::create(b, l, r);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct CreateTensorLowering : OpRewritePattern<CreateTensorOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CreateTensorOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getResult().getType();
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
        op, type.getShape(), type.getElementType(), op.getDynamicSizes());
    return success();
  }
};

struct FullLowering : OpRewritePattern<FullOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FullOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getResult().getType();
    Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                          type.getElementType(),
                                          op.getDynamicSizes());
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, op.getValue(), empty);
    return success();
  }
};

struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getResult().getType();
    SmallVector<OpFoldResult> offsets(op.getOffsets().begin(),
                                      op.getOffsets().end());
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t s : type.getShape()) {
      sizes.push_back(rewriter.getIndexAttr(s));
      strides.push_back(rewriter.getIndexAttr(1));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, op.getSource(), offsets, sizes, strides);
    return success();
  }
};

struct ConvertDslToLinalg
    : dsl::impl::ConvertDslToLinalgBase<ConvertDslToLinalg> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<BinaryLowering<AddOp, arith::AddFOp, arith::AddIOp>,
                 BinaryLowering<SubOp, arith::SubFOp, arith::SubIOp>,
                 BinaryLowering<MulOp, arith::MulFOp, arith::MulIOp>,
                 BinaryLowering<DivOp, arith::DivFOp, arith::DivSIOp>,
                 CastLowering, MatmulLowering, CreateTensorLowering,
                 FullLowering, SliceLowering>(ctx);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<DslDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
