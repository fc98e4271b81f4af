"""@jit end to end: results, out=, specialization, errors before native code, threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import runtime_kernels as k

from dsl_runtime import CompiledFunction, cache, jit


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


def test_scale_add_allocates_and_matches_numpy() -> None:
    x = np.linspace(-2, 2, 1000, dtype=np.float32)
    y = np.arange(1000, dtype=np.float32)
    z = k.scale_add(x, y)
    assert z.shape == (1000,) and z.dtype == np.float32
    np.testing.assert_allclose(z, x * x + y, rtol=1e-6)


def test_out_is_written_in_place_and_returned() -> None:
    x, y = f32(1, 2, 3), f32(10, 20, 30)
    out = np.zeros(3, np.float32)
    assert k.scale_add(x, y, out=out) is out
    np.testing.assert_array_equal(out, f32(11, 24, 39))


def test_each_call_reads_current_values() -> None:
    x, y, out = f32(1, 1), f32(0, 0), np.zeros(2, np.float32)
    k.scale_add(x, y, out=out)
    x[:] = 3
    k.scale_add(x, y, out=out)
    np.testing.assert_array_equal(out, f32(9, 9))


def test_dynamic_size_compiles_once_for_all_sizes() -> None:
    for n in (1, 5, 4096):
        a = np.ones(n, np.float32)
        np.testing.assert_array_equal(k.scale_add(a, a), np.full(n, 2, np.float32))
    assert k.scale_add.cache_info()["specializations"] == 1


def test_unshaped_parameters_specialize_on_shape() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(k.unshaped_mul(a, a), a * a)
    b = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(k.unshaped_mul(b, b), b * b)
    np.testing.assert_array_equal(k.unshaped_mul(a + 1, a), (a + 1) * a)
    assert k.unshaped_mul.cache_info()["specializations"] == 2


def test_scalar_parameter() -> None:
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_array_equal(k.fill_scaled(x, 3.0), x * 3.0)
    np.testing.assert_array_equal(k.fill_scaled(x, 2), x * 2.0)


def test_constexpr_specializes_and_is_type_checked() -> None:
    x = f32(1, 2)
    np.testing.assert_array_equal(k.repeat_add(x, 3), x * 4)
    np.testing.assert_array_equal(k.repeat_add(x, times=1), x * 2)
    assert k.repeat_add.cache_info()["specializations"] == 2
    with pytest.raises(TypeError, match="Constexpr parameter 'times'"):
        k.repeat_add(x, 2.5)


def test_f16_and_integer_kernels() -> None:
    h = np.array([[0.5, -1.25], [65504.0, 6.1e-5]], np.float16)
    np.testing.assert_array_equal(k.to_f32(h), h.astype(np.float32))
    a = np.array([7, -7, 9], np.int32)
    b = np.array([2, 2, -4], np.int32)
    np.testing.assert_array_equal(k.int_div(a, b), np.array([3, -3, -2], np.int32))


@pytest.mark.parametrize(("args", "error", "words"), [
    ((f32(1, 2), np.array([1, 2], np.float64)), TypeError, "argument 'y' expects element type float32, got float64"),
    ((f32(1, 2), f32(1, 2, 3)), ValueError, "dynamic dimension 'N' is bound to 2"),
    ((np.ones((2, 2), np.float32), f32(1, 2)), ValueError, "argument 'x' expects rank 1, got rank 2"),
    ((f32(1, 2),), TypeError, "missing argument(s): 'y'"),
    ((f32(1), f32(1), f32(1)), TypeError, "takes 2 arguments but 3 were given"),
    (([1.0, 2.0], f32(1, 2)), TypeError, "argument 'x' expects a 1D float32 array, got list"),
])
def test_bad_arguments_are_caught_before_native_code(args, error, words) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error) as info:
        k.scale_add(*args)
    assert words in str(info.value)


def test_static_shape_mismatch_names_the_dimension() -> None:
    with pytest.raises(ValueError, match=r"argument 'y' expects size 8 in dimension 1, got 9"):
        k.static_add(np.ones((4, 8), np.float32), np.ones((4, 9), np.float32))


def test_non_contiguous_input_is_rejected_not_misread() -> None:
    x = np.arange(10, dtype=np.float32)[::2]
    with pytest.raises(ValueError, match="not C-contiguous"):
        k.scale_add(x, np.ones(5, np.float32))


def test_bad_out_is_rejected() -> None:
    x = f32(1, 2)
    with pytest.raises(ValueError, match="dynamic dimension 'N'"):
        k.scale_add(x, x, out=np.zeros(3, np.float32))
    ro = np.zeros(2, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        k.scale_add(x, x, out=ro)


def test_compile_returns_prepared_function() -> None:
    x = np.ones(8, np.float32)
    cf = k.scale_add.compile(x, x)
    assert isinstance(cf, CompiledFunction)
    out = np.zeros(8, np.float32)
    cf.kernel(x, x, out)
    np.testing.assert_array_equal(out, np.full(8, 2, np.float32))
    assert "dsl.mul" in cf.mlir("dsl") and "dsl.add" in cf.mlir("dsl")
    assert "llvm.func @_mlir_ciface_scale_add" in cf.mlir("lowered")
    assert "define void @_mlir_ciface_scale_add(ptr" in cf.mlir("llvm")
    with pytest.raises(ValueError, match="stage must be one of dsl, lowered, llvm, asm"):
        cf.mlir("ptx")


def test_the_assembly_is_what_the_jit_compiled_with_the_functions_options() -> None:
    x = np.ones(64, np.float32)
    fast = jit(k.scale_add.__wrapped__).compile(x, x).mlir("asm")  # compiled, cached on disk
    assert "_mlir_ciface_scale_add:" in fast and "mulps" in fast
    slow = jit(k.scale_add.__wrapped__, opt_level=0, llvm_passes="default").compile(x, x)
    np.testing.assert_array_equal(slow(x, x), x * x + x)
    assert slow.mlir("asm") != fast and "_mlir_ciface_scale_add:" in slow.mlir("asm")
    # a disk-cache hit (a new JitFunction, the same options) shows the same assembly
    cache.flush()
    again = jit(k.scale_add.__wrapped__).compile(x, x)
    assert again.source == "disk-cache" and again.mlir("asm") == fast


def test_threads_call_concurrently_and_correctly() -> None:
    fresh = jit(k.scale_add.__wrapped__)  # compile happens under contention
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        try:
            rng = np.random.default_rng(seed)
            for _ in range(50):
                n = int(rng.integers(1, 300))
                x = rng.standard_normal(n).astype(np.float32)
                y = rng.standard_normal(n).astype(np.float32)
                np.testing.assert_allclose(fresh(x, y), x * x + y, rtol=1e-6)
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert fresh.cache_info()["specializations"] == 1


def test_dlpack_tensors_from_torch() -> None:
    torch = pytest.importorskip("torch")
    x = torch.arange(6, dtype=torch.float32)
    y = torch.ones(6, dtype=torch.float32)
    out = torch.zeros(6, dtype=torch.float32)
    k.scale_add(x, y, out=out)
    assert out.tolist() == [1.0, 2.0, 5.0, 10.0, 17.0, 26.0]
    np.testing.assert_array_equal(k.scale_add(x, y), (x * x + y).numpy())


def test_dispatcher_fast_path_and_fallback() -> None:
    x = f32(1, 2)
    out = np.zeros(2, np.float32)
    k.scale_add(x, x, out=out)
    assert k.scale_add.kernel is not None  # the C dispatcher calls the kernel directly now
    assert k.scale_add.__name__ == "scale_add" and k.scale_add.impl.name == "scale_add"
    with pytest.raises(TypeError, match="argument 'x' expects a 1D float32 array, got list"):
        k.scale_add([1.0, 2.0], x, out=out)  # kernel rejects -> general path explains
    with pytest.raises(TypeError, match="got an unexpected argument 'z'"):
        k.scale_add(x, x, z=out)
    assert k.repeat_add.kernel is None  # Constexpr parameters: never a single specialization


def test_jit_of_parsed_function_and_program_entry() -> None:
    sub = jit(k.parsed_sub)
    np.testing.assert_array_equal(sub(f32(5, 6, 7, 8), f32(1, 1, 1, 1)), f32(4, 5, 6, 7))
    assert sub.__name__ == "parsed_sub"
    sos = jit(k.Ops, entry="sum_of_squares")
    np.testing.assert_array_equal(sos(f32(1, 2), f32(3, 4)), f32(10, 20))
    out = np.zeros(2, np.float32)
    sos(f32(1, 1), f32(1, 1), out=out)
    np.testing.assert_array_equal(out, f32(2, 2))
    with pytest.raises(TypeError, match="give the entry function"):
        jit(k.Ops)
    with pytest.raises(KeyError, match="has no function 'nope'"):
        jit(k.Ops, entry="nope")


def test_struct_parameters_flatten_to_scalar_slots() -> None:
    x = f32(1, 2, 3)
    p = k.Params(k.Affine(2.0, 0.5), 10.0)
    np.testing.assert_array_equal(k.affine(x, p), x * 2 + 0.5 + 10)
    out = np.zeros(3, np.float32)
    k.affine(x, k.Params(k.Affine(-1.0, 0.0), 1.0), out=out)  # values are read at each call
    np.testing.assert_array_equal(out, -x + 1)
    abi = k.affine.compile(x, p).abi
    (struct,) = [q for q in abi.params if q.kind == "struct"]
    assert [f.name for f in struct.fields] == ["p.aff.scale", "p.aff.shift", "p.bias"]
    assert [s.kind for s in abi.slots()] == ["memref", "f32", "f32", "f32", "memref"]
    with pytest.raises(TypeError, match="argument 'p' expects a Params struct, got Affine"):
        k.affine(x, k.Affine(1.0, 2.0))


def test_struct_calls_take_the_generated_plan_and_fall_back_to_explain() -> None:
    x = f32(1, 2, 3)
    p = k.Params(k.Affine(2.0, 0.5), 10.0)
    k.affine(x, p)
    impl = k.affine.impl
    assert impl._expand is not None and k.affine.kernel is not None  # installed in C
    assert impl._expand(x, p) == (x, 2.0, 0.5, 10.0)
    out = np.zeros(3, np.float32)
    for scale in (3.0, -0.5):  # the C dispatcher's path (out=) and the allocating path
        q = k.Params(k.Affine(scale, 1.0), 0.0)
        np.testing.assert_array_equal(k.affine(x, q, out=out), x * scale + 1)
        np.testing.assert_array_equal(k.affine(x, q), x * scale + 1)
    with pytest.raises(TypeError, match="argument 'p' expects a Params struct, got tuple"):
        k.affine(x, (2.0, 0.5, 10.0), out=out)
    with pytest.raises(TypeError, match=r"missing argument\(s\): 'p'"):
        k.affine(x, out=out)
    with pytest.raises(TypeError, match="argument 'x' expects element type float32, got int64"):
        k.affine(np.arange(3), p, out=out)


def test_parallel_option_runs_on_the_async_runtime() -> None:
    x = np.linspace(-1, 1, 1 << 18, dtype=np.float32)
    y = np.ones_like(x)
    np.testing.assert_allclose(k.chain_parallel(x, y), x * x + y, rtol=1e-6)
    cf = k.chain_parallel.compile(x, y)
    assert "async" in cf.mlir("lowered") or "mlirAsyncRuntime" in cf.mlir("lowered")


def test_slot_kinds_and_dtypes_agree_with_the_c_dispatcher() -> None:
    """The ABI's slot numbering is the dispatcher's enum, and every dtype of dsl-core's
    table has a slot kind and a format the dispatcher knows."""
    from dsl_core import dtypes
    from dsl_mlir import dispatch
    from dsl_runtime import abi

    assert tuple(k.upper() for k in abi.SLOT_KINDS) == dispatch.SLOT_KINDS
    for number, kind in enumerate(abi.SLOT_KINDS):
        assert getattr(dispatch, kind.upper()) == number, kind
    abi.check_dispatcher(dispatch)  # what every process checks before its first kernel
    fake = type("Dispatch", (), {"SLOT_KINDS": dispatch.SLOT_KINDS,
                                 "FORMATS": {**dispatch.FORMATS, "H": ("bfloat16", 2)}})
    abi._CHECKED.clear()
    with pytest.raises(RuntimeError, match=r"disagree: BF16: format 'H' is \('bfloat16', 2\) "
                                           r"in the dispatcher, \('uint16', 2\) in dsl-core"):
        abi.check_dispatcher(fake)
    abi.check_dispatcher(dispatch)
    for d in dtypes.ALL:
        slot, fmt, ctype = abi.DTYPES[d.abi_name]
        assert slot in abi.SLOT_KINDS and (fmt, ctype) == (d.format, d.c_type)
        assert np.dtype(d.storage).char == fmt, d  # what numpy's buffers report


ABANDON = """
import gc, sys
import numpy as np
sys.path.insert(0, {tests!r})
import runtime_kernels as k
from dsl_runtime import compiled, jit

