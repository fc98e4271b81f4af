"""Kernels: the CPU backend (launches as loops), the NVPTX pipeline, the GPU runtime.

The GPU runtime's host side is checked against a stand-in CUDA driver
(tests/mock_cuda/mock_cuda.c) in subprocesses, since the runtime opens the driver
once per process. Tests that need a real GPU skip without one.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from mlir_kernel_ir import ROWSUM, TRANSPOSE, VADD

import dsl_mlir
from dsl_mlir import gpu
from dsl_mlir.runtime import get_ranked_memref_descriptor

HERE = Path(__file__).parent


def _call(text: str, name: str, *arrays: np.ndarray, extra: tuple = (), **options: bool) -> None:
    with dsl_mlir.context():
        engine = dsl_mlir.jit(dsl_mlir.lower(dsl_mlir.parse_module(text), options=options or None),
                              parallel=bool(options.get("parallel")))
        args = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in arrays]
        engine.invoke(name, *args, *extra)


@pytest.mark.parametrize("n", [1, 255, 256, 1000])
def test_cpu_vector_add_with_bounds_guard(n: int) -> None:
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 0.5, np.float32)
    z = np.full(n + 8, -1.0, np.float32)[:n]  # a view: nothing past n may be written
    backing = z.base
    _call(VADD, "vadd", x, y, z, extra=(ctypes.pointer(ctypes.c_void_p(0)),))
    np.testing.assert_array_equal(z, x + y)
    assert backing is not None and np.all(backing[n:] == -1.0)


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("shape", [(5, 3), (16, 16), (17, 30)])
def test_cpu_transpose_2d_grid(shape: tuple[int, int], parallel: bool) -> None:
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    b = np.zeros(shape[::-1], np.float32)
    _call(TRANSPOSE, "transpose", a, b, parallel=parallel)
    np.testing.assert_array_equal(b, a.T)


@pytest.mark.parametrize("rows", [1, 63, 64, 130])
def test_cpu_row_sum_loop_carried(rows: int) -> None:
    a = np.random.default_rng(1).standard_normal((rows, 37)).astype(np.float32)
    s = np.zeros(rows, np.float32)
    _call(ROWSUM, "rowsum", a, s)
    np.testing.assert_allclose(s, a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_cpu_backend_rejects_divergent_barriers_with_a_diagnostic() -> None:
    """A barrier at the top level runs (threads as loops around it); one inside an scf.if
    (threads could disagree on reaching it) is a diagnostic, not a crash."""
    top = VADD.replace("%bid = gpu.block_id x", "gpu.barrier\n      %bid = gpu.block_id x")
    inside = VADD.replace("%a = memref.load", "gpu.barrier\n        %a = memref.load")
    with dsl_mlir.context():
        assert "llvm.func" in str(dsl_mlir.lower(dsl_mlir.parse_module(top)))
        with pytest.raises(dsl_mlir.MLIRDiagnosticError,
                           match=r"the cpu backend runs barriers at the top level of a kernel "
                                 r"or in for loops only, not inside 'scf.if'"):
            dsl_mlir.lower(dsl_mlir.parse_module(inside))


def test_nvptx_pipeline_emits_one_entry_per_kernel() -> None:
    with dsl_mlir.context():
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(VADD), "dsl-to-llvm-nvptx",
                                 {"chip": "sm_90", "features": "+ptx83"})
        ptx = gpu.ptx_of(lowered)
    assert list(ptx) == ["dsl_kernels"]
    text = ptx["dsl_kernels"]
    assert ".target sm_90" in text and ".version 8.3" in text
    assert text.count(".entry") == 1 and ".visible .entry vadd_k(" in text
    # 3 memrefs x (allocated, aligned, offset, size, stride) + n = 16 parameters.
    params = [line for line in text.splitlines() if line.strip().startswith(".param")]
    assert len(params) == 16
    assert "ld.global" in text and "st.global" in text


def test_ptx_of_requires_a_lowered_module() -> None:
    with dsl_mlir.context(), pytest.raises(ValueError, match=r"no gpu\.binary"):
        gpu.ptx_of(dsl_mlir.parse_module(VADD))


# --- the GPU runtime against a stand-in driver (subprocesses) ---------------------------------

_DRIVER_SCRIPT = textwrap.dedent("""
    import ctypes, json, sys
    import numpy as np
    import dsl_mlir
    from dsl_mlir import gpu
    from dsl_mlir.runtime import get_ranked_memref_descriptor
    sys.path.insert(0, {tests!r})
    from mlir_kernel_ir import VADD

    out = {{"devices": gpu.device_count(), "status": gpu.status()}}
    with dsl_mlir.context():
        engine = dsl_mlir.jit(dsl_mlir.lower(dsl_mlir.parse_module(VADD), "dsl-to-llvm-nvptx"), gpu=True)
        out["load_error"] = gpu.take_error()
        mock = ctypes.CDLL({mock!r}) if {mock!r} else None
        if mock:
            mock.mock_set_param_count(16)
        x = np.ones(1000, np.float32)
        args = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in (x, x, x)]
        engine.invoke("vadd", *args, ctypes.pointer(ctypes.c_void_p(0x1234)))
        out["launch_error"] = gpu.take_error()
        out["x"] = x.ctypes.data
        if mock:
            for name in ("mock_param", "mock_grid", "mock_block"):
                getattr(mock, name).restype = ctypes.c_int64
            mock.mock_stream.restype = ctypes.c_void_p
            mock.mock_ptx.restype = ctypes.c_char_p
            mock.mock_function.restype = ctypes.c_char_p
            out.update(launches=mock.mock_launches(), grid=[mock.mock_grid(i) for i in range(3)],
                       block=[mock.mock_block(i) for i in range(3)], stream=mock.mock_stream(),
                       params=[mock.mock_param(i) for i in range(16)],
                       function=mock.mock_function().decode(), ptx=mock.mock_ptx().decode())
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def mock_driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the stand-in CUDA driver")
    lib = tmp_path_factory.mktemp("mockcuda") / "libcuda.so.1"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(HERE / "mock_cuda" / "mock_cuda.c")],
                   check=True)
    return lib


