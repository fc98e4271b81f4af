//===- ShapeOps.cpp - transpose, reshape, concat, expand/squeeze, slices --===//

#include "Diagnostics.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::dsl;
using namespace mlir::dsl::diag;

static LogicalResult verifySameElement(Operation *op, RankedTensorType x,
                                       RankedTensorType r) {
  if (x.getElementType() == r.getElementType())
    return success();
  return op->emitOpError("result element type ")
         << r.getElementType() << " must match the operand element type "
         << x.getElementType();
}

static LogicalResult verifyResult(Operation *op, RankedTensorType expected,
                                  RankedTensorType result, StringRef why) {
  if (expected == result)
    return success();
  return op->emitOpError("result must be ")
         << typeStr(expected) << " (" << why << "), got " << typeStr(result);
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  auto x = getX().getType();
  ArrayRef<int64_t> perm = getPermutation();
  if (static_cast<int64_t>(perm.size()) != x.getRank())
    return emitOpError("permutation ")
           << listStr(perm) << " has " << perm.size()
           << " entries but the operand " << typeStr(x) << " has rank "
           << x.getRank();
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= x.getRank() || seen[p])
      return emitOpError("permutation ")
             << listStr(perm) << " is not a permutation of 0.."
             << x.getRank() - 1;
    seen[p] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(x.getDimSize(p));
  std::string why = "operand " + typeStr(x) + " permuted by " + listStr(perm);
  return verifyResult(getOperation(), x.clone(shape), getResult().getType(),
                      why);
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto x = getX().getType();
  auto r = getResult().getType();
  if (failed(verifySameElement(getOperation(), x, r)))
    return failure();
  if (!x.hasStaticShape())
    return emitOpError("operand ") << typeStr(x) << " must have a static shape";
  if (!r.hasStaticShape())
    return emitOpError("result ") << typeStr(r) << " must have a static shape";
  if (x.getNumElements() != r.getNumElements())
    return emitOpError("operand ")
           << typeStr(x) << " has " << x.getNumElements()
           << " elements but the result " << typeStr(r) << " has "
           << r.getNumElements();
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("expects at least one input");
  auto first = cast<RankedTensorType>(getInputs().front().getType());
  int64_t rank = first.getRank(), axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ")
           << axis << " is out of range for input #0 " << typeStr(first)
           << " of rank " << rank << ": expected 0.." << rank - 1;
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, v] : llvm::enumerate(getInputs().drop_front())) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != first.getElementType() || t.getRank() != rank)
      return emitOpError("input #")
             << i + 1 << " " << typeStr(t)
             << " must have the rank and element type of input #0 "
             << typeStr(first);
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis) {
        if (ShapedType::isDynamic(shape[d]) || t.isDynamicDim(d)) {
          shape[d] = ShapedType::kDynamic;
          continue;
        }
        std::optional<int64_t> sum = llvm::checkedAdd(shape[d], t.getDimSize(d));
        if (!sum)
          return emitOpError("the inputs' sizes along axis ")
                 << axis << " add up to more than fit in 64 bits";
        shape[d] = *sum;
        continue;
      }
      if (!dimsCompatible(t.getDimSize(d), first.getDimSize(d)))
        return emitOpError("input #")
               << i + 1 << " " << typeStr(t) << " differs from input #0 "
               << typeStr(first) << " in dimension " << d << " ("
               << dimStr(t.getDimSize(d)) << " vs "
               << dimStr(first.getDimSize(d))
               << "), which is not the concatenation axis " << axis;
    }
  }
  std::string why = "inputs joined along axis " + std::to_string(axis);
  return verifyResult(getOperation(), first.clone(shape),
                      getResult().getType(), why);
}

//===----------------------------------------------------------------------===//
// ExpandDimsOp, SqueezeOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandDimsOp::verify() {
  auto x = getX().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > x.getRank())
    return emitOpError("axis ")
           << axis << " is out of range for operand " << typeStr(x)
           << " of rank " << x.getRank() << ": expected 0.." << x.getRank();
  SmallVector<int64_t> shape(x.getShape());
  shape.insert(shape.begin() + axis, 1);
  std::string why = "operand " + typeStr(x) + " with a new axis " +
                    std::to_string(axis);
  return verifyResult(getOperation(), x.clone(shape), getResult().getType(),
                      why);
}

LogicalResult SqueezeOp::verify() {
  auto x = getX().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= x.getRank())
    return emitOpError("axis ")
           << axis << " is out of range for operand " << typeStr(x)
           << " of rank " << x.getRank() << ": expected 0.."
           << x.getRank() - 1;
  if (x.getDimSize(axis) != 1)
    return emitOpError("dimension ")
           << axis << " of operand " << typeStr(x) << " has size "
           << dimStr(x.getDimSize(axis)) << ", expected a static 1";
  SmallVector<int64_t> shape(x.getShape());
  shape.erase(shape.begin() + axis);
  std::string why = "operand " + typeStr(x) + " without axis " +
                    std::to_string(axis);
  return verifyResult(getOperation(), x.clone(shape), getResult().getType(),
                      why);
}

//===----------------------------------------------------------------------===//
// SliceOp, AssembleOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  auto s = getSource().getType();
  auto r = getResult().getType();
  if (s.getElementType() != r.getElementType())
    return emitOpError("result element type ")
           << r.getElementType() << " must match the source element type "
           << s.getElementType();
  if (s.getRank() != r.getRank())
    return emitOpError("result rank ")
           << r.getRank() << " must equal the source rank " << s.getRank();
  if (static_cast<int64_t>(getOffsets().size()) != s.getRank())
    return emitOpError("expects one offset per dimension: ")
           << s.getRank() << " expected, got " << getOffsets().size();
  if (!r.hasStaticShape())
    return emitOpError("result sizes must be static, got ") << typeStr(r);
  for (auto [i, pair] : llvm::enumerate(llvm::zip(s.getShape(), r.getShape()))) {
    auto [src, res] = pair;
    if (!ShapedType::isDynamic(src) && res > src)
      return emitOpError("slice size ")
             << res << " exceeds source size " << src << " in dimension " << i;
  }
  return success();
}

LogicalResult AssembleOp::verify() {
  auto dst = getDst().getType();
  auto src = getSrc().getType();
  if (getResult().getType() != dst)
    return emitOpError("result type must equal the destination type ")
           << typeStr(dst) << ", got " << typeStr(getResult().getType());
  if (src.getElementType() != dst.getElementType() ||
      src.getRank() != dst.getRank())
    return emitOpError("source ")
           << typeStr(src) << " must have the rank and element type of the "
           << "destination " << typeStr(dst);
  if (static_cast<int64_t>(getOffsets().size()) != dst.getRank())
    return emitOpError("expects one offset per dimension of the destination ")
           << typeStr(dst) << ": " << dst.getRank() << " expected, got "
           << getOffsets().size();
  for (int64_t d = 0; d < dst.getRank(); ++d) {
    int64_t s = src.getDimSize(d), t = dst.getDimSize(d);
    if (!ShapedType::isDynamic(s) && !ShapedType::isDynamic(t) && s > t)
      return emitOpError("source ")
             << typeStr(src) << " does not fit in the destination "
             << typeStr(dst) << ": dimension " << d << " is " << s << " > "
             << t;
  }
  return success();
}
