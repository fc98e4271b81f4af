//===- ReductionOps.cpp - lowering of sum, max, min, mean, argmax ---------===//
//
// A reduction becomes a linalg.generic with reduction iterators writing a
// tensor without the reduced dimensions (filled with the identity); mean
// divides in a second, elementwise generic; keepdim re-inserts the unit
// dimensions with tensor.expand_shape (a view after bufferization).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::dsl;

namespace {

enum class Kind { Sum, Max, Min };

using CombineFn = function_ref<Value(OpBuilder &, Location, Value, Value)>;

/// f16 and bf16 sums accumulate in f32.
Type accumulatorType(Type element, Kind kind) {
  auto f = dyn_cast<FloatType>(element);
  if (kind == Kind::Sum && f && f.getWidth() < 32)
    return Float32Type::get(element.getContext());
  return element;
}

/// The identity of the reduction; `isUnsigned`: of unsigned integers.
TypedAttr identity(OpBuilder &b, Type t, Kind kind, bool isUnsigned) {
  if (kind == Kind::Sum)
    return cast<TypedAttr>(b.getZeroAttr(t));
  bool isMax = kind == Kind::Max;
  if (auto f = dyn_cast<FloatType>(t))
    return b.getFloatAttr(t, APFloat::getInf(f.getFloatSemantics(), isMax));
  unsigned w = t.getIntOrFloatBitWidth();
  if (isUnsigned)
    return b.getIntegerAttr(t, isMax ? APInt::getZero(w) : APInt::getMaxValue(w));
  return b.getIntegerAttr(t, isMax ? APInt::getSignedMinValue(w)
                                   : APInt::getSignedMaxValue(w));
}

Value combine(OpBuilder &b, Location loc, Kind kind, Value x, Value acc,
              bool isUnsigned) {
  bool f = isa<FloatType>(x.getType());
  if (!f && isUnsigned && kind == Kind::Max)
    return arith::MaxUIOp::create(b, loc, x, acc);
  if (!f && isUnsigned && kind == Kind::Min)
    return arith::MinUIOp::create(b, loc, x, acc);
  switch (kind) {
  case Kind::Sum:
    return f ? Value(arith::AddFOp::create(b, loc, x, acc))
             : Value(arith::AddIOp::create(b, loc, x, acc));
  case Kind::Max:
    return f ? Value(arith::MaximumFOp::create(b, loc, x, acc))
             : Value(arith::MaxSIOp::create(b, loc, x, acc));
  case Kind::Min:
    return f ? Value(arith::MinimumFOp::create(b, loc, x, acc))
             : Value(arith::MinSIOp::create(b, loc, x, acc));
  }
  llvm_unreachable("unknown reduction");
}

/// Filled destinations and the linalg.generic reducing `input` over `axes`;
/// `body` gets the input element, the output accumulators and returns the
/// new accumulators.
linalg::GenericOp
buildReduction(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
               ArrayRef<TypedAttr> inits,
               function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
                   body) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape = reducedShape(type.getShape(), axes, false);
  SmallVector<Value> dyn;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iters;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    bool reduced = llvm::is_contained(axes, i);
    iters.push_back(reduced ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
    if (reduced)
      continue;
    outExprs.push_back(b.getAffineDimExpr(i));
    if (type.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, input, i));
  }
  SmallVector<Value> outs;
  SmallVector<Type> outTypes;
  for (TypedAttr init : inits) {
    Value empty = tensor::EmptyOp::create(b, loc, shape, init.getType(), dyn);
    Value cst = arith::ConstantOp::create(b, loc, init);
    outs.push_back(linalg::FillOp::create(b, loc, cst, empty).getResult(0));
    outTypes.push_back(outs.back().getType());
  }
  AffineMap outMap = AffineMap::get(type.getRank(), 0, outExprs, b.getContext());
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(type.getRank())};
  maps.append(inits.size(), outMap);
  return linalg::GenericOp::create(
      b, loc, outTypes, ValueRange{input}, outs, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
}

/// `reduced` (the input shape without the axes) with the axes back as unit
/// dimensions when `keepdim`.
Value finish(OpBuilder &b, Location loc, Value reduced, RankedTensorType type,
             ArrayRef<int64_t> axes, bool keepdim) {
  if (!keepdim)
    return reduced;
  return reshapeUnitDims(b, loc, reduced, type, axes);
}

