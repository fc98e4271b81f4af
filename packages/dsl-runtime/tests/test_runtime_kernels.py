"""@pl.kernel launched from @jit host functions: the CPU backend end to end, the NVPTX
backend's PTX, and its launches through a stand-in CUDA driver (subprocesses)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import runtime_kernel_defs as defs

import dsl_parser
import dsl_runtime
from dsl_runtime import jit

HERE = Path(__file__).parent
MOCK_SOURCE = HERE.parents[1] / "dsl-mlir" / "tests" / "mock_cuda" / "mock_cuda.c"
RNG = np.random.default_rng(7)


@pytest.mark.parametrize("n", [1, 255, 256, 1000])
@pytest.mark.parametrize("stream", [None, 0, 0x1234])
def test_vector_add_on_the_cpu_backend(n: int, stream: int | None) -> None:
    f = jit(defs.vadd)
    x, y = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    z = np.zeros(n, np.float32)
    assert f(x, y, z, stream) is None
    np.testing.assert_array_equal(z, x + y)


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("shape", [(3, 5), (8, 8), (33, 17)])
def test_transpose_2d_grid(shape: tuple[int, int], parallel: bool) -> None:
    f = jit(defs.transpose, pipeline_options={"parallel": parallel})
    a = RNG.standard_normal(shape).astype(np.float32)
    b = np.full(shape[::-1], np.nan, np.float32)
    f(a, b)
    np.testing.assert_array_equal(b, a.T)


@pytest.mark.parametrize("rows", [1, 64, 100])
def test_row_sum_reduction_with_bounds_guard(rows: int) -> None:
    a = RNG.standard_normal((rows, 29)).astype(np.float32)
    s = np.zeros(rows + 3, np.float32)
    jit(defs.row_sum)(a, s[:rows])
    np.testing.assert_allclose(s[:rows], a.sum(axis=1), rtol=1e-5, atol=1e-5)
    assert np.all(s[rows:] == 0)


@pytest.mark.parametrize("tile", [4, 16])
def test_matmul_tile_loop_specialized_by_constexpr(tile: int) -> None:
    f = jit(defs.matmul)
    a = RNG.standard_normal((19, 23)).astype(np.float32)
    b = RNG.standard_normal((23, 11)).astype(np.float32)
    c = np.zeros((19, 11), np.float32)
    f(a, b, c, tile)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert "matmul_k" in f.compile(a, b, c, tile).mlir("dsl")


def test_host_functions_have_no_results() -> None:
    f = jit(defs.vadd)
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="no results"):
        f.compile(x, x, x, None)(x, x, x, None, out=x)


def test_wrong_arguments_are_rejected_before_running() -> None:
    f = jit(defs.vadd)
    x = np.ones(8, np.float32)
    with pytest.raises((TypeError, ValueError), match="z"):
        f(x, x, np.ones(8, np.float64), None)
    with pytest.raises(ValueError, match=r"'N' is bound to 8 .* argument 'z' has 9 in dimension 0"):
        f(x, x, np.ones(9, np.float32), None)
    with pytest.raises(TypeError, match="Stream"):
        f(x, x, x, "not a stream")


def test_kernel_intrinsic_outside_a_kernel_points_at_the_line(tmp_path: Path) -> None:
    src = tmp_path / "bad_kernels.py"
    src.write_text(textwrap.dedent("""
        import dsl_parser.language as pl

        def f(x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
            i = pl.thread_id(0)
            return pl.mul(x, 2.0)
    """))
    ns: dict = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)
    with pytest.raises(dsl_parser.ParserError) as info:
        jit(ns["f"])(np.ones(8, np.float32))
    assert "only available inside a @pl.kernel" in str(info.value)
    assert "bad_kernels.py:5" in str(info.value)


def test_ptx_of_a_host_function_needs_no_gpu() -> None:
    f = jit(defs.vadd)
    x = np.ones(16, np.float32)
    ptx = f.ptx(x, x, x, None)
    assert ".visible .entry vadd_k(" in ptx and ".target sm_80" in ptx
    g = jit(defs.matmul, pipeline_options={"chip": "sm_90"}, backend="nvptx")
    ptx = g.ptx(np.ones((4, 4), np.float32), np.ones((4, 4), np.float32), np.ones((4, 4), np.float32), 4)
    assert ".target sm_90" in ptx and ".entry matmul_k" in ptx


def test_cli_emits_ptx(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "dsl_runtime.cli", "compile",
                           f"{HERE / 'runtime_kernel_defs.py'}::vadd", "--emit", "ptx", "--chip", "sm_75"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert ".target sm_75" in proc.stdout and ".visible .entry vadd_k(" in proc.stdout


# --- the NVPTX backend in subprocesses (the GPU runtime opens the driver once per process) ----

_SCRIPT = textwrap.dedent("""
    import ctypes, json, sys
    import numpy as np
    sys.path.insert(0, {tests!r})
    import runtime_kernel_defs as defs
    from dsl_runtime import DeviceArray, jit

    out = {{}}
    f = jit(defs.vadd, backend="nvptx")
    x = np.arange(1000, dtype=np.float32)
    try:
        dx = DeviceArray.from_numpy(x)
        dz = DeviceArray.empty(x.shape, x.dtype)
    except RuntimeError as err:
        out["array_error"] = f"{{type(err).__name__}}: {{err}}"
        dx = dz = None
    try:
        f(x, x, x, None)
    except Exception as err:
        out["host_array_error"] = f"{{type(err).__name__}}: {{err}}"
    if dx is not None:
        mock = ctypes.CDLL({mock!r})
        mock.mock_set_param_count(16)
        f(dx, dx, dz, 0x1234)
        for name in ("mock_param", "mock_grid", "mock_block"):
            getattr(mock, name).restype = ctypes.c_int64
        mock.mock_stream.restype = ctypes.c_void_p
        mock.mock_function.restype = ctypes.c_char_p
        out.update(launches=mock.mock_launches(), grid=[mock.mock_grid(i) for i in range(3)],
                   block=[mock.mock_block(i) for i in range(3)], stream=mock.mock_stream(),
                   params=[mock.mock_param(i) for i in range(16)], x=dx.ptr, z=dz.ptr,
                   function=mock.mock_function().decode(),
                   source=f.compile(dx, dx, dz, 0).source, back=dx.to_numpy().tolist()[:3])
    print(json.dumps(out))
""")


def _run(tmp_path: Path, driver: Path, mock: Path | None = None) -> dict:
    script = _SCRIPT.format(tests=str(HERE), mock=str(mock or ""))
    env = {**os.environ, "DSL_CUDA_LIBRARY": str(driver), "DSL_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DSL_DISABLE_DISK_CACHE", None)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def mock_driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the stand-in CUDA driver")
    lib = tmp_path_factory.mktemp("mockcuda") / "libcuda.so.1"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(MOCK_SOURCE)], check=True)
    return lib


def test_nvptx_backend_without_a_driver_names_what_is_missing(tmp_path: Path) -> None:
    out = _run(tmp_path, tmp_path / "libcuda-missing.so.1")
    assert out["array_error"].startswith("GPUUnavailableError: a GPU was requested")
    assert "no CUDA driver" in out["array_error"]
    assert out["host_array_error"].startswith("GPUUnavailableError") and "libcuda-missing" in out["host_array_error"]


def test_nvptx_backend_launches_through_the_driver(tmp_path: Path, mock_driver: Path) -> None:
    out = _run(tmp_path, mock_driver, mock_driver)
    assert "__cuda_array_interface__" in out["host_array_error"]  # numpy arrays are host memory
    assert out["launches"] == 1 and out["function"] == "vadd_k"
    assert out["grid"] == [4, 1, 1] and out["block"] == [256, 1, 1] and out["stream"] == 0x1234
    x, z = out["x"], out["z"]
    assert out["params"] == [x, x, 0, 1000, 1, x, x, 0, 1000, 1, z, z, 0, 1000, 1, 1000]
    assert out["source"] == "compiled" and out["back"] == [0.0, 1.0, 2.0]
    entries = list((tmp_path / "cache").rglob("kernels.ptx"))
    assert len(entries) == 1 and ".visible .entry vadd_k(" in entries[0].read_text()
    again = _run(tmp_path, mock_driver, mock_driver)  # a fresh process: from the disk cache
    assert again["source"] == "disk-cache" and again["launches"] == 1 and again["grid"] == [4, 1, 1]


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["vadd", "transpose", "row_sum"])
def test_kernels_on_a_real_gpu(which: str) -> None:
    from dsl_mlir import gpu

    if gpu.device_count() == 0:
        pytest.skip(f"no GPU: {gpu.status()}")
    D = dsl_runtime.DeviceArray
    if which == "vadd":
        x = RNG.standard_normal(1000).astype(np.float32)
        dz = D.empty(x.shape, x.dtype)
        jit(defs.vadd, backend="nvptx")(D.from_numpy(x), D.from_numpy(x), dz, None)
        gpu.synchronize()
        np.testing.assert_array_equal(dz.to_numpy(), 2 * x)
    elif which == "transpose":
        a = RNG.standard_normal((33, 17)).astype(np.float32)
        db = D.empty((17, 33), np.float32)
        jit(defs.transpose, backend="nvptx")(D.from_numpy(a), db)
        gpu.synchronize()
        np.testing.assert_array_equal(db.to_numpy(), a.T)
    else:
        a = RNG.standard_normal((100, 29)).astype(np.float32)
        ds = D.empty((100,), np.float32)
        jit(defs.row_sum, backend="nvptx")(D.from_numpy(a), ds)
        gpu.synchronize()
        np.testing.assert_allclose(ds.to_numpy(), a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_editing_a_kernel_changes_the_cache_identity_of_its_host(tmp_path: Path) -> None:
    import importlib.util

    from dsl_runtime import keys

    def identity(body: str, tag: str) -> str | None:
        path = tmp_path / f"kmod_{tag}.py"
        path.write_text(textwrap.dedent(f"""
            import dsl_parser.language as pl

            @pl.kernel
            def k(x: pl.Tensor[[8], pl.FP32]):
                i = pl.thread_id(0)
                x[i] = {body}

            def host(x: pl.Tensor[[8], pl.FP32]):
                k(x).launch(grid=1, block=8)
        """))
        spec = importlib.util.spec_from_file_location(f"kmod_{tag}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return keys.function_identity(module.host).replace(f"kmod_{tag}", "kmod")

    one, two = identity("x[i] + 1.0", "a"), identity("x[i] * 2.0", "b")
    assert one is not None and two is not None
    assert "x[i] + 1.0" in one and "x[i] * 2.0" in two and one != two
    assert identity("x[i] + 1.0", "c") == one


def test_abi_of_a_host_function_lists_memrefs_and_the_stream_slot() -> None:
    x = np.ones(8, np.float32)
    abi = jit(defs.vadd).compile(x, x, x, None).abi
    assert [(p.name, p.kind, p.mlir_type) for p in abi.params] == [
        ("x", "tensor", "memref<?xf32>"), ("y", "tensor", "memref<?xf32>"),
        ("z", "tensor", "memref<?xf32>"), ("stream", "stream", "!llvm.ptr")]
    assert [s.kind for s in abi.slots()] == ["memref", "memref", "memref", "ptr"]
    assert abi.results == () and abi.symbols == ("N",)


@pytest.mark.parametrize("block", [32, 128])
def test_struct_and_constexpr_kernel_parameters(block: int) -> None:
    import dsl_core as dc

    f = jit(defs.affine)
    x = RNG.standard_normal(1000).astype(np.float32)
    y = np.zeros_like(x)
    p = defs.Affine(scale=dc.Float32(2.0), shift=dc.Float32(-1.0))
    f(x, y, p, block)
    np.testing.assert_allclose(y, x * 2.0 - 1.0, rtol=1e-6)
    compiled = f.compile(x, y, p, block)
    # the struct crosses the host ABI as one slot per leaf; the kernel gets it through
    # DslType extract/construct (one gpu.func argument per leaf), specialized on BLOCK
    assert [s.kind for s in compiled.abi.slots()] == ["memref", "memref", "f32", "f32"]
    assert f"affine_k__c{block}" in compiled.mlir("dsl")
    p2 = defs.Affine(scale=dc.Float32(0.5), shift=dc.Float32(3.0))
    f(x, y, p2, block)  # values are read at each call
    np.testing.assert_allclose(y, x * 0.5 + 3.0, rtol=1e-6)


def test_a_failed_launch_is_a_runtime_error_after_the_call(tmp_path: Path, mock_driver: Path) -> None:
    script = textwrap.dedent(f"""
        import sys
        import numpy as np
        sys.path.insert(0, {str(HERE)!r})
        import runtime_kernel_defs as defs
        from dsl_runtime import DeviceArray, jit
        f = jit(defs.vadd, backend="nvptx")
        d = DeviceArray.from_numpy(np.ones(300, np.float32))
        try:
            f(d, d, d, None)
        except RuntimeError as err:
            print("RAISED", err)
        print("ALIVE")
    """)
    env = {**os.environ, "DSL_CUDA_LIBRARY": str(mock_driver), "MOCK_CUDA_FAIL_LAUNCH": "1",
           "DSL_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    assert "RAISED vadd: kernel launch failed: CUDA error 700 (mock failure)" in proc.stdout
    assert proc.stdout.strip().endswith("ALIVE")
