"""Ahead-of-time export: the library, header and ABI a C program uses without Python.

Each test exports functions, compiles a C program against the headers, links the
libraries, runs it in a process without Python and checks its numbers against numpy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dsl_parser.language as pl
import dsl_runtime
from dsl_runtime import jit
from dsl_runtime.aot import export

HERE = Path(__file__).resolve().parent
MOCK_SOURCE = HERE.parents[1] / "dsl-mlir" / "tests" / "mock_cuda" / "mock_cuda.c"
M = pl.dynamic("M")
N = pl.dynamic("N")


@jit
def saxpy(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32],
          a: pl.Scalar[pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return x * a + y


@jit
def norm_rows(x: pl.Tensor[[M, 16], pl.FP32],
              w: pl.Tensor[[16], pl.FP32]) -> tuple[pl.Tensor[[M, 16], pl.FP32], pl.Tensor[[M], pl.FP32]]:
    total = pl.sum(x * x, axis=1, keepdim=True)
    return x * pl.rsqrt(total + 1e-6) * w, pl.sum(x, axis=1)


@jit
def int_mix(x: pl.Tensor[[N], pl.INT32], k: pl.Scalar[pl.INT32]) -> pl.Tensor[[N], pl.INT32]:
    return pl.maximum(x * k, x - 50)


def cc() -> str:
    found = shutil.which(os.environ.get("CC", "cc"))
    if found is None:
        pytest.skip("no C compiler")
    return found


def build_and_run(tmp_path: Path, source: str, libs: list[str], env: dict[str, str] | None = None,
                  extra: list[str] | None = None) -> str:
    """Compile ``source`` against the exports in tmp_path/out, run it without Python's
    environment, and return its stdout."""
    out = tmp_path / "out"
    (tmp_path / "main.c").write_text(source)
    exe = tmp_path / "main"
    subprocess.run([cc(), "-std=c11", "-Wall", "-Werror", "-O1", "-I", str(out),
                    str(tmp_path / "main.c"), "-L", str(out), *[f"-l{n}" for n in libs],
                    *(extra or []), f"-Wl,-rpath,{out}", "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    clean = {"PATH": "/usr/bin:/bin", **(env or {})}  # no PYTHONPATH, no virtual env
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=clean)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def needed(library: Path) -> list[str]:
    """The shared libraries ``library`` needs (its DT_NEEDED entries)."""
    text = subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True,
                          check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in text.splitlines() if "(NEEDED)" in line]


MAIN = r"""
#include <stdio.h>
#include "saxpy.h"
#include "norm_rows.h"
#include "int_mix.h"

