"""Kernel launch overhead: an empty @pl.kernel launched from @jit host code, 0 and 8 arguments.

Columns, measured in this run:
  * cpu backend: the whole call (dispatch, the grid loop of one block of one thread);
  * nvptx backend: on a GPU, the call including cuLaunchKernel (asynchronous, on a
    stream); without a GPU, the host-side part only, against a stub CUDA driver
    (dsl-mlir's tests/mock_cuda), i.e. our own overhead before the driver;
  * numba: an @njit call of an empty function with the same arguments (a CPU floor).
Triton's and CuTe DSL's launch costs are not measured here (they need their own GPU
stacks): their published figures are printed on a separate, labelled line after the table.

Run: python bench/launch_bench.py   (a GPU run is part of ci/gpu_checks.sh)
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MOCK = ROOT / "packages" / "dsl-mlir" / "tests" / "mock_cuda" / "mock_cuda.c"
#: Not measured in this run: figures the projects published for their own GPU launches.
PUBLISHED = ("published figures, not measured here (GPU launch cost): "
             "Triton 5.7-13 us, CuTe DSL 1.3-32 us per launch")


def per_call_us(fn: Callable[[], object], inner: int = 5000, rounds: int = 7) -> float:
    fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) / inner * 1e6)
    return statistics.median(samples)


def _stub_driver() -> str | None:
    """Build the stub CUDA driver (for the host-side overhead without a GPU)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    lib = Path(tempfile.mkdtemp(prefix="dsl-bench-")) / "libcuda.so.1"
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(MOCK)], check=True)
    return str(lib)


def main() -> None:
    if "DSL_CUDA_LIBRARY" not in os.environ and not _has_driver():
        stub = _stub_driver()
        if stub:
            os.environ["DSL_CUDA_LIBRARY"] = stub
    import launch_kernels as lk
    import numpy as np

    from dsl_mlir import gpu
    from dsl_runtime import DeviceArray, jit

    real_gpu = "DSL_CUDA_LIBRARY" not in os.environ and gpu.device_count() > 0
    stub = not real_gpu and gpu.device_count() > 0
    host = np.zeros(16, np.float32)
    cpu0, cpu8 = jit(lk.launch0), jit(lk.launch8)
    rows = [("empty kernel, 0 args", lambda: cpu0(), None),
            ("empty kernel, 8 args", lambda: cpu8(host, host, host, host, 1, 2, 3.0, 4.0), None)]
    gpu_fns: list[Callable[[], object] | None] = [None, None]
    if real_gpu or stub:
        dev = DeviceArray.from_numpy(host)
        g0, g8 = jit(lk.launch0, backend="nvptx"), jit(lk.launch8, backend="nvptx")
        gpu_fns = [lambda: g0(), lambda: g8(dev, dev, dev, dev, 1, 2, 3.0, 4.0)]
    numba = _numba_floor()
    label = "nvptx (GPU)" if real_gpu else "nvptx (host part, stub driver)" if stub else "nvptx"
    print(f"{'launch':<22} {'cpu backend':>12} {label:>32} {'numba @njit':>12}")
    for (name, cpu_fn, _), gfn, nfn in zip(rows, gpu_fns, numba):
        g = f"{per_call_us(gfn):.2f} us" if gfn else "no GPU"
        n = f"{per_call_us(nfn, inner=20000):.2f} us" if nfn else "not installed"
        print(f"{name:<22} {per_call_us(cpu_fn):>9.2f} us {g:>32} {n:>12}")
    print(f"\n{PUBLISHED}")
    if real_gpu:
        gpu.synchronize()


def _has_driver() -> bool:
    import ctypes

    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


def _numba_floor() -> list[Callable[[], object] | None]:
    try:
        import numba
        import numpy as np
    except ImportError:
        return [None, None]

    @numba.njit(cache=False)
    def empty0() -> None:
        pass

    @numba.njit(cache=False)
    def empty8(a, b, c, d, i, j, x, y) -> None:  # type: ignore[no-untyped-def]
        pass

    h = np.zeros(16, np.float32)
    return [lambda: empty0(), lambda: empty8(h, h, h, h, 1, 2, 3.0, 4.0)]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
