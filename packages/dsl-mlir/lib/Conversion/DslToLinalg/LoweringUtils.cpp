//===- LoweringUtils.cpp - helpers shared by the dsl -> linalg patterns ---===//

#include "LoweringUtils.h"

#include "dsl/Conversion/RuntimeChecks.h"

#include "llvm/ADT/DenseSet.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::dsl;

Value mlir::dsl::emptyLike(OpBuilder &b, Location loc, RankedTensorType t,
                           Value like) {
  SmallVector<Value> dyn;
  for (auto [i, d] : llvm::enumerate(t.getShape()))
    if (ShapedType::isDynamic(d))
      dyn.push_back(tensor::DimOp::create(b, loc, like, i));
  return tensor::EmptyOp::create(b, loc, t.getShape(), t.getElementType(), dyn);
}

SmallVector<OpFoldResult> mlir::dsl::sizesOf(OpBuilder &b, Location loc,
                                             Value v) {
  SmallVector<OpFoldResult> sizes;
  for (auto [i, d] : llvm::enumerate(cast<RankedTensorType>(v.getType()).getShape()))
    sizes.push_back(ShapedType::isDynamic(d)
                        ? OpFoldResult(tensor::DimOp::create(b, loc, v, i).getResult())
                        : OpFoldResult(b.getIndexAttr(d)));
  return sizes;
}

/// The indexing map reading `t` broadcast into an iteration space of `rank`
/// loops over `result`'s shape.
static AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType t,
                              RankedTensorType result) {
  int64_t rank = result.getRank(), lead = rank - t.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    bool stretched = t.getDimSize(i) == 1 && result.getDimSize(i + lead) != 1;
    exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(i + lead, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// The checks that every dynamic dimension of a tensor operand that is read
/// along a result dimension (not stretched) has the result's size; `sizes`
/// are the result's dynamic sizes, in order.
static SmallVector<RuntimeCheck>
broadcastChecks(OpBuilder &b, Location loc, RankedTensorType result,
                ValueRange operands, ValueRange sizes,
                ArrayRef<std::pair<Value, int64_t>> sources, StringRef what) {
  SmallVector<RuntimeCheck> checks;
  int64_t rank = result.getRank();
  SmallVector<Value> extents; // the result's size per dimension
  SmallVector<std::pair<Value, int64_t>> from(rank, {Value(), -1});
  unsigned next = 0;
  for (int64_t j = 0; j < rank; ++j) {
    if (result.isDynamicDim(j)) {
      from[j] = sources[next];
      extents.push_back(sizes[next++]);
    } else {
      extents.push_back(
          arith::ConstantIndexOp::create(b, loc, result.getDimSize(j)));
    }
  }
  llvm::SmallDenseSet<std::pair<Value, int64_t>> seen;
  std::string message =
      (what + " at " + describeLocation(loc) +
       ": an operand has size {0} in dimension {1} where the result has size "
       "{2} (a pl.dynamic size must equal the size it is combined with; "
       "only a static 1 broadcasts)")
          .str();
  for (Value v : operands) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      continue;
    int64_t lead = rank - t.getRank();
    for (int64_t i = 0; i < t.getRank(); ++i) {
      // The result's size was read there, or the same operand again.
      if (!t.isDynamicDim(i) || from[i + lead] == std::make_pair(v, i) ||
          !seen.insert({v, i}).second)
        continue;
      Value size = tensor::DimOp::create(b, loc, v, i);
      Value expected = extents[i + lead];
      Value ok = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                               size, expected);
      Value dim = arith::ConstantIndexOp::create(b, loc, i + lead);
      checks.push_back({ok, RuntimeErrorKind::Value, message,
                        {size, dim, expected}});
    }
  }
  return checks;
}

