"""Arguments of user types through dsl-core's protocols (issue 13): registered or
protocol-implementing types reach @jit functions through JitArgumentRegistry, their
hooks give the IR types, the cache signature, the ABI slots and the body's value."""

from __future__ import annotations

import ctypes
import subprocess
import sys
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dsl_core as dc
import dsl_parser.language as pl
from dsl_parser.errors import ParserError, UnsupportedFeatureError
from dsl_runtime import jit

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "custom_argument.py"


def _example() -> Any:
    import runpy

    return runpy.run_path(str(EXAMPLE), run_name="custom_argument_test")


@pytest.fixture(scope="module")
def ex() -> Any:
    module = _example()
    yield module
    for t in (module["QuantizedTensor"], complex):
        dc.JitArgumentRegistry.unregister(t)


def test_quantized_tensor_round_trip_and_inputs_unchanged(ex: Any) -> None:
    rng = np.random.default_rng(3)
    for shape in [(4, 6), (3,), (2, 3, 5)]:
        x = rng.standard_normal(shape).astype(np.float32)
        q = ex["QuantizedTensor"].quantize(x)
        before = q.data.copy()
        got = ex["dequantize"](q)
        want = (q.data.astype(np.float32) - np.float32(q.zero_point)) * np.float32(q.scale)
        assert got.shape == shape and got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(q.data, before)
    # one specialization per shape: the adapter's __cache_signature__ is in the key
    assert ex["dequantize"].cache_info()["specializations"] == 3


def test_the_abi_shows_the_protocol_slots(ex: Any) -> None:
    q = ex["QuantizedTensor"].quantize(np.ones((2, 2), np.float32))
    param = ex["dequantize"].compile(q).abi.params[0]
    assert (param.name, param.kind, param.role) == ("q", "protocol", "input")
    assert param.mlir_type == "tensor<2x2xi8>, f32, i32"
    # NativeSlot entries: marshalled by the C dispatcher, as the built-in arguments are
    assert [s.kind for s in param.slots] == ["memref", "f32", "i32"]
    assert [s.ctype for s in param.slots] == ["Memref<int8_t, 2> *", "float", "int32_t"]
    assert [(f.name, f.kind, f.shape) for f in param.fields] == [
        ("q.0", "tensor", (2, 2)), ("q.1", "scalar", None), ("q.2", "scalar", None)]
    assert ex["dequantize"].compile(q).slot_plans["q"].native == (True, True, True)


def test_a_struct_typed_argument_passes_its_leaves_natively(ex: Any) -> None:
    x = np.zeros(4, np.float32)
    cf = ex["rotate"].compile(x, x, 1j)
    plan = cf.slot_plans["z"]
    assert plan.native == (True, True) and [ct for ct, _ in plan.entries] == [ctypes.c_float] * 2
    assert plan.values(ex["Complex"](1.5, -2.0), []) == [1.5, -2.0]
    assert cf.abi.params[2].mlir_type == "f32, f32"
    assert [s.kind for s in cf.abi.params[2].slots] == ["f32", "f32"]


