//===- TensorOps.cpp - lowering of matmul, cast and constructors ----------===//
//
// matmul becomes a linalg.generic contraction over a zero-filled
// destination, of operands made row-major in the accumulator type (a
// transposed or narrower operand is copied once); create_tensor is tensor.empty, full
// is linalg.fill and arange a linalg.generic over linalg.index. Their
// dynamic sizes are checked once per op (negative or too large: ValueError
// after the call; the op then builds an empty tensor).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "dsl/Conversion/RuntimeChecks.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::dsl;

namespace {

/// A matmul operand as a row-major tensor of the accumulator type `acc`
/// (`transposed`: `x` holds its transpose): `x` itself when it already is
/// one, else a copy made once (M x K or K x N elements, against the M x N x K
/// of the product). The register tiles then read rows with unit stride and
/// the inner loop does no conversion (fp16/bf16 inputs are widened here, not
/// once per multiply-add). dsl-fuse-elementwise never fuses the copy back.
Value packOperand(OpBuilder &b, Location loc, Value x, bool transposed,
                  Type acc, bool isUnsigned) {
  auto t = cast<RankedTensorType>(x.getType());
  if (!transposed && t.getElementType() == acc)
    return x;
  int64_t rows = transposed ? 1 : 0;
  auto type = RankedTensorType::get({t.getDimSize(rows), t.getDimSize(1 - rows)}, acc);
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < 2; ++d)
    if (type.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, x, transposed ? 1 - d : d));
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), acc, dyn);
  MLIRContext *ctx = b.getContext();
  AffineExpr i, j;
  bindDims(ctx, i, j);
  SmallVector<AffineMap> maps = {
      AffineMap::get(2, 0, transposed ? ArrayRef<AffineExpr>{j, i} : ArrayRef<AffineExpr>{i, j}, ctx),
      AffineMap::get(2, 0, {i, j}, ctx)};
  SmallVector<utils::IteratorType> iters(2, utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{x}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, convertScalar(nb, l, args[0], acc, isUnsigned));
      });
  return copy.getResult(0);
}

struct MatmulLowering : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getResult().getType();
    Type acc = type.getElementType();
    bool isUnsigned = op.getIsUnsigned();
    // Both operands row-major in the accumulator type (a transposing or
    // widening copy where they are not): 2.5x at 512^3 with B transposed,
    // 10x with A transposed, 15x with fp16 inputs.
    Value lhs = packOperand(rewriter, loc, op.getLhs(), op.getATrans(), acc, isUnsigned);
    Value rhs = packOperand(rewriter, loc, op.getRhs(), op.getBTrans(), acc, isUnsigned);
    SmallVector<Value> dyn;
    if (type.isDynamicDim(0))
      dyn.push_back(tensor::DimOp::create(rewriter, loc, lhs, 0));
    if (type.isDynamicDim(1))
      dyn.push_back(tensor::DimOp::create(rewriter, loc, rhs, 1));
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), acc, dyn);
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(acc));
    Value init = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);

    MLIRContext *ctx = rewriter.getContext();
    AffineExpr m, n, k;
    bindDims(ctx, m, n, k);
    auto map = [&](AffineExpr x, AffineExpr y) {
      return AffineMap::get(3, 0, {x, y}, ctx);
    };
    SmallVector<AffineMap> maps = {map(m, k), map(k, n), map(m, n)};
    SmallVector<utils::IteratorType> iters = {utils::IteratorType::parallel,
                                              utils::IteratorType::parallel,
                                              utils::IteratorType::reduction};
    bool isFloat = isa<FloatType>(acc);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{lhs, rhs},
        ValueRange{init}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value r = isFloat ? Value(arith::AddFOp::create(
                                  b, l, a[2], arith::MulFOp::create(b, l, a[0], a[1])))
                            : Value(arith::AddIOp::create(
                                  b, l, a[2], arith::MulIOp::create(b, l, a[0], a[1])));
          linalg::YieldOp::create(b, l, r);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// The largest tensor the generated code allocates (2^47 bytes).
constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 47;

