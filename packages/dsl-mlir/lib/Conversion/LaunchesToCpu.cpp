//===- LaunchesToCpu.cpp - gpu.launch_func as loops on the CPU ------------===//
//
// The CPU backend of kernels: each kernel `gpu.func` becomes a private
// `func.func` that receives the launch coordinates as trailing `index`
// arguments, and each `gpu.launch_func` becomes a parallel loop over the grid
// around sequential loops over the block, calling it. The result is ordinary
// host code that the rest of `dsl-to-llvm-cpu` compiles (the inliner puts
// the kernel body into the loops). With `boundscheck`, each element access
// of a kernel (loads, stores, atomics) checks its indices first
// (dsl/Conversion/RuntimeChecks.h). A compare-and-swap (`pl.atomic_cas`: a
// `memref.generic_atomic_rmw` whose region selects the new value when the
// current one equals the expected one) becomes an `llvm.cmpxchg` on the
// element's address here, since the buffer passes that follow cannot handle
// an op with a region and a result.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/BlockLoops.h"
#include "dsl/Conversion/Passes.h"
#include "dsl/Conversion/RuntimeChecks.h"
#include "dsl/Conversion/ThreadLoops.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLLOWERLAUNCHESTOCPU
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;
using namespace mlir::dsl;

namespace {

/// Position of the launch coordinates after the kernel's own arguments.
enum CoordinateGroup : unsigned { BlockId = 0, ThreadId = 3, BlockDim = 6, GridDim = 9 };
constexpr unsigned kNumCoordinates = 12;

/// Marks an outlined kernel that runs once per block (threads as loops inside).
constexpr StringLiteral kPerBlockAttr = "dsl.per_block";

std::string cpuKernelName(StringRef module, StringRef kernel) {
  return ("__dsl_kernel_" + module + "_" + kernel).str();
}

/// Replaces every op of type `IdOp` in `fn` by the coordinate argument of
/// its dimension in `group`.
template <typename IdOp>
void replaceIds(func::FuncOp fn, unsigned first, CoordinateGroup group) {
  Block &entry = fn.getBody().front();
  fn.walk([&](IdOp op) {
    unsigned dim = static_cast<unsigned>(op.getDimension());
    op.replaceAllUsesWith(entry.getArgument(first + group + dim));
    op.erase();
  });
}

/// Replaces `gpu.lane_id` by the thread's linear index in its block modulo 32
/// (warps are 32 consecutive threads, x fastest).
void replaceLaneIds(func::FuncOp fn, unsigned first) {
  Block &entry = fn.getBody().front();
  auto arg = [&](unsigned i) -> Value { return entry.getArgument(first + i); };
  fn.walk([&](gpu::LaneIdOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value v = arith::MulIOp::create(b, loc, arg(ThreadId + 2), arg(BlockDim + 1));
    v = arith::AddIOp::create(b, loc, v, arg(ThreadId + 1));
    v = arith::MulIOp::create(b, loc, v, arg(BlockDim));
    v = arith::AddIOp::create(b, loc, v, arg(ThreadId));
    Value lanes = arith::ConstantIndexOp::create(b, loc, 32);
    op.replaceAllUsesWith(arith::RemUIOp::create(b, loc, v, lanes).getResult());
    op.erase();
  });
}

/// Checks that `kernel` only uses what the CPU backend can run.
LogicalResult checkRunnableOnCpu(gpu::GPUFuncOp kernel) {
  if (kernel.getNumPrivateAttributions())
    return kernel.emitError("kernel '")
           << kernel.getName()
           << "' uses private memory attributions, which the cpu backend "
              "does not support";
  return success();
}

/// Whether `kernel` runs as one call per block (threads as loops inside):
/// it synchronizes its block or has shared memory.
bool runsPerBlock(gpu::GPUFuncOp kernel) {
  if (kernel.getNumWorkgroupAttributions())
    return true;
  return kernel
      .walk([](Operation *op) {
        return isa<gpu::BarrierOp, gpu::ShuffleOp>(op) ? WalkResult::interrupt()
                                                       : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Replaces the workgroup attributions of the body now in `fn` (block
/// arguments after the kernel's `inputs`) by stack allocations: per call,
/// which is per block for a kernel that runs per block.
void allocateWorkgroupMemory(func::FuncOp fn, unsigned inputs, unsigned count) {
  Block &entry = fn.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  for (unsigned i = 0; i < count; ++i) {
    BlockArgument arg = entry.getArgument(inputs + i);
    auto type = cast<MemRefType>(arg.getType());
    auto plain = MemRefType::get(type.getShape(), type.getElementType());
    arg.replaceAllUsesWith(memref::AllocaOp::create(b, arg.getLoc(), plain).getResult());
  }
  entry.eraseArguments(inputs, count);
}

/// Moves the body of `kernel` into a new private func.func before `module`.
FailureOr<func::FuncOp> outlineKernel(gpu::GPUFuncOp kernel,
                                      gpu::GPUModuleOp module) {
  if (failed(checkRunnableOnCpu(kernel)))
    return failure();
  OpBuilder b(module);
  Location loc = kernel.getLoc();
  Type index = b.getIndexType();
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  unsigned first = inputs.size();
  inputs.append(kNumCoordinates, index);
  auto fn = func::FuncOp::create(
      b, loc, cpuKernelName(module.getName(), kernel.getName()),
      b.getFunctionType(inputs, {}));
  fn.setPrivate();
  unsigned workgroup = kernel.getNumWorkgroupAttributions();
  bool perBlock = runsPerBlock(kernel);
  fn.getBody().takeBody(kernel.getBody());
  allocateWorkgroupMemory(fn, first, workgroup);
  Block &entry = fn.getBody().front();
  for (unsigned i = 0; i < kNumCoordinates; ++i)
    entry.addArgument(index, loc);

  replaceIds<gpu::BlockIdOp>(fn, first, BlockId);
  replaceIds<gpu::ThreadIdOp>(fn, first, ThreadId);
  replaceIds<gpu::BlockDimOp>(fn, first, BlockDim);
  replaceIds<gpu::GridDimOp>(fn, first, GridDim);
  replaceLaneIds(fn, first);
  fn.walk([](gpu::ReturnOp ret) {
    OpBuilder rb(ret);
    func::ReturnOp::create(rb, ret.getLoc(), ret.getOperands());
    ret.erase();
  });
  if (perBlock) {
    fn->setAttr(kPerBlockAttr, UnitAttr::get(fn.getContext()));
    if (failed(runThreadsAsLoops(fn, first)))
      return failure();
  }
  WalkResult unsupported = fn.walk([&](Operation *op) {
    if (isa<gpu::GPUDialect>(op->getDialect())) {
      op->emitError("'") << op->getName()
                         << "' is not supported by the cpu backend of kernels";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (unsupported.wasInterrupted())
    return failure();
  return fn;
}

/// Whether every index of an access of `memref` is in range (unsigned
/// comparisons: a negative index is out of range), and the report's values.
Value indicesInRange(OpBuilder &b, Location loc, Value memref,
                     ValueRange indices, SmallVectorImpl<RuntimeCheck> &checks,
                     StringRef message, int64_t lastExtent = 1) {
  SmallVector<Value> conditions;
  for (auto [d, index] : llvm::enumerate(indices)) {
    Value size = memref::DimOp::create(b, loc, memref, d);
    Value last = index;  // a vector access reaches lastExtent elements of the last dim
    if (d + 1 == indices.size() && lastExtent > 1)
      last = arith::AddIOp::create(b, loc, index,
                                   arith::ConstantIndexOp::create(b, loc, lastExtent - 1));
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, last, size);
    if (last != index)  // and no wrap-around
      ok = arith::AndIOp::create(
          b, loc, ok, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, size));
    conditions.push_back(ok);
    Value dim = arith::ConstantIndexOp::create(b, loc, d);
    checks.push_back({ok, RuntimeErrorKind::Index, message.str(), {last, dim, size}});
  }
  return allOf(b, loc, conditions);
}

std::string accessMessage(Operation *op, StringRef kernel, StringRef what) {
  return ("kernel '" + kernel + "' at " + describeLocation(op->getLoc()) + ": " +
          what + " index {0} is out of range for dimension {1} of size {2}")
      .str();
}

/// The memref and indices of an element (or vector) access.
std::pair<Value, ValueRange> accessedElement(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return {load.getMemRef(), load.getIndices()};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return {store.getMemRef(), store.getIndices()};
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return {load.getBase(), load.getIndices()};
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return {store.getBase(), store.getIndices()};
  if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
    return {rmw.getMemref(), rmw.getIndices()};
  auto generic = cast<memref::GenericAtomicRMWOp>(op);
  return {generic.getMemref(), generic.getIndices()};
}

/// The elements a vector load or store reaches along the last dimension (1 for
/// element accesses).
int64_t vectorWidth(Operation *op) {
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return load.getVectorType().getNumElements();
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return store.getVectorType().getNumElements();
  return 1;
}

/// Guards every memref.load/store and atomic of `fn` (the outlined kernel `kernel`) by
/// a check of its indices: out of range, the error is reported and the
/// access skipped (a load yields 0).
void addBoundsChecks(func::FuncOp fn, StringRef kernel, ModuleOp module) {
  SmallVector<Operation *> accesses;
  fn.walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp,
            memref::GenericAtomicRMWOp, vector::LoadOp, vector::StoreOp>(op))
      accesses.push_back(op);
  });
  for (Operation *op : accesses) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    SmallVector<RuntimeCheck> checks;
    if (isa<memref::LoadOp, memref::AtomicRMWOp, memref::GenericAtomicRMWOp,
            vector::LoadOp>(op)) {
      auto [memref, indices] = accessedElement(op);
      if (indices.empty())
        continue;
      Value ok = indicesInRange(b, loc, memref, indices, checks,
                                accessMessage(op, kernel,
                                              isa<memref::LoadOp, vector::LoadOp>(op)
                                                  ? "load" : "atomic"),
                                vectorWidth(op));
      Type type = op->getResult(0).getType();
      auto guarded = scf::IfOp::create(
          b, loc, ok,
          [&](OpBuilder &tb, Location tl) {
            Operation *moved = tb.clone(*op);
            scf::YieldOp::create(tb, tl, moved->getResult(0));
          },
          [&](OpBuilder &eb, Location el) {
            for (const RuntimeCheck &c : checks)
              emitCheck(eb, el, module, c.ok, c.kind, c.message, c.values);
            Value zero = arith::ConstantOp::create(eb, el, eb.getZeroAttr(type));
            scf::YieldOp::create(eb, el, zero);
          });
      op->getResult(0).replaceAllUsesWith(guarded.getResult(0));
      op->erase();
      continue;
    }
    auto [memref, indices] = accessedElement(op);
    if (indices.empty())
      continue;
    Value ok = indicesInRange(b, loc, memref, indices, checks,
                              accessMessage(op, kernel, "store"), vectorWidth(op));
    scf::IfOp::create(
        b, loc, ok,
        [&](OpBuilder &tb, Location tl) {
          tb.clone(*op);
          scf::YieldOp::create(tb, tl);
        },
        [&](OpBuilder &eb, Location el) {
          for (const RuntimeCheck &c : checks)
            emitCheck(eb, el, module, c.ok, c.kind, c.message, c.values);
          scf::YieldOp::create(eb, el);
        });
    op->erase();
  }
}

/// The operands (expected, desired) of a compare-and-swap region:
/// `^bb0(%cur): %eq = arith.cmpi eq, %cur, %expected; %v = arith.select %eq,
/// %desired, %cur; memref.atomic_yield %v`, with both defined outside it.
FailureOr<std::pair<Value, Value>> compareAndSwapOperands(memref::GenericAtomicRMWOp op) {
  Region &region = op.getAtomicBody();
  Block &body = region.front();
  Value current = body.getArgument(0);
  auto yield = dyn_cast<memref::AtomicYieldOp>(body.getTerminator());
  auto select = yield ? yield.getResult().getDefiningOp<arith::SelectOp>() : nullptr;
  auto cmp = select ? select.getCondition().getDefiningOp<arith::CmpIOp>() : nullptr;
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq || cmp.getLhs() != current ||
      select.getFalseValue() != current || body.getOperations().size() != 3)
    return failure();
  Value expected = cmp.getRhs(), desired = select.getTrueValue();
  if (expected.getParentRegion() == &region || desired.getParentRegion() == &region)
    return failure();
  return std::make_pair(expected, desired);
}

/// Replaces the compare-and-swap `op` by an `llvm.cmpxchg` on the address of
/// its element (identity-layout memrefs: row-major, offset 0, as the runtime
/// passes them).
LogicalResult lowerCompareAndSwap(memref::GenericAtomicRMWOp op) {
  FailureOr<std::pair<Value, Value>> operands = compareAndSwapOperands(op);
  auto type = cast<MemRefType>(op.getMemref().getType());
  if (failed(operands) || !type.getLayout().isIdentity())
    return op.emitError("the cpu backend runs memref.generic_atomic_rmw only as a "
                        "compare-and-swap (pl.atomic_cas) of an identity-layout memref");
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [d, index] : llvm::enumerate(op.getIndices())) {
    Value size = memref::DimOp::create(b, loc, op.getMemref(), d);
    linear = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, linear, size), index);
  }
  unsigned bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, op.getMemref());
  Value offset = arith::MulIOp::create(b, loc, linear, arith::ConstantIndexOp::create(b, loc, bytes));
  Value address = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                             arith::AddIOp::create(b, loc, base, offset));
  Value pointer = LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                                           address);
  auto cas = LLVM::AtomicCmpXchgOp::create(b, loc, pointer, operands->first, operands->second,
                                           LLVM::AtomicOrdering::seq_cst,
                                           LLVM::AtomicOrdering::seq_cst);
  Value old = LLVM::ExtractValueOp::create(b, loc, cas, ArrayRef<int64_t>{0});
  op.getResult().replaceAllUsesWith(old);
  op.erase();
  return success();
}

