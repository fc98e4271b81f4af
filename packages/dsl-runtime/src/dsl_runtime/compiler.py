"""Front end -> lowering -> JIT: one specialization of a function, with phase timings."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from . import knobs
from .abi import KernelABI, build_abi, check_dispatcher, packed_plan
from .compiled import Artifacts, CompiledFunction, abandon_at_exit, mlir_context
from .errors import CompileError, from_mlir
from .options import CompileOptions
from .params import ParamSpec


def _require_gpu() -> None:
    """GPUUnavailableError (a RuntimeError) naming what is missing, before any work."""
    from dsl_mlir import gpu

    gpu.require_gpu()


def lower_only(parsed: Any, options: CompileOptions, as_runtime: bool = False) -> Any:
    """The lowered module of a parsed function, without JIT (``dsl compile``, PTX);
    ``as_runtime``: with the options the runtime lowers with (``_pipeline_options``)."""
    import dsl_mlir
    from dsl_parser.extensions import lower_extensions

    pipeline_options = _pipeline_options(options) if as_runtime else options.pipeline_options
    try:
        return dsl_mlir.lower(lower_extensions(parsed.module), options.pipeline,
                              pipeline_options)
    except dsl_mlir.MLIRDiagnosticError as err:
        mapper = getattr(parsed, "error_from_mlir", None)
        if mapper is not None:
            raise mapper(err) from None
        raise from_mlir(f"lowering {parsed.name} failed", err) from None


def parse(fn: Any, overrides: Mapping[str, Any], options: CompileOptions, ctx: Any) -> Any:
    """Run dsl-parser over a Python function (ParserError propagates: it points at the user)."""
    import dsl_parser.language as pl

    return pl.parse_function(fn, overrides=dict(overrides), strict_ssa=options.strict_ssa,
                             context=ctx)


def _engine(module: Any, options: CompileOptions, object_dump: bool) -> Any:
    """An ExecutionEngine (optionally keeping its object code for the disk cache)."""
    import dsl_mlir

    engine = dsl_mlir.jit(module, opt_level=options.opt_level, parallel=options.parallel,
                          gpu=options.gpu, object_dump=object_dump and not options.parallel,
                          llvm_passes=options.llvm_pipeline)
    if options.gpu:
        from dsl_mlir import gpu

        gpu.check()  # the kernels' module is loaded when the engine starts
    return engine


def _pipeline_options(options: CompileOptions) -> dict[str, bool | int | str]:
    """The pipeline's options; the runtime calls only the C interfaces, so on the CPU the
    functions themselves are internalized (LLVM then compiles about half as much)."""
    if options.pipeline == "dsl-to-llvm-cpu":
        extra: dict[str, bool | int | str] = {"boundscheck": True} if options.boundscheck else {}
        return {"internalize-entries": True, **extra, **options.pipeline_options}
    return dict(options.pipeline_options)


def lower_and_jit(name: str, module: Any, options: CompileOptions,
                  timings: dict[str, float], parsed: Any = None,
                  object_dump: bool = False) -> tuple[Any, Any]:
    """(lowered module, ExecutionEngine); failures point at the user's line.

    Extension ops are lowered first by their Python rules
    (``dsl_parser.extensions.lower_extensions``), then the pipeline runs."""
    import dsl_mlir
    from dsl_parser.extensions import lower_extensions

    settings = knobs.read()
    dump = settings.dump_dir / name if settings.dump_dir else None
    t = time.perf_counter()
    try:
        module = lower_extensions(module)
        lowered = dsl_mlir.lower(module, options.pipeline, _pipeline_options(options), dump_dir=dump)
    except dsl_mlir.MLIRDiagnosticError as err:
        mapper = getattr(parsed, "error_from_mlir", None)
        if mapper is not None:
            raise mapper(err) from None
        raise from_mlir(f"lowering {name} failed", err) from None
    timings["lower"] = time.perf_counter() - t
    t = time.perf_counter()
    try:
        engine = _engine(lowered, options, object_dump)
    except dsl_mlir.MLIRDiagnosticError as err:
        raise from_mlir(f"JIT compilation of {name} failed", err) from None
    timings["jit"] = time.perf_counter() - t
    return lowered, engine


def _check_inputs(abi: KernelABI) -> bool:
    """Whether calls snapshot and compare their inputs (``DSL_CHECK_INPUTS``); never for
    functions that launch kernels, which take memrefs and write them in place."""
    host = any((p.mlir_type or "").startswith("memref<")
               for param in abi.inputs for p in (param.fields or (param,)))
    return knobs.read().check_inputs and not host


def _packed_kernel(abi: KernelABI, address: int | None, **extra: Any) -> Any:
    from dsl_mlir import dispatch

    check_dispatcher(dispatch)
    slots, symbols = packed_plan(abi)
    return dispatch.PackedKernel(address, slots, symbols, abi.function, check_inputs=_check_inputs(abi),
                        **extra)


def make_kernel(abi: KernelABI, engine: Any, gpu: bool = False) -> Any:
    """The call path of a compiled entry: the C PackedKernel, or for the NVPTX
    backend the DeviceKernel that takes device arrays."""
    address = engine.raw_lookup(abi.c_symbol)
    if not address:
        raise CompileError(f"compiled module has no entry {abi.packed_symbol}")
    if gpu:  # memrefs are device arrays; GPU runtime errors are raised after each call
        from .device import take_error_address

        return _packed_kernel(abi, address, device_error=take_error_address())
    return _packed_kernel(abi, address)


def compile_parsed(parsed: Any, specs: tuple[ParamSpec, ...], constexprs: Mapping[str, Any],
                   options: CompileOptions, timings: dict[str, float], ctx: Any,
                   object_dump: bool = False,
                   protocols: Mapping[str, Any] | None = None) -> CompiledFunction:
    """Lower, JIT and wrap an already parsed function (``object_dump``: keep the
    object code so that ``keepalive[-1].dump_to_object_file`` can write it)."""
    name = parsed.name
    abi = build_abi(name, specs, parsed.signature, constexprs, ctx,
                    bool(getattr(parsed, "host", False)), protocols)
    dsl_text = str(parsed.module)
    if options.gpu:
        _require_gpu()
    lowered, engine = lower_and_jit(name, parsed.module, options, timings, parsed, object_dump)
    kernel = make_kernel(abi, engine, options.gpu)
    return _with_engine(CompiledFunction(
        name, abi, kernel, Artifacts(dsl=dsl_text, lowered=str(lowered), codegen=codegen(options)),
        timings, keepalive=(ctx, lowered, engine)), options)


def _with_engine(compiled: CompiledFunction, options: CompileOptions) -> CompiledFunction:
    """``compiled`` (holding its engine), registered to be left alone at exit unless the
    engine loaded a runtime library (parallel code, GPU host code)."""
    if options.parallel or options.gpu:
        return compiled
    return abandon_at_exit(compiled)


def codegen(options: CompileOptions) -> tuple[int, str | None]:
    """(opt_level, LLVM pass text) the JIT compiles with (``Artifacts.codegen``)."""
    return options.opt_level, options.llvm_pipeline


def load_shared(abi: KernelABI, dsl_text: str, lowered_text: str, library: bytes,
                options: CompileOptions) -> CompiledFunction:
    """Rebuild a CompiledFunction from the (verified) bytes of a cached shared library.

    The bytes are loaded from a sealed memfd (``safefs.dlopen_bytes``): what runs is
    exactly what was verified, whatever happens to the cache folder meanwhile."""
    import ctypes

    import dsl_mlir

    from .safefs import dlopen_bytes

    t = time.perf_counter()
    lib = dlopen_bytes(library, f"dsl-{abi.function}")
    address = ctypes.cast(getattr(lib, abi.packed_symbol), ctypes.c_void_p).value
    if dsl_mlir.ERROR_HOOK_SYMBOL in lowered_text:  # the code has run-time checks
        hook = ctypes.c_int64.in_dll(lib, dsl_mlir.ERROR_HOOK_SYMBOL)
        dsl_mlir.install_error_hook(ctypes.addressof(hook))
    kernel = _packed_kernel(abi, address)
    timings = {"load": time.perf_counter() - t}
    return CompiledFunction(abi.function, abi, kernel,
                            Artifacts(dsl=dsl_text, lowered=lowered_text, codegen=codegen(options)),
                            timings, keepalive=(lib,), source="disk-cache")


def load_lowered(abi: KernelABI, dsl_text: str, lowered_text: str,
                 options: CompileOptions) -> CompiledFunction:
    """Rebuild a CompiledFunction from cached lowered IR (no parsing or lowering)."""
    import dsl_mlir

    timings: dict[str, float] = {}
    t = time.perf_counter()
    ctx = mlir_context()
    module = dsl_mlir.parse_module(lowered_text, ctx)
    if options.gpu:
        _require_gpu()
    engine = _engine(module, options, object_dump=False)
    kernel = make_kernel(abi, engine, options.gpu)
    timings["load"] = time.perf_counter() - t
    return _with_engine(CompiledFunction(
        abi.function, abi, kernel, Artifacts(dsl=dsl_text, lowered=lowered_text, codegen=codegen(options)),
        timings, keepalive=(ctx, module, engine), source="disk-cache"), options)


def load_dsl(abi: KernelABI, dsl_text: str, options: CompileOptions,
             object_dump: bool = False) -> CompiledFunction:
    """Compile the dsl IR of an unsigned shared-cache entry here: parsed and verified by
    dsl-mlir, lowered and JIT-compiled by this process (no native code is taken)."""
    import dsl_mlir

    timings: dict[str, float] = {}
    ctx = mlir_context()
    t = time.perf_counter()
    try:
        module = dsl_mlir.parse_module(dsl_text, ctx)
    except dsl_mlir.MLIRDiagnosticError as err:
        raise from_mlir(f"the shared cache's IR of {abi.function} is invalid", err) from None
    timings["parse"] = time.perf_counter() - t
    _check_shared_ir(module, abi.function)
    if options.gpu:
        _require_gpu()
    lowered, engine = lower_and_jit(abi.function, module, options, timings,
                                    object_dump=object_dump)
    kernel = make_kernel(abi, engine, options.gpu)
    return _with_engine(CompiledFunction(
        abi.function, abi, kernel, Artifacts(dsl=dsl_text, lowered=str(lowered),
                                             codegen=codegen(options)),
        timings, keepalive=(ctx, lowered, engine), source="shared-cache"), options)


#: Dialects whose ops IR from an unsigned shared cache may hold: what dsl-parser emits.
#: Not ``llvm`` (an external declaration would call any symbol of the process, e.g.
#: ``system``), nor an extension's dialect (only signed entries carry those).
SHARED_IR_DIALECTS = frozenset({"builtin", "func", "arith", "math", "scf", "cf", "tensor",
                                "memref", "dsl", "gpu", "index", "linalg", "vector",
                                "affine", "bufferization", "complex", "ub"})


def _check_shared_ir(module: Any, function: str) -> None:
    """CompileError unless every op of ``module`` is of ``SHARED_IR_DIALECTS`` and every
    function has a body: unsigned IR calls nothing outside itself."""
    from dsl_mlir import ir

    problems: list[str] = []

    def visit(op: Any) -> Any:
        name = str(op.name)
        if name.split(".", 1)[0] not in SHARED_IR_DIALECTS:
            problems.append(f"an op of another dialect ({name})")
        elif name in ("func.func", "gpu.func") and not op.regions[0].blocks:
            problems.append("an external function declaration")
        return ir.WalkResult.INTERRUPT if problems else ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if problems:
        raise CompileError(f"the shared cache's IR of {function} holds {problems[0]}: "
                           "unsigned entries may hold only what dsl-parser emits")