/// A tensor.empty for the broadcast result; each dynamic size is read from an
/// operand that is dynamic in that dimension (the verifier guarantees one).
/// With `what`, the operands' dynamic sizes are checked against it (see
/// buildElementwise): on a mismatch a dynamic result is empty; a static one
/// cannot be, so `guard` is then set to the condition under which reading the
/// operands is safe.
static Value broadcastEmpty(OpBuilder &b, Location loc, RankedTensorType result,
                            ValueRange operands, StringRef what, Value &guard) {
  SmallVector<Value> dyn;
  SmallVector<std::pair<Value, int64_t>> sources; // (operand, dimension) of each
  int64_t rank = result.getRank();
  for (int64_t j = 0; j < rank; ++j) {
    if (!result.isDynamicDim(j))
      continue;
    for (Value v : operands) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      int64_t i = t ? j - (rank - t.getRank()) : -1;
      if (i >= 0 && t.isDynamicDim(i)) {
        dyn.push_back(tensor::DimOp::create(b, loc, v, i));
        sources.push_back({v, i});
        break;
      }
    }
  }
  Operation *parent = b.getInsertionBlock()->getParentOp();
  auto module = isa<ModuleOp>(parent) ? cast<ModuleOp>(parent)
                                      : parent->getParentOfType<ModuleOp>();
  if (!what.empty() && module) {
    SmallVector<RuntimeCheck> checks =
        broadcastChecks(b, loc, result, operands, dyn, sources, what);
    Value all = allPass(b, loc, checks);
    if (!isConstantTrue(all)) {
      emitChecks(b, loc, module, checks);
      if (!dyn.empty()) { // a mismatch computes nothing: an empty result
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        for (Value &n : dyn)
          n = arith::SelectOp::create(b, loc, all, n, zero);
      } else { // a static result: the caller computes it only when safe
        guard = all;
      }
    }
  }
  return tensor::EmptyOp::create(b, loc, result.getShape(),
                                 result.getElementType(), dyn);
}

Value mlir::dsl::buildElementwise(OpBuilder &b, Location loc,
                                  RankedTensorType resultType,
                                  ValueRange operands, BodyFn body,
                                  StringRef what) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<int64_t> slot; // block argument of each operand, -1: scalar
  for (Value v : operands) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    slot.push_back(t ? static_cast<int64_t>(inputs.size()) : -1);
    if (!t)
      continue;
    inputs.push_back(v);
    maps.push_back(broadcastMap(ctx, t, resultType));
  }
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  Value guard;
  Value init = broadcastEmpty(b, loc, resultType, operands, what, guard);
  SmallVector<utils::IteratorType> iters(resultType.getRank(),
                                         utils::IteratorType::parallel);
  auto build = [&](OpBuilder &gb, Location gl) {
    auto generic = linalg::GenericOp::create(
        gb, gl, TypeRange{resultType}, inputs, ValueRange{init}, maps, iters,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          SmallVector<Value> values;
          for (auto [k, v] : llvm::enumerate(operands))
            values.push_back(slot[k] >= 0 ? args[slot[k]] : v);
          linalg::YieldOp::create(nb, nl, body(nb, nl, values));
        });
    return generic.getResult(0);
  };
  if (!guard)
    return build(b, loc);
  // Sizes that do not match (reported): the static result stays uninitialized.
  auto ifOp = scf::IfOp::create(
      b, loc, guard,
      [&](OpBuilder &tb, Location tl) {
        scf::YieldOp::create(tb, tl, build(tb, tl));
      },
      [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, init); });
  return ifOp.getResult(0);
}

Value mlir::dsl::convertScalar(OpBuilder &b, Location loc, Value v, Type to,
                               bool fromUnsigned, bool toUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  fromUnsigned = fromUnsigned || from.isInteger(1);
  if (fromF && toF) {
    if (fromF.getWidth() == toF.getWidth()) // f16 <-> bf16 through f32
      v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    if (cast<FloatType>(v.getType()).getWidth() < toF.getWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (!fromF && !toF) {
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (fw < tw && fromUnsigned)
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
    return fromUnsigned ? Value(arith::UIToFPOp::create(b, loc, to, v))
                        : Value(arith::SIToFPOp::create(b, loc, to, v));
  if (to.isInteger(1)) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(from));
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
  }
  if (toUnsigned)
    return arith::FPToUIOp::create(b, loc, to, v);
  return arith::FPToSIOp::create(b, loc, to, v);
}

SmallVector<ReassociationIndices>
mlir::dsl::reassociationDropping(int64_t rank, ArrayRef<int64_t> dropped) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t i = 0; i < rank; ++i) {
    pending.push_back(i);
    if (llvm::is_contained(dropped, i))
      continue;
    groups.push_back(pending);
    pending.clear();
  }
  if (!pending.empty() && !groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

Value mlir::dsl::reshapeUnitDims(OpBuilder &b, Location loc, Value source,
                                 RankedTensorType type,
                                 ArrayRef<int64_t> unitDims) {
  auto src = cast<RankedTensorType>(source.getType());
  if (src == type)
    return source;
  if (type.getRank() > src.getRank())
    return tensor::ExpandShapeOp::create(
        b, loc, type, source, reassociationDropping(type.getRank(), unitDims));
  return tensor::CollapseShapeOp::create(
      b, loc, type, source, reassociationDropping(src.getRank(), unitDims));
}