/// Replaces `launch` by loops over its grid and block calling `fn`.
LogicalResult lowerLaunch(gpu::LaunchFuncOp launch, func::FuncOp fn) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitError("async tokens are not supported by the cpu backend");
  if (launch.hasClusterSize())
    return launch.emitError("thread block clusters are not supported by the cpu backend");
  OpBuilder b(launch);
  Location loc = launch.getLoc();
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> args(launch.getKernelOperands());
  SmallVector<Value, 3> ones{one, one, one}, zeros{zero, zero, zero};

  if (fn->hasAttr(kPerBlockAttr)) {  // one call per block; its threads loop inside
    scf::ParallelOp::create(
        b, loc, zeros, ValueRange{grid.z, grid.y, grid.x}, ones,
        [&](OpBuilder &pb, Location ploc, ValueRange blockIds) {
          SmallVector<Value> callArgs(args);
          callArgs.append({blockIds[2], blockIds[1], blockIds[0]});
          callArgs.append({zero, zero, zero});
          callArgs.append({block.x, block.y, block.z});
          callArgs.append({grid.x, grid.y, grid.z});
          func::CallOp::create(pb, ploc, fn, callArgs);
        });
    launch.erase();
    return success();
  }

  scf::ParallelOp::create(
      b, loc, zeros, ValueRange{grid.z, grid.y, grid.x}, ones,
      [&](OpBuilder &pb, Location ploc, ValueRange blockIds) {
        scf::LoopNest threads = scf::buildLoopNest(
            pb, ploc, zeros, ValueRange{block.z, block.y, block.x}, ones,
            [&](OpBuilder &fb, Location floc, ValueRange threadIds) {
              SmallVector<Value> callArgs(args);
              callArgs.append({blockIds[2], blockIds[1], blockIds[0]});
              callArgs.append({threadIds[2], threadIds[1], threadIds[0]});
              callArgs.append({block.x, block.y, block.z});
              callArgs.append({grid.x, grid.y, grid.z});
              func::CallOp::create(fb, floc, fn, callArgs);
            });
        for (auto [i, loop] : llvm::enumerate(threads.loops))  // z, y, x
          markThreadLoop(loop, 2 - i);
      });
  launch.erase();
  return success();
}

