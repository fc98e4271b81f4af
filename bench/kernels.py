"""Generated CPU code vs numpy: elementwise, fused chain, matmul, softmax, layer norm.

Each kernel is MLIR text in the dsl dialect, lowered with `dsl_mlir.lower`
(dsl-to-llvm-cpu, default options), JIT-compiled with `dsl_mlir.jit` and called
through `engine.invoke` with memref descriptors built once (results are
out-params, written in place). numpy runs the same math on the same arrays,
with preallocated outputs (`out=`) where numpy allows it, and one BLAS thread.

The bound column is what the machine allows: for memory-bound kernels the
bandwidth of a large numpy copy (bytes read + written), for matmul the
GFLOP/s of single-threaded OpenBLAS (a practical compute peak).

A second table times the run-time checks of sizes and offsets (docs/mlir.md): the
same kernel with sizes or offsets known only at run time, and with static ones.

Every row also prints its share of the bound and the compile time of the kernel (parse +
lower + JIT), and the table starts with the CPU and its vector ISA (AVX-512 or AVX2: the
matmul figures depend on it).

Run: python bench/kernels.py   (about 3 minutes; numba columns when numba is installed)
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# One BLAS thread and OpenBLAS's own core detection, in this process only:
# OpenBLAS reads its environment when numpy is first imported.
_BLAS_ENV = {"OPENBLAS_NUM_THREADS": "1"}
_BLAS_UNSET = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
if any(os.environ.get(k) != v for k, v in _BLAS_ENV.items()) or any(k in os.environ for k in _BLAS_UNSET):
    env = {k: v for k, v in os.environ.items() if k not in _BLAS_UNSET} | _BLAS_ENV
    os.execve(sys.executable, [sys.executable, *sys.argv], env)

import numpy as np  # noqa: E402

import dsl_mlir  # noqa: E402
from dsl_mlir.runtime import get_ranked_memref_descriptor  # noqa: E402

RNG = np.random.default_rng(0)
N = 10_000_000


def timeit(fn: Callable[[], object], min_time: float = 0.4, max_reps: int = 50) -> float:
    """Best wall time of `fn` in seconds (after one warm-up call)."""
    fn()
    best, spent, reps = float("inf"), 0.0, 0
    while (spent < min_time or reps < 3) and reps < max_reps:
        t = time.perf_counter()
        fn()
        dt = time.perf_counter() - t
        best, spent, reps = min(best, dt), spent + dt, reps + 1
    return best


#: The thread pool of `dsl-to-llvm-cpu{parallel}` (built beside the CAPI library).
ASYNC_RUNTIME = os.path.join(os.path.dirname(dsl_mlir.ir.__file__), "_mlir_libs", "libdsl_async_runtime.so")
PARALLEL = False  # set by main() for the "(2 threads)" rows
EXTRA_OPTIONS: dict[str, object] = {}  # set by main() for the "fuse-rows=false" rows
LAST_COMPILE = 0.0  # seconds: parse + lower + JIT of the latest compile_kernel


#: LLVM IR passes of the JIT, as dsl-runtime uses them (`BENCH_LLVM=default` compares
#: with LLVM's own O3 pipeline).
LLVM_PASSES = None if os.environ.get("BENCH_LLVM") == "default" else dsl_mlir.FAST_LLVM_PASSES
_PACKED = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p))


def compile_kernel(text: str, name: str, arrays: Sequence[np.ndarray | int]) -> Callable[[], None]:
    """Lower + JIT `text` as dsl-runtime does; a zero-argument callable running `name` on
    `arrays` (ints are `index` scalars)."""
    start = time.perf_counter()
    with dsl_mlir.context():
        options = {"internalize-entries": True, **({"parallel": True} if PARALLEL else {}),
                   **EXTRA_OPTIONS}
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(text), options=options)
        engine = dsl_mlir.jit(lowered, shared_libs=[ASYNC_RUNTIME] if PARALLEL else [],
                              llvm_passes=LLVM_PASSES)
    fn = _PACKED(engine.raw_lookup(f"_mlir_ciface_{name}"))
    global LAST_COMPILE
    LAST_COMPILE = time.perf_counter() - start
    descs = [ctypes.c_int64(a) if isinstance(a, int) else get_ranked_memref_descriptor(a)
             for a in arrays]
    ptrs = [d if isinstance(d, ctypes.c_int64) else ctypes.pointer(d) for d in descs]
    packed = (ctypes.c_void_p * len(ptrs))(*[ctypes.cast(ctypes.pointer(p), ctypes.c_void_p) for p in ptrs])
    keep = (engine, descs, ptrs, arrays)  # the descriptors point into the arrays

    def call() -> None:
        fn(packed)

    call.keep = keep  # type: ignore[attr-defined]
    return call


@dataclass
class Row:
    kernel: str
    size: str
    ours: float
    numpy: float
    work: float  # bytes or flops per call
    unit: str    # "GB/s" or "GFLOP/s"
    bound: float
    numba: float | None = None  # seconds, where numba has an equivalent
    compile: float = 0.0  # seconds (parse + lower + JIT), set from LAST_COMPILE

    def __post_init__(self) -> None:
        self.compile = self.compile or LAST_COMPILE

    def cells(self) -> list[str]:
        rate = self.work / self.ours / 1e9
        numba = "n/a" if self.numba is None else f"{self.numba * 1e3:.2f}"
        return [self.kernel, self.size, f"{self.ours * 1e3:.2f}", f"{self.numpy * 1e3:.2f}", numba,
                f"{self.numpy / self.ours:.2f}x", f"{rate:.1f} {self.unit}", f"{self.bound:.1f} {self.unit}",
                f"{100 * rate / self.bound:.0f}%" if self.bound else "", f"{self.compile * 1e3:.0f}"]


def result_array(like: np.ndarray) -> np.ndarray:
    """An output array placed as dsl-runtime places the results it allocates (1 MiB or
    more: 64-byte aligned, half a page into a page); numpy's reference writes into it
    too."""
    from dsl_runtime.compiled import empty_result
    return empty_result(like.shape, like.dtype)


def numba_time(kernel: Callable[..., None], *arrays: np.ndarray) -> float | None:
    """Best time of a numba @njit kernel (None when numba is not installed)."""
    try:
        import numba
    except ImportError:
        return None
    compiled = numba.njit(fastmath=False)(kernel)
    return timeit(lambda: compiled(*arrays))


def _nb_add(a: np.ndarray, b: np.ndarray, o: np.ndarray) -> None:
    for i in range(a.shape[0]):
        o[i] = a[i] + b[i]


def _nb_chain(a: np.ndarray, b: np.ndarray, c: np.ndarray, o: np.ndarray) -> None:
    for i in range(a.shape[0]):
        v = a[i] * b[i] + c[i]
        o[i] = v if v > 0 else 0.0


def _nb_exp(a: np.ndarray, o: np.ndarray) -> None:
    for i in range(a.shape[0]):
        o[i] = np.exp(a[i])


def _nb_column_sum(x: np.ndarray, o: np.ndarray) -> None:
    o[:] = 0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            o[j] += x[i, j]


def copy_bandwidth() -> float:
    src = np.ones(64_000_000, np.float32)
    dst = np.empty_like(src)
    t = timeit(lambda: np.copyto(dst, src), min_time=0.5)
    return 2 * src.nbytes / t / 1e9


def tensor(shape: Sequence[int]) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def bench_add(bw: float) -> Row:
    t = tensor([N])
    a, b = (RNG.standard_normal(N).astype(np.float32) for _ in range(2))
    o = result_array(a)
    call = compile_kernel(f"""func.func @add(%a: {t}, %b: {t}) -> {t} {{
      %0 = dsl.add %a, %b : {t}
      return %0 : {t} }}""", "add", [a, b, o])
    call()
    np.testing.assert_allclose(o, a + b, rtol=1e-6)
    return Row("add", "10M f32", timeit(call), timeit(lambda: np.add(a, b, out=o)),
               12 * N, "GB/s", bw, numba_time(_nb_add, a, b, o))


def bench_chain(bw: float) -> Row:
    """relu(a * b + c): three elementwise ops, fused into one loop."""
    t = tensor([N])
    a, b, c = (RNG.standard_normal(N).astype(np.float32) for _ in range(3))
    o = result_array(a)
    call = compile_kernel(f"""func.func @chain(%a: {t}, %b: {t}, %c: {t}) -> {t} {{
      %0 = dsl.mul %a, %b : {t}
      %1 = dsl.add %0, %c : {t}
      %2 = dsl.relu %1 : {t}
      return %2 : {t} }}""", "chain", [a, b, c, o])
    call()
    np.testing.assert_allclose(o, np.maximum(a * b + c, 0), rtol=1e-6)
    tmp = np.empty_like(a)

    def numpy_chain() -> None:
        np.multiply(a, b, out=tmp)
        np.add(tmp, c, out=tmp)
        np.maximum(tmp, 0, out=o)

    return Row("mul+add+relu", "10M f32", timeit(call), timeit(numpy_chain), 16 * N, "GB/s", bw,
               numba_time(_nb_chain, a, b, c, o))


def bench_exp(bw: float) -> Row:
    """exp over 10M f32 in [-80, 80]: the vector exp (vscalefps on AVX-512, else MLIR's
    polynomial) against numpy's and numba's."""
    t = tensor([N])
    a = RNG.uniform(-80, 80, N).astype(np.float32)
    o = result_array(a)
    call = compile_kernel(f"""func.func @vexp(%a: {t}) -> {t} {{
      %0 = dsl.exp %a : {t}
      return %0 : {t} }}""", "vexp", [a, o])
    call()
    np.testing.assert_allclose(o, np.exp(a.astype(np.float64)), rtol=1e-6)
    return Row("exp", "10M f32", timeit(call), timeit(lambda: np.exp(a, out=o)), 8 * N, "GB/s", bw,
               numba_time(_nb_exp, a, o))


def bench_matmul(n: int, blas_peak: list[float]) -> Row:
    """Square f32 matmul; numpy's time sets the GFLOP/s bound (single-threaded OpenBLAS)."""
    row = bench_matmul_case("matmul", n, n, n, blas_peak)
    blas_peak.append(2.0 * n**3 / row.numpy / 1e9)
    row.bound = max(blas_peak)
    return row


