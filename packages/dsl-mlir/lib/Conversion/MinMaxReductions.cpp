//===- MinMaxReductions.cpp - cheap loops for max/min reductions ----------===//
//
// `arith.maximumf` propagates NaN and orders -0 below +0; x86 has no such
// instruction before AVX10.2, so LLVM emits about seven (a sign test, two
// blends, vmaxps, a NaN compare and a masked move) per vector: a softmax's
// row max ran at a fraction of the speed of a row sum. A plain
// compare-and-select (`x > acc ? x : acc`, one vmaxps) gives each lane of the
// accumulator the same value unless the lane met a NaN or its maximum is
// zero (whose sign then depends on the elements' order). The rewrite runs
// the cheap loop, notes NaNs with one compare per vector, and runs the
// original loop again when a NaN was seen or a lane ended at zero: the
// accumulator is bitwise the original's, whatever reads it next (a
// reduction of its lanes, a masked tail loop).
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/MinMaxReductions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace {

/// A loop that accumulates the maximumf (minimumf) of vectors in its
/// loop-carried value `index` (its others pass through unchanged).
struct Candidate {
  scf::ForOp loop;
  unsigned index;
  bool isMax;
  Operation *combine; // the maximumf/minimumf of the loop's body
  Value element;      // the vector it combines with the accumulator
};

std::optional<Candidate> asCandidate(scf::ForOp loop) {
  std::optional<unsigned> index;
  for (auto [i, yielded] : llvm::enumerate(loop.getYieldedValues())) {
    if (yielded == loop.getRegionIterArg(i))
      continue;
    if (index)
      return std::nullopt;
    index = i;
  }
  if (!index)
    return std::nullopt;
  Value acc = loop.getRegionIterArg(*index);
  auto type = dyn_cast<VectorType>(acc.getType());
  Operation *combine = loop.getYieldedValues()[*index].getDefiningOp();
  if (!type || type.isScalable() || !isa<FloatType>(type.getElementType()) ||
      !combine || !isa<arith::MaximumFOp, arith::MinimumFOp>(combine) ||
      combine->getBlock() != loop.getBody() || !acc.hasOneUse() ||
      !combine->hasOneUse())
    return std::nullopt;
  Value lhs = combine->getOperand(0), rhs = combine->getOperand(1);
  if (lhs != acc && rhs != acc)
    return std::nullopt;
  return Candidate{loop, *index, isa<arith::MaximumFOp>(combine), combine,
                   lhs == acc ? rhs : lhs};
}

/// Whether any lane of the i1 vector `mask` is set.
Value any(OpBuilder &b, Location loc, Value mask) {
  auto type = cast<VectorType>(mask.getType());
  if (type.getRank() > 1)
    mask = vector::ShapeCastOp::create(
        b, loc, VectorType::get({type.getNumElements()}, b.getI1Type()), mask);
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, mask);
}

void rewrite(const Candidate &c) {
  scf::ForOp loop = c.loop;
  Value init = loop.getInitArgs()[c.index];
  auto type = cast<VectorType>(init.getType());
  Location loc = loop.getLoc();
  OpBuilder b(loop);

  // The cheap loop: `x > acc ? x : acc` (`<` for min), and whether any element
  // is NaN.
  auto maskType = VectorType::get(type.getShape(), b.getI1Type());
  Value none = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(maskType, false));
  auto fast = scf::ForOp::create(
      b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
      ValueRange{init, none},
      [&](OpBuilder &nb, Location l, Value iv, ValueRange args) {
        IRMapping map;
        map.map(loop.getInductionVar(), iv);
        for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
          if (i != c.index)
            map.map(arg, loop.getInitArgs()[i]);
        for (Operation &op : loop.getBody()->without_terminator())
          if (&op != c.combine)
            nb.clone(op, map);
        Value x = map.lookupOrDefault(c.element);
        Value better = arith::CmpFOp::create(
            nb, l, c.isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
            x, args[0]);
        Value pick = arith::SelectOp::create(nb, l, better, x, args[0]);
        Value nan = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, x, x);
        scf::YieldOp::create(nb, l, ValueRange{pick, arith::OrIOp::create(nb, l, args[1], nan)});
      });

  // Each lane is exact unless it saw a NaN or ended at zero (of either sign):
  // then the original loop runs.
  Value zeros = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  Value atZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                       fast.getResult(0), zeros);
  Value again = arith::OrIOp::create(b, loc, any(b, loc, fast.getResult(1)),
                                     any(b, loc, atZero));
  auto ifOp = scf::IfOp::create(
      b, loc, again,
      [&](OpBuilder &tb, Location l) {
        Operation *copy = tb.clone(*loop);
        scf::YieldOp::create(tb, l, copy->getResult(c.index));
      },
      [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, fast.getResult(0)); });
  for (auto [i, result] : llvm::enumerate(loop.getResults()))
    result.replaceAllUsesWith(i == c.index ? ifOp.getResult(0) : loop.getInitArgs()[i]);
  loop.erase();
}

} // namespace

void mlir::dsl::speedUpMinMaxReductions(func::FuncOp fn) {
  SmallVector<Candidate> found;
  fn.walk([&](scf::ForOp loop) {
    if (std::optional<Candidate> c = asCandidate(loop))
      found.push_back(*c);
  });
  for (const Candidate &c : found)
    rewrite(c);
}
