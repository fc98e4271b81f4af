//===- ScalefExp.h - f32 vector exp through AVX-512 vscalefps ---*- C++ -*-===//
//
// Used by dsl-vectorize before MLIR's polynomial approximations.
//
//===----------------------------------------------------------------------===//

#ifndef DSL_CONVERSION_SCALEFEXP_H
#define DSL_CONVERSION_SCALEFEXP_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::dsl {

/// Whether this host's CPU has AVX-512F (the JIT compiles for the host).
bool hostHasAvx512();

/// Rewrites `math.exp` on 1-D f32 vectors (16 lanes at a time) into a range reduction by ln 2 in
/// two parts (Cody-Waite), a degree-6 polynomial on [-ln2/2, ln2/2] and one
/// `vscalefps` that multiplies by 2^n: about 12 vector instructions against
/// about 20 for MLIR's approximation, whose 2^n is built from integer bits
/// and needs clamps on both the argument and n. vscalefps itself gives inf
/// on overflow, rounded subnormals and 0 on underflow. At most ~1.1 ulp from
/// the exact result over the whole f32 range; NaN stays NaN. `scalef` only
/// for code compiled for a CPU with AVX-512F (`hostHasAvx512`); without it,
/// vectors of any length get the same reduction and polynomial and 2^n as two
/// powers of two built from exponent bits: the same results on any target.
void populateScalefExpPatterns(RewritePatternSet &patterns, bool scalef);

} // namespace mlir::dsl

#endif // DSL_CONVERSION_SCALEFEXP_H
