"""Contexts, parsing, lowering pipelines and JIT compilation."""

from __future__ import annotations

import hashlib
import os
import re
import threading
import weakref
from collections.abc import Mapping, Sequence
from typing import Literal

from . import _shared
from ._compiled import (
    ASYNC_RUNTIME,
    ERROR_HOOK_SYMBOL,
    GPU_RUNTIME,
    install_error_hook,
)
from ._errors import (
    Diagnostic,
    MLIRDiagnosticError,
    PluginError,
    capture_stderr,
    from_mlir_error,
)
from ._lib import (
    create_engine,
    emit_assembly,
    execution_engine,
    get_dialect_registry,
    ir,
    load_plugin_library,
    lookup_symbol,
    passmanager,
    translate_to_llvm_ir,
)

OptionValue = bool | int | str

#: Named pipelines registered by dsl-mlir (see docs/mlir.md).
_PIPELINES: dict[str, str] = {
    "dsl-to-llvm-cpu": "dsl, linalg, tensor, arith -> bufferized loops -> LLVM dialect with C interfaces",
    "dsl-to-llvm-nvptx": "host functions with gpu.launch_func + gpu.module kernels -> LLVM dialect "
                         "host code calling the mgpu* runtime, kernels embedded as PTX",
}


def top_level_operations(module: ir.Module) -> list[ir.Operation]:
    """The operations of ``module``'s body, as plain operations: iterating
    ``module.body.operations`` makes op views, which imports each dialect's generated
    Python module (the LLVM dialect's takes tens of milliseconds on a first compile)."""
    found: list[ir.Operation] = []
    entered: list[bool] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if not entered:  # the module itself (pre-order: visited first)
            entered.append(True)
            return ir.WalkResult.ADVANCE
        found.append(op)
        return ir.WalkResult.SKIP

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _has_error_hook(module: ir.Module) -> bool:
    """Whether ``module`` (LLVM dialect) defines the error-hook global as a writable i64."""
    for operation in top_level_operations(module):
        if operation.name != "llvm.mlir.global":
            continue
        attrs = operation.attributes
        if "sym_name" not in attrs or ir.StringAttr(attrs["sym_name"]).value != ERROR_HOOK_SYMBOL:
            continue
        if "constant" in attrs or "thread_local_" in attrs or "value" not in attrs:
            return False
        global_type = ir.TypeAttr(attrs["global_type"]).value
        space = attrs.get("addr_space")
        return str(global_type) == "i64" and (space is None or ir.IntegerAttr(space).value == 0)
    return False


def pipeline_names() -> list[str]:
    """Names of the lowering pipelines this package registers."""
    return sorted(_PIPELINES)


#: Contexts made by context(): load_plugin adds a plugin's dialects to those still alive.
_CONTEXTS: weakref.WeakSet[ir.Context] = weakref.WeakSet()


#: The ``multithreading`` setting of the contexts context() made whose setting is not
#: MLIR's default (on): "auto" ones are single-threaded, except while ``lower`` runs a
#: module of at least ``THREADED_LOWERING_MIN_OPS`` top-level operations.
_THREADING: weakref.WeakKeyDictionary[ir.Context, Literal[False, "auto"]] = weakref.WeakKeyDictionary()

#: The size (top-level operations, mostly functions) from which a "auto" context lowers
#: on its threads. Below it handing each function's passes to a thread pool costs more
#: than it saves: a 3-op kernel lowers in ~21 ms on one thread and ~28 ms with the pool
#: (2 cores); 64 functions take 0.94 s on one thread and 0.75 s with the pool.
THREADED_LOWERING_MIN_OPS = 32