/// The number of reduced elements as a scalar of float type `t`.
Value countOf(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
              Type t) {
  auto type = cast<RankedTensorType>(input.getType());
  Value n = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t axis : axes) {
    Value d = type.isDynamicDim(axis)
                  ? Value(tensor::DimOp::create(b, loc, input, axis))
                  : Value(arith::ConstantIndexOp::create(b, loc, type.getDimSize(axis)));
    n = arith::MulIOp::create(b, loc, n, d);
  }
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), n);
  return arith::SIToFPOp::create(b, loc, t, i64);
}

template <typename OpTy, Kind kind, bool isMean = false>
struct ReductionLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    Type element = op.getType().getElementType();
    Type acc = accumulatorType(element, kind);
    ArrayRef<int64_t> axes = op.getAxes();
    bool isUnsigned = op.getIsUnsigned();
    linalg::GenericOp generic = buildReduction(
        rewriter, loc, input, axes, {identity(rewriter, acc, kind, isUnsigned)},
        [&](OpBuilder &b, Location l, ValueRange a) -> SmallVector<Value> {
          return {combine(b, l, kind, convertScalar(b, l, a[0], acc), a[1],
                          isUnsigned)};
        });
    Value reduced = generic.getResult(0);
    if (isMean || acc != element) {
      auto accType = cast<RankedTensorType>(reduced.getType());
      Value count = isMean ? countOf(rewriter, loc, input, axes, acc) : Value();
      reduced = buildElementwise(
          rewriter, loc, accType.clone(element), {reduced},
          [&](OpBuilder &b, Location l, ValueRange a) {
            Value v = count ? Value(arith::DivFOp::create(b, l, a[0], count))
                            : a[0];
            return convertScalar(b, l, v, element);
          });
    }
    rewriter.replaceOp(op, finish(rewriter, loc, reduced, op.getType(), axes,
                                  op.getKeepdim()));
    return success();
  }
};

/// argmax: a two-output reduction (running maximum, its index); an element
/// replaces the maximum when it is greater, or when it is the first NaN.
struct ArgmaxLowering : OpRewritePattern<ArgmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ArgmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = op.getInput().getType().getElementType();
    int64_t axis = op.getAxis();
    bool isFloat = isa<FloatType>(element);
    bool isUnsigned = op.getIsUnsigned();
    SmallVector<TypedAttr> inits = {
        identity(rewriter, element, Kind::Max, isUnsigned),
                                    rewriter.getI64IntegerAttr(0)};
    linalg::GenericOp generic = buildReduction(
        rewriter, loc, op.getInput(), {axis}, inits,
        [&](OpBuilder &b, Location l, ValueRange a) -> SmallVector<Value> {
          Value x = a[0], best = a[1], bestIndex = a[2];
          Value index = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          Value take;
          if (isFloat) {
            using P = arith::CmpFPredicate;
            Value greater = arith::CmpFOp::create(b, l, P::OGT, x, best);
            Value firstNaN = arith::AndIOp::create(
                b, l, arith::CmpFOp::create(b, l, P::UNO, x, x),
                arith::CmpFOp::create(b, l, P::ORD, best, best));
            take = arith::OrIOp::create(b, l, greater, firstNaN);
          } else {
            take = arith::CmpIOp::create(b, l,
                                         isUnsigned ? arith::CmpIPredicate::ugt
                                                    : arith::CmpIPredicate::sgt,
                                         x, best);
          }
          return {arith::SelectOp::create(b, l, take, x, best),
                  arith::SelectOp::create(b, l, take, index, bestIndex)};
        });
    rewriter.replaceOp(op, finish(rewriter, loc, generic.getResult(1),
                                  op.getType(), {axis}, op.getKeepdim()));
    return success();
  }
};

} // namespace

void mlir::dsl::populateReductionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReductionLowering<SumOp, Kind::Sum>,
               ReductionLowering<MaxOp, Kind::Max>,
               ReductionLowering<MinOp, Kind::Min>,
               ReductionLowering<MeanOp, Kind::Sum, /*isMean=*/true>,
               ArgmaxLowering>(patterns.getContext());
}
