//===- ElementwiseOps.cpp - lowering of elementwise dsl ops ---------------===//
//
// Every elementwise op becomes one parallel linalg.generic (see
// buildElementwise): broadcasting is expressed in the indexing maps and
// scalar operands are used inside the body, so that chains of these ops fuse
// into one loop nest. The per-op table below gives the scalar computation.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::dsl;

namespace {

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
}

template <typename FloatOp, typename IntOp>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0]))
    return FloatOp::create(b, loc, a);
  return IntOp::create(b, loc, a);
}

/// The float, signed or unsigned (`isUnsigned`) integer form of an op.
template <typename FloatOp, typename SignedOp, typename UnsignedOp>
Value bySign(OpBuilder &b, Location loc, ValueRange a, bool isUnsigned) {
  if (!isFloat(a[0]) && isUnsigned)
    return UnsignedOp::create(b, loc, a);
  return floatOrInt<FloatOp, SignedOp>(b, loc, a);
}

/// Signed division that never traps: x / 0 is 0 and MIN / -1 is MIN (as in
/// numpy), instead of the undefined behaviour (SIGFPE on x86) of arith.divsi.
Value safeDivSI(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  unsigned w = t.getIntOrFloatBitWidth();
  auto cst = [&](const APInt &v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
  };
  Value zero = cst(APInt::getZero(w)), one = cst(APInt(w, 1));
  Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value overflow = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x,
                            cst(APInt::getSignedMinValue(w))),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                            cst(APInt::getAllOnes(w))));
  Value bad = arith::OrIOp::create(b, loc, byZero, overflow);
  Value divisor = arith::SelectOp::create(b, loc, bad, one, y);
  Value q = arith::DivSIOp::create(b, loc, x, divisor);
  return arith::SelectOp::create(b, loc, byZero, zero, q);
}

/// Unsigned division that never traps: x / 0 is 0 (as in numpy).
Value safeDivUI(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 1));
  Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value divisor = arith::SelectOp::create(b, loc, byZero, one, y);
  Value q = arith::DivUIOp::create(b, loc, x, divisor);
  return arith::SelectOp::create(b, loc, byZero, zero, q);
}

arith::CmpFPredicate floatPredicate(CmpPredicate p) {
  switch (p) {
  case CmpPredicate::eq: return arith::CmpFPredicate::OEQ;
  case CmpPredicate::ne: return arith::CmpFPredicate::UNE;
  case CmpPredicate::lt: return arith::CmpFPredicate::OLT;
  case CmpPredicate::le: return arith::CmpFPredicate::OLE;
  case CmpPredicate::gt: return arith::CmpFPredicate::OGT;
  case CmpPredicate::ge: return arith::CmpFPredicate::OGE;
  }
  llvm_unreachable("unknown dsl.cmp predicate");
}

arith::CmpIPredicate intPredicate(CmpPredicate p, bool isUnsigned) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case CmpPredicate::eq: return P::eq;
  case CmpPredicate::ne: return P::ne;
  case CmpPredicate::lt: return isUnsigned ? P::ult : P::slt;
  case CmpPredicate::le: return isUnsigned ? P::ule : P::sle;
  case CmpPredicate::gt: return isUnsigned ? P::ugt : P::sgt;
  case CmpPredicate::ge: return isUnsigned ? P::uge : P::sge;
  }
  llvm_unreachable("unknown dsl.cmp predicate");
}

//===----------------------------------------------------------------------===//
// The scalar computation of each op, on one element of each operand.
//===----------------------------------------------------------------------===//

using B = OpBuilder;
using L = Location;
using A = ValueRange;

Value scalar(ExpOp, B &b, L l, A a) { return math::ExpOp::create(b, l, a[0]); }
Value scalar(LogOp, B &b, L l, A a) { return math::LogOp::create(b, l, a[0]); }
Value scalar(SqrtOp, B &b, L l, A a) { return math::SqrtOp::create(b, l, a[0]); }
Value scalar(RsqrtOp, B &b, L l, A a) { return math::RsqrtOp::create(b, l, a[0]); }
Value scalar(TanhOp, B &b, L l, A a) { return math::TanhOp::create(b, l, a[0]); }
Value scalar(AbsOp op, B &b, L l, A a) {
  if (op.getIsUnsigned()) // |x| = x
    return a[0];
  return floatOrInt<math::AbsFOp, math::AbsIOp>(b, l, a);
}
Value scalar(NegOp, B &b, L l, A a) {
  if (isFloat(a[0]))
    return arith::NegFOp::create(b, l, a[0]);
  return arith::SubIOp::create(b, l, zeroOf(b, l, a[0].getType()), a[0]);
}
Value scalar(ReluOp op, B &b, L l, A a) {
  if (op.getIsUnsigned()) // max(x, 0) = x
    return a[0];
  Value zero = zeroOf(b, l, a[0].getType());
  return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, l, {a[0], zero});
}
Value scalar(AddOp, B &b, L l, A a) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, l, a);
}
Value scalar(SubOp, B &b, L l, A a) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, l, a);
}
Value scalar(MulOp, B &b, L l, A a) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, l, a);
}
Value scalar(DivOp op, B &b, L l, A a) {
  if (isFloat(a[0]))
    return arith::DivFOp::create(b, l, a[0], a[1]);
  if (op.getIsUnsigned())
    return safeDivUI(b, l, a[0], a[1]);
  return safeDivSI(b, l, a[0], a[1]);
}
Value scalar(MaximumOp op, B &b, L l, A a) {
  return bySign<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>(
      b, l, a, op.getIsUnsigned());
}
Value scalar(MinimumOp op, B &b, L l, A a) {
  return bySign<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>(
      b, l, a, op.getIsUnsigned());
}
Value scalar(PowOp, B &b, L l, A a) { return math::PowFOp::create(b, l, a); }
Value scalar(CmpOp op, B &b, L l, A a) {
  if (isFloat(a[0]))
    return arith::CmpFOp::create(b, l, floatPredicate(op.getPredicate()), a[0],
                                 a[1]);
  return arith::CmpIOp::create(
      b, l, intPredicate(op.getPredicate(), op.getIsUnsigned()), a[0], a[1]);
}
Value scalar(SelectOp, B &b, L l, A a) {
  return arith::SelectOp::create(b, l, a[0], a[1], a[2]);
}
Value scalar(BroadcastOp, B &, L, A a) { return a[0]; }
Value scalar(CastOp op, B &b, L l, A a) {
  return convertScalar(b, l, a[0], op.getType().getElementType(),
                       op.getSourceUnsigned(), op.getResultUnsigned());
}

/// One linalg.generic over the op's operands, in order.
template <typename OpTy>
struct ElementwiseLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange a) {
          return scalar(op, b, loc, a);
        },
        op->getName().getStringRef());
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dsl::populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<ExpOp>, ElementwiseLowering<LogOp>,
               ElementwiseLowering<SqrtOp>, ElementwiseLowering<RsqrtOp>,
               ElementwiseLowering<TanhOp>, ElementwiseLowering<AbsOp>,
               ElementwiseLowering<NegOp>, ElementwiseLowering<ReluOp>,
               ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
               ElementwiseLowering<MulOp>, ElementwiseLowering<DivOp>,
               ElementwiseLowering<MaximumOp>, ElementwiseLowering<MinimumOp>,
               ElementwiseLowering<PowOp>, ElementwiseLowering<CmpOp>,
               ElementwiseLowering<SelectOp>, ElementwiseLowering<BroadcastOp>,
               ElementwiseLowering<CastOp>>(patterns.getContext());
}
