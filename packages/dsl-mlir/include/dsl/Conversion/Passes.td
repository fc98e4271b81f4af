//===- Passes.td - dsl passes ----------------------------------*- tablegen -*-===//

#ifndef DSL_CONVERSION_PASSES_TD
#define DSL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def DslCheckLowerable : Pass<"dsl-check-lowerable"> {
  let summary = "Refuse IR whose types the toolkit's lowering cannot handle";
  let description = [{
    The first pass of `dsl-to-llvm-cpu` and `dsl-to-llvm-nvptx` (and of every
    pass list `dsl_mlir.lower` runs): every result, block argument and type
    attribute (function signatures) under the op is checked. Tensor, memref
    and vector elements must be f16, bf16, f32, f64, i1, i8, i16, i32, i64 or
    index; scalar integers have 1 to 64 bits; floats are f16, bf16, f32 or
    f64; no complex numbers; the product of the nonzero static sizes of a
    shape, and that times the element size, fit in a signed 64-bit integer. The first violation is an
    error at its op, so that no later pass (LLVM is built with assertions)
    meets what it cannot lower. The IR is not changed.
  }];
}

def ConvertDslToLinalg : Pass<"convert-dsl-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower dsl ops to linalg, tensor and arith";
  let description = [{
    Elementwise ops (with broadcasting in the indexing maps and scalars
    used in the body), transposes, reductions, casts, arange and matmul
    become `linalg.generic` ops over `tensor.empty` destinations (so that
    elementwise fusion applies); `dsl.full` becomes `linalg.fill`;
    reshapes become `tensor.collapse_shape`/`tensor.expand_shape`; slices,
    `dsl.assemble` and `dsl.concat` become `tensor.extract_slice` /
    `tensor.insert_slice`. See docs/dialect.md for each op.

    Offsets and sizes known only at run time (slice, assemble, the dynamic
    sizes of create_tensor, full and arange) are checked once per op; a
    failed check calls the module's error hook (`__dsl_error_hook`, an LLVM
    global created on demand) and the op computes a safe value instead of
    touching memory out of bounds (see docs/mlir.md, "Run-time checks").
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def DslEmitCInterface : Pass<"dsl-emit-c-interface", "::mlir::ModuleOp"> {
  let summary = "Mark public function definitions with llvm.emit_c_interface";
  let description = [{
    Every public `func.func` with a body gets the `llvm.emit_c_interface`
    unit attribute so that `convert-func-to-llvm` emits its
    `_mlir_ciface_<name>` wrapper (the entry the runtime calls). With
    `internalize`, the function itself gets internal linkage: LLVM inlines it
    into its wrapper and drops it (and the ExecutionEngine makes no packed
    wrapper for it), which roughly halves LLVM's work for small modules; only
    the `_mlir_ciface_<name>` entries remain callable.
  }];
  // It creates `llvm.*` attributes: the LLVM dialect must be loaded even when
  // the pass runs on its own.
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"internalize", "internalize", "bool", /*default=*/"false",
           "Give the functions internal linkage (only their C interfaces stay visible)">
  ];
}

