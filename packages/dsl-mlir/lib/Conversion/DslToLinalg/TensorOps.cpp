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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::dsl;

namespace {

/// Elements of padding after each row of a packed operand of `type` (static,
/// row-major): one cache line when its rows are a multiple of 4 KiB apart. At
/// such strides the rows a register tile streams fall into the same cache
/// sets and evict each other (2048^3 f32 ran at 0.42x of OpenBLAS, 2000^3 at
/// 0.81x); a copy with padded rows costs one pass over the operand.
int64_t rowPadding(RankedTensorType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return 0;
  int64_t bytes = std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
  int64_t rowBytes = type.getDimSize(1) * bytes;
  if (type.getDimSize(0) < 64 || rowBytes == 0 || rowBytes % 4096 != 0)
    return 0;
  return 64 / bytes;
}

/// A matmul operand as a row-major tensor of the accumulator type `acc`
/// (`transposed`: `x` holds its transpose): `x` itself when it already is
/// one, else a copy made once (M x K or K x N elements, against the M x N x K
/// of the product). The register tiles then read rows with unit stride and
/// the inner loop does no conversion (fp16/bf16 inputs are widened here, not
/// once per multiply-add). dsl-fuse-elementwise never fuses the copy back.
Value packOperand(OpBuilder &b, Location loc, Value x, bool transposed,
                  Type acc, bool isUnsigned) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rows = transposed ? 1 : 0;
  auto type = RankedTensorType::get({t.getDimSize(rows), t.getDimSize(1 - rows)}, acc);
  int64_t pad = rowPadding(type);
  if (!transposed && t.getElementType() == acc && pad == 0)
    return x;
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < 2; ++d)
    if (type.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, x, transposed ? 1 - d : d));
  Value init;
  if (pad == 0) {
    init = tensor::EmptyOp::create(b, loc, type.getShape(), acc, dyn);
  } else {
    // The copy lives in the first columns of rows padded by one cache line
    // (a padded type is static: no dynamic sizes).
    Value padded = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{type.getDimSize(0), type.getDimSize(1) + pad}, acc);
    init = tensor::ExtractSliceOp::create(
        b, loc, type, padded, ValueRange{}, ValueRange{}, ValueRange{},
        b.getDenseI64ArrayAttr({0, 0}), b.getDenseI64ArrayAttr(type.getShape()),
        b.getDenseI64ArrayAttr({1, 1}));
    // A plain copy as linalg.copy: an identity linalg.generic would fold away.
    if (!transposed && t.getElementType() == acc)
      return linalg::CopyOp::create(b, loc, x, init).getResult(0);
  }
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

/// `dest` filled with zeros.
Value zerosIn(OpBuilder &b, Location loc, Value dest) {
  Type element = cast<RankedTensorType>(dest.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  return linalg::FillOp::create(b, loc, zero, dest).getResult(0);
}

/// The 2-D product `lhs x rhs` (of `op`'s transposes, element type and
/// signedness) as a linalg.generic contraction into `dest` (2-D, of the
/// accumulator type) filled with zeros, both operands packed row-major in the
/// accumulator type.
Value matrixProduct(OpBuilder &b, Location loc, MatmulOp op, Value lhs,
                    Value rhs, Value dest) {
  auto type = cast<RankedTensorType>(dest.getType());
  Type acc = type.getElementType();
  bool isUnsigned = op.getIsUnsigned();
  // Both operands row-major in the accumulator type (a transposing or
  // widening copy where they are not): 2.5x at 512^3 with B transposed,
  // 10x with A transposed, 50x with fp16 inputs.
  lhs = packOperand(b, loc, lhs, op.getATrans(), acc, isUnsigned);
  rhs = packOperand(b, loc, rhs, op.getBTrans(), acc, isUnsigned);
  Value init = zerosIn(b, loc, dest);

  MLIRContext *ctx = b.getContext();
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
      b, loc, TypeRange{type}, ValueRange{lhs, rhs}, ValueRange{init}, maps,
      iters, [&](OpBuilder &nb, Location l, ValueRange x) {
        Value r = isFloat ? Value(arith::AddFOp::create(
                                nb, l, x[2], arith::MulFOp::create(nb, l, x[0], x[1])))
                          : Value(arith::AddIOp::create(
                                nb, l, x[2], arith::MulIOp::create(nb, l, x[0], x[1])));
        linalg::YieldOp::create(nb, l, r);
      });
  return generic.getResult(0);
}