def test_slot_kinds_the_dispatcher_does_not_marshal_run_through_the_python_fills(
        ex: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no native slot kinds, every entry is filled by its ctypes fill (raw slots):
    the same results as the native path, inputs unchanged; a struct's slots are then
    written by dsl-core's generated fill."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    q = ex["QuantizedTensor"].quantize(x)
    native = ex["dequantize"](q)
    re, im = np.array([1, 2], np.float32), np.array([0.5, -1], np.float32)
    native_rot = ex["rotate"](np.resize(re, 4), np.resize(im, 4), 0.5 - 1j)
    import dsl_runtime.abi

    monkeypatch.setattr(dsl_runtime.abi, "NATIVE_KINDS", frozenset())
    monkeypatch.setenv("DSL_DISABLE_DISK_CACHE", "1")  # compile, not load the native ABI
    dequantize, rotate = ex["dequantize"], ex["rotate"]
    try:
        for f in (dequantize, rotate):
            f.recompile()
        before = q.data.copy()
        cf = dequantize.compile(q)
        assert [s.kind for s in cf.abi.params[0].slots] == ["raw"] * 3
        assert cf.slot_plans["q"].native == (False, False, False)
        np.testing.assert_array_equal(dequantize(q), native)
        np.testing.assert_array_equal(q.data, before)

        x4, y4 = np.resize(re, 4), np.resize(im, 4)
        plan = rotate.compile(x4, y4, 1j).slot_plans["z"]
        assert plan.fill_all is not None and plan.native == (False, False)
        keep: list[Any] = []  # the storages live as long as this list
        addresses = plan.values(ex["Complex"](1.5, -2.0), keep)
        assert [ctypes.c_float.from_address(a).value for a in addresses] == [1.5, -2.0]
        for got, want in zip(rotate(x4, y4, 0.5 - 1j), native_rot, strict=True):
            np.testing.assert_array_equal(got, want)
    finally:
        for f in (dequantize, rotate):
            f.recompile()


def test_a_registered_builtin_type_becomes_a_struct(ex: Any) -> None:
    re = np.array([1, 0, -1, 2], np.float32)
    im = np.array([0, 1, 1, 0.5], np.float32)
    for z in (0.5 + 2j, -1j, 3 + 0j):
        out_re, out_im = ex["rotate"](re, im, z)
        np.testing.assert_allclose(out_re + 1j * out_im, (re + 1j * im) * z, rtol=1e-6)
    # the struct's signature is its type: one specialization for every complex value
    assert ex["rotate"].cache_info()["specializations"] == 1


def test_a_wrong_argument_names_the_parameter_and_the_type(ex: Any) -> None:
    with pytest.raises(TypeError, match=r"dequantize\(\): argument 'q' expects a QuantizedTensor: "
                                        r"no JitArgument adapter for str"):
        ex["dequantize"]("q")
    with pytest.raises(TypeError, match=r"argument 'q' expects a QuantizedTensor, got ndarray"):
        ex["dequantize"](np.zeros(3, np.int8))
    with pytest.raises(TypeError, match=r"argument 'q' expects a QuantizedTensor, got complex "
                                        r"\(whose DSL type is Complex\)"):
        ex["dequantize"](1j)
    bad = ex["QuantizedTensor"](np.zeros(3, np.float32), 1.0, 0)
    with pytest.raises(TypeError, match="data must be an int8 numpy array"):
        ex["dequantize"](bad)


class Pair:
    """A native type: JitArgument and DslType hooks on the class itself."""

    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b

    def __get_ir_types__(self) -> list[Any]:
        return [pl.Scalar[pl.INT64], pl.Tensor[[len(self.b)], pl.UINT8]]  # DSL types work too

    def __cache_signature__(self) -> Hashable:
        return ("Pair", len(self.b))

    def __c_abi_spec__(self) -> list[tuple[Any, Any]]:
        from dsl_runtime.adapters import NdarrayArgument

        (memref, fill), = NdarrayArgument(self.b).__c_abi_spec__()

        def a(arg: Pair, storage: Any) -> None:
            storage.value = arg.a

        return [(ctypes.c_int64, a), (memref, lambda arg, storage: fill(arg.b, storage))]

    def __extract_to_ir_values__(self) -> list[Any]:
        return [self.a, self.b]

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Pair:
        return cls(*values)


def test_a_native_type_keeps_unsigned_dtypes_given_as_dsl_types() -> None:
    @jit
    def shift(p: Pair) -> pl.Tensor[pl.UINT8]:
        return pl.add(p.b, pl.cast(p.a, pl.UINT8))

    b = np.array([250, 3, 128], np.uint8)
    got = shift(Pair(10, b))
    np.testing.assert_array_equal(got, (b.astype(np.int64) + 10).astype(np.uint8))  # wraps
    assert got.dtype == np.uint8
    assert shift.compile(Pair(1, b)).abi.params[0].mlir_type == "i64, tensor<3xi8>"


class Broken(Pair):
    def __get_ir_types__(self) -> list[Any]:
        return [pl.Scalar[pl.INT64], "not a type"]


class BrokenConstruct(Pair):
    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Pair:
        raise ValueError("cannot rebuild")


def test_failing_hooks_point_at_the_users_parameter() -> None:
    @jit
    def f(p: Broken) -> pl.Tensor[pl.UINT8]:
        return p.b

    with pytest.raises(ParserError, match=r"parameter 'p': Broken.__get_ir_types__ item 1 is "
                                          r"not a type") as err:
        f(Broken(1, np.zeros(2, np.uint8)))
    assert "def f(p: Broken)" in str(err.value)

    @jit
    def g(p: BrokenConstruct) -> pl.Tensor[pl.UINT8]:
        return p.b

    with pytest.raises(ParserError, match=r"BrokenConstruct.__construct_from_ir_values__ failed: "
                                          r"ValueError: cannot rebuild"):
        g(BrokenConstruct(1, np.zeros(2, np.uint8)))


def test_the_c_dispatcher_refuses_a_raw_slot_without_an_address() -> None:
    @jit
    def first(p: Pair) -> pl.Tensor[pl.UINT8]:
        return pl.add(p.b, pl.cast(p.a, pl.UINT8))

    cf = first.compile(Pair(1, np.zeros(2, np.uint8)))
    assert [s.kind for s in cf.abi.params[0].slots] == ["raw", "raw"]  # plain (ctype, fill)
    out = np.empty(2, np.uint8)
    with pytest.raises(TypeError, match=r"slot 'p.0' expects the address of its filled storage, "
                                        r"got float"):
        cf.kernel(1.5, 0, out)
    with pytest.raises(TypeError, match=r"slot 'p\.0' expects the address"):
        cf.kernel(0, 0, out)


def test_native_slots_of_a_protocol_argument_get_the_dispatchers_checks(ex: Any) -> None:
    q = ex["QuantizedTensor"].quantize(np.ones((2, 2), np.float32))
    cf = ex["dequantize"].compile(q)
    out = np.empty((2, 2), np.float32)
    with pytest.raises(TypeError, match=r"dequantize: argument 'q.0' expects a 2D int8 array, "
                                        r"got float"):
        cf.kernel(1.5, 0, 0, out)
    strided = ex["QuantizedTensor"](np.zeros((2, 4), np.int8)[:, ::2], 0.5, 1)
    with pytest.raises(ValueError, match=r"argument 'q.0'.*contiguous"):
        ex["dequantize"](strided)
    big = ex["QuantizedTensor"](np.zeros((2, 2), np.int8), 1.0, 2**31)
    with pytest.raises(OverflowError, match=r"argument 'q.2' = 2147483648 does not fit in int32"):
        ex["dequantize"](big)


def test_the_disk_cache_serves_a_protocol_argument_in_a_new_process(tmp_path: Path) -> None:
    script = (f"import sys; sys.path.insert(0, {str(EXAMPLE.parent)!r})\n"
              "import numpy as np, custom_argument as m\n"
              "q = m.QuantizedTensor.quantize(np.arange(6, dtype=np.float32))\n"
              "cf = m.dequantize.compile(q)\n"
              "print(cf.source, float(abs(m.dequantize(q) - np.arange(6)).max()) < q.scale)\n")
    env = {**__import__("os").environ, "DSL_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DSL_DISABLE_DISK_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, check=True).stdout.split() for _ in range(2)]
    assert runs == [["compiled", "True"], ["disk-cache", "True"]]


def test_registry_dsl_type_for() -> None:
    reg = dc.JitArgumentRegistry
    assert reg.dsl_type_for(int) is dc.Int32 and reg.dsl_type_for(dc.Int32) is dc.Int32
    assert reg.dsl_type_for(Pair) is Pair  # native
    assert reg.dsl_type_for(str) is None and reg.dsl_type_for("Pair") is None
    # as a parameter's annotation, a scalar DslType is a scalar, not a protocol argument
    assert reg.parameter_type(int) is None and reg.parameter_type(dc.Int32) is None
    assert reg.parameter_type(Pair) is Pair and reg.parameter_type(str) is None


def test_dc_scalar_annotations_in_jit_functions() -> None:
    @jit
    def axpy(a: dc.Float32, x: pl.Tensor[[3], dc.Float32], n: dc.UInt8) -> pl.Tensor[[3], pl.FP32]:
        return pl.add(pl.mul(x, a), pl.cast(n, pl.FP32))

    x = np.array([1, 2, 3], np.float32)
    np.testing.assert_array_equal(axpy(2.0, x, 200), x * 2 + 200)
    with pytest.raises(OverflowError, match="argument 'n' = 256 does not fit in uint8"):
        axpy(2.0, x, 256)
    assert [p.dtype for p in axpy.compile(1.0, x, 1).abi.params] == ["float32", "float32", "uint8"]


def test_a_protocol_argument_crosses_into_a_kernel(ex: Any) -> None:
    rng = np.random.default_rng(5)
    for n in (1, 64, 130):
        q = ex["QuantizedTensor"].quantize(rng.standard_normal(n).astype(np.float32))
        before = q.data.copy()
        out = np.full(n, np.nan, np.float32)
        ex["dequantize_launch"](q, out)
        want = (q.data.astype(np.float32) - np.float32(q.zero_point)) * np.float32(q.scale)
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(q.data, before)
    q = ex["QuantizedTensor"].quantize(np.ones(8, np.float32))
    cf = ex["dequantize_launch"].compile(q, np.zeros(8, np.float32))
    assert cf.abi.params[0].mlir_type == "memref<8xi8>, f32, i32"  # a host function: memrefs
    kernel = [line for line in cf.mlir("dsl").splitlines() if "gpu.func" in line]
    assert kernel and ("(%arg0: memref<8xi8>, %arg1: f32, %arg2: i32, %arg3: memref<?xf32> "
                       "{llvm.align = 4 : i64})") in kernel[0]


def test_the_kernels_ptx_is_accepted_by_ptxas(ex: Any, tmp_path: Path) -> None:
    import re
    import shutil

    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas is not installed")
    q = ex["QuantizedTensor"].quantize(np.ones(32, np.float32))
    ptx = ex["dequantize_launch"].ptx(q, np.zeros(32, np.float32))
    target = re.search(r"^\.target\s+(sm_\w+)", ptx, re.M)
    assert target is not None and ".entry dequantize_k__t32xi8_sf32_si32_tdxf32" in ptx
    (tmp_path / "k.ptx").write_text(ptx)
    proc = subprocess.run([ptxas, f"-arch={target.group(1)}", "-o", str(tmp_path / "k.cubin"),
                           str(tmp_path / "k.ptx")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "k.cubin").stat().st_size > 0


KERNEL_MISUSE = '''
import numpy as np
import dsl_parser.language as pl
from dsl_runtime import jit
import custom_argument as m

@jit
def bad(x: pl.Tensor[[8], pl.FP32], out: pl.Tensor[[8], pl.FP32]):
    m.dequantize_k(x, out).launch(grid=(1,), block=(8,))

bad(np.zeros(8, np.float32), np.zeros(8, np.float32))
'''


def test_a_kernel_argument_of_the_wrong_type_is_an_error_at_the_launch(tmp_path: Path) -> None:
    script = tmp_path / "misuse.py"
    script.write_text(KERNEL_MISUSE)
    env = {**__import__("os").environ, "PYTHONPATH": str(EXAMPLE.parent)}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert proc.returncode == 1
    assert "argument 'q' of kernel 'dequantize_k': expected a QuantizedTensor, given " \
           "pl.Tensor[[8], pl.FP32]" in proc.stderr
    assert "m.dequantize_k(x, out).launch" in proc.stderr  # at the user's line


def test_python_number_annotations_stay_errors() -> None:
    def f(n: int, x: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
        return x

    with pytest.raises(TypeError, match=r"parameter 'n' has annotation <class 'int'>; expected "
                                        r"pl.Tensor\[...\], pl.Scalar\[...\], a dsl-core scalar"):
        jit(f)


@dc.union
class Bits:
    i: dc.Int32
    f: dc.Float32


def test_a_union_parameter_is_a_clear_error() -> None:
    def f(x: pl.Tensor[[2], pl.FP32], u: Bits) -> pl.Tensor[[2], pl.FP32]:
        return x

    with pytest.raises(TypeError, match=r"parameter 'u' is a @dc.union \(Bits\), which is "
                                        r"storage only"):
        jit(f)
    x = np.zeros(2, np.float32)
    with pytest.raises(UnsupportedFeatureError, match=r"parameter 'u': Bits is a @dc.union"):
        launches_union(x)


@pl.kernel
def takes_bits(u: Bits, x: pl.Tensor[[2], pl.FP32]):
    pass


@jit
def launches_union(x: pl.Tensor[[2], pl.FP32]):
    takes_bits(1, x).launch(grid=(1,), block=(1,))


class Samples:
    """A user's array container (not a numpy array, no buffer protocol of its own)."""

    def __init__(self, values: np.ndarray) -> None:
        self._values = values


class SamplesArgument:
    def __init__(self, s: Samples) -> None:
        self.s = s

    def __get_ir_types__(self) -> list[Any]:
        return [pl.Tensor[list(self.s._values.shape), pl.FP32]]

    def __cache_signature__(self) -> Hashable:
        return self.s._values.shape

    def __c_abi_spec__(self) -> list[Any]:
        from dsl_runtime.adapters import array_slot

        return [array_slot(pl.FP32, self.s._values.ndim, lambda a: a.s._values)]


n = pl.dynamic("n")


def test_a_registered_array_type_passes_to_tensor_parameters() -> None:
    """A type registered with dsl_type=dc.Tensor whose ABI is one array slot is accepted
    where a pl.Tensor is expected: the registry adapts it and the C dispatcher marshals
    the slot's array (and checks it as it checks any array)."""
    dc.JitArgumentRegistry.register(Samples, SamplesArgument, dsl_type=dc.Tensor)
    try:
        @jit
        def twice(x: pl.Tensor[[n], pl.FP32]) -> pl.Tensor[[n], pl.FP32]:
            return pl.add(x, x)

        @jit
        def plus(x: pl.Tensor[pl.FP32], y: pl.Tensor[pl.FP32]) -> pl.Tensor[pl.FP32]:
            return pl.add(x, y)

        values = np.arange(5, dtype=np.float32)
        np.testing.assert_array_equal(twice(Samples(values)), values * 2)
        np.testing.assert_array_equal(twice(values), values * 2)  # the fast path still
        np.testing.assert_array_equal(plus(Samples(values), values), values * 2)  # unshaped
        np.testing.assert_array_equal(values, np.arange(5, dtype=np.float32))
        with pytest.raises(TypeError, match=r"twice: argument 'x' expects element type "
                                            r"float32, got float64"):
            twice(Samples(np.zeros(3)))
    finally:
        dc.JitArgumentRegistry.unregister(Samples)


class Liar(Pair):
    """Says its first slot is a float; its IR type is an i64."""

    def __c_abi_spec__(self) -> list[Any]:
        (memref, fill), = super().__c_abi_spec__()[1:]
        return [dc.scalar_slot(dc.Float32, lambda a: 0.0), (memref, fill)]


def test_a_native_slot_that_contradicts_the_ir_types_is_a_compile_error() -> None:
    @jit
    def f(p: Liar) -> pl.Tensor[pl.UINT8]:
        return p.b

    from dsl_runtime.errors import CompileError

    with pytest.raises(CompileError, match=r"argument 'p': entry 0 of .*Liar's __c_abi_spec__ "
                                           r"is a native f32 slot but __get_ir_types__ gave"):
        f(Liar(1, np.zeros(2, np.uint8)))


def test_the_interpreter_runs_protocol_and_struct_arguments_like_the_compiled_code(
        ex: Any) -> None:
    """backend="interpret" binds a protocol argument as @jit does (registry, IR types,
    NativeSlot values, __construct_from_ir_values__): differential against the compiled
    functions of the example, inputs unchanged, kernels launched with one too."""
    from dsl_parser.interpreter import Interpreted

    rng = np.random.default_rng(11)
    for shape in [(5,), (3, 4)]:
        q = ex["QuantizedTensor"].quantize(rng.standard_normal(shape).astype(np.float32))
        before = q.data.copy()
        np.testing.assert_array_equal(Interpreted(ex["dequantize"])(q), ex["dequantize"](q))
        np.testing.assert_array_equal(q.data, before)
    flat = ex["QuantizedTensor"].quantize(np.linspace(-1, 1, 70, dtype=np.float32))
    want, got = np.zeros(70, np.float32), np.zeros(70, np.float32)
    ex["dequantize_launch"](flat, want)
    Interpreted(ex["dequantize_launch"])(flat, got)
    np.testing.assert_array_equal(got, want)
    x, y = np.array([1, 0, -1, 2], np.float32), np.array([0, 1, 1, 0.5], np.float32)
    for z in (0.5 + 2j, -1j):  # complex -> a @dc.struct Complex through the registry
        for a, b in zip(Interpreted(ex["rotate"])(x, y, z), ex["rotate"](x, y, z), strict=True):
            np.testing.assert_array_equal(a, b)


def test_the_interpreter_explains_entries_without_a_value() -> None:
    from dsl_parser.interpreter import Interpreted

    @jit(backend="interpret")
    def first(p: Pair) -> pl.Tensor[pl.UINT8]:
        return p.b

    with pytest.raises(TypeError, match=r"argument 'p': entry 0 of Pair's __c_abi_spec__ is a "
                                        r"\(ctype, fill\) pair; the interpreter reads slot "
                                        r"values from dsl_core.NativeSlot entries"):
        first(Pair(1, np.zeros(2, np.uint8)))
    assert isinstance(first, Interpreted)


V3 = dc.Array[dc.Float32, 3]
U2 = dc.Array[dc.UInt8, 2]


@pl.kernel
def _axpb_k(x: pl.Tensor[pl.FP32], c: V3, out: pl.Tensor[pl.FP32]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < out.shape[0]:
        out[i] = x[i] * c[0] + c[1] * c[2]


def _axpb(x: pl.Tensor[[n], pl.FP32], c: V3, out: pl.Tensor[[n], pl.FP32]):
    _axpb_k(x, c, out).launch(grid=(pl.ceil_div(out.shape[0], 32),), block=(32,))


def _shift(x: pl.Tensor[[n], pl.UINT8], u: U2) -> pl.Tensor[[n], pl.UINT8]:
    return pl.add(x, u[1])


@pytest.mark.parametrize("backend", ["jit", "interpret"])
def test_dc_array_arguments_in_functions_and_kernels(backend: str) -> None:
    """A dc.Array[E, N] of scalars is a parameter (registered in the runtime with its own
    class as DslType): N native scalar slots, one specialization per array type, elements
    indexed in the body with their dtype (uint8 wraps), launched into kernels; the
    interpreter agrees with the compiled code."""
    make = jit if backend == "jit" else (lambda f: jit(f, backend="interpret"))
    axpb, shift = make(_axpb), make(_shift)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(70).astype(np.float32)
    for c in ([2.0, 3.0, 0.5], [-1.0, 0.0, 4.0]):
        out = np.zeros(70, np.float32)
        axpb(x, V3(c), out)
        np.testing.assert_array_equal(out, x * np.float32(c[0]) + np.float32(c[1] * c[2]))
    got = shift(np.array([250, 1, 0], np.uint8), U2([0, 10]))
    assert got.dtype == np.uint8 and got.tolist() == [4, 11, 10]
    with pytest.raises(TypeError, match=r"argument 'u' expects a Array\[UInt8, 2\], got "):
        shift(np.zeros(3, np.uint8), dc.Array[dc.UInt8, 3]([1, 2, 3]))
    if backend == "jit":
        cf = shift.compile(np.zeros(3, np.uint8), U2([0, 1]))
        param = cf.abi.params[1]
        assert (param.kind, [s.kind for s in param.slots]) == ("protocol", ["u8", "u8"])
        assert shift.cache_info()["specializations"] == 1  # the array's type is its key


def test_arrays_of_composites_are_refused_at_the_call() -> None:
    @dc.struct
    class P:
        a: dc.Int32

    with pytest.raises(TypeError, match=r"only arrays of scalars pass to a compiled function"):
        from dsl_runtime.adapters import ArrayArgument

        ArrayArgument(dc.Array[P, 2]([P(1), P(2)]))
