"""Runtime benchmarks: per-call dispatch, cold compile, warm disk cache, warm shared
cache (a local redis-server), import time.

Peers in the same run: numba (@njit), JAX (jax.jit), a raw ctypes call of the
same compiled function. Numbers are medians of repeated measurements; compare
ratios, not absolute values (this machine is noisy).

Run: python bench/dispatch_bench.py   (make bench installs numba and JAX)
"""

from __future__ import annotations

import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
KERNEL_SRC = textwrap.dedent("""
    import dsl_core as dc
    import dsl_parser.language as pl
    from dsl_runtime import jit
    N = pl.dynamic("N")

    @jit
    def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        return pl.add(pl.mul(x, x), y)

    @dc.struct
    class Affine:
        a: dc.Float32
        b: dc.Float32

    @jit
    def affine(x: pl.Tensor[[N], pl.FP32], p: Affine) -> pl.Tensor[[N], pl.FP32]:
        return pl.add(pl.mul(x, p.a), p.b)

    # a user-registered type: Python's complex, adapted to the struct (the protocol path)
    dc.JitArgumentRegistry.register(complex, lambda z: Affine(z.real, z.imag), dsl_type=Affine)

    @jit
    def affine_c(x: pl.Tensor[[N], pl.FP32], p: complex) -> pl.Tensor[[N], pl.FP32]:
        return pl.add(pl.mul(x, p.a), p.b)
""")


def per_call_us(fn: Callable[[], object], inner: int = 20000, rounds: int = 7) -> float:
    fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) / inner * 1e6)
    return statistics.median(samples)


def run_py(code: str, env: dict[str, str] | None = None) -> str:
    """Run ``code`` in a fresh interpreter; its stdout. Bytecode caches are written and
    used (``PYTHONDONTWRITEBYTECODE`` dropped), as for an installed package: otherwise
    every import of an editable package compiles its sources again."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**base, **(env or {})})
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return proc.stdout.strip()


def median_of(code: str, times: int = 5, env: dict[str, str] | None = None) -> float:
    run_py(code, env)  # warm-up: bytecode caches, the page cache
    return statistics.median(float(run_py(code, env)) for _ in range(times))


def dispatch_rows(workdir: Path) -> list[tuple[str, str, str]]:
    sys.path.insert(0, str(workdir))
    (workdir / "bench_kernel.py").write_text(KERNEL_SRC)
    import bench_kernel

    x, y, z = (np.ones(16, np.float32) for _ in range(3))
    jf = bench_kernel.scale_add
    jf(x, y, out=z)
    cf = jf.compile(x, y)
    kernel = cf.kernel
    rows = [("dsl @jit, out= given", f"{per_call_us(lambda: jf(x, y, out=z)):.3f}", "")]
    rows.append(("dsl prepared (CompiledFunction.kernel)", f"{per_call_us(lambda: kernel(x, y, z)):.3f}", ""))
    rows.append(("dsl @jit, result allocated", f"{per_call_us(lambda: jf(x, y)):.3f}", ""))
    p = bench_kernel.Affine(2.0, 1.0)
    bench_kernel.affine(x, p, out=z)
    rows.append(("dsl @jit, struct argument, out= given",
                 f"{per_call_us(lambda: bench_kernel.affine(x, p, out=z)):.3f}", "x, Affine(a, b)"))
    bench_kernel.affine_c(x, 2 + 1j, out=z)
    rows.append(("dsl @jit, user-registered type, out= given",
                 f"{per_call_us(lambda: bench_kernel.affine_c(x, 2 + 1j, out=z)):.3f}",
                 "x, complex -> Affine (registry, hooks, native slots)"))
    # Raw ctypes call of the same compiled code with descriptors built once.
    from dsl_runtime.adapters import memref_descriptor

    desc = memref_descriptor(1)
    descs = []
    for a in (x, y, z):
        d = desc(a.ctypes.data, a.ctypes.data, 0)
        d.sizes[0], d.strides[0] = a.shape[0], 1
        descs.append(d)
    engine = cf.keepalive[-1]
    ptrs = [ctypes.pointer(d) for d in descs]
    packed = (ctypes.c_void_p * 3)(*[ctypes.addressof(p) for p in ptrs])
    raw = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.raw_lookup(cf.abi.c_symbol))
    rows.append(("raw ctypes call, prebuilt descriptors", f"{per_call_us(lambda: raw(packed)):.3f}", ""))
    try:
        import numba

        @numba.njit(cache=False)
        def nb(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
            for i in range(a.shape[0]):
                out[i] = a[i] * a[i] + b[i]

        rows.append(("numba @njit, out given", f"{per_call_us(lambda: nb(x, y, z)):.3f}", ""))
    except ImportError:
        rows.append(("numba @njit", "n/a", "numba not installed"))
    try:
        import jax

        jfn = jax.jit(lambda a, b: a * a + b)
        jx, jy = jax.numpy.asarray(x), jax.numpy.asarray(y)
        jax_us = per_call_us(lambda: jfn(jx, jy).block_until_ready(), 2000)
        rows.append(("jax.jit (device arrays)", f"{jax_us:.3f}", ""))
    except ImportError:
        rows.append(("jax.jit", "n/a", "jax not installed"))
    return rows


COLD_OURS = textwrap.dedent("""
    import sys, time; sys.path.insert(0, {wd!r})
    import numpy as np
    import bench_kernel
    x = np.ones(16, np.float32)
    t = time.perf_counter(); bench_kernel.scale_add(x, x); dt = time.perf_counter() - t
    print(dt * 1e3)
