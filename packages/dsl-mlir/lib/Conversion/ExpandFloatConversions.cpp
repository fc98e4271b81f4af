//===- ExpandFloatConversions.cpp - bf16 and f64->f16 without libgcc -------===//
//
// Rewrites the float operations that LLVM's x86 back end would lower to
// compiler-runtime calls (`__truncsfbf2`, `__truncdfbf2`, `__truncdfhf2`) into
// integer and f32 arithmetic, so generated code never depends on the host's
// libgcc. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLEXPANDFLOATCONVERSIONS
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

/// `type` (a scalar or a vector) with element type `element`.
Type withElement(Type type, Type element) {
  if (auto vec = dyn_cast<VectorType>(type))
    return vec.clone(element);
  return element;
}

bool hasElement(Type type, Type element) {
  return getElementTypeOrSelf(type) == element;
}

Value constantInt(OpBuilder &b, Location loc, Type type, int64_t value) {
  auto element = cast<IntegerType>(getElementTypeOrSelf(type));
  TypedAttr attr = b.getIntegerAttr(element, value);
  if (auto vec = dyn_cast<VectorType>(type))
    attr = DenseElementsAttr::get(vec, attr);
  return arith::ConstantOp::create(b, loc, attr);
}

/// f64 -> f32 rounded to odd: truncate toward zero, and set the last bit when
/// the result is inexact. Rounding that value once more to a format with at
/// least two fewer significand bits gives the correctly rounded result.
Value roundToOddF32(OpBuilder &b, Location loc, Value x) {
  Type xType = x.getType();
  Type f32 = withElement(xType, b.getF32Type());
  Type i32 = withElement(xType, b.getI32Type());
  Type i64 = withElement(xType, b.getI64Type());
  Value nearest = arith::TruncFOp::create(b, loc, f32, x);
  Value back = arith::ExtFOp::create(b, loc, xType, nearest);
  Value inexact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, back, x);
  Value magMask = constantInt(b, loc, i64, 0x7fffffffffffffffLL);
  Value magBack = arith::AndIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, i64, back), magMask);
  Value magX = arith::AndIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, i64, x), magMask);
  Value roundedAway =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, magBack, magX);
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  Value one = constantInt(b, loc, i32, 1);
  Value toward = arith::SelectOp::create(
      b, loc, arith::AndIOp::create(b, loc, inexact, roundedAway),
      arith::SubIOp::create(b, loc, bits, one), bits);
  Value odd = arith::SelectOp::create(
      b, loc, inexact, arith::OrIOp::create(b, loc, toward, one), toward);
  return arith::BitcastOp::create(b, loc, f32, odd);
}

/// f32 -> bf16, round to nearest even on the bits; NaN becomes a quiet NaN of
/// the same sign.
Value truncF32ToBF16(OpBuilder &b, Location loc, Value x) {
  Type xType = x.getType();
  Type i32 = withElement(xType, b.getI32Type());
  Type i16 = withElement(xType, b.getI16Type());
  Type bf16 = withElement(xType, b.getBF16Type());
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  Value sixteen = constantInt(b, loc, i32, 16);
  Value high = arith::ShRUIOp::create(b, loc, bits, sixteen);
  Value lsb = arith::AndIOp::create(b, loc, high, constantInt(b, loc, i32, 1));
  Value bias = arith::AddIOp::create(b, loc, lsb, constantInt(b, loc, i32, 0x7fff));
  Value rounded = arith::ShRUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bits, bias), sixteen);
  Value quietNan = arith::OrIOp::create(b, loc, high, constantInt(b, loc, i32, 0x40));
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value chosen = arith::SelectOp::create(b, loc, isNan, quietNan, rounded);
  Value narrow = arith::TruncIOp::create(b, loc, i16, chosen);
  return arith::BitcastOp::create(b, loc, bf16, narrow);
}

/// `x` (f32 or f64) rounded once to bf16 or f16 (`target`), without libcalls.
Value narrowFloat(OpBuilder &b, Location loc, Value x, Type target) {
  Type source = getElementTypeOrSelf(x.getType());
  if (source.isF64())
    x = roundToOddF32(b, loc, x);
  if (target.isBF16())
    return truncF32ToBF16(b, loc, x);
  if (source.isF64())
    return arith::TruncFOp::create(b, loc, withElement(x.getType(), target), x);
  return {};
}

