"""The ``dsl`` command: compile, run, export, cache, doctor."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dsl_core import dtypes

from . import cache, keys
from ._compat import check_siblings
from ._version import __version__
from .compiled import numpy_dtype

#: short dtype spelling -> the numpy dtype holding its values (dsl-core's table)
_DTYPES = {d.short: d.storage for d in dtypes.ALL}


class UsageError(Exception):
    """Bad command-line input (exit code 2)."""


def load_target(spec: str) -> Any:
    """``FILE::FUNC`` -> a JitFunction."""
    from .jit import JitFunction, implementation

    if "::" not in spec:
        raise UsageError(f"expected FILE::FUNC, got {spec!r}")
    file, func = spec.rsplit("::", 1)
    path = Path(file)
    if not path.is_file():
        raise UsageError(f"no such file: {file}")
    mod_spec = importlib.util.spec_from_file_location(f"_dsl_cli_{path.stem}", path)
    if mod_spec is None or mod_spec.loader is None:
        raise UsageError(f"{file} is not a Python file: FILE::FUNC names a function of a .py "
                         "file (for MLIR text use dsl-opt, e.g. dsl-opt k.mlir --dsl-to-llvm-cpu)")
    module = importlib.util.module_from_spec(mod_spec)
    sys.modules[mod_spec.name] = module
    with contextlib.redirect_stdout(sys.stderr):  # the file's prints never mix into emitted IR
        mod_spec.loader.exec_module(module)
    target = getattr(module, func, None)
    if target is None:
        raise UsageError(f"{file} defines no {func!r}")
    return implementation(target) or JitFunction(target)


def parse_arg_type(text: str) -> Any:
    """``f32[8,16]`` -> zero array, ``i64`` / ``f32`` -> zero scalar, ``=3`` -> the constant 3."""
    text = text.strip()
    if text == "stream":
        return None  # the default stream
    if text.startswith("="):
        literal = text[1:]
        for convert in (int, float):
            try:
                return convert(literal)
            except ValueError:
                pass
        if literal in ("True", "False"):
            return literal == "True"
        raise UsageError(f"bad constant {text!r}")
    m = re.fullmatch(r"(\w+)(?:\[([\d,\s]*)\])?", text)
    if not m or m.group(1) not in _DTYPES:
        raise UsageError(f"bad argument type {text!r}; expected e.g. f32[1024,64], i64 or =3")
    dtype = np.dtype(_DTYPES[m.group(1)])
    if m.group(2) is None:
        return dtype.type(0).item()
    shape = [int(s) for s in m.group(2).split(",") if s.strip()]
    rng = np.random.default_rng(0)
    return rng.standard_normal(shape).astype(dtype) if dtype.kind == "f" else np.zeros(shape, dtype)


def _split_types(text: str | None) -> list[str]:
    return re.findall(r"[^,\[]+(?:\[[^\]]*\])?", text or "")


def example_args(jf: Any, arg_types: str | None) -> list[Any]:
    given = [parse_arg_type(t) for t in _split_types(arg_types) if t.strip()]
    if given and len(given) != len(jf.specs):
        raise UsageError(f"{jf.name} takes {len(jf.specs)} arguments, --arg-types gave {len(given)}")
    if not given:
        if any(s.specializes for s in jf.specs):
            raise UsageError(f"{jf.name} has specialized parameters: give --arg-types")
        given = [None] * len(jf.specs)
    return given


def _print_timings(timings: dict[str, float]) -> None:
    for phase, seconds in timings.items():
        print(f"{phase:>8}: {seconds * 1e3:8.2f} ms", file=sys.stderr)


def cmd_compile(ns: argparse.Namespace) -> int:
    jf = load_target(ns.target)
    if ns.chip:
        jf.options = jf.options.updated(
            pipeline_options={**jf.options.pipeline_options, "chip": ns.chip})
    if ns.emit == "ptx":  # lowered for the NVPTX backend; needs no GPU
        start = time.perf_counter()
        print(jf.ptx(*example_args(jf, ns.arg_types)))
        if ns.timings:
            _print_timings({"total": time.perf_counter() - start})
        return 0
    compiled = jf.specialization(example_args(jf, ns.arg_types))
    if ns.emit == "abi":
        print(compiled.abi.model_dump_json(indent=2))
    else:
        print(compiled.mlir(ns.emit))
    if ns.timings:
        _print_timings(jf.timings or compiled.timings)
    return 0


def cmd_run(ns: argparse.Namespace) -> int:
    jf = load_target(ns.target)
    args = example_args(jf, ns.arg_types)
    if not ns.arg_types:
        args = [_from_annotation(s) for s in jf.specs]
    compiled = jf.specialization(args)
    runtime = [a for s, a in zip(jf.specs, args) if s.kind != "constexpr"]
    result = compiled(*runtime)
    start = time.perf_counter()
    for _ in range(ns.repeat):
        compiled(*runtime)
    per_call = (time.perf_counter() - start) / max(ns.repeat, 1)
    if result is None:
        print("no results (the function writes its outputs in place)")
    for i, r in enumerate(() if result is None else result if isinstance(result, tuple) else (result,)):
        flat = np.asarray(r).ravel()
        print(f"result {i}: shape={tuple(np.shape(r))} dtype={np.asarray(r).dtype} "
              f"sum={float(flat.sum(dtype=np.float64)):.6g} head={flat[:4].tolist()}")
    print(f"{per_call * 1e6:.2f} us per call ({ns.repeat} calls)")
    if ns.timings:
        _print_timings(jf.timings or compiled.timings)
    return 0


def _from_annotation(spec: Any) -> Any:
    ann = spec.annotation
    if spec.kind == "tensor":
        if ann.shape is None or not all(isinstance(d, int) for d in ann.shape):
            raise UsageError(f"parameter '{spec.name}' has no static shape: give --arg-types")
        dtype = numpy_dtype(ann.dtype.numpy_name)
        return np.random.default_rng(0).standard_normal(ann.shape).astype(dtype)
    if spec.kind == "scalar":
        return 1.0 if ann.dtype.is_float else 1
    if spec.kind == "stream":
        return None
    raise UsageError(f"parameter '{spec.name}' is a Constexpr: give --arg-types")


def cmd_cache(ns: argparse.Namespace) -> int:
    if ns.function is not None and ns.action != "clear":
        raise UsageError(f"dsl cache {ns.action} takes no function name (only clear does)")
    if ns.action == "ls":
        found = cache.entries()
        if not found:
            print(f"empty ({cache.root()})")
        for e in found:
            print(f"{e.key[:16]}  {e.function:<24} {e.size / 1024:8.1f} KiB  "
                  f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(e.created))}")
    elif ns.action == "clear":
        what = f" of {ns.function}" if ns.function else ""
        print(f"removed {cache.clear(ns.function)} entries{what} from {cache.root()}")
    elif ns.action == "prune":
        try:
            limit = cache.parse_size(ns.max_size) if ns.max_size else cache.max_size()
        except ValueError as err:
            raise UsageError(str(err)) from None
        if limit is None:
            raise UsageError("dsl cache prune needs --max-size SIZE (or DSL_CACHE_MAX_SIZE)")
        removed = cache.prune(limit)
        print(f"removed {len(removed)} entries ({sum(e.size for e in removed) / 1024:.1f} KiB), "
              f"least recently used first; the cache is at most {limit} bytes")
    else:
        entries = cache.entries()
        total = sum(e.size for e in entries)
        print(f"cache dir: {cache.root()}\nenabled:   {cache.enabled()}\nentries:   {len(entries)}\n"
              f"size:      {total / 1024:.1f} KiB")
    return 0


def cmd_doctor(ns: argparse.Namespace) -> int:
    ok = True
    print(f"dsl-runtime {__version__} (python {sys.version.split()[0]}, numpy {np.__version__})")
    try:
        for dist, version in check_siblings().items():
            print(f"  {dist:<11} {version}  ok")
    except ImportError as err:
        ok = False
        print(f"  incompatible: {err}")
        for dist in ("dsl-core", "dsl-parser", "dsl-mlir"):
            print(f"  {dist:<11} {_installed(dist)}")
    try:
        import dsl_mlir
        from dsl_mlir import dsl_opt_path

        print(f"toolchain: MLIR {dsl_mlir.MLIR_VERSION}, pipelines {', '.join(dsl_mlir.pipeline_names())}")
        print(f"  dsl-opt: {dsl_opt_path()}")
    except Exception as err:  # ImportError, a broken native library: reported, not raised
        ok = False
        print(f"toolchain: dsl_mlir failed to import: {type(err).__name__}: {err}")
    try:
        ok = _doctor_extensions() and ok
    except Exception as err:  # a broken extension must not stop the report
        ok = False
        print(f"extensions: could not be listed: {type(err).__name__}: {err}")
    try:
        _doctor_gpu()
    except Exception as err:
        print(f"gpu: could not be queried: {type(err).__name__}: {err}")
    root = cache.root()
    writable = _writable(root)
    print(f"cache: {root} ({'enabled' if cache.enabled() else 'disabled'}, "
          f"{'writable' if writable else 'NOT writable'})")
    from . import shared_cache

    shared, line = shared_cache.check()
    print(f"shared cache: {line}")
    print(f"host target: {keys.host_target()}")
    return 0 if ok and writable and shared else 1


def _installed(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _doctor_gpu() -> None:
    """Whether the NVPTX backend can run here (informational: the CPU backend always can)."""
    try:
        from dsl_mlir import gpu
    except ImportError:
        return
    count = gpu.device_count()
    print(f"gpu: {count} CUDA device(s)" if count else f"gpu: none ({gpu.status()}); "
          "kernels run on the cpu backend")


def _doctor_extensions() -> bool:
    """Print the installed dsl extensions; False when one failed to load."""
    import warnings

    try:
        from dsl_parser import extensions
    except ImportError:
        return False  # already reported as an incompatible sibling
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", extensions.ExtensionWarning)
        active, failed = extensions.active(), extensions.failures()
    print(f"extensions: {len(active)} active" + (f", {len(failed)} FAILED" if failed else ""))
    for name, ext in sorted(active.items()):
        print(f"  {name} {ext.version or '(unversioned)'}: namespaces "
              f"{', '.join(ext.namespaces) or '-'}; ops {', '.join(ext.ops) or '-'}")
    for message in failed.values():
        print(f"  {message}")
    return not failed


def cmd_export(ns: argparse.Namespace) -> int:
    from .aot import export

    jf = load_target(ns.target)
    if ns.backend:
        jf.options = jf.options.updated(backend=ns.backend)
    if ns.chip:
        jf.options = jf.options.updated(
            pipeline_options={**jf.options.pipeline_options, "chip": ns.chip})
    done = export(jf, *example_args(jf, ns.arg_types), path=ns.output, name=ns.name)
    for written in (done.library, done.header, done.abi, done.runtime):
        if written is not None:
            print(written)
    return 0


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".probe"
        probe.write_text("")
        probe.unlink()
        return True
    except OSError:
        return False


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dsl", description="The dsl toolkit's command line.")
    p.add_argument("--version", action="version", version=f"dsl-runtime {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compile", help="compile FILE::FUNC and print its IR")
    c.add_argument("target", help="FILE::FUNC")
    c.add_argument("--emit", choices=["dsl", "lowered", "llvm", "asm", "abi", "ptx"], default="dsl",
                   help="asm: the host assembly the JIT makes (cpu backend); ptx: the kernels the "
                        "function launches, for the nvptx backend (no GPU needed)")
    c.add_argument("--chip", help="GPU architecture for --emit ptx and the nvptx backend (default sm_80)")
    c.add_argument("--arg-types", help="e.g. 'f32[1024],f32[1024],=4' (needed for specialized params)")
    c.add_argument("--timings", action="store_true", help="print compile phase timings to stderr")
    c.set_defaults(func=cmd_compile)
    r = sub.add_parser("run", help="compile FILE::FUNC and run it on generated inputs")
    r.add_argument("target")
    r.add_argument("--arg-types")
    r.add_argument("--repeat", type=int, default=10)
    r.add_argument("--timings", action="store_true")
    r.set_defaults(func=cmd_run)
    e = sub.add_parser("export", help="write FILE::FUNC as a shared library, a C header and "
                                      "its ABI as JSON (no Python needed to call it)")
    e.add_argument("target", help="FILE::FUNC")
    e.add_argument("-o", "--output", required=True, help="folder to write into")
    e.add_argument("--arg-types", help="e.g. 'f32[1024],f32[1024],=4' (needed for specialized params)")
    e.add_argument("--name", help="library and C symbol prefix (default: the function's name)")
    e.add_argument("--backend", choices=["cpu", "nvptx"], help="default: the function's")
    e.add_argument("--chip", help="GPU architecture for the nvptx backend (default sm_80)")
    e.set_defaults(func=cmd_export)
    k = sub.add_parser("cache", help="inspect or clear the disk cache")
    k.add_argument("action", choices=["ls", "clear", "stats", "prune"])
    k.add_argument("function", nargs="?", default=None,
                   help="clear: only the entries of this function (name or qualified name)")
    k.add_argument("--max-size", default=None,
                   help="prune: the size to prune to (500M, 2G; default DSL_CACHE_MAX_SIZE)")
    k.set_defaults(func=cmd_cache)
    d = sub.add_parser("doctor", help="check versions, toolchain and cache")
    d.set_defaults(func=cmd_doctor)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    ns = build_parser().parse_args(argv)
    try:
        return int(ns.func(ns))
    except UsageError as err:
        print(f"dsl: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `dsl ... | head`: stop quietly, like other command-line tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as err:  # compile errors, bad arguments: one clear message, no traceback
        print(f"dsl: {type(err).__name__}: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
