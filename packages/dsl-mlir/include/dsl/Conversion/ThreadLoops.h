//===- ThreadLoops.h - the loops that run a block's threads on the CPU -*- C++ -*-===//
//
// The CPU backend runs the threads of a block as `scf.for` loops over their
// ids (dsl-lower-launches-to-cpu, BlockLoops.h). Those loops carry the
// attribute below (its value: the dimension, 0 for x), so that
// `dsl-thread-loops` can find them after inlining: it turns guards on the
// thread id into loop bounds and marks the x loops for LLVM's loop vectorizer.
//
//===----------------------------------------------------------------------===//
#ifndef DSL_CONVERSION_THREADLOOPS_H
#define DSL_CONVERSION_THREADLOOPS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::dsl {

/// The discardable attribute of a loop over the threads of a block (an i64:
/// the dimension, 0 = x).
inline constexpr llvm::StringLiteral kThreadLoopAttr = "dsl.thread_loop";

/// Marks `loop` as the loop over the threads of dimension `dim`.
inline void markThreadLoop(scf::ForOp loop, unsigned dim) {
  OpBuilder b(loop.getContext());
  loop->setAttr(kThreadLoopAttr, b.getI64IntegerAttr(dim));
}

} // namespace mlir::dsl

#endif // DSL_CONVERSION_THREADLOOPS_H