def context(multithreading: bool | Literal["auto"] = True) -> ir.Context:
    """A new context with the toolkit's dialects registered (and those of loaded plugins).

    ``multithreading``: run passes over functions on the context's thread pool (MLIR's
    default); ``False``: on the calling thread; ``"auto"``: on the calling thread, except
    while ``lower`` runs a module with many functions (``THREADED_LOWERING_MIN_OPS``),
    the runtime's choice: small kernels lower faster without the pool. Any other value
    is a ValueError.
    """
    if not (isinstance(multithreading, bool) or multithreading == "auto"):
        raise ValueError(f"dsl_mlir.context: multithreading must be True, False or 'auto', "
                         f"not {multithreading!r}")
    ctx = ir.Context()
    _CONTEXTS.add(ctx)
    if multithreading is not True:
        ctx.enable_multithreading(False)
        _THREADING[ctx] = multithreading
    return ctx


def shared_context() -> ir.Context:
    """This thread's long-lived context (``context(multithreading="auto")``), for
    compilers that build and lower many small modules: the same context on every call
    from one thread, a new one after ``dsl_mlir._shared.SHARED_CONTEXT_USES`` calls (a
    context keeps every type and attribute it made). ``lower`` keeps the pass managers
    it parses on it, so a module after the first pays neither a new context nor the
    initialization of the passes. The runtime compiles on it.

    Use it from its own thread only: the context does not lock (modules made on it may
    be read elsewhere while this thread is not compiling). Plugins loaded later are
    added to it as to every context ``context()`` made.
    """
    return _shared.shared_context(lambda: context(multithreading="auto"))


def _lowering_threads(module: ir.Module, ctx: ir.Context) -> bool | None:
    """Whether ``lower`` switches the pool of an "auto" context on for ``module``
    (``None``: not an "auto" context, left as it is)."""
    if _THREADING.get(ctx) != "auto":
        return None
    return len(module.body.operations) >= THREADED_LOWERING_MIN_OPS


class PluginInfo:
    """A plugin ``load_plugin`` loaded.

    Immutable (assigning an attribute raises ``dataclasses.FrozenInstanceError``); compares,
    hashes and prints by its fields, as the frozen dataclass it was (a plain class: a
    dataclass costs most of a millisecond to create at import)."""

    __slots__ = ("dialects", "name", "passes", "path", "version")
    __match_args__ = ("path", "name", "version", "dialects", "passes")

    path: str
    #: The name and version the plugin reports in its entry point.
    name: str
    version: str
    #: It exports ``mlirGetDialectPluginInfo`` / ``mlirGetPassPluginInfo``.
    dialects: bool
    passes: bool

    def __init__(self, path: str, name: str, version: str, dialects: bool, passes: bool) -> None:
        init = object.__setattr__
        init(self, "path", path)
        init(self, "name", name)
        init(self, "version", version)
        init(self, "dialects", dialects)
        init(self, "passes", passes)

    def _fields(self) -> tuple[str, str, str, bool, bool]:
        return (self.path, self.name, self.version, self.dialects, self.passes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PluginInfo) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"{type(self).__qualname__}(path={self.path!r}, name={self.name!r}, "
                f"version={self.version!r}, dialects={self.dialects!r}, passes={self.passes!r})")

    def __setattr__(self, name: str, value: object) -> None:
        from dataclasses import FrozenInstanceError  # imported only for this error

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[type[PluginInfo], tuple[str, str, str, bool, bool]]:
        # pickle and copy rebuild it through __init__ (__setattr__ refuses slot state)
        return (type(self), self._fields())


_PLUGINS: dict[str, PluginInfo] = {}
_PLUGINS_LOCK = threading.Lock()


def load_plugin(path: str | os.PathLike[str]) -> PluginInfo:
    """Load a C++ dialect/pass plugin into this process (docs/extending.md).

    ``path`` is a shared library built against this dsl-mlir with
    ``find_package(DslMLIR)`` that exports ``mlirGetDialectPluginInfo`` and/or
    ``mlirGetPassPluginInfo``. Its dialects are registered in every context
    created afterwards (``context()``, ``ir.Context()``) and added to the live
    contexts ``context()`` made; its passes join the pass registry, so
    ``lower(module, "my-pass,dsl-to-llvm-cpu")`` finds them. Loading the same
    library again returns its info and changes nothing.

    Raises PluginError (missing file, not a plugin, built against another
    dsl-mlir release, a symbol dsl-mlir does not export, ...). A library that
    was opened stays loaded even when refused.
    """
    full = os.path.abspath(os.fspath(path))
    with _PLUGINS_LOCK:
        error, name, version, dialects, passes, _already = load_plugin_library(full)
        if error is not None:
            raise PluginError(error)
        info = PluginInfo(full, name or "", version or "", dialects, passes)
        if dialects:
            registry = get_dialect_registry()
            for ctx in list(_CONTEXTS):
                ctx.append_dialect_registry(registry)
                ctx.load_all_available_dialects()
        _PLUGINS.setdefault(full, info)
        return info


