//===- ScalefExp.cpp - f32 vector exp (vscalefps, or exponent bits) -------===//
//
// exp(x) = 2^n * exp(r) with n = roundeven(x * log2(e)) and r = x - n*ln2
// (|r| <= ln2/2), ln2 split in a part with few significant bits (n*ln2_hi is
// exact) and the rest. exp(r) is a degree-6 polynomial. With AVX-512,
// vscalefps multiplies by 2^n with a single rounding, handling overflow (inf)
// and underflow (subnormals, then 0) itself: the argument is clamped only so
// that r stays finite for +-inf and huge inputs. Elsewhere (AVX2, any
// target) 2^n is two powers of two built from exponent bits, 2^n1 * 2^n2 with
// n1 = floor(n/2): each is a normal float over the clamped range, the first
// product is exact and the second rounds once, so the results are those of
// the vscalefps sequence, overflow, subnormals and underflow to 0 included.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/ScalefExp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

namespace {

/// Coefficients of exp(r) on [-ln2/2, ln2/2], degree 0 to 6: a fit of the
/// relative error (reweighted least squares on Chebyshev nodes), 2e-9 before
/// f32 rounding. With the f32 evaluation the result is within 1.1 ulp of
/// the exact value (checked against float64 over 2M points per range).
constexpr float kPoly[] = {1.0f,
                           1.0000000321674658f,
                           0.49999994208627857f,
                           0.1666643125290425f,
                           0.041668002087370065f,
                           0.00837415606477266f,
                           0.0013843653034900432f};
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2Hi = 0.693359375f; // 9 significant bits: n * kLn2Hi is exact
constexpr float kLn2Lo = -2.12194440e-4f; // ln 2 - kLn2Hi
// Beyond these exp(x) is inf (above 88.73) or rounds to 0 (below -103.98).
constexpr float kMaxArg = 89.0f;
constexpr float kMinArg = -104.0f;
/// Longer vectors are left to MLIR's approximation (the code would grow).
constexpr int64_t kMaxLanes = 1024;

/// 1.5 * 2^23 + 127: adding an integer-valued float k in [-127, 128] gives a
/// float whose low mantissa bits are k + 127, the biased exponent of 2^k.
constexpr float kExponentMagic = 12583039.0f;

/// A vector constant of `type` (f32 or i32 lanes) with every lane `attr`.
Value splat(PatternRewriter &rewriter, Location loc, VectorType type, Attribute attr) {
  return arith::ConstantOp::create(rewriter, loc, DenseElementsAttr::get(type, attr));
}

Value splat(PatternRewriter &rewriter, Location loc, VectorType type, float v) {
  return splat(rewriter, loc, type, rewriter.getF32FloatAttr(v));
}

/// exp(x) before the scaling by 2^n: {n, p = exp(r)} for `input` (any f32
/// vector shape).
std::pair<Value, Value> reduceAndEvaluate(PatternRewriter &rewriter, Location loc,
                                          Value input) {
  auto type = cast<VectorType>(input.getType());
  auto constant = [&](float v) { return splat(rewriter, loc, type, v); };
  auto fma = [&](Value a, Value b, Value c) -> Value {
    return math::FmaOp::create(rewriter, loc, a, b, c);
  };
  // maximumf/minimumf keep a NaN argument NaN; against a constant that is
  // neither NaN nor zero LLVM emits one vmaxps/vminps each.
  Value x = arith::MaximumFOp::create(rewriter, loc, input, constant(kMinArg));
  x = arith::MinimumFOp::create(rewriter, loc, x, constant(kMaxArg));
  Value t = arith::MulFOp::create(rewriter, loc, x, constant(kLog2e));
  Value n = math::RoundEvenOp::create(rewriter, loc, t);
  Value r = fma(n, constant(-kLn2Hi), x);
  r = fma(n, constant(-kLn2Lo), r);
  Value p = constant(kPoly[6]);
  for (int i = 5; i >= 0; --i)
    p = fma(p, r, constant(kPoly[i]));
  return {n, p};
}

/// 2^k for integer-valued f32 lanes k in [-126, 127], from exponent bits
/// (no float-to-int conversion: a NaN lane gives some finite scale, and the
/// NaN of the polynomial it multiplies stays NaN).
Value powerOfTwo(PatternRewriter &rewriter, Location loc, Value k) {
  auto type = cast<VectorType>(k.getType());
  auto ints = VectorType::get(type.getShape(), rewriter.getI32Type());
  Value shift = splat(rewriter, loc, ints, rewriter.getI32IntegerAttr(23));
  Value magic = splat(rewriter, loc, type, kExponentMagic);
  Value biased = arith::AddFOp::create(rewriter, loc, k, magic);
  Value bits = arith::BitcastOp::create(rewriter, loc, ints, biased);
  bits = arith::ShLIOp::create(rewriter, loc, bits, shift);
  return arith::BitcastOp::create(rewriter, loc, type, bits);
}

/// exp of an f32 vector of any length without AVX-512: p * 2^n1 * 2^n2.
/// Over the clamped range n is in [-150, 128], so n1 = floor(n/2) and
/// n - n1 are in [-75, 64]: p * 2^n1 is exact, and the second product rounds
/// once (inf above 88.72, subnormals, then 0, as exp itself).
Value expByExponentBits(PatternRewriter &rewriter, Location loc, Value input) {
  auto type = cast<VectorType>(input.getType());
  auto [n, p] = reduceAndEvaluate(rewriter, loc, input);
  Value halfN = arith::MulFOp::create(rewriter, loc, n, splat(rewriter, loc, type, 0.5f));
  Value n1 = math::FloorOp::create(rewriter, loc, halfN);
  Value n2 = arith::SubFOp::create(rewriter, loc, n, n1);
  Value scaled = arith::MulFOp::create(rewriter, loc, p, powerOfTwo(rewriter, loc, n1));
  return arith::MulFOp::create(rewriter, loc, scaled, powerOfTwo(rewriter, loc, n2));
}

/// exp of a vector<16xf32> (the only f32 shape vscalefps takes).
Value exp16(PatternRewriter &rewriter, Location loc, Value input) {
  auto type = cast<VectorType>(input.getType());
  auto [n, p] = reduceAndEvaluate(rewriter, loc, input);
  Value allLanes = arith::ConstantOp::create(
      rewriter, loc, rewriter.getIntegerAttr(rewriter.getI16Type(), APInt::getAllOnes(16)));
  Value currentRounding = arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(4));
  // The op's operands go to llvm.x86.avx512.mask.scalef.ps.512 in order:
  // (value, exponent, pass-through), so `src` is the scaled value here.
  return x86vector::MaskScaleFOp::create(rewriter, loc, type, p, n, p, allLanes,
                                         currentRounding);
}

