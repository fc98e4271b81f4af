//===- BlockLoops.h - the threads of a block as loops, around barriers -*- C++ -*-===//
//
// The CPU backend runs a kernel that synchronizes its block (`gpu.barrier`) or
// uses shared memory as one call per block: the kernel body is cut at its
// barriers into segments, and each segment runs as loops over the block's
// threads (work-item loops). Values computed by a thread in one segment and
// used in another live in per-thread stack arrays across the cut.
//
//===----------------------------------------------------------------------===//
#ifndef DSL_CONVERSION_BLOCKLOOPS_H
#define DSL_CONVERSION_BLOCKLOOPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::dsl {

/// Rewrites `fn`, an outlined kernel whose arguments end with the twelve
/// launch coordinates starting at `first` (block id, thread id, block dim,
/// grid dim; x, y, z each), into a per-block function: the thread-id
/// arguments are no longer read (pass 0), the body loops over the block's
/// threads. Barriers may sit at the top level of the body or inside `scf.for`
/// loops whose bounds every thread computes alike (nested only in such
/// loops); anything else is an error at the barrier.
LogicalResult runThreadsAsLoops(func::FuncOp fn, unsigned first);

} // namespace mlir::dsl

#endif // DSL_CONVERSION_BLOCKLOOPS_H