def loaded_plugins() -> list[PluginInfo]:
    """The plugins ``load_plugin`` loaded in this process, in load order."""
    with _PLUGINS_LOCK:
        return list(_PLUGINS.values())


#: The deepest nesting of brackets (``( [ { <``) ``parse_module`` hands to MLIR's parser,
#: which recurses once per level: 100,000 nested ``[`` overflow the stack. Real IR stays
#: far below (a region, an attribute or a type per level).
MAX_NESTING = 512

_STRINGS_AND_COMMENTS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*')
_NOT_BRACKET_BYTES = bytes(sorted(set(range(256)) - set(b"()[]{}<>")))
_ONE_KIND = str.maketrans("[{<]}>", "((()))")
_BRACKETS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->|>=|[\[\](){}<>]')


def _nesting_bound(text: str) -> int:
    """An upper bound of the bracket nesting of ``text`` (what the exact scan of
    ``_check_nesting`` finds), at C speed: strings, comments, ``->`` and ``>=`` become
    spaces, every other byte goes, then each pass deletes the innermost pairs, one level."""
    if '"' in text or "/" in text:
        text = _STRINGS_AND_COMMENTS.sub(" ", text)
    text = text.replace("->", " ").replace(">=", " ")
    brackets = text.encode("utf-8", "replace").translate(None, _NOT_BRACKET_BYTES).decode()
    brackets = brackets.translate(_ONE_KIND)
    if "(" * (MAX_NESTING + 1) in brackets:
        return MAX_NESTING + 1  # the exact scan decides
    levels = 0
    while "()" in brackets and levels <= MAX_NESTING:
        brackets = brackets.replace("()", "")
        levels += 1
    return levels + brackets.count("(")  # what stays unclosed nests too


def _check_nesting(text: str) -> None:
    """Raise MLIRDiagnosticError where ``text`` nests brackets deeper than MAX_NESTING."""
    if sum(text.count(c) for c in "([{<") <= MAX_NESTING or _nesting_bound(text) <= MAX_NESTING:
        return
    depth = 0
    for match in _BRACKETS.finditer(text):  # the slow scan, for the error's location
        token = match.group()
        if token in "([{<":
            depth += 1
            if depth > MAX_NESTING:
                line = text.count("\n", 0, match.start()) + 1
                column = match.start() - text.rfind("\n", 0, match.start())
                message = (f"brackets nested deeper than {MAX_NESTING} levels; parse_module refuses the "
                           "text (MLIR's parser recurses once per level)")
                diag = Diagnostic("error", message, f'loc("-":{line}:{column})', "-", line, column)
                raise MLIRDiagnosticError("could not parse MLIR module", [diag])
        elif token in ")]}>":
            depth = max(0, depth - 1)


def parse_module(text: str, ctx: ir.Context | None = None) -> ir.Module:
    """Parse and verify MLIR text; raises MLIRDiagnosticError on invalid IR.

    Text that nests brackets deeper than ``MAX_NESTING`` levels is refused before MLIR
    parses it.
    """
    _check_nesting(text)
    try:
        return ir.Module.parse(text, ctx) if ctx is not None else ir.Module.parse(text)
    except ir.MLIRError as err:
        raise from_mlir_error("could not parse MLIR module", err) from None