x = np.ones(4096, np.float32)
kept = [jit(k.scale_add.__wrapped__, cache=False, opt_level=level) for level in (2, 3)]
for f in kept:
    f(x, x)
dropped = jit(k.scale_add.__wrapped__, cache=False, opt_level=1)
dropped(x, x)
del dropped
gc.collect()
parallel = jit(k.scale_add.__wrapped__, cache=False, pipeline_options={{"parallel": True}})
np.testing.assert_array_equal(parallel(x, x), x * x + x)
assert "mlirAsyncRuntime" in parallel.compile(x, x).mlir("lowered")
engine = kept[0].compile(x, x).keepalive[-1]
before = sys.getrefcount(engine)
print(compiled.abandon_engines(), sys.getrefcount(engine) - before, compiled.abandon_engines())
"""


def test_engines_alive_at_exit_are_not_torn_down() -> None:
    """Tearing an engine down compiles LLVM's de-initialization (~8 ms each): at exit,
    the engines of live plain-CPU functions are left to the OS (dropped ones are torn
    down as they go; parallel ones keep their teardown, which stops the async runtime)."""
    import subprocess
    import sys
    from pathlib import Path

    code = ABANDON.format(tests=str(Path(__file__).parent))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["2", "1", "0"]  # two kept engines, +1 reference each, once
    assert run.stderr == ""