def _to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bit patterns (round to nearest even), as uint16."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _from_bf16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.uint32) << 16).view(np.float32)


def bench_matmul_case(label: str, m: int, n: int, k: int, blas_peak: list[float], elt: str = "f32",
                      a_trans: bool = False, b_trans: bool = False, dynamic: bool = False,
                      batch: int | None = None) -> Row:
    """One matmul variant against numpy's matmul of the same f32 values (for fp16/bf16
    inputs numpy multiplies f32 copies made before timing: numpy has no fast fp16 matmul)."""
    lead = (batch,) if batch else ()
    a_shape = (*lead, k, m) if a_trans else (*lead, m, k)
    b_shape = (*lead, n, k) if b_trans else (*lead, k, n)
    c_shape = (*lead, m, n)
    a32 = RNG.standard_normal(a_shape).astype(np.float32)
    b32 = RNG.standard_normal(b_shape).astype(np.float32)
    if elt == "f16":
        a, b = a32.astype(np.float16), b32.astype(np.float16)
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
    elif elt == "bf16":
        a, b = _to_bf16(a32), _to_bf16(b32)
        a32, b32 = _from_bf16(a), _from_bf16(b)
    else:
        a, b = a32, b32

    def ttype(shape: Sequence[int], e: str) -> str:
        return "tensor<" + "".join(("?" if dynamic else str(d)) + "x" for d in shape) + e + ">"

    ta, tb, tc = ttype(a_shape, elt), ttype(b_shape, elt), ttype(c_shape, "f32")
    attrs = [name for name, on in (("a_trans", a_trans), ("b_trans", b_trans)) if on]
    attr = " {" + ", ".join(attrs) + "}" if attrs else ""
    c = np.empty(c_shape, np.float32)
    call = compile_kernel(f"""func.func @mm(%a: {ta}, %b: {tb}) -> {tc} {{
      %0 = dsl.matmul %a, %b{attr} : {ta}, {tb} -> {tc}
      return %0 : {tc} }}""", "mm", [a, b, c])
    call()
    lhs = a32.swapaxes(-1, -2) if a_trans else a32
    rhs = b32.swapaxes(-1, -2) if b_trans else b32
    np.testing.assert_allclose(c, lhs @ rhs, rtol=2e-3, atol=2e-3)
    ours, ref = timeit(call), timeit(lambda: np.matmul(lhs, rhs, out=c))
    flops = 2.0 * m * n * k * (batch or 1)
    size = f"{batch}x" if batch else ""
    size += f"{m}^3" if m == n == k else f"{m}x{n}x{k}"
    size += f" {elt}" + (", dynamic" if dynamic else "")
    return Row(label, size, ours, ref, flops, "GFLOP/s", max(blas_peak, default=0.0))