def _run_driver_script(driver: str, mock: str = "", **env: str) -> dict:
    script = _DRIVER_SCRIPT.format(tests=str(HERE), mock=mock)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "DSL_CUDA_LIBRARY": driver, **env})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_launch_through_the_driver_passes_grid_block_stream_and_descriptors(mock_driver: Path) -> None:
    out = _run_driver_script(str(mock_driver), str(mock_driver))
    assert out["devices"] == 1 and out["status"] == ""
    assert out["load_error"] == "" and out["launch_error"] == ""
    assert out["launches"] == 1 and out["function"] == "vadd_k"
    assert out["grid"] == [4, 1, 1] and out["block"] == [256, 1, 1]
    assert out["stream"] == 0x1234
    # x, y, z descriptors (allocated, aligned, offset, size, stride) then n.
    x = out["x"]
    assert out["params"] == [x, x, 0, 1000, 1] * 3 + [1000]
    assert ".visible .entry vadd_k(" in out["ptx"]


def test_without_a_driver_the_launch_reports_what_is_missing(tmp_path: Path) -> None:
    out = _run_driver_script(str(tmp_path / "libcuda-missing.so"))
    assert out["devices"] == 0
    assert "no CUDA driver" in out["status"] and "libcuda-missing.so" in out["status"]
    assert "no CUDA driver" in out["load_error"]
    assert "no CUDA driver" in out["launch_error"]


def test_a_driver_without_devices_is_reported(mock_driver: Path) -> None:
    out = _run_driver_script(str(mock_driver), MOCK_CUDA_DEVICES="0")
    assert out["devices"] == 0 and "no GPU device" in out["status"]
    assert "no GPU device" in out["launch_error"]


@pytest.mark.gpu
def test_real_gpu_vector_add() -> None:
    if gpu.device_count() == 0:
        pytest.skip(f"no GPU: {gpu.status()}")
    lib = gpu.runtime()
    n = 1000
    x = np.arange(n, dtype=np.float32)
    nbytes = x.nbytes
    dx, dz = lib.dslGpuAlloc(nbytes), lib.dslGpuAlloc(nbytes)
    try:
        lib.dslGpuCopyToDevice(dx, x.ctypes.data, nbytes)
        with dsl_mlir.context():
            engine = dsl_mlir.jit(dsl_mlir.lower(dsl_mlir.parse_module(VADD), "dsl-to-llvm-nvptx"), gpu=True)
            gpu.check()

            def desc(ptr: int) -> object:
                d = get_ranked_memref_descriptor(np.empty(n, np.float32))
                d.allocated = d.aligned = ctypes.cast(ptr, d.aligned.__class__)
                return ctypes.pointer(ctypes.pointer(d))

            engine.invoke("vadd", desc(dx), desc(dx), desc(dz), ctypes.pointer(ctypes.c_void_p(0)))
            gpu.check()
            gpu.synchronize()
        z = np.empty_like(x)
        lib.dslGpuCopyToHost(z.ctypes.data, dz, nbytes)
        np.testing.assert_array_equal(z, 2 * x)
    finally:
        lib.dslGpuFree(dx)
        lib.dslGpuFree(dz)
