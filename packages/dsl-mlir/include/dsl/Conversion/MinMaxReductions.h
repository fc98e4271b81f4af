//===- MinMaxReductions.h - cheap loops for max/min reductions --*- C++ -*-===//
//
// Used by dsl-vectorize after it lowers vector reductions.
//
//===----------------------------------------------------------------------===//

#ifndef DSL_CONVERSION_MINMAXREDUCTIONS_H
#define DSL_CONVERSION_MINMAXREDUCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::dsl {

/// Rewrites each `scf.for` that accumulates `arith.maximumf` (`minimumf`)
/// of vectors in one loop-carried vector (its other loop-carried values
/// passed through unchanged) into a loop of compare-and-select steps (one
/// `vmaxps` on x86, against about seven for the NaN- and signed-zero-exact
/// `maximumf`) that also notes whether it saw a NaN, followed by the
/// original loop only when the fast lanes cannot be trusted: a NaN was seen,
/// or a lane ended at zero (whose sign the fast loop may get wrong). The
/// accumulated vector is bitwise the original loop's.
void speedUpMinMaxReductions(func::FuncOp fn);

} // namespace mlir::dsl

#endif // DSL_CONVERSION_MINMAXREDUCTIONS_H
