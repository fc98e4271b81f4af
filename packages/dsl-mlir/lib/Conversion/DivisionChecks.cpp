//===- DivisionChecks.cpp - integer division by zero is an error, not a trap ===//
//
// On the CPU an integer division or remainder by zero traps (SIGFPE kills
// the process), and so does the signed division of the smallest value by
// -1. Before each integer `arith` division or remainder whose divisor is not
// a constant known to be safe, this pass inserts
//   * a check `divisor != 0`, reported through the module's error hook as a
//     ZeroDivisionError naming the op's line (RuntimeChecks.h), and
//   * a safe divisor: 1 where the divisor is 0 or (signed ops) the dividend is
//     the smallest value and the divisor -1. That quotient is then the
//     dividend itself, which is also what the overflowing division wraps to.
// The caller raises the recorded error after the call, as for the other
// run-time checks; a kernel's other threads carry on meanwhile.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"
#include "dsl/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLCHECKDIVISIONS
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;
using namespace mlir::dsl;

namespace {

bool isSignedDivision(Operation *op) {
  return isa<arith::DivSIOp, arith::RemSIOp, arith::FloorDivSIOp, arith::CeilDivSIOp>(op);
}

bool isDivision(Operation *op) {
  return isSignedDivision(op) || isa<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(op);
}

unsigned bitWidth(Type t) { return t.isIndex() ? 64 : t.getIntOrFloatBitWidth(); }

/// Whether the divisor of `op` is a constant that can neither be 0 nor, for a
/// signed op, -1.
bool hasSafeConstantDivisor(Operation *op) {
  APInt divisor;
  if (!matchPattern(op->getOperand(1), m_ConstantInt(&divisor)))
    return false;
  return !divisor.isZero() && !(isSignedDivision(op) && divisor.isAllOnes());
}

Value constant(OpBuilder &b, Location loc, Type t, const APInt &value) {
  if (t.isIndex())
    return arith::ConstantIndexOp::create(b, loc, value.getSExtValue());
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, value));
}

/// Inserts the check and the safe divisor before `op`.
void guardDivision(Operation *op, ModuleOp module) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Type t = rhs.getType();
  unsigned width = bitWidth(t);
  Value zero = constant(b, loc, t, APInt(width, 0));
  Value nonZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rhs, zero);
  Value unsafe = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero);
  if (isSignedDivision(op)) {
    Value smallest = constant(b, loc, t, APInt::getSignedMinValue(width));
    Value minusOne = constant(b, loc, t, APInt::getAllOnes(width));
    Value isSmallest = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, smallest);
    Value isMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, minusOne);
    Value overflow = arith::AndIOp::create(b, loc, isSmallest, isMinusOne);
    unsafe = arith::OrIOp::create(b, loc, unsafe, overflow);
  }
  emitCheck(b, loc, module, nonZero, RuntimeErrorKind::ZeroDivision,
            describeLocation(loc) + ": integer division or modulo by zero", {});
  Value one = constant(b, loc, t, APInt(width, 1));
  op->setOperand(1, arith::SelectOp::create(b, loc, unsafe, one, rhs));
}

struct DslCheckDivisions : dsl::impl::DslCheckDivisionsBase<DslCheckDivisions> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> divisions;
    module.walk([&](Operation *op) {
      if (isDivision(op) && op->getResult(0).getType().isIntOrIndex() &&
          !hasSafeConstantDivisor(op))
        divisions.push_back(op);
    });
    if (divisions.empty())
      return markAllAnalysesPreserved();
    for (Operation *op : divisions)
      guardDivision(op, module);
  }
};

} // namespace
