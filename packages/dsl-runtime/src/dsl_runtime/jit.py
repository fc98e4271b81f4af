"""``@jit``: bind arguments, find or build the specialization, call it natively."""

from __future__ import annotations

import copyreg
import functools
import inspect
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, overload
from typing import ParamSpec as _TypingParamSpec

import numpy as np

from . import cache, keys, knobs, shared_cache
from .abi import abi_mismatch
from .arguments import SlotPlan, adapt, is_plain, signature_of
from .binder import expander, fast_call, stream_handle
from .compiled import CompiledFunction, mlir_context, ptx_of_lowered
from .compiler import compile_parsed, load_dsl, load_lowered, load_shared, lower_only, parse
from .errors import CompileError
from .fingerprint import Unhashable
from .options import CompileOptions
from .params import ParamSpec, constexpr_value, params_of_signature, read_params, struct_leaves
from .pickling import pickle_dispatcher

log = logging.getLogger("dsl_runtime.jit")

#: The parameters and the result of a jitted function, for type checkers
#: (``JitFunction[P, R]``); nothing at run time depends on them.
P = _TypingParamSpec("P")
R = TypeVar("R")


def _pl() -> Any:
    import dsl_parser.language as pl

    return pl


class JitFunction(Generic[P, R]):
    """A Python DSL function compiled on first call per specialization.

    Parameters annotated with shaped tensors (static or ``pl.dynamic`` sizes)
    and scalars compile once; unshaped ``pl.Tensor[dtype]`` parameters are
    specialized on the argument's shape and ``dc.Constexpr[T]`` parameters on
    their value. ``f(*args)`` allocates results, ``f(*args, out=z)`` writes
    into ``z``.

    To type checkers ``@jit`` returns a ``JitFunction[P, R]``: ``P`` the decorated
    function's parameters and ``R`` its result, so ``f(x, y)`` is checked against the
    function's signature; ``f(x, y, out=z)`` (results written into ``z``) returns ``R``
    with its positional arguments unchecked. At run time the object is a
    ``dsl_mlir.dispatch.Dispatcher`` that exposes this class's attributes.
    """

    #: The decorated Python function (absent for ``@pl.function``/``@pl.program`` entries
    #: parsed from text); ``inspect.signature`` follows it.
    __wrapped__: Callable[P, R]

    def __init__(self, fn: Any, options: CompileOptions | None = None, entry: str | None = None,
                 cache: bool = True) -> None:
        self._parsed = _parsed_entry(fn, entry)
        if self._parsed is None:
            functools.update_wrapper(self, fn)
        self._fn = fn
        self.options = options or CompileOptions()
        self.disk_cache = bool(cache)  # False: never read or written on disk
        self.specs: tuple[ParamSpec, ...] = (params_of_signature(self._parsed.signature)
                                             if self._parsed is not None else read_params(fn))
        self._specializing = any(s.specializes for s in self.specs)
        self._expand = expander(self.specs)  # struct/stream arguments -> kernel arguments
        self._name = str(self._parsed.name if self._parsed is not None else fn.__name__)
        self._cache: dict[tuple[Any, ...], CompiledFunction] = {}
        self._lock = threading.RLock()
        self._single: CompiledFunction | None = None  # the only specialization, when there is one
        self._identity: str | bool | None = False  # False: not computed yet
        self._unhashable_reported = False
        self._sources: list[Any] | None = None  # names whose values the code may depend on
        self._values: list[tuple[str, str]] | None = None  # their hashes at the last compile
        self._on_single: Any = None  # installs the single kernel into the C dispatcher
        self.timings: dict[str, float] = {}

    @property
    def name(self) -> str:
        return self._name

    # -- the call path -------------------------------------------------------
    @overload
    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R: ...

    @overload
    def __call__(self, *args: Any, out: Any, **kwargs: Any) -> R: ...

    def __call__(self, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        """Run the compiled specialization for these arguments (compiling it first if
        needed); results are new arrays, or written into ``out=`` (an array or a tuple)."""
        single = self._single
        if single is not None and not kwargs:
            try:
                if self._expand is not None:
                    return single(*self._expand(*args), out=out)
                return single(*args, out=out)
            except TypeError:
                pass  # e.g. a DLPack tensor or a wrong arity: the general path adapts or explains
        return self._call(args, kwargs, out)

    def _call(self, args: tuple[Any, ...], kwargs: Mapping[str, Any], out: Any) -> Any:
        bound = self._bind(args, kwargs)
        compiled, found = self._specialize(bound)
        runtime: list[Any] = []
        keep: list[Any] = []  # the filled storages of protocol arguments, alive for the call
        for spec, value in zip(self.specs, bound):
            if spec.kind == "protocol":
                runtime.extend(compiled.slot_plans[spec.name].values(found[spec.name], keep))
            elif spec.kind == "struct":
                runtime.extend(struct_leaves(spec, value, f"{self.name}()"))
            elif spec.kind == "stream":
                runtime.append(stream_handle(value))
            elif spec.kind != "constexpr":
                runtime.append(_as_buffer(value, self.name, spec.name))
        if out is not None:
            out = (tuple(_as_buffer(o, self.name) for o in out) if type(out) is tuple
                   else _as_buffer(out, self.name))
        return compiled(*runtime, out=out)

    def _bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> list[Any]:
        if not kwargs and len(args) == len(self.specs):
            return list(args)
        names = [s.name for s in self.specs]
        if len(args) > len(names):
            raise TypeError(f"{self.name}() takes {len(names)} arguments but {len(args)} were given")
        values: list[Any] = list(args) + [_MISSING] * (len(names) - len(args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{self.name}() got an unexpected argument '{key}'")
            i = names.index(key)
            if values[i] is not _MISSING:
                raise TypeError(f"{self.name}() got multiple values for argument '{key}'")
            values[i] = value
        missing = [n for n, v in zip(names, values) if v is _MISSING]
        if missing:
            raise TypeError(f"{self.name}() missing argument(s): {', '.join(repr(m) for m in missing)}")
        return values

    # -- specialization --------------------------------------------------------
    def _spec_key(self, bound: list[Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The specialization key and what each specializing argument contributed: a
        Constexpr's value, a protocol argument's JitArgument, an unshaped tensor's shape."""
        key: list[Any] = []
        found: dict[str, Any] = {}
        for spec, value in zip(self.specs, bound):
            if spec.kind == "constexpr":
                v = found[spec.name] = constexpr_value(spec, value, f"{self.name}()")
                key.append((spec.name, type(v).__name__, repr(v)))
            elif spec.kind == "protocol":  # through dsl-core's registry and hooks
                argument = found[spec.name] = adapt(value, spec.dsl_type, self.name, spec.name)
                key.append((spec.name, signature_of(argument, spec.dsl_type, self.name,
                                                    spec.name)))
            elif spec.kind == "tensor" and spec.annotation.shape is None:
                shape = found[spec.name] = _shape_of(value, spec, self.name)
                key.append((spec.name, shape))
        return tuple(key), found

    def _overrides(self, found: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the parser's overrides, the Constexpr values) of a specialization."""
        pl = _pl()
        overrides: dict[str, Any] = {}
        constexprs: dict[str, Any] = {}
        for spec in self.specs:
            if spec.name not in found:
                continue
            value = found[spec.name]
            if spec.kind == "constexpr":
                constexprs[spec.name] = value
                overrides[spec.name] = pl.ConstValue(value)
            elif spec.kind == "protocol":
                overrides[spec.name] = pl.ProtocolArgument(spec.dsl_type, value)
            else:
                overrides[spec.name] = pl.Tensor[list(value), spec.annotation.dtype]
        return overrides, constexprs

    def specialization(self, bound: list[Any]) -> CompiledFunction:
        """The compiled specialization for fully bound arguments (compiling it if needed)."""
        return self._specialize(bound)[0]

    def _specialize(self, bound: list[Any]) -> tuple[CompiledFunction, dict[str, Any]]:
        """The specialization and what the specializing arguments contributed to its key
        (the protocol arguments' JitArguments among them)."""
        key, contributed = self._spec_key(bound) if self._specializing else ((), {})
        found = self._cache.get(key)
        if found is not None:
            return found, contributed
        with self._lock:
            found = self._cache.get(key)
            if found is None:
                values = self._read_values()
                if values != self._values:  # code compiled for old values is not reused
                    self._forget()
                    self._values = values
                found = self._build(key, contributed, values)
                self._cache[key] = found
                if not self._specializing:
                    self._single = found
                    if self._on_single is not None:
                        self._on_single(found.kernel if self._expand is None else
                                        fast_call(found.kernel, self._expand, len(self.specs),
                                                  len(found.abi.results)))
        return found, contributed

    def recompile(self) -> None:
        """Forget every compiled specialization: the next call compiles again, reading the
        globals and closure values the function uses as they are then."""
        with self._lock:
            self._forget()
            self._values = None

    def _forget(self) -> None:
        self._cache.clear()
        if self._single is not None:
            self._single = None
            if self._on_single is not None:
                self._on_single(None)

    def _read_values(self) -> list[tuple[str, str]] | None:
        """Hashes of the values the function's source reads now (None: cannot be covered)."""
        if self._identity is False:
            self._identity = (keys.module_identity(self._parsed) if self._parsed is not None
                              else keys.function_identity(self._fn))
            self._sources = None if self._parsed is not None else keys.value_sources(self._fn)
        if self._parsed is not None:
            return []  # the parsed module already holds every value it uses
        if self._sources is None:
            return None  # no source to read names from: no disk cache
        try:
            return keys.read_values(self._sources)
        except Unhashable as err:
            if not self._unhashable_reported:
                self._unhashable_reported = True
                log.debug("%s: compiled without the disk cache: %s", self.name, err)
            return None

    def _disk_key(self, key: tuple[Any, ...], values: list[tuple[str, str]] | None) -> str | None:
        if not self.disk_cache or self._identity is None or values is None \
                or not (cache.enabled() or shared_cache.active()):
            return None
        if not is_plain(key):  # a protocol argument's signature whose repr is not its value
            return None
        return keys.digest(self._identity, key, self.options.key(), values)

    def _build(self, key: tuple[Any, ...], contributed: dict[str, Any],
               values: list[tuple[str, str]] | None) -> CompiledFunction:
        overrides, constexprs = self._overrides(contributed)
        start = time.perf_counter()
        disk_key = self._disk_key(key, values)
        if disk_key is not None:
            compiled = self._from_disk(disk_key, overrides, contributed)
            if compiled is not None:
                self.timings = {**compiled.timings, "total": time.perf_counter() - start}
                log.info("%s hit for %s%s (key %s) in %.1f ms",
                         "shared cache" if compiled.source == "shared-cache" else "disk cache",
                         self.name,
                         _describe_key(key), disk_key[:12], self.timings["total"] * 1e3)
                return compiled
            log.info("disk cache miss for %s%s (key %s)", self.name, _describe_key(key),
                     disk_key[:12])
        timings: dict[str, float] = {}
        if self._parsed is not None:  # a @pl.function / @pl.program entry: already parsed
            parsed, ctx = self._parsed, self._parsed.module.context
        else:
            ctx = mlir_context()
            t = time.perf_counter()
            parsed = parse(self._fn, overrides, self.options, ctx)
            timings["parse"] = time.perf_counter() - t
        native = not (self.options.parallel or self.options.gpu)  # cacheable as kernel.so
        shared_cache.count("compiles")
        protocols = {s.name: contributed[s.name] for s in self.specs if s.kind == "protocol"}
        compiled = compile_parsed(parsed, self.specs, constexprs, self.options, timings, ctx,
                                  object_dump=disk_key is not None and native,
                                  protocols=protocols)
        self._with_plans(compiled, contributed)
        timings["total"] = time.perf_counter() - start
        self.timings = timings
        log.info("compiled %s%s in %.1f ms (%s)%s", self.name, _describe_key(key),
                 timings["total"] * 1e3,
                 ", ".join(f"{k} {v * 1e3:.1f}" for k, v in timings.items() if k != "total"),
                 f" key {disk_key[:12]}" if disk_key else " (not cached on disk)")
        if disk_key is not None:  # written in the background: the first call does not wait
            cache.store_later(disk_key, compiled.abi, compiled.artifacts.dsl,
                              compiled.artifacts.lowered,
                              _entry_meta(),
                              dump_object=compiled.keepalive[-1].dump_to_object_file if native else None,
                              extra=_kernel_binaries(compiled))
        return compiled

    def _with_plans(self, compiled: CompiledFunction, contributed: dict[str, Any]) -> CompiledFunction:
        """Attach the slot plan of each protocol parameter (its ``__c_abi_spec__``, read once)."""
        params = {p.name: p for p in compiled.abi.params}
        for spec in self.specs:
            if spec.kind == "protocol":
                compiled.slot_plans[spec.name] = SlotPlan.of(
                    params[spec.name], contributed[spec.name], self.name)
        return compiled

    def _from_disk(self, disk_key: str, overrides: dict[str, Any],
                   contributed: dict[str, Any]) -> CompiledFunction | None:
        """The verified entry of the disk cache, else of the shared cache, loaded, with its
        slot plans; None (and a disk entry removed) when it is missing, invalid, not this
        function's ABI (nor that of its protocol arguments' ``__c_abi_spec__``), or fails
        to load."""
        hit = cache.load(disk_key) if cache.enabled() else None
        if hit is not None:
            shared_cache.count("disk_hits")
        else:
            hit = shared_cache.fetch(disk_key)
            if hit is None:
                return None
            compiled = self._load_hit(disk_key, hit, overrides, contributed)
            if compiled is not None:
                compiled.source = "shared-cache"
            return compiled
        return self._load_hit(disk_key, hit, overrides, contributed)

    def _load_hit(self, disk_key: str, hit: cache.Hit, overrides: dict[str, Any],
                  contributed: dict[str, Any]) -> CompiledFunction | None:
        """A verified entry made callable (None: it does not describe this function or
        does not load)."""
        problem = abi_mismatch(hit.abi, self.name, self.specs, overrides)
        if problem is not None:
            cache.discard(disk_key, f"abi.json does not describe {self.name}: {problem}")
            return None
        if hit.lowered_text is None:  # IR from an unsigned shared cache: compiled here
            return self._from_shared_ir(disk_key, hit, contributed)
        errors = []
        if hit.library is not None:
            try:
                return self._with_plans(load_shared(hit.abi, hit.dsl_text, hit.lowered_text,
                                                    hit.library, self.options), contributed)
            except Exception as err:  # e.g. memfds not executable here: use the lowered IR
                errors.append(f"kernel.so: {err}")
        try:
            return self._with_plans(load_lowered(hit.abi, hit.dsl_text, hit.lowered_text,
                                                 self.options), contributed)
        except Exception as err:  # verified but unloadable (or another ABI): recompile
            errors.append(f"lowered.mlir: {err}")
        cache.discard(disk_key, "load failed: " + "; ".join(errors))
        return None

    def _from_shared_ir(self, disk_key: str, hit: cache.Hit,
                        contributed: dict[str, Any]) -> CompiledFunction | None:
        """Compile the dsl IR of an unsigned shared-cache entry (None when it does not
        compile: the function is then compiled from its source); stored on disk only."""
        native = not (self.options.parallel or self.options.gpu)
        shared_cache.count("remote_ir_compiles")
        try:
            compiled = load_dsl(hit.abi, hit.dsl_text, self.options, object_dump=native)
        except Exception as err:
            log.warning("dsl: the shared cache's IR for %s does not compile (%s); compiling "
                        "from source", self.name, str(err)[:200])
            return None
        if cache.enabled():
            cache.store_later(disk_key, compiled.abi, hit.dsl_text, compiled.artifacts.lowered,
                              _entry_meta(),
                              dump_object=compiled.keepalive[-1].dump_to_object_file
                              if native else None, publish=False)
        return self._with_plans(compiled, contributed)

    def lower(self, *args: Any, backend: str | None = None, **kwargs: Any) -> str:
        """The lowered (LLVM dialect) IR for these example arguments, without JIT or a GPU.

        ``backend`` overrides the function's (``"nvptx"``: kernels embedded as PTX).
        """
        bound = self._bind(args, kwargs)
        overrides = self._overrides(self._spec_key(bound)[1])[0] if self._specializing else {}
        options = self.options if backend is None else self.options.updated(backend=backend)
        parsed = self._parsed
        if parsed is None:
            parsed = parse(self._fn, overrides, options, mlir_context())
        return str(lower_only(parsed, options))

    def ptx(self, *args: Any, **kwargs: Any) -> str:
        """The PTX of the kernels this function launches (the NVPTX backend), for example
        arguments; needs no GPU. ``pipeline_options`` of the function (e.g. ``chip``) apply."""
        return ptx_of_lowered(self.lower(*args, backend="nvptx", **kwargs))

    def compile(self, *args: Any, **kwargs: Any) -> CompiledFunction:
        """The CompiledFunction for these (example) arguments."""
        return self.specialization(self._bind(args, kwargs))

    def cache_info(self) -> dict[str, int]:
        """How many specializations are compiled (``{"specializations": n}``)."""
        return {"specializations": len(self._cache)}


_MISSING: Any = object()
_NDARRAY: Any = np.ndarray


class _ProgramEntry:
    """A program's entry function seen as a parsed function over the whole program module."""

    def __init__(self, program: Any, entry: str) -> None:
        fn = program.get_function(entry)
        self.name, self.signature, self.module = fn.name, fn.signature, program.module
        self.error_from_mlir = program.error_from_mlir


def _parsed_entry(target: Any, entry: str | None) -> Any:
    """The parsed function behind a ``@pl.function`` / ``@pl.program`` object, else None."""
    if hasattr(target, "get_function") and hasattr(target, "module"):
        if entry is None:
            raise TypeError(f"jit of program {target.name}: give the entry function, "
                            f"jit(program, entry=...); it has: {', '.join(target.functions)}")
        return _ProgramEntry(target, entry)
    if hasattr(target, "signature") and hasattr(target, "module") and hasattr(target, "func_op"):
        if entry not in (None, target.name):
            raise TypeError(f"jit: function {target.name} has no entry {entry!r}")
        return target
    if entry is not None:
        raise TypeError("jit: entry= applies to @pl.program objects only")
    return None


def _shape_of(value: Any, spec: ParamSpec, name: str) -> tuple[int, ...]:
    array = _as_buffer(value, name, spec.name)
    shape = getattr(array, "shape", None)
    dtype = getattr(array, "dtype", None)
    if not isinstance(shape, tuple) or dtype is None or not shape:
        got = "a 0-d array" if shape == () else type(value).__name__
        raise TypeError(f"{name}(): argument '{spec.name}' expects a {spec.annotation.dtype.numpy_name} "
                        f"array, got {got}")
    want = spec.annotation.dtype.numpy_name
    if str(dtype) not in (want, spec.annotation.dtype.storage):  # bfloat16: its uint16 bits
        raise TypeError(f"{name}(): argument '{spec.name}' expects element type {want}, got {dtype}")
    return tuple(int(d) for d in shape)


def _as_buffer(value: Any, function: str, param: str | None = None) -> Any:
    """What the C dispatcher reads for an array or number argument: numpy arrays and
    numbers as they are; anything else through ``dsl_core.JitArgumentRegistry`` when its
    JitArgument is one ``NativeSlot`` (a CPU DLPack tensor: its numpy view; a device
    array: itself; a user's registered array type: its array), else as it is for the
    dispatcher to explain (TypeError naming the function and the parameter, or
    ``out=``, when an adapter fails)."""
    if type(value) is _NDARRAY or isinstance(value, _PASSED):
        return value
    import dsl_core as dc
    from dsl_core.abi import NativeSlot

    reg = dc.JitArgumentRegistry.for_value(value)
    if reg is None:
        return value
    try:
        argument = reg.adapter(value)
        entries = dc.c_abi_spec(argument)
        if len(entries) != 1 or not isinstance(entries[0], NativeSlot):
            return value  # not one array or number: the dispatcher explains
        return entries[0].value_of(argument)
    except Exception as err:  # a user's adapter or hook
        where = f"{function}(): " + (f"argument '{param}'" if param else "out=")
        raise TypeError(f"{where}: {err}" if isinstance(err, TypeError) else
                        f"{where}: the {type(value).__name__} adapter of "
                        f"JitArgumentRegistry failed: {type(err).__name__}: {err}") from None


_PASSED = (int, float, np.generic, np.ndarray, type(None))


def _describe_key(key: tuple[Any, ...]) -> str:
    """`` [n=(4, 8), BLOCK=128]``: what a specialization was specialized on."""
    if not key:
        return ""
    parts = [f"{item[0]}={item[-1] if len(item) == 2 else item[2]}" for item in key]
    return f" [{', '.join(parts)}]"


def _kernel_binaries(compiled: CompiledFunction) -> dict[str, bytes]:
    """The PTX of the kernels a GPU specialization launches (``kernels.ptx`` in the cache)."""
    if "gpu.binary" not in compiled.artifacts.lowered:
        return {}
    return {"kernels.ptx": compiled.ptx().encode()}


def _entry_meta() -> dict[str, Any]:
    """What a disk-cache manifest records beside the files: the versions compiled with."""
    return {"versions": dict(keys.component_versions()),
            "extensions": dict(keys.extension_versions())}


def implementation(obj: Any) -> JitFunction[..., Any] | None:
    """The JitFunction behind a @jit object (or the object itself), else None."""
    impl = getattr(obj, "impl", obj) if type(obj).__name__ == "Dispatcher" else obj
    return impl if isinstance(impl, JitFunction) else None


@overload
def jit(fn: object, *, entry: str, options: CompileOptions | None = None, cache: bool = True,
        **option_fields: Any) -> JitFunction[..., Any]: ...


@overload
def jit(fn: Callable[P, R], *, options: CompileOptions | None = None, cache: bool = True,
        **option_fields: Any) -> JitFunction[P, R]: ...


@overload
def jit(fn: None = None, *, options: CompileOptions | None = None, cache: bool = True,
        **option_fields: Any) -> Callable[[Callable[P, R]], JitFunction[P, R]]: ...


def jit(fn: Any = None, *, options: CompileOptions | None = None, entry: str | None = None,
        cache: bool = True, **option_fields: Any) -> Any:
    """Decorator: ``@jit``, ``@jit(opt_level=2, pipeline_options={...})``, or
    ``jit(program, entry="main")`` for a ``@pl.program`` (``@pl.function`` objects
    work directly).

    ``cache=False`` keeps this function's compiled code out of the disk cache (neither
    read nor written; it is still compiled once per process and specialization).

    ``backend="interpret"`` (or ``DSL_INTERPRET=1`` in the environment when decorating)
    returns a ``dsl_parser.interpreter.Interpreted`` instead: the function runs in
    Python/numpy with the DSL's semantics, no compile (print and pdb work inside).

    Returns a ``dsl_mlir.dispatch.Dispatcher``: a C callable that sends
    ``f(*args, out=...)`` straight to the compiled kernel once there is a single
    specialization, and everything else to the JitFunction (whose attributes,
    ``compile``, ``timings``, ``cache_info``..., it exposes). It carries the function's
    ``__name__``, ``__qualname__``, ``__doc__``, ``__module__`` and ``__wrapped__``, so
    ``inspect.signature`` and ``help`` show the Python function's. Type checkers see a
    ``JitFunction[P, R]`` with the decorated function's parameters ``P`` and result ``R``
    (``jit(program, entry=...)``: ``JitFunction[..., Any]``).
    """
    interpret = knobs.read().interpret
    if option_fields.get("backend") == "interpret":
        interpret = True
        del option_fields["backend"]
    if option_fields:
        options = (options or CompileOptions()).updated(**option_fields)

    def wrap(f: Any) -> Any:
        if interpret:  # backend="interpret" / DSL_INTERPRET=1: the reference interpreter
            from dsl_parser.interpreter import Interpreted

            return Interpreted(f, entry)
        if implementation(f) is not None:
            return f
        from dsl_mlir.dispatch import Dispatcher

        copyreg.pickle(Dispatcher, pickle_dispatcher)
        impl: JitFunction[..., Any] = JitFunction(f, options, entry, cache=cache)
        dispatcher = Dispatcher(impl)
        if impl._parsed is None:
            functools.update_wrapper(dispatcher, f)
        else:
            _describe_entry(dispatcher, f, entry)
            dispatcher.__name__ = dispatcher.__qualname__ = impl.name
        impl._on_single = dispatcher._set_kernel
        return dispatcher

    return wrap if fn is None else wrap(fn)


def _describe_entry(dispatcher: Any, target: Any, entry: str | None) -> None:
    """Name, doc, module and signature of a ``@pl.function``/``@pl.program`` entry's
    Python source on its dispatcher (for ``help``, ``inspect.signature``, IDEs)."""
    python = getattr(target, "python", None)
    if entry is not None and isinstance(python, type):  # a program's method: no ``self``
        method = getattr(python, entry, None)
        if not callable(method):
            return
        dispatcher.__doc__ = getattr(method, "__doc__", None)
        dispatcher.__module__ = getattr(method, "__module__", dispatcher.__module__)
        try:
            sig = inspect.signature(method)
        except (TypeError, ValueError):
            return
        dispatcher.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])
    elif callable(python):
        functools.update_wrapper(dispatcher, python)


def compile(fn: Any, *example_args: Any, **kwargs: Any) -> CompiledFunction:
    """Compile ``fn`` (a function or @jit object) for example arguments; returns the prepared call."""
    jf = implementation(fn) or JitFunction(fn)
    return jf.compile(*example_args, **kwargs)


__all__ = ["CompileError", "JitFunction", "compile", "jit"]