/// Where each dimension of a matmul's result comes from: (operand, dim).
using MatmulShape = SmallVector<std::pair<Value, int64_t>, 3>;

/// The sources of the result's dimensions: the batch from a 3-D operand that
/// does not broadcast (its batch is not a static 1), else from the 3-D one;
/// M from lhs, N from rhs.
MatmulShape matmulShape(MatmulOp op) {
  auto a = op.getLhs().getType(), b = op.getRhs().getType();
  int64_t ra = a.getRank() - 2, rb = b.getRank() - 2;
  MatmulShape shape;
  if (op.getResult().getType().getRank() == 3) {
    bool lhsBatches = a.getRank() == 3 && a.getDimSize(0) != 1;
    bool rhsBatches = b.getRank() == 3 && b.getDimSize(0) != 1;
    bool fromLhs = lhsBatches || (!rhsBatches && a.getRank() == 3);
    shape.push_back({fromLhs ? op.getLhs() : op.getRhs(), 0});
  }
  shape.push_back({op.getLhs(), ra + (op.getATrans() ? 1 : 0)});
  shape.push_back({op.getRhs(), rb + (op.getBTrans() ? 0 : 1)});
  return shape;
}

/// The run-time checks of a matmul's dynamic sizes: equal contracting sizes,
/// equal batch sizes (where neither broadcasts), and operand sizes equal to
/// the static sizes of the result. Without them a dynamic K larger than the
/// other operand's would read past its end.
SmallVector<RuntimeCheck> matmulChecks(OpBuilder &b, MatmulOp op) {
  Location loc = op.getLoc();
  auto a = op.getLhs().getType(), bt = op.getRhs().getType();
  auto c = op.getResult().getType();
  std::string where = (op->getName().getStringRef() + " at " + describeLocation(loc)).str();
  SmallVector<RuntimeCheck> checks;
  auto size = [&](Value v, int64_t d) {
    return getValueOrCreateConstantIndexOp(b, loc, tensor::getMixedSize(b, loc, v, d));
  };
  auto equal = [&](Value x, int64_t dx, Value y, int64_t dy, StringRef message) {
    auto tx = cast<RankedTensorType>(x.getType()), ty = cast<RankedTensorType>(y.getType());
    if (!tx.isDynamicDim(dx) && !ty.isDynamicDim(dy))
      return; // the verifier compared them
    Value sx = size(x, dx), sy = size(y, dy);
    Value ok = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, sx, sy);
    checks.push_back({ok, RuntimeErrorKind::Value, (where + message).str(), {sx, sy}});
  };
  int64_t ra = a.getRank() - 2, rb = bt.getRank() - 2;
  equal(op.getLhs(), ra + (op.getATrans() ? 0 : 1), op.getRhs(),
        rb + (op.getBTrans() ? 1 : 0),
        ": contracting dimensions differ: lhs has K={0}, rhs has K={1}");
  if (a.getRank() == 3 && bt.getRank() == 3 && a.getDimSize(0) != 1 &&
      bt.getDimSize(0) != 1)
    equal(op.getLhs(), 0, op.getRhs(), 0,
          ": batch sizes differ: lhs has {0} matrices, rhs has {1} (only a "
          "static 1 broadcasts)");
  MatmulShape shape = matmulShape(op);
  for (auto [d, source] : llvm::enumerate(shape)) {
    auto [v, dim] = source;
    if (c.isDynamicDim(d) || !cast<RankedTensorType>(v.getType()).isDynamicDim(dim))
      continue;
    Value got = size(v, dim);
    Value want = arith::ConstantIndexOp::create(b, loc, c.getDimSize(d));
    Value ok = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, got, want);
    checks.push_back({ok, RuntimeErrorKind::Value,
                      where + ": an operand gives size {0} where the result has "
                              "static size {1}",
                      {got, want}});
  }
  return checks;
}