def matmul_rows(blas_peak: list[float]) -> list[Row]:
    """The matmul variants of issue 15: sizes, transposes, odd and dynamic shapes, 16-bit
    inputs with f32 accumulation, batches."""
    rows = [bench_matmul(512, blas_peak), bench_matmul(1024, blas_peak), bench_matmul(2048, blas_peak)]
    for label, kw in (("matmul A^T", {"a_trans": True}), ("matmul B^T", {"b_trans": True}),
                      ("matmul A^T B^T", {"a_trans": True, "b_trans": True}),
                      ("matmul", {"dynamic": True}), ("matmul fp16 -> f32", {"elt": "f16"}),
                      ("matmul bf16 -> f32", {"elt": "bf16"})):
        rows.append(bench_matmul_case(label, 512, 512, 512, blas_peak, **kw))  # type: ignore[arg-type]
    rows += [bench_matmul_case("matmul (odd)", 257, 255, 253, blas_peak),
             bench_matmul_case("matmul (odd)", 257, 255, 253, blas_peak, dynamic=True),
             bench_matmul_case("matmul (small odd)", 17, 33, 29, blas_peak),
             bench_matmul_case("batched matmul", 256, 256, 256, blas_peak, batch=16),
             bench_matmul_case("batched matmul", 64, 64, 64, blas_peak, batch=256)]
    return rows