def verify(module: ir.Module | ir.Operation) -> None:
    """Run the verifier; raises MLIRDiagnosticError with the failing ops' diagnostics."""
    op = module.operation if isinstance(module, ir.Module) else module
    try:
        op.verify()
    except ir.MLIRError as err:
        raise from_mlir_error("MLIR verification failed", err) from None


_OPTION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_.,+-]*")


def _option_error(message: str) -> MLIRDiagnosticError:
    return MLIRDiagnosticError("invalid pass pipeline options", [Diagnostic("error", message, "pass options")])


def _format_value(key: str, value: OptionValue) -> str:
    """One value as MLIR's option parser reads it back whole: a value with spaces or
    braces is quoted, so that it cannot become a second option (``"sm_80 opt-level=9"``)."""
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    if _PLAIN_VALUE.fullmatch(text):
        return text
    if "{" in text or "}" in text:  # the pipeline parser matches braces even inside quotes
        raise _option_error(f"the value of option {key} holds a brace, which a pass pipeline cannot carry: "
                            f"{text!r}")
    for quote in ('"', "'"):
        if quote not in text:
            return f"{quote}{text}{quote}"
    raise _option_error(f"the value of option {key} holds both kinds of quotes: {text!r}")


def _format_options(options: Mapping[str, OptionValue] | None) -> str:
    if not options:
        return ""
    parts = []
    for key, value in options.items():
        if not isinstance(key, str) or not _OPTION_NAME.fullmatch(key):
            raise _option_error(f"{key!r} is not an option name (letters, digits, '-', '_', '.')")
        parts.append(f"{key}={_format_value(key, value)}")
    return "{" + " ".join(parts) + "}"


#: What MLIR's pipeline parser puts before each of its messages.
_PIPELINE_ERROR = re.compile(r"^MLIR Textual PassPipeline Parser:(\d+):(\d+): error: ", re.MULTILINE)


def _pipeline_diagnostics(text: str, message: str) -> list[Diagnostic]:
    """The pipeline parser's messages (the dsl pipelines' option checks among them)."""
    found = list(_PIPELINE_ERROR.finditer(message))
    if not found:  # an option error: its message, then "failed to add `<pass>` ..."
        lines = [line.strip() for line in message.splitlines() if line.strip()] or ["invalid pass pipeline"]
        notes = tuple(Diagnostic("note", line, "pass pipeline") for line in lines[1:])
        return [Diagnostic("error", lines[0], f"pass pipeline {text!r}", notes=notes)]
    diags = []
    for match, after in zip(found, [*found[1:], None], strict=True):
        body = message[match.end():after.start() if after else len(message)]
        first = body.split("\n", 1)[0].strip()  # then the pipeline text and a caret
        diags.append(Diagnostic("error", first, f"pass pipeline {text!r}, column {match.group(2)}"))
    return diags


def _pipeline_text(pipeline: str, options: Mapping[str, OptionValue] | None) -> str:
    # dsl-check-lowerable first: types and sizes no pass can handle are refused before any
    # pass (of ours or upstream's, LLVM being built with assertions) meets them.
    return f"builtin.module(dsl-check-lowerable,{pipeline}{_format_options(options)})"


def _pass_manager(
    pipeline: str, options: Mapping[str, OptionValue] | None, ctx: ir.Context
) -> passmanager.PassManager:
    text = _pipeline_text(pipeline, options)
    try:
        return passmanager.PassManager.parse(text, ctx)
    except (ValueError, ir.MLIRError) as err:
        raise MLIRDiagnosticError(f"invalid pass pipeline {text!r}",
                                  _pipeline_diagnostics(text, str(err))) from None