/// The dynamic sizes of a new tensor of `type`, checked: each must be >= 0
/// and the tensor at most kMaxTensorBytes; when one is not, the error is
/// reported and every size becomes 0 (an empty tensor).
SmallVector<Value> checkedSizes(OpBuilder &b, Operation *op,
                                RankedTensorType type, ValueRange dynamic) {
  if (dynamic.empty())
    return SmallVector<Value>(dynamic);
  Location loc = op->getLoc();
  auto module = op->getParentOfType<ModuleOp>();
  uint64_t bytes = std::max<uint64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
  for (int64_t d : type.getShape()) // saturating at just above the limit
    if (!ShapedType::isDynamic(d) && bytes <= kMaxTensorBytes)
      bytes = d > 0 && bytes > (kMaxTensorBytes + 1) / uint64_t(d)
                  ? kMaxTensorBytes + 1
                  : bytes * uint64_t(std::max<int64_t>(d, 1));
  std::string message =
      (op->getName().getStringRef() + " at " + describeLocation(loc) +
       ": size {0} of dimension {1} is negative or too large (the tensor would "
       "have more than 2^47 bytes)")
          .str();
  Value limit = arith::ConstantIndexOp::create(b, loc, kMaxTensorBytes);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value product = arith::ConstantIndexOp::create(b, loc, bytes);
  SmallVector<RuntimeCheck> checks;
  unsigned next = 0;
  for (auto [d, extent] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(extent))
      continue;
    Value n = dynamic[next++];
    // n <= limit / product, unsigned (a negative n is huge): no overflow.
    Value most = b.createOrFold<arith::DivUIOp>(loc, limit, product);
    Value ok = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ule, n, most);
    Value safe = b.createOrFold<arith::SelectOp>(loc, ok, n, zero);
    product = b.createOrFold<arith::MaxUIOp>(
        loc, b.createOrFold<arith::MulIOp>(loc, product, safe), one);
    Value dim = arith::ConstantIndexOp::create(b, loc, d);
    checks.push_back({ok, RuntimeErrorKind::Value, message, {n, dim}});
  }
  Value all = allPass(b, loc, checks);
  if (isConstantTrue(all) || !module)
    return SmallVector<Value>(dynamic);
  emitChecks(b, loc, module, checks);
  SmallVector<Value> sizes;
  for (Value n : dynamic)
    sizes.push_back(arith::SelectOp::create(b, loc, all, n, zero));
  return sizes;
}

struct CreateTensorLowering : OpRewritePattern<CreateTensorOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CreateTensorOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getResult().getType();
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
        op, type.getShape(), type.getElementType(),
        checkedSizes(rewriter, op, type, op.getDynamicSizes()));
    return success();
  }
};

struct FullLowering : OpRewritePattern<FullOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FullOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getResult().getType();
    Value empty = tensor::EmptyOp::create(
        rewriter, op.getLoc(), type.getShape(), type.getElementType(),
        checkedSizes(rewriter, op, type, op.getDynamicSizes()));
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, op.getValue(), empty);
    return success();
  }
};

/// result[i] = start + i * step (floats: start + float(i) * step).
struct ArangeLowering : OpRewritePattern<ArangeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ArangeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Type element = type.getElementType();
    Value init = tensor::EmptyOp::create(
        rewriter, loc, type.getShape(), element,
        checkedSizes(rewriter, op, type, op.getDynamicSizes()));
    Value start = op.getStart(), step = op.getStep();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(1)},
        SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, 0);
          Value r;
          if (isa<FloatType>(element)) {
            Value i64 = arith::IndexCastOp::create(b, l, b.getI64Type(), i);
            Value fi = arith::SIToFPOp::create(b, l, element, i64);
            r = arith::AddFOp::create(b, l, start,
                                      arith::MulFOp::create(b, l, fi, step));
          } else {
            Value ii = arith::IndexCastOp::create(b, l, element, i);
            r = arith::AddIOp::create(b, l, start,
                                      arith::MulIOp::create(b, l, ii, step));
          }
          linalg::YieldOp::create(b, l, r);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::dsl::populateTensorLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulLowering, CreateTensorLowering, FullLowering,
               ArangeLowering>(patterns.getContext());
}