SOFTMAX = """func.func @softmax(%x: {t}) -> {t} {{
  %m = dsl.max %x [1] keepdim : {t} -> {c}
  %d = dsl.sub %x, %m : ({t}, {c}) -> {t}
  %e = dsl.exp %d : {t}
  %s = dsl.sum %e [1] keepdim : {t} -> {c}
  %r = dsl.div %e, %s : ({t}, {c}) -> {t}
  return %r : {t} }}"""

LAYERNORM = """func.func @layernorm(%x: {t}, %g: {r}, %b: {r}) -> {t} {{
  %mu = dsl.mean %x [1] keepdim : {t} -> {c}
  %d = dsl.sub %x, %mu : ({t}, {c}) -> {t}
  %sq = dsl.mul %d, %d : {t}
  %var = dsl.mean %sq [1] keepdim : {t} -> {c}
  %eps = arith.constant 1.0e-5 : f32
  %ve = dsl.add %var, %eps : ({c}, f32) -> {c}
  %rs = dsl.rsqrt %ve : {c}
  %y = dsl.mul %d, %rs : ({t}, {c}) -> {t}
  %yg = dsl.mul %y, %g : ({t}, {r}) -> {t}
  %o = dsl.add %yg, %b : ({t}, {r}) -> {t}
  return %o : {t} }}"""


def bench_softmax(rows: int, cols: int, bw: float) -> Row:
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    o = result_array(x)
    call = compile_kernel(SOFTMAX.format(t=tensor([rows, cols]), c=tensor([rows, 1])), "softmax", [x, o])
    call()
    mx, s, e = np.empty((rows, 1), np.float32), np.empty((rows, 1), np.float32), np.empty_like(x)

    def numpy_softmax() -> None:
        np.max(x, axis=1, keepdims=True, out=mx)
        np.subtract(x, mx, out=e)
        np.exp(e, out=e)
        np.sum(e, axis=1, keepdims=True, out=s)
        np.divide(e, s, out=o)

    ref = timeit(numpy_softmax)
    got = o.copy()
    call()
    np.testing.assert_allclose(o, got, rtol=1e-5, atol=1e-7)
    return Row("softmax (rows)", f"{rows}x{cols} f32", timeit(call), ref, 2 * x.nbytes, "GB/s", bw)