def lower(
    module: ir.Module,
    pipeline: str = "dsl-to-llvm-cpu",
    options: Mapping[str, OptionValue] | None = None,
    *,
    dump_dir: str | os.PathLike[str] | None = None,
    inplace: bool = False,
) -> ir.Module:
    """Run a pass pipeline over ``module`` and return the lowered module.

    ``pipeline`` is a registered pipeline name or any textual pass list
    (``"canonicalize,cse"``); ``options`` become ``{key=value ...}``.
    ``dump_dir`` writes the IR after every pass into a folder tree (one file per
    pass, numbered). The input is verified first and left untouched unless
    ``inplace``. Failures raise MLIRDiagnosticError with MLIR's diagnostics. On a
    context made by ``context(multithreading="auto")`` the passes run on the context's
    thread pool only for modules of ``THREADED_LOWERING_MIN_OPS`` top-level operations
    or more; ``dump_dir`` runs them on the calling thread.
    """
    verify(module)
    target = module if inplace else _copy(module)
    ctx = module.context
    text = _pipeline_text(pipeline, options)
    # ``dump_dir`` adds IR printing to the manager: never one that is kept.
    pm = (_pass_manager(pipeline, options, ctx) if dump_dir is not None else
          _shared.pass_manager(ctx, text, lambda: _pass_manager(pipeline, options, ctx)))
    # IR printing requires a single-threaded context, set before printing is (MLIR
    # aborts otherwise) and for the whole run.
    threads = False if dump_dir is not None else _lowering_threads(module, ctx)
    if threads is not None:
        ctx.enable_multithreading(threads)
    try:
        if dump_dir is not None:
            os.makedirs(dump_dir, exist_ok=True)
            pm.enable_ir_printing(print_after_all=True, print_module_scope=True,
                                  tree_printing_dir_path=os.fspath(dump_dir))
        pm.run(target.operation)
    except ir.MLIRError as err:
        _shared.forget_pass_manager(ctx, text)
        raise from_mlir_error(f"pipeline {pipeline!r} failed", err) from None
    finally:
        if threads is not None:  # back to the context's own setting
            ctx.enable_multithreading(_THREADING.get(ctx, True) is True)
    _keep_ptx(target)
    return target


#: A folder where every lowering writes the PTX it produced (``<sha256>.ptx``), for test
#: harnesses that check it with ptxas (the repository's conftest.py sets it, so that
#: subprocesses are covered too). Unset: nothing is written.
PTX_DUMP_ENV = "DSL_PTX_DUMP_DIR"


def _keep_ptx(module: ir.Module) -> None:
    folder = os.environ.get(PTX_DUMP_ENV)
    if not folder or "gpu.binary" not in _op_names(module):
        return
    from .gpu import ptx_of

    os.makedirs(folder, exist_ok=True)
    for text in ptx_of(module).values():
        digest = hashlib.sha256(text.encode()).hexdigest()
        path = os.path.join(folder, f"{digest}.ptx")
        if not os.path.exists(path):
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as out:
                out.write(text)
            os.replace(tmp, path)  # atomic: a reader never sees half a file


def _op_names(module: ir.Module) -> set[str]:
    return {op.name for op in top_level_operations(module)}


def _copy(module: ir.Module) -> ir.Module:
    """A deep copy that keeps every location (they point at the user's source)."""
    text = module.operation.get_asm(enable_debug_info=True)
    return ir.Module.parse(text, module.context)


def to_llvm_ir(module: ir.Module) -> str:
    """LLVM IR text of a module lowered to the LLVM dialect (MLIRDiagnosticError when
    it holds ops with no translation, e.g. one not lowered yet)."""
    verify(module)
    try:
        return translate_to_llvm_ir(module)
    except RuntimeError as err:
        raise MLIRDiagnosticError(f"translation to LLVM IR failed: {str(err).strip()}", ()) from None


def to_assembly(module: ir.Module, opt_level: int = 3, *, llvm_passes: str | None = None) -> str:
    """The host assembly (AT&T syntax) of a module lowered to the LLVM dialect, compiled
    as ``jit`` with the same ``opt_level`` and ``llvm_passes`` compiles it: for reading
    what the JIT runs (no engine is made, nothing is linked)."""
    if not 0 <= opt_level <= 3:
        raise ValueError(f"to_assembly: opt_level must be 0..3, got {opt_level}")
    text = to_llvm_ir(module)
    try:
        return emit_assembly(text, llvm_passes or "", opt_level)
    except RuntimeError as err:
        raise MLIRDiagnosticError(f"assembly generation failed: {str(err).strip()}", ()) from None