int main(void) {
  enum { n = 37, rows = 5 };
  float x[n], y[n], z[n], a[rows * 16], w[16], normed[rows * 16], sums[rows];
  int32_t xi[n], zi[n];
  for (int i = 0; i < n; ++i) { x[i] = 0.25f * i - 3.0f; y[i] = 1.0f / (i + 1); xi[i] = i * 7 - 100; }
  for (int i = 0; i < rows * 16; ++i) a[i] = (float)((i * 37) % 23) - 11.0f;
  for (int i = 0; i < 16; ++i) w[i] = 0.5f + 0.125f * i;
  dsl_memref_float32_1d mx = {x, x, 0, {n}, {1}}, my = {y, y, 0, {n}, {1}}, mz = {z, z, 0, {n}, {1}};
  dsl_memref_float32_2d ma = {a, a, 0, {rows, 16}, {16, 1}}, mn = {normed, normed, 0, {rows, 16}, {16, 1}};
  dsl_memref_float32_1d mw = {w, w, 0, {16}, {1}}, ms = {sums, sums, 0, {rows}, {1}};
  dsl_memref_int32_1d mxi = {xi, xi, 0, {n}, {1}}, mzi = {zi, zi, 0, {n}, {1}};
  printf("rc %d %d %d\n", saxpy_checked(&mx, &my, 2.5f, &mz),
         norm_rows_checked(&ma, &mw, &mn, &ms), int_mix_checked(&mxi, -3, &mzi));
  for (int i = 0; i < n; ++i) printf("%.9g ", z[i]);
  printf("\n");
  for (int i = 0; i < rows * 16; ++i) printf("%.9g ", normed[i]);
  printf("\n");
  for (int i = 0; i < rows; ++i) printf("%.9g ", sums[i]);
  printf("\n");
  for (int i = 0; i < n; ++i) printf("%d ", zi[i]);
  printf("\n");
  /* Descriptors that do not fit: the checked call names the argument, runs nothing. */
  dsl_memref_float32_1d short_w = {w, w, 0, {15}, {1}}, few = {sums, sums, 0, {rows - 1}, {1}};
  dsl_memref_float32_2d strided = {a, a, 0, {rows, 8}, {16, 2}};
  dsl_memref_float32_1d other_n = {y, y, 0, {n - 1}, {1}};
  printf("bad %d %d %d %d %d\n", norm_rows_checked(&ma, &short_w, &mn, &ms),
         norm_rows_checked(&ma, &mw, &mn, &few), norm_rows_checked(&strided, &mw, &mn, &ms),
         saxpy_checked(&mx, &other_n, 1.0f, &mz), saxpy_checked(NULL, &my, 1.0f, &mz));
  return 0;
}
"""


def test_exported_functions_run_from_c(tmp_path: Path) -> None:
    out = tmp_path / "out"
    x32 = np.zeros(3, np.float32)
    done = export(saxpy, x32, x32, 1.0, path=out)
    export(norm_rows, np.zeros((2, 16), np.float32), np.zeros(16, np.float32), path=out)
    export(int_mix, np.zeros(3, np.int32), 1, path=out)
    assert done.library == out / "libsaxpy.so" and done.runtime is None
    assert set(needed(done.library)) <= {"libc.so.6", "libm.so.6"}  # no Python, no MLIR
    meta = json.loads(done.abi.read_text())
    assert meta["entry"] == "_mlir_ciface_saxpy" and meta["library"] == "libsaxpy.so"
    assert [p["name"] for p in meta["abi"]["params"]] == ["x", "y", "a"]

    lines = build_and_run(tmp_path, MAIN, ["saxpy", "norm_rows", "int_mix"]).splitlines()
    assert lines[0] == "rc 0 0 0"
    n, rows = 37, 5
    x = np.float32(0.25) * np.arange(n, dtype=np.float32) - np.float32(3)
    y = np.float32(1) / np.arange(1, n + 1, dtype=np.float32)
    np.testing.assert_allclose(np.array(lines[1].split(), np.float32), x * np.float32(2.5) + y,
                               rtol=1e-6)
    a = (np.arange(rows * 16) * 37 % 23 - 11).astype(np.float32).reshape(rows, 16)
    w = np.float32(0.5) + np.float32(0.125) * np.arange(16, dtype=np.float32)
    normed = a / np.sqrt((a * a).sum(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(np.array(lines[2].split(), np.float32).reshape(rows, 16), normed,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.array(lines[3].split(), np.float32), a.sum(axis=1), rtol=1e-6)
    xi = np.arange(n, dtype=np.int32) * 7 - 100
    np.testing.assert_array_equal(np.array(lines[4].split(), np.int32), int_mix(xi, -3))
    assert lines[5] == "bad 2 4 1 2 1"


PARALLEL_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "par_scale.h"

int main(void) {
  enum { rows = 512, cols = 1024 };
  float *x = malloc(sizeof(float) * rows * cols), *z = malloc(sizeof(float) * rows * cols);
  for (int i = 0; i < rows * cols; ++i) x[i] = (float)(i % 1000) * 0.5f;
  dsl_memref_float32_2d mx = {x, x, 0, {rows, cols}, {cols, 1}}, mz = {z, z, 0, {rows, cols}, {cols, 1}};
  int rc = par_scale_checked(&mx, &mz);
  double total = 0;
  for (int i = 0; i < rows * cols; ++i) total += z[i];
  printf("%d %.17g %.9g %.9g\n", rc, total, z[0], z[rows * cols - 1]);
  free(x); free(z);
  return 0;
}
"""