/// Without `scalef`, a vector of any length is rewritten whole. With it,
/// vectors of other lengths than 16 (a loop's 5-lane remainder, 32-lane
/// tiles) are computed 16 lanes at a time, the last piece padded with zeros,
/// so that every element of a tensor gets the same function.
struct ScalefExp : OpRewritePattern<math::ExpOp> {
  ScalefExp(MLIRContext *ctx, bool scalef)
      : OpRewritePattern(ctx, /*benefit=*/2), scalef(scalef) {}
  /// vscalefps (AVX-512F) rather than exponent bits.
  bool scalef;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || type.getRank() != 1 || type.isScalable() ||
        !type.getElementType().isF32() || type.getNumElements() > kMaxLanes)
      return rewriter.notifyMatchFailure(op, "not a 1-D f32 vector");
    Location loc = op.getLoc();
    int64_t lanes = type.getNumElements();
    if (!scalef) {
      rewriter.replaceOp(op, expByExponentBits(rewriter, loc, op.getOperand()));
      return success();
    }
    if (lanes == 16) {
      rewriter.replaceOp(op, exp16(rewriter, loc, op.getOperand()));
      return success();
    }
    auto v16 = VectorType::get({16}, rewriter.getF32Type());
    Value zeros = splat(rewriter, loc, v16, 0.0f);
    Value result = splat(rewriter, loc, type, 0.0f);
    for (int64_t offset = 0; offset < lanes; offset += 16) {
      int64_t size = std::min<int64_t>(16, lanes - offset);
      Value piece = op.getOperand();
      if (size != lanes)
        piece = vector::ExtractStridedSliceOp::create(rewriter, loc, piece, {offset},
                                                      {size}, {1});
      if (size != 16)
        piece = vector::InsertStridedSliceOp::create(rewriter, loc, piece, zeros, {0}, {1});
      Value e = exp16(rewriter, loc, piece);
      if (size != 16)
        e = vector::ExtractStridedSliceOp::create(rewriter, loc, e, {0}, {size}, {1});
      result = vector::InsertStridedSliceOp::create(rewriter, loc, e, result, {offset}, {1});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

bool mlir::dsl::hostHasAvx512() {
  static const bool has = [] {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    auto avx512 = features.find("avx512f");
    return avx512 != features.end() && avx512->second;
  }();
  return has;
}

void mlir::dsl::populateScalefExpPatterns(RewritePatternSet &patterns, bool scalef) {
  patterns.add<ScalefExp>(patterns.getContext(), scalef);
}