def jit(
    module: ir.Module, opt_level: int = 3, shared_libs: Sequence[str] = (), *,
    parallel: bool = False, gpu: bool = False, object_dump: bool = False,
    llvm_passes: str | None = None,
) -> execution_engine.ExecutionEngine:
    """Compile an LLVM-dialect module into native code (MLIR ExecutionEngine).

    ``parallel=True`` links the async runtime that code lowered with the
    pipeline option ``parallel=true`` calls; ``gpu=True`` links the GPU runtime
    (``GPU_RUNTIME``) that host code lowered with ``dsl-to-llvm-nvptx`` calls (its
    kernels' module is loaded when the engine is created: check
    ``dsl_mlir.gpu.take_error()`` afterwards); ``llvm_passes`` replaces LLVM's
    default IR pipeline at ``opt_level`` by this new-pass-manager text (code
    generation stays at ``opt_level``; see ``FAST_LLVM_PASSES``); ``object_dump=True`` keeps the
    object code for ``engine.dump_to_object_file(path)``. Look up entry points
    with ``engine.raw_lookup("_mlir_ciface_<name>")``.

    The module's run-time checks report through the error hook installed here:
    ``engine.invoke(name, ...)`` raises their IndexError/ValueError after the call;
    code calling the entries directly calls ``raise_pending_error()`` afterwards.
    """
    verify(module)
    if not 0 <= opt_level <= 3:
        raise ValueError(f"jit: opt_level must be 0..3, got {opt_level}")
    libs = [*shared_libs, *([ASYNC_RUNTIME] if parallel else []), *([GPU_RUNTIME] if gpu else [])]
    try:
        # "" is LLVM's default pipeline at opt_level, as upstream's ExecutionEngine(...)
        # runs it; through dslExecutionEngineCreate, MLIR's diagnostics join the error.
        engine = create_engine(module, llvm_passes or "", opt_level, libs, object_dump)
        if _has_error_hook(module):
            install_error_hook(lookup_symbol(engine, ERROR_HOOK_SYMBOL))
        if gpu:
            engine.initialize()  # global constructors: load the kernels' module
    except (RuntimeError, ir.MLIRError) as err:
        raise MLIRDiagnosticError(f"JIT compilation failed: {err}", ()) from None
    _materialize(engine, module)
    return engine


def _entry_symbol(module: ir.Module) -> str | None:
    """A public function the engine defines (its lookup compiles and links the module):
    a C-interface wrapper (``_mlir_ciface_*`` or its packed ``_mlir__mlir_ciface_*``,
    public by construction) when there is one, so that no LLVM-dialect attribute is
    read (reading ``linkage`` imports the LLVM dialect's Python module, tens of
    milliseconds on a first compile)."""
    defined = [op for op in top_level_operations(module)
               if op.name == "llvm.func" and op.regions[0].blocks]
    names = [str(ir.StringAttr(op.attributes["sym_name"]).value) for op in defined]
    wrapper = next((n for n in names if n.startswith("_mlir__mlir_ciface_")),
                   next((n for n in names if n.startswith("_mlir_ciface_")), None))
    if wrapper is not None:
        return wrapper
    for op, name in zip(defined, names, strict=True):
        linkage = str(op.attributes["linkage"]) if "linkage" in op.attributes else ""
        if "internal" not in linkage and "private" not in linkage:
            return name
    return None


def _materialize(engine: execution_engine.ExecutionEngine, module: ir.Module) -> None:
    """Compile and link now, so that a failure (e.g. a symbol the code needs that this
    process lacks) is an exception carrying what LLVM printed, not text on stderr
    followed by an empty lookup (or an abort when the object code is dumped)."""
    name = _entry_symbol(module)
    if name is None:
        return
    with capture_stderr() as printed:
        found = engine.raw_lookup(name)
    if not found:
        detail = printed[0].strip() or f"symbol {name} was not produced"
        raise MLIRDiagnosticError(f"JIT compilation failed: {detail}", ())