/// arith.truncf that LLVM would turn into a libcall.
bool needsExpansion(arith::TruncFOp op) {
  Type to = getElementTypeOrSelf(op.getType());
  Type from = getElementTypeOrSelf(op.getIn().getType());
  return (to.isBF16() && (from.isF32() || from.isF64())) ||
         (to.isF16() && from.isF64());
}

/// Arithmetic on bf16 values: compute in f32, round once.
bool isBf16Arithmetic(Operation *op) {
  if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
           arith::RemFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp, vector::FMAOp>(op))
    return false;
  return hasElement(op->getResult(0).getType(), BFloat16Type::get(op->getContext()));
}

void emulateInF32(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type resultType = op->getResult(0).getType();
  Type f32 = withElement(resultType, b.getF32Type());
  SmallVector<Value> operands;
  for (Value v : op->getOperands())
    operands.push_back(arith::ExtFOp::create(b, loc, f32, v));
  OperationState state(loc, op->getName().getStringRef(), operands, {f32},
                       op->getAttrs());
  Value wide = b.create(state)->getResult(0);
  Value narrow = arith::TruncFOp::create(b, loc, resultType, wide);
  op->getResult(0).replaceAllUsesWith(narrow);
  op->erase();
}

/// `vector.reduction` of a bf16 vector, computed on the vector extended to f32
/// and rounded once: x86's back end cannot legalize some bf16 reductions
/// (`vector.reduce.fminimum.v33bf16` aborted LLVM: "Do not know how to soft
/// promote this operator's operand"). Exact for min/max; sums and products
/// round once instead of per element, as the f32 accumulation of `dsl.sum`.
void reduceInF32(vector::ReductionOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type f32 = b.getF32Type();
  Value source = arith::ExtFOp::create(
      b, loc, withElement(op.getVector().getType(), f32), op.getVector());
  Value acc = op.getAcc() ? Value(arith::ExtFOp::create(b, loc, f32, op.getAcc()))
                          : Value();
  Value wide = vector::ReductionOp::create(b, loc, op.getKind(), source, acc,
                                           op.getFastmath());
  Value narrow = arith::TruncFOp::create(b, loc, op.getType(), wide);
  op.getResult().replaceAllUsesWith(narrow);
  op.erase();
}

/// Integer -> bf16: exactly through f32 (<= 24 bits) or f64 (<= 53 bits).
void expandIntToBf16(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value in = op->getOperand(0);
  unsigned width = getElementTypeOrSelf(in.getType()).getIntOrFloatBitWidth();
  Type wide = withElement(in.getType(), width <= 24 ? Type(b.getF32Type())
                                                    : Type(b.getF64Type()));
  Value asFloat = isa<arith::UIToFPOp>(op)
                      ? Value(arith::UIToFPOp::create(b, loc, wide, in))
                      : Value(arith::SIToFPOp::create(b, loc, wide, in));
  Value result = narrowFloat(b, loc, asFloat, b.getBF16Type());
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

struct ExpandFloatConversions
    : dsl::impl::DslExpandFloatConversionsBase<ExpandFloatConversions> {
  void runOnOperation() override {
    Type bf16 = BFloat16Type::get(&getContext());
    SmallVector<Operation *> arithmetic, intToBf16;
    SmallVector<vector::ReductionOp> reductions;
    getOperation()->walk([&](Operation *op) {
      auto reduction = dyn_cast<vector::ReductionOp>(op);
      if (reduction && reduction.getType() == bf16)
        reductions.push_back(reduction);
      else if (isBf16Arithmetic(op))
        arithmetic.push_back(op);
      else if (isa<arith::SIToFPOp, arith::UIToFPOp>(op) &&
               hasElement(op->getResult(0).getType(), bf16))
        intToBf16.push_back(op);
    });
    for (Operation *op : arithmetic)
      emulateInF32(op);
    for (Operation *op : intToBf16)
      expandIntToBf16(op);
    for (vector::ReductionOp op : reductions)
      reduceInF32(op);
    SmallVector<arith::TruncFOp> truncs;
    getOperation()->walk([&](arith::TruncFOp op) {
      if (needsExpansion(op))
        truncs.push_back(op);
    });
    if (arithmetic.empty() && intToBf16.empty() && reductions.empty() &&
        truncs.empty())
      return markAllAnalysesPreserved();
    for (arith::TruncFOp op : truncs) {
      OpBuilder b(op);
      Value result = narrowFloat(b, op.getLoc(), op.getIn(),
                                 getElementTypeOrSelf(op.getType()));
      op.getResult().replaceAllUsesWith(result);
      op.erase();
    }
  }
};

} // namespace