struct DslLowerLaunchesToCpu
    : dsl::impl::DslLowerLaunchesToCpuBase<DslLowerLaunchesToCpu> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<func::FuncOp> outlined;
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.empty() &&
        !module->hasAttr(gpu::GPUDialect::getContainerModuleAttrName()) &&
        !module.walk([](gpu::LaunchFuncOp) { return WalkResult::interrupt(); })
             .wasInterrupted())
      return markAllAnalysesPreserved();  // no kernel: the module is unchanged
    for (gpu::GPUModuleOp gm : gpuModules) {
      for (auto kernel : llvm::make_early_inc_range(gm.getOps<gpu::GPUFuncOp>())) {
        if (!kernel.isKernel())
          continue;
        std::string name = kernel.getName().str();
        FailureOr<func::FuncOp> fn = outlineKernel(kernel, gm);
        if (failed(fn))
          return signalPassFailure();
        if (boundscheck)
          addBoundsChecks(*fn, name, module);
        SmallVector<memref::GenericAtomicRMWOp> swaps;
        fn->walk([&](memref::GenericAtomicRMWOp op) { swaps.push_back(op); });
        for (memref::GenericAtomicRMWOp op : swaps)
          if (failed(lowerCompareAndSwap(op)))
            return signalPassFailure();
        outlined[(gm.getName() + "::" + kernel.getName()).str()] = *fn;
      }
    }
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
    for (gpu::LaunchFuncOp launch : launches) {
      std::string key = (launch.getKernelModuleName().getValue() + "::" +
                         launch.getKernelName().getValue())
                            .str();
      auto it = outlined.find(key);
      if (it == outlined.end()) {
        launch.emitError("launch of unknown kernel @") << key;
        return signalPassFailure();
      }
      if (failed(lowerLaunch(launch, it->second)))
        return signalPassFailure();
    }
    for (gpu::GPUModuleOp gm : gpuModules)
      gm.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