""")
COLD_NUMBA = textwrap.dedent("""
    import time, numpy as np, numba
    x = np.ones(16, np.float32); z = np.empty_like(x)
    @numba.njit(cache={cache})
    def f(a, b, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * a[i] + b[i]
    t = time.perf_counter(); f(x, x, z); print((time.perf_counter() - t) * 1e3)
""")
COLD_JAX = textwrap.dedent("""
    import time, numpy as np, jax
    x = jax.numpy.ones(16, np.float32)
    f = jax.jit(lambda a, b: a * a + b)
    t = time.perf_counter(); f(x, x).block_until_ready(); print((time.perf_counter() - t) * 1e3)
""")


def compile_rows(workdir: Path) -> list[tuple[str, str, str]]:
    rows = []
    with tempfile.TemporaryDirectory() as cold_cache:
        env = {"DSL_DISABLE_DISK_CACHE": "1", "DSL_CACHE_DIR": cold_cache}
        code = COLD_OURS.format(wd=str(workdir))
        cold = median_of(code, env=env)
        show = "print(','.join(f'{k}={v*1e3:.1f}' for k, v in bench_kernel.scale_add.timings.items()))"
        phases = run_py(code.replace("print(dt * 1e3)", show), env)
        rows.append(("dsl cold compile (first call)", f"{cold:.1f}", phases))
        warm_env = {"DSL_CACHE_DIR": cold_cache}
        run_py(code, warm_env)  # populate
        rows.append(("dsl first call, warm disk cache", f"{median_of(code, env=warm_env):.1f}", "fresh process"))
        whole = code.replace("import numpy as np", "start = time.perf_counter()\nimport numpy as np").replace(
            "print(dt * 1e3)", "print((time.perf_counter() - start) * 1e3)")
        rows.append(("dsl imports + first call, warm disk cache", f"{median_of(whole, env=warm_env):.1f}",
                     "fresh process"))
    for label, src, note in (("numba cold compile", COLD_NUMBA.format(cache=False), ""),
                             ("jax cold compile", COLD_JAX, "")):
        try:
            rows.append((label, f"{median_of(src, 3):.1f}", note))
        except RuntimeError as err:
            rows.append((label, "n/a", str(err).splitlines()[-1][:60]))
    with tempfile.TemporaryDirectory() as nbcache:
        try:
            src = COLD_NUMBA.format(cache=True)
            path = Path(nbcache) / "nbk.py"
            path.write_text(src)
            run_py(f"import runpy; runpy.run_path({str(path)!r})")
            warm = median_of(f"import runpy; runpy.run_path({str(path)!r})", 3)
            rows.append(("numba first call, warm cache (cache=True)", f"{warm:.1f}", "fresh process"))
        except RuntimeError as err:
            rows.append(("numba warm cache", "n/a", str(err).splitlines()[-1][:60]))
    return rows


def shared_cache_rows(workdir: Path) -> list[tuple[str, str, str]]:
    """The first call in a fresh process whose code comes from a warm Redis (no local disk
    cache), signed (the native library) and unsigned (the IR, compiled locally)."""
    import shutil
    import socket

    exe = shutil.which("redis-server")
    if exe is None:
        return [("dsl first call, warm Redis", "n/a", "redis-server not installed")]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        code = COLD_OURS.format(wd=str(workdir))
        rows = []
        for label, key in (("signed: kernel.so", "bench-signing-key-0123456789abcdef"),
                           ("no key: IR compiled here", "")):
            url = f"redis://127.0.0.1:{port}/{1 if key else 2}"
            publish = {"DSL_CACHE_BACKEND": url, "DSL_CACHE_KEY": key,
                       "DSL_CACHE_DIR": str(workdir / f"publisher-{bool(key)}")}
            run_py(code.replace("print(dt * 1e3)", "dsl_runtime.cache.flush(); print(dt * 1e3)")
                   .replace("import numpy as np", "import numpy as np, dsl_runtime"), publish)
            rows.append((f"dsl first call, warm Redis ({label.split(':')[0]})",
                         f"{_fresh_local_median(code, publish, workdir):.1f}",
                         f"fresh process, empty local cache, {label}"))
        return rows
    finally:
        server.terminate()
        server.wait()


def _fresh_local_median(code: str, env: dict[str, str], workdir: Path, times: int = 5) -> float:
    """Median of runs that each find a local disk cache holding no compiled entry (only
    the index of installed extensions, as on a machine that ran something else before):
    the code comes from the shared cache every time."""
    import shutil

    template = Path(env["DSL_CACHE_DIR"]) / "v1" / "extensions-index.json"
    samples = []
    for i in range(times + 1):
        local = Path(tempfile.mkdtemp(prefix="fresh-local-", dir=workdir))
        (local / "v1").mkdir(mode=0o700)
        if template.exists():
            shutil.copy(template, local / "v1" / template.name)
        value = float(run_py(code, {**env, "DSL_CACHE_DIR": str(local)}))
        if i:  # the first run warms the page and bytecode caches
            samples.append(value)
    return statistics.median(samples)


def import_rows() -> list[tuple[str, str, str]]:
    timer = "import time; t = time.perf_counter(); import {m}; print((time.perf_counter() - t) * 1e3)"
    rows = []
    for module in ("numpy", "dsl_core", "dsl_runtime", "dsl_mlir", "dsl_runtime, dsl_parser.language, numpy",
                   "numba", "jax"):
        try:
            rows.append((f"import {module}", f"{median_of(timer.format(m=module)):.1f}", ""))
        except RuntimeError:
            rows.append((f"import {module}", "n/a", "not installed"))
    return rows


def table(title: str, unit: str, rows: list[tuple[str, str, str]]) -> None:
    print(f"\n{title}")
    print(f"| {'case':<44} | {unit:>10} | note")
    print(f"|{'-' * 46}|{'-' * 12}|------")
    for case, value, note in rows:
        print(f"| {case:<44} | {value:>10} | {note}")


def main() -> None:
    with tempfile.TemporaryDirectory() as wd:
        workdir = Path(wd)
        os.environ["DSL_CACHE_DIR"] = str(workdir / "cache")
        table("Cache-hit call, 3 float32 arrays of 16 elements", "us/call", dispatch_rows(workdir))
        table("Compile and load (fresh processes)", "ms",
              compile_rows(workdir) + shared_cache_rows(workdir))
    table("Import time (fresh processes)", "ms", import_rows())


if __name__ == "__main__":
    main()