def DslLowerStridedCopies : Pass<"dsl-lower-strided-copies"> {
  let summary = "Turn memref.copy between non-contiguous layouts into linalg.copy";
  let description = [{
    `memref.copy` between identity layouts lowers to a `memcpy`; any other
    copy would call the `memrefCopy` runtime function, which a JIT'd module
    cannot resolve without the MLIR runner utilities. This pass rewrites
    those copies into `linalg.copy` so that they become plain loops.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def DslPrefetchRows : Pass<"dsl-prefetch-rows", "::mlir::func::FuncOp"> {
  let summary = "Prefetch the next row of a fused row loop while computing this one";
  let description = [{
    A fused row op (softmax, layer norm) reads each row from memory in its
    first inner loop and computes in the later ones; the hardware prefetchers
    stop at page boundaries and while the core computes, so memory and
    compute take turns. This pass overlaps them.

    A row loop is an `scf.for` or one-dimensional `scf.forall` of step 1
    whose body holds at least two innermost `scf.for` loops over the same
    range (the last with a constant step of at least 16 bytes of the read).
    Each `vector.transfer_read` or `memref.load` in one of them whose
    innermost index is that loop's induction variable and whose address
    depends on the row's induction variable (through pure ops computed in the
    row loop: views, index arithmetic) gets `memref.prefetch`es at the top of
    the last inner loop, one per cache line of its step: the same address
    with the next row (the row itself on the last iteration) and the last
    loop's induction variable (clamped to its range). One stream per buffer,
    at most four per row loop.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def DslNontemporalStores
    : Pass<"dsl-nontemporal-stores", "::mlir::func::FuncOp"> {
  let summary = "Streaming (non-temporal) vector stores into large output buffers";
  let description = [{
    A store into a buffer larger than the caches first reads the line it
    writes (read-for-ownership): an elementwise op or a row op over such a
    buffer moves a third more bytes than it reads and writes. Non-temporal
    stores write whole lines without reading them.

    Candidates are the unmasked, in-bounds 1-D `vector.transfer_write`s into a
    function argument (through `memref.subview`, `expand_shape`,
    `collapse_shape` and `cast`) of 4- or 8-byte elements that is only written
    in the function (never read nor passed on), whose size is at least
    `min-bytes` (static), or only known at run time, and whose vector's
    address is a multiple of 16 bytes whenever the argument's first element
    and its strides are (innermost offsets and indices that are multiples of
    16 bytes: constants, loop induction variables with such bounds and steps).

    The innermost `scf.for` holding such stores is versioned: `scf.if` the
    arguments' first elements and row strides are 16-byte aligned (and, for
    dynamic sizes, each argument has at least `min-bytes`), a copy whose
    stores are `vector.store {nontemporal, alignment = 16}`, else the loop as
    it was. When all of the loop's candidate stores write whole 64-byte
    vectors at 64-byte steps, it is first versioned on 64-byte alignment, a
    copy with `alignment = 64` (one whole-register streaming store each
    instead of four of 16 bytes). Non-temporal stores are weakly ordered: a fence (`sfence` through
    `llvm.call_intrinsic` on an x86 host, else `llvm.fence seq_cst`) follows
    the outermost op of the function (or of an `scf.forall` body) around
    them, so another thread that synchronizes with this one sees the data. `min-bytes=0` turns the pass off.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"8388608",
           "Smallest buffer (bytes) written with non-temporal stores (0: none)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def DslTaskStackBuffers
    : Pass<"dsl-task-stack-buffers", "::mlir::func::FuncOp"> {
  let summary = "Small temporaries of parallel iterations on the task's stack";
  let description = [{
    The iterations of an `scf.forall` run at once on several threads, so the
    buffers they allocate cannot be hoisted out of the loop (as
    `buffer-loop-hoisting` does for sequential loops): a fused row loop paid a
    `malloc` and a `free` per row and temporary (a layer norm's row mean and
    variance are one-element buffers), which two threads contend for.

    Each `memref.alloc` in an `scf.forall` body (not in a nested one) of a
    static shape, an identity layout and at most `max-bytes` bytes, whose
    buffer is only read, written or viewed there (not yielded, returned,
    stored or passed to a call; its `memref.dealloc` goes), becomes a
    `memref.alloca` at the start of the body. Iterations of a sequential loop
    in the body share the one buffer, as after `buffer-loop-hoisting`. Runs
    after deallocation is placed (ownership-based deallocation refuses ops
    with unknown memory effects, such as the stack save below).

    A body with allocas saves the stack pointer first
    (`llvm.intr.stacksave`) and restores it before its terminator, which
    releases them at the end of each iteration: the forall is an allocation
    scope, but async-parallel-for clones its body into an `scf.for` over a
    task's iterations, where the allocas would otherwise pile up on the stack
    (a `memref.alloca_scope` would be inlined into the forall by canonicalize).
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"65536",
           "Largest buffer (bytes) moved to the stack; at most four times as much per iteration">
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def DslMaterializeLoopYields : Pass<"dsl-materialize-loop-yields"> {
  let summary = "Write the tensors a loop yields into its loop-carried buffers";
  let description = [{
    Before one-shot bufferization: every tensor yielded by an `scf.for` that is
    not its own iteration argument is wrapped in
    `bufferization.materialize_in_destination ... in %iter_arg`, so the loop
    keeps one buffer per carried tensor (updated in place at the end of each
    iteration) instead of returning a fresh allocation per iteration, which
    would need run-time ownership tracking to free.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def DslValueSemantics : Pass<"dsl-value-semantics", "::mlir::ModuleOp"> {
  let summary = "Tensors are values at function boundaries: read-only parameters, "
                "results of their own";
  let description = [{
    Before one-shot bufferization (with function boundaries): every tensor
    parameter of a function definition gets `bufferization.writable = false`,
    so an in-place update of a value that is (or aliases) a parameter is
    made on a copy and the caller's buffer is never written. A returned
    tensor that is a parameter of the function, or that the same
    `func.return` already returns, becomes `bufferization.alloc_tensor()
    copy(%v)`: every result gets a buffer of its own (so
    `buffer-results-to-out-params` writes each into its own out-param).
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def DslMarkResultSizes : Pass<"dsl-mark-result-sizes", "::mlir::ModuleOp"> {
  let summary = "Record the run-time sizes of returned allocations (before "
                "buffer-results-to-out-params)";
  let description = [{
    After each returned `memref.alloc` of a function's entry block, compares
    `memref.dim` of the allocation with each of its dynamic sizes, marked
    `dsl.result_size = [result, dimension]`. Run immediately before
    `buffer-results-to-out-params` (which replaces the allocation by the
    out-param, so the comparison then reads the caller's array), and
    `dsl-check-result-sizes` immediately after it: nothing may fold the
    comparisons in between.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def DslCheckResultSizes : Pass<"dsl-check-result-sizes", "::mlir::ModuleOp"> {
  let summary = "Out-params no smaller than the results written into them";
  let description = [{
    Each comparison marked by `dsl-mark-result-sizes` becomes a run-time
    check (a ValueError through the error hook: "result 0 has size 16 in
    dimension 0, but its output array has size 4") and the rest of its block,
    which writes the out-param, runs only when it holds. A `memref.copy` into
    a function argument with dynamic sizes is checked and skipped the same
    way.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def DslWidenBoolMemrefs : Pass<"dsl-widen-bool-memrefs", "::mlir::ModuleOp"> {
  let summary = "Store memrefs of i1 as one byte per element (numpy bool)";
  let description = [{
    MemRefToLLVM does not lower loads and stores of sub-byte element types,
    while the C ABI of a tensor of i1 is one byte per element (numpy's
    `bool_`). This pass retypes every memref of i1 (function signatures,
    calls, scf ops, memref ops) to a memref of i8 with the same shape and
    layout; loads become `load != 0` and stores store `extui`. The memref
    descriptor (the ABI) is unchanged. Run after `convert-linalg-to-loops`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def DslExpandFloatConversions : Pass<"dsl-expand-float-conversions"> {
  let summary = "Expand bf16 arithmetic and narrowing float conversions in-line";
  let description = [{
    On the CPU, LLVM turns `fptrunc` to bfloat, and `fptrunc` from double to
    half, into calls of compiler-runtime helpers (`__truncsfbf2`,
    `__truncdfbf2`, `__truncdfhf2`) that some hosts' libgcc lacks (gcc 12's
    has none of the bf16 ones). This pass removes every such call from the
    generated code, so it runs on any Linux with a C library:
    arithmetic on bf16 values is computed in f32 and rounded once to bf16;
    `arith.truncf` to bf16 becomes integer round-to-nearest-even on the f32
    bits (NaN stays a quiet NaN); a conversion from f64 to f16 or bf16 first
    rounds to f32 *to odd* (exact double rounding) and then to the target;
    integer-to-bf16 conversions go through f32 or f64 exactly where they can;
    `vector.fma` on bf16 is an f32 FMA rounded once; `vector.reduction` of bf16
    vectors reduces the vector extended to f32.
    Works on scalars and vectors. Run after `math-extend-to-supported-types`
    and before the conversion to the LLVM dialect.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def DslBf16AsI16 : Pass<"dsl-bf16-as-i16", "::mlir::ModuleOp"> {
  let summary = "Carry bf16 values as i16 in the LLVM dialect (no bf16 vectors for the back end)";
  let description = [{
    LLVM's x86 back end legalizes bfloat vectors through float: masked loads
    and stores of them call `__truncsfbf2` (absent from gcc 12's libgcc) for
    what is a copy of bits, and some shuffles and reductions abort the process
    ("Do not know how to soft promote this operator's operand"). Run last in
    `dsl-to-llvm-cpu`, after `dsl-expand-float-conversions` left bf16 only in
    data movement: loads, stores, masked memory ops, element and value inserts
    and extracts, shuffles, selects, branches and constants carry i16 instead;
    `llvm.fpext` from bf16 becomes a shift into the f32 bits and `llvm.fcmp`
    compares f32 extensions; other ops (function arguments and results, calls)
    keep bf16 at their boundary through bitcasts. A function whose boundary
    would be an aggregate holding bf16 is left unchanged.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Kernels and launches.
//===----------------------------------------------------------------------===//

def DslLowerLaunchesToCpu : Pass<"dsl-lower-launches-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Run gpu.launch_func kernels as loops over grid and block on the CPU";
  let description = [{
    The CPU backend of `@pl.kernel` launches. Every `gpu.func ... kernel` of
    every `gpu.module` becomes a private `func.func` taking the kernel's
    arguments followed by twelve `index` values (block id x/y/z, thread id
    x/y/z, block dim x/y/z, grid dim x/y/z) that replace the `gpu.block_id`,
    `gpu.thread_id`, `gpu.block_dim` and `gpu.grid_dim` ops of its body.
    Every `gpu.launch_func` becomes an `scf.parallel` over the grid (z, y, x)
    around `scf.for` loops over the block (z, y, x) calling that function;
    the stream operand, if any, is ignored (the launch is synchronous).

    A kernel with workgroup memory or `gpu.barrier` runs once per block
    instead (dsl/Conversion/BlockLoops.h): its workgroup attributions become
    `memref.alloca`s of the call (in a `memref.alloca_scope`), its body is cut
    at the barriers into segments that each loop over the block's threads,
    values crossing a cut go through per-thread stack arrays, and the
    `iter_args` of loops holding barriers too; a `gpu.shuffle` becomes a
    store of every thread's value, a barrier and a load of the source lane's
    (`gpu.lane_id`: the linear thread index modulo 32). Barriers must be at the top
    level of the kernel or nested only in `scf.for` loops whose bounds every
    thread computes alike (errors at the op otherwise). Private attributions
    and other gpu ops are rejected. The gpu modules and `gpu.container_module`
    are removed.

    With `boundscheck`, every `memref.load`, `memref.store`,
    `memref.atomic_rmw` and `memref.generic_atomic_rmw` of a kernel checks its
    indices against the memref's sizes: an access out of range reports an
    IndexError naming the kernel's line through the module's error hook (see
    convert-dsl-to-linalg) and does nothing (a load or atomic gives 0).

    A `memref.generic_atomic_rmw` that is a compare-and-swap (its region
    selects a value defined outside when the current one equals another such
    value: `pl.atomic_cas`) becomes an `llvm.cmpxchg` on the element's address
    (identity-layout memrefs only); any other generic atomic is an error.
  }];
  let options = [
    Option<"boundscheck", "boundscheck", "bool", /*default=*/"false",
           "Check the indices of every element access of the kernels">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect"];
}

def DslThreadLoops : Pass<"dsl-thread-loops", "::mlir::func::FuncOp"> {
  let summary = "Turn guards on thread ids into loop bounds; mark thread loops for LLVM's vectorizer";
  let description = [{
    Works on the loops over a block's threads that dsl-lower-launches-to-cpu
    creates (`scf.for` with the `dsl.thread_loop` attribute, once the kernel
    is inlined). For each such loop, innermost first, whose body is pure ops
    and one `scf.if` without results or else: each conjunct (`arith.andi`
    leaf) of its condition that compares `iv + off` with a loop-invariant
    value (signed `<`, `<=`, `>`, `>=`, or `==`; `off` invariant too) narrows
    the loop's bounds (`arith.maxsi`/`arith.minsi`) instead; each invariant
    conjunct moves into an `scf.if` around the loop; the others stay. Pure
    invariant ops are hoisted first (loop-invariant code motion). An x loop
    narrowed from constant bounds is versioned: `scf.if` the narrowed bounds
    are the constant ones, a copy over the constants (a trip count LLVM
    knows), else the narrowed loop. Thread loops over x that hold no other
    loop then carry an `llvm.loop_annotation` with `vectorize.enable` (the
    JIT's LLVM pipeline vectorizes those loops only) and a fresh access group
    as parallel accesses (threads between barriers are independent; see
    dsl-loop-annotations). The `dsl.thread_loop` attributes are removed.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def DslLoopAnnotations : Pass<"dsl-loop-annotations", "::mlir::ModuleOp"> {
  let summary = "Move loop annotations of LLVM branches into their loop_annotation";
  let description = [{
    convert-scf-to-cf copies an `scf.for`'s `llvm.loop_annotation` attribute
    to the back edge of its loop, where it stays a discardable attribute of
    the `llvm.br`/`llvm.cond_br` after convert-cf-to-llvm. This pass makes it
    the branch's `loop_annotation`, which the translation to LLVM IR emits as
    `!llvm.loop` metadata (e.g. dsl-thread-loops' vectorization requests).
    When the back edge is an `llvm.br`, the access groups the annotation lists
    as parallel accesses are added to every load and store of its natural
    loop (the blocks that reach the back edge without passing its target).
  }];
}

def DslCheckDivisions : Pass<"dsl-check-divisions", "::mlir::ModuleOp"> {
  let summary = "Integer division and remainder by zero report a ZeroDivisionError instead of trapping";
  let description = [{
    Before each scalar integer `arith.divsi`, `divui`, `remsi`, `remui`,
    `floordivsi`, `ceildivsi` or `ceildivui` whose divisor is not a constant
    other than 0 (and -1 for the signed ones): a check `divisor != 0` that
    reports `<file:line:col>: integer division or modulo by zero` through the
    module's error hook (a ZeroDivisionError after the call, see
    convert-dsl-to-linalg's run-time checks), and a safe divisor, 1 where the
    divisor is 0 or a signed division overflows (smallest value by -1), so
    that the op never traps (SIGFPE on the CPU). The overflowing division then
    yields the dividend, which is what it wraps to.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def DslGpuLaunchToLlvm : Pass<"dsl-gpu-launch-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Give gpu.launch_func LLVM operands, keeping its stream";
  let description = [{
    The host half of the NVPTX path (in place of upstream `gpu-to-llvm`,
    which drops the stream operand of a launch): memref kernel operands are
    expanded into their descriptor fields, in the order `convert-gpu-to-nvvm`
    gives the kernel's parameters, and index sizes become i64. The LLVM IR
    translation then turns each launch into `mgpuLaunchKernel` on the stream
    the user passed (or a stream of its own when none was given).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// CPU code generation: tiling for vectors, vectorization.
//===----------------------------------------------------------------------===//

def DslBoundedCse : Pass<"dsl-bounded-cse", "::mlir::func::FuncOp"> {
  let summary = "Common subexpression elimination whose cost stays linear in "
                "the number of loops";
  let description = [{
    Upstream `cse` on the function, unless the function's body holds more
    than `max-region-ops` operations with regions (loops, ifs) at its top
    level: then each of those operations' regions is simplified on its own,
    and the top-level operations are left as they are.

    `cse` hashes an operation by its name, attributes, operands and result
    types, not by its regions, and compares the regions of every pair whose
    hashes match. Tiled loops capture their inputs from above, so all the
    loops with the same bounds and initial values (each `tensor.empty` of
    one shape is merged into one first) match: a generated function with
    1,395 such loops spent 3 s in `cse`, and the merged `tensor.empty`
    made one-shot bufferization's conflict analysis take 7.2 s instead of
    1.05 s. Duplicates inside a loop body (the reads of a value recomputed
    in each reader) are what this pass is for, and they are still removed;
    top-level duplicates that remain are pure ops, merged by the `cse` after
    bufferization. Functions of at most `max-region-ops` loops (every
    hand-written kernel of the benchmarks) get exactly `cse`.
  }];
  let options = [
    Option<"maxRegionOps", "max-region-ops", "int64_t", /*default=*/"64",
           "The most top-level operations with regions for which the whole "
           "function is simplified at once">,
  ];
}

def DslFuseElementwise : Pass<"dsl-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Elementwise fusion that recomputes a value with a few linalg uses";
  let description = [{
    The patterns of upstream `linalg-fuse-elementwise-ops`, with one change:
    an elementwise producer with up to three uses, all linalg ops, is fused
    into each of them (recomputed) instead of only a producer with one use.
    Softmax's `exp(x - max)`, read by the row sum and by the division, is then
    no longer a full-size temporary allocated, written and read back per call.

    With `row-temporaries` (set by `dsl-to-llvm-cpu` when `dsl-fuse-rows`
    follows), a costly value (a math function other than abs, copysign, fma)
    that runs over rows and is read by a row reduction and by another row op
    is left unfused: `dsl-fuse-rows` computes it one row at a time into a
    row-sized temporary in the cache, which costs less than computing
    softmax's `exp` twice.
  }];
  let options = [
    Option<"rowTemporaries", "row-temporaries", "bool", /*default=*/"false",
           "Keep a costly value read by a row reduction and another row op "
           "unfused, for dsl-fuse-rows to store one row of">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DslFuseRows : Pass<"dsl-fuse-rows", "::mlir::func::FuncOp"> {
  let summary = "Fuse row reductions and their consumer into one loop over rows";
  let description = [{
    Tiles an op whose first loop runs over the rows of its result (the final
    elementwise op of a softmax or layer norm) by one row, and fuses into
    that row loop the row reductions it reads and their producers: each row
    is reduced and consumed while it is in the cache, so a tensor larger
    than the caches is read from memory once instead of once per reduction.
    A producer that is also used outside the group, a contraction, or one
    whose every row would need its whole result (a column reduction) is
    not fused. With `parallel`, the row loop is an `scf.forall` (unless it
    has under 2^16 iterations in all), and `dsl-tile` leaves the ops inside
    it on their thread.
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Make the row loop an scf.forall (its rows are independent tasks)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DslTileForVectors : Pass<"dsl-tile", "::mlir::func::FuncOp"> {
  let summary = "Tile linalg ops on tensors into vector-sized tiles";
  let description = [{
    Tiles every linalg op on tensors that `dsl-vectorize` can turn into
    vector code: contractions (matmul) into N and K blocks (`matmul-n-block`,
    `matmul-k-block`: the block of B stays in L2) and
    register tiles of `matmul-tile-sizes` (M, N, K; by default 12 rows of two
    AVX-512 vectors of the accumulator type: 12x32x1 for f32, or 6 rows of two
    AVX2 vectors, 6x16x1, per `target-vector-bits`), row
    reductions into partial reductions along the row, everything else into tiles of one
    element in every loop but the innermost, which gets `vector-size`
    elements (clamped to static sizes). Loops whose trip count is not a
    multiple of the tile size are peeled, so that the main loop has static
    tiles. The tiled ops carry `dsl.vector_sizes` for `dsl-vectorize`.
    Ops that cannot become vector code are left alone: reductions with
    several results (argmax), ops reading or writing i1 tensors (LLVM
    packs vectors of i1 into bits, but a memref of i1 holds one byte per
    element) and ops without loops.

    With `parallel`, the outermost loop of every op whose first iterator is
    parallel first becomes an `scf.forall` (one row, 1024 elements of a
    1-D op, or an M block of a matmul per iteration), which the pipeline
    turns into async tasks (`async-parallel-for`).
  }];
  let options = [
    Option<"vectorSize", "vector-size", "int64_t", /*default=*/"16",
           "Elements per tile in the innermost loop of non-matmul ops (a "
           "power of two)">,
    ListOption<"matmulTileSizes", "matmul-tile-sizes", "int64_t",
               "Register tile M,N,K of contractions, N a power of two "
               "(default per target-vector-bits: 12 (8 with a dynamic row "
               "stride of A) or 6 rows x two vectors of the accumulator x 1)">,
    Option<"matmulKBlock", "matmul-k-block", "int64_t", /*default=*/"256",
           "K block of contractions with a larger K (0: none)">,
    Option<"matmulNBlock", "matmul-n-block", "int64_t", /*default=*/"256",
           "N block of contractions with a larger N, rounded up to whole "
           "register tiles (0: none)">,
    Option<"matmulPackB", "matmul-pack-b", "bool", /*default=*/"true",
           "Copy the block of B a contraction's register tiles stream (with "
           "at least 64 rows of A, tested at run time for a dynamic M; larger "
           "than the L1 cache or dynamic) into panels of one register tile's "
           "width, each panel's rows contiguous">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Distribute the outermost parallel loop of every op over threads "
           "(an scf.forall around the vector tiles)">,
    Option<"numThreads", "num-threads", "int64_t", /*default=*/"0",
           "Threads the matmul M dimension is split for (0: this machine's "
           "hardware threads)">,
    Option<"targetVectorBits", "target-vector-bits", "int64_t", /*default=*/"0",
           "Vector register width the default matmul register tile is sized "
           "for: 512 (12 rows of two vectors), 256 or 128 (6 rows); 0: this "
           "host's (512 with AVX-512F, else 256)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DslVectorize : Pass<"dsl-vectorize", "::mlir::func::FuncOp"> {
  let summary = "Vectorize the ops tiled by dsl-tile and clean up";
  let description = [{
    Turns each linalg op tagged by `dsl-tile` into vector ops (masked when
    its tile is dynamic), rewrites multiply-reduce chains as
    `vector.contract`, hoists loop-invariant vector accumulators out of
    their loops (so that a matmul's register tile stays in registers over
    the K loop), lowers `vector.contract` to outer products (FMAs) and
    `vector.multi_reduction` to elementwise ops plus reductions, and, with
    `approximate-math`, replaces f32 (and f16/bf16, through f32) vector
    `exp`, `log`, `tanh`, `rsqrt` by MLIR's polynomial approximations.
    With `avx512-exp`, f32 `exp` is a two-part range reduction, a degree-6
    polynomial and, on a host with AVX-512F, one `vscalefps` on 16-lane
    vectors (about 12 instructions against 20), elsewhere two powers of two
    built from exponent bits (as fast as MLIR's approximation, which flushes
    subnormal results to zero; the same results as the vscalefps sequence).
  }];
  let options = [
    Option<"approximateMath", "approximate-math", "bool", /*default=*/"true",
           "Use polynomial approximations for vector math">,
    Option<"avx512Exp", "avx512-exp", "bool", /*default=*/"true",
           "With approximate-math: f32 exp of our own, through vscalefps on "
           "AVX-512F hosts, exponent bits elsewhere (false: MLIR's approximation)">,
    Option<"lowerVectorOps", "lower-vector-ops", "bool", /*default=*/"true",
           "Lower vector.contract and vector.multi_reduction (off: stop "
           "after vectorization and hoisting, to inspect them)">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

#endif // DSL_CONVERSION_PASSES_TD