def bench_layernorm(rows: int, cols: int, bw: float) -> Row:
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    g, b = RNG.standard_normal(cols).astype(np.float32), RNG.standard_normal(cols).astype(np.float32)
    o = result_array(x)
    call = compile_kernel(LAYERNORM.format(t=tensor([rows, cols]), c=tensor([rows, 1]), r=tensor([cols])),
                          "layernorm", [x, g, b, o])
    call()
    mu, var, d = np.empty((rows, 1), np.float32), np.empty((rows, 1), np.float32), np.empty_like(x)

    def numpy_layernorm() -> None:
        np.mean(x, axis=1, keepdims=True, out=mu)
        np.subtract(x, mu, out=d)
        np.multiply(d, d, out=o)
        np.mean(o, axis=1, keepdims=True, out=var)
        np.add(var, 1e-5, out=var)
        np.sqrt(var, out=var)
        np.divide(d, var, out=d)
        np.multiply(d, g, out=d)
        np.add(d, b, out=o)

    ref = timeit(numpy_layernorm)
    expected = o.copy()
    call()
    np.testing.assert_allclose(o, expected, rtol=1e-4, atol=1e-4)
    return Row("layer norm (rows)", f"{rows}x{cols} f32", timeit(call), ref, 2 * x.nbytes, "GB/s", bw)


COLUMN_SUM = """func.func @colsum(%x: {t}) -> {o} {{
  %0 = dsl.sum %x [0] : {t} -> {o}
  return %0 : {o} }}"""


def bench_column_sum(rows: int, cols: int, bw: float) -> Row:
    """A reduction along axis 0 (dsl-tile's column path: 8 rows per pass over a block of
    the result, the block's sums in registers)."""
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    o = np.empty(cols, np.float32)
    call = compile_kernel(COLUMN_SUM.format(t=tensor([rows, cols]), o=tensor([cols])), "colsum", [x, o])
    call()
    np.testing.assert_allclose(o, x.sum(axis=0), rtol=1e-4, atol=1e-3)
    return Row("column sum (axis 0)", f"{rows}x{cols} f32", timeit(call),
               timeit(lambda: np.sum(x, axis=0, out=o)), x.nbytes, "GB/s", bw,
               numba_time(_nb_column_sum, x, o))


@dataclass
class CheckRow:
    """The same kernel with and without the run-time checks of docs/mlir.md."""

    kernel: str
    size: str
    checked: float
    unchecked: float

    def cells(self) -> list[str]:
        cost = (self.checked - self.unchecked) * 1e9
        return [self.kernel, self.size, f"{self.checked * 1e6:.2f}", f"{self.unchecked * 1e6:.2f}",
                f"{self.checked / self.unchecked:.3f}", f"{cost:+.0f} ns"]


ADD = """func.func @add(%a: {t}, %b: {t}) -> {t} {{
  %0 = dsl.add %a, %b : {t}
  return %0 : {t} }}"""

SLICE_ADD = """func.func @sliced(%x: {t}, %i: index) -> {h} {{
  {offset}
  %s = dsl.slice %x[%o] : {t} -> {h}
  %r = dsl.add %s, %s : {h}
  return %r : {h} }}"""