/// The result's dynamic sizes, read from the operands.
SmallVector<Value> resultSizes(OpBuilder &b, MatmulOp op) {
  Location loc = op.getLoc();
  auto c = op.getResult().getType();
  SmallVector<Value> dyn;
  for (auto [d, source] : llvm::enumerate(matmulShape(op)))
    if (c.isDynamicDim(d))
      dyn.push_back(getValueOrCreateConstantIndexOp(
          b, loc, tensor::getMixedSize(b, loc, source.first, source.second)));
  return dyn;
}

/// Matrix `i` of a batched operand `v` as a 2-D tensor (`v` itself when it is
/// 2-D; matrix 0 when its batch is a static 1).
Value matrixOf(OpBuilder &b, Location loc, Value v, Value i) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() == 2)
    return v;
  OpFoldResult at = t.getDimSize(0) == 1 ? OpFoldResult(b.getIndexAttr(0)) : OpFoldResult(i);
  SmallVector<OpFoldResult> offsets = {at, b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), tensor::getMixedSize(b, loc, v, 1),
                                     tensor::getMixedSize(b, loc, v, 2)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto type = RankedTensorType::get({t.getDimSize(1), t.getDimSize(2)}, t.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, type, v, offsets, sizes, strides);
}

/// The whole product: one matrix product, or a loop over the batch with one
/// per matrix (each packed and tiled as a 2-D matmul: the same per-matrix
/// speed), computed in place in its slice of the result (no buffer and no
/// copy per matrix).
Value fullProduct(OpBuilder &b, MatmulOp op) {
  Location loc = op.getLoc();
  auto type = op.getResult().getType();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                       resultSizes(b, op));
  if (type.getRank() == 2)
    return matrixProduct(b, loc, op, op.getLhs(), op.getRhs(), init);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value batch = tensor::DimOp::create(b, loc, init, 0);
  auto matrix = RankedTensorType::get({type.getDimSize(1), type.getDimSize(2)},
                                      type.getElementType());
  auto loop = scf::ForOp::create(
      b, loc, zero, batch, one, ValueRange{init},
      [&](OpBuilder &lb, Location l, Value i, ValueRange acc) {
        SmallVector<OpFoldResult> offsets = {i, lb.getIndexAttr(0), lb.getIndexAttr(0)};
        SmallVector<OpFoldResult> sizes = {lb.getIndexAttr(1),
                                           tensor::getMixedSize(lb, l, acc.front(), 1),
                                           tensor::getMixedSize(lb, l, acc.front(), 2)};
        SmallVector<OpFoldResult> strides(3, lb.getIndexAttr(1));
        Value dest = tensor::ExtractSliceOp::create(lb, l, matrix, acc.front(), offsets,
                                                    sizes, strides);
        Value c = matrixProduct(lb, l, op, matrixOf(lb, l, op.getLhs(), i),
                                matrixOf(lb, l, op.getRhs(), i), dest);
        Value r = tensor::InsertSliceOp::create(lb, l, c, acc.front(), offsets, sizes, strides);
        scf::YieldOp::create(lb, l, r);
      });
  return loop.getResult(0);
}

struct MatmulLowering : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<RuntimeCheck> checks = matmulChecks(rewriter, op);
    Value ok = allPass(rewriter, loc, checks);
    auto module = op->getParentOfType<ModuleOp>();
    if (isConstantTrue(ok) || !module) {
      rewriter.replaceOp(op, fullProduct(rewriter, op));
      return success();
    }
    // A dynamic size does not match: report it, compute nothing (the caller
    // raises the ValueError; the result is zeros, not uninitialized memory).
    auto type = op.getResult().getType();
    auto guarded = scf::IfOp::create(
        rewriter, loc, ok,
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, fullProduct(b, op)); },
        [&](OpBuilder &b, Location l) {
          for (const RuntimeCheck &c : checks)
            emitCheck(b, l, module, c.ok, c.kind, c.message, c.values);
          Value empty = tensor::EmptyOp::create(b, l, type.getShape(),
                                                type.getElementType(), resultSizes(b, op));
          scf::YieldOp::create(b, l, zerosIn(b, l, empty));
        });
    rewriter.replaceOp(op, guarded.getResult(0));
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