def test_parallel_export_brings_its_runtime(tmp_path: Path) -> None:
    def scale(x: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
        return pl.exp(x * 0.001) + 1.0

    fn = jit(scale, pipeline_options={"parallel": True})
    done = export(fn, np.zeros((512, 1024), np.float32), path=tmp_path / "out", name="par_scale")
    assert done.runtime is not None and done.runtime.name == "libdsl_async_runtime.so"
    assert "libdsl_async_runtime.so" in needed(done.library)
    rc, total, first, last = build_and_run(tmp_path, PARALLEL_MAIN, ["par_scale"]).split()
    x = (np.arange(512 * 1024) % 1000).astype(np.float32) * np.float32(0.5)
    expected = np.exp(x * np.float32(0.001)) + np.float32(1)
    assert rc == "0"
    np.testing.assert_allclose(float(total), expected.astype(np.float64).sum(), rtol=1e-6)
    np.testing.assert_allclose([float(first), float(last)], expected[[0, -1]], rtol=1e-6)


GPU_MAIN = r"""
#include <stdio.h>
#include "vadd.h"
int64_t mock_launches(void); int64_t mock_grid(int); int64_t mock_block(int);
void *mock_stream(void); const char *mock_function(void); void mock_set_param_count(int);
int64_t mock_param(int);

int main(void) {
  mock_set_param_count(16);
  float *fake = (float *)(intptr_t)0x10000;  /* device memory is never touched on the host */
  dsl_memref_float32_1d x = {fake, fake, 0, {1000}, {1}}, z = {fake + 4096, fake + 4096, 0, {1000}, {1}};
  int rc = vadd_checked(&x, &x, &z, (void *)0x1234);
  printf("%d %lld %s %lld %lld %lld %p %lld\n", rc, (long long)mock_launches(), mock_function(),
         (long long)mock_grid(0), (long long)mock_block(0), (long long)mock_param(3),
         mock_stream(), (long long)mock_param(15));
  return 0;
}
"""


def test_nvptx_export_launches_through_the_driver(tmp_path: Path) -> None:
    sys.path.insert(0, str(HERE))
    import runtime_kernel_defs as defs

    fn = jit(defs.vadd, backend="nvptx")
    x = np.zeros(1000, np.float32)
    done = export(fn, x, x, x, None, path=tmp_path / "out")
    assert done.runtime is not None and done.runtime.name == "libdsl_gpu_runtime.so"
    ptx = fn.ptx(x, x, x, None)
    ptxas = shutil.which("ptxas")
    if ptxas is not None:  # the PTX the library embeds assembles for its target
        (tmp_path / "k.ptx").write_text(ptx)
        subprocess.run([ptxas, "-arch=sm_80", str(tmp_path / "k.ptx"), "-o",
                        str(tmp_path / "k.cubin")], check=True, capture_output=True)
    mock = tmp_path / "mock" / "libcuda.so.1"
    mock.parent.mkdir()
    subprocess.run([cc(), "-shared", "-fPIC", "-O1", "-o", str(mock), str(MOCK_SOURCE)], check=True)
    out = build_and_run(tmp_path, GPU_MAIN, ["vadd"], env={"DSL_CUDA_LIBRARY": str(mock)},
                        extra=[str(mock)]).split()
    assert out[:6] == ["0", "1", "vadd_k", "4", "256", "1000"]  # rc, launches, kernel, grid, block, x's size
    assert int(out[6], 16) == 0x1234 and out[7] == "1000"  # the stream; n


def test_export_errors_name_the_problem(tmp_path: Path) -> None:
    @jit
    def half_scalar(x: pl.Tensor[[N], pl.FP16], s: pl.Scalar[pl.FP16]) -> pl.Tensor[[N], pl.FP16]:
        return x * s

    x16 = np.zeros(4, np.float16)
    with pytest.raises(TypeError, match="'s' is a float16 scalar"):
        export(half_scalar, x16, np.float16(1), path=tmp_path)
    with pytest.raises(ValueError, match="C identifier"):
        export(saxpy, x16.astype(np.float32), x16.astype(np.float32), 1.0, path=tmp_path,
               name="not-a-name")
    assert dsl_runtime.export is export  # the package's name for it


def test_dsl_export_command(tmp_path: Path) -> None:
    script = tmp_path / "kern.py"
    script.write_text(
        "import dsl_parser.language as pl\n"
        "N = pl.dynamic('N')\n"
        "def twice(x: pl.Tensor[[N], pl.FP64]) -> pl.Tensor[[N], pl.FP64]:\n"
        "    return x + x\n")
    proc = subprocess.run([sys.executable, "-m", "dsl_runtime.cli", "export", f"{script}::twice",
                           "-o", str(tmp_path / "out"), "--name", "dbl"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    written = [Path(line).name for line in proc.stdout.split()]
    assert written == ["libdbl.so", "dbl.h", "dbl.abi.json"]
    header = (tmp_path / "out" / "dbl.h").read_text()
    assert "void _mlir_ciface_twice(dsl_memref_float64_1d *x, dsl_memref_float64_1d *result);" \
        in header
    bad = subprocess.run([sys.executable, "-m", "dsl_runtime.cli", "export", f"{script}::twice",
                          "-o", str(tmp_path / "o2"), "--name", "1x"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1 and "C identifier" in bad.stderr