def bench_checks(n: int) -> list[CheckRow]:
    """Dynamic sizes (an elementwise size check and an out-param size check per call) and a
    run-time slice offset (an offset check), against the static forms, which have none."""
    a, b, o = (RNG.standard_normal(n).astype(np.float32) for _ in range(3))
    dynamic = compile_kernel(ADD.format(t="tensor<?xf32>"), "add", [a, b, o])
    static = compile_kernel(ADD.format(t=tensor([n])), "add", [a, b, o])
    dynamic()
    np.testing.assert_allclose(o, a + b, rtol=1e-6)
    size = f"{n:,} f32"
    rows = [CheckRow("add, pl.dynamic sizes", size, timeit(dynamic), timeit(static))]
    half = np.empty(n // 2, np.float32)
    common = {"t": tensor([n]), "h": tensor([n // 2])}
    runtime = compile_kernel(SLICE_ADD.format(offset="%o = arith.addi %i, %i : index", **common),
                             "sliced", [a, n // 8, half])
    constant = compile_kernel(SLICE_ADD.format(offset=f"%o = arith.constant {n // 4} : index",
                                               **common), "sliced", [a, n // 8, half])
    runtime()
    np.testing.assert_allclose(half, 2 * a[n // 4:n // 4 + n // 2], rtol=1e-6)
    rows.append(CheckRow("slice at a run-time offset + add", size, timeit(runtime), timeit(constant)))
    return rows


def cpu_description() -> str:
    """The CPU model and the widest vector ISA it has (what the figures were measured on)."""
    model, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    model = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
                    break
    except OSError:
        pass
    isa = next((name for flag, name in (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("sse4_2", "SSE4.2"))
                if flag in flags), "no x86 vector ISA found")
    return f"{model}, {os.cpu_count()} logical CPUs, vector ISA {isa}" + (" + FMA" if "fma" in flags else "")


def print_table(header: list[str], rows: list[list[str]]) -> None:
    table = [header, *rows]
    widths = [max(len(cells[i]) for cells in table) for i in range(len(header))]
    for i, cells in enumerate(table):
        print("  ".join(cell.ljust(w) for cell, w in zip(cells, widths)))
        if i == 0:
            print("  ".join("-" * w for w in widths))


def main() -> None:
    global PARALLEL, EXTRA_OPTIONS
    bw = copy_bandwidth()
    blas_peak: list[float] = []
    results = [bench_add(bw), bench_chain(bw), bench_exp(bw), *matmul_rows(blas_peak),
               bench_softmax(4096, 1024, bw), bench_layernorm(4096, 1024, bw),
               bench_softmax(1151, 8192, bw), bench_layernorm(1151, 8192, bw)]
    EXTRA_OPTIONS = {"avx512-exp": False}  # MLIR's exp approximation on any host
    mlir_exp = bench_exp(bw)
    mlir_exp.kernel += ", avx512-exp=false"
    results.append(mlir_exp)
    EXTRA_OPTIONS = {"fuse-rows": False}  # the row ops op by op, for comparison
    for unfused in (bench_softmax(1151, 8192, bw), bench_layernorm(1151, 8192, bw)):
        unfused.kernel += ", fuse-rows=false"
        results.append(unfused)
    EXTRA_OPTIONS = {"nontemporal-min-bytes": 0}  # plain stores into large outputs
    for plain in (bench_add(bw), bench_layernorm(4096, 1024, bw), bench_layernorm(1151, 8192, bw)):
        plain.kernel += ", plain stores"
        results.append(plain)
    EXTRA_OPTIONS = {"prefetch-rows": False}  # no software prefetch of the next row
    for cold in (bench_softmax(4096, 1024, bw), bench_layernorm(4096, 1024, bw),
                 bench_softmax(1151, 8192, bw), bench_layernorm(1151, 8192, bw)):
        cold.kernel += ", no prefetch"
        results.append(cold)
    EXTRA_OPTIONS = {}
    results += [bench_column_sum(4096, 1024, bw), bench_column_sum(100_000, 64, bw),
                bench_column_sum(64, 100_000, bw)]
    if os.path.exists(ASYNC_RUNTIME) and (os.cpu_count() or 1) > 1:
        PARALLEL = True
        threads = f" ({os.cpu_count()} thr)"
        for extra in (bench_chain(bw), bench_matmul(1024, blas_peak), bench_softmax(4096, 1024, bw),
                      bench_layernorm(4096, 1024, bw), bench_softmax(1151, 8192, bw),
                      bench_layernorm(1151, 8192, bw)):
            extra.kernel += threads
            results.append(extra)
    PARALLEL = False
    checks = [*bench_checks(1024), *bench_checks(N)]
    header = ["kernel", "size", "ours (ms)", "numpy (ms)", "numba (ms)", "numpy/ours", "ours", "machine bound",
              "% of bound", "compile (ms)"]
    print(f"CPU: {cpu_description()}\n")
    print_table(header, [r.cells() for r in results])
    print(f"\nmemory bound: numpy copy of 256 MB, {bw:.1f} GB/s (read + write); "
          "matmul bound: single-threaded OpenBLAS; numpy uses out= buffers, OPENBLAS_NUM_THREADS=1;\n"
          "column sums count the bytes read (a 16 MB matrix partly stays in the caches);\n"
          "plain stores: nontemporal-min-bytes=0 (by default outputs of 8 MiB or more are written with "
          "streaming stores);\n"
          "no prefetch: prefetch-rows=false (by default a fused row loop prefetches the next row "
          "while computing this one);\n"
          "(N thr) rows: dsl-to-llvm-cpu{parallel=true} on libdsl_async_runtime.so, numpy still single-threaded;\n"
          "fp16/bf16 rows: numpy multiplies f32 copies of the same values (made before timing);\n"
          "compile: parse + lower + JIT of the kernel, in this process\n")
    print_table(["run-time checks", "size", "checked (us)", "static (us)", "ratio", "cost/call"],
                [r.cells() for r in checks])
    print("\nchecked: sizes/offsets known at run time, checked once per op (docs/mlir.md); static: the "
          "same kernel with static sizes / a constant offset, no check")


if __name__ == "__main__":
    main()
