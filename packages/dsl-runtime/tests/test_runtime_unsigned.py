"""Unsigned integers compute with unsigned semantics in every op and cast (issue 19),
and signed integers stay signed: each op x dtype is run and compared with numpy."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import numpy as np
import pytest

import dsl_parser.language as pl
from dsl_runtime import jit

UNSIGNED = ("UINT8", "UINT16", "UINT32", "UINT64")
SIGNED = ("INT8", "INT16", "INT32", "INT64")
SHAPE = (3, 37)  # an odd row length: vector chunks plus a remainder


def compile_fn(src: str) -> Callable[..., np.ndarray]:
    return jit(pl.parse(textwrap.dedent(src)))  # type: ignore[no-any-return]


def np_dtype(name: str) -> np.dtype:
    return np.dtype(name.lower().replace("fp", "float"))


def operands(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Values over the whole range (the upper half of an unsigned type is where signed
    code goes wrong), with zeros and equal pairs."""
    dtype = np_dtype(name)
    info = np.iinfo(dtype)
    rng = np.random.default_rng(19)
    a = rng.integers(info.min, info.max, size=SHAPE, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, size=SHAPE, dtype=dtype, endpoint=True)
    a[0, :4] = [0, 1, info.max, 200 if info.max >= 200 else info.max]
    b[0, :4] = [0, 0, 1, 5]
    b[1, :3] = a[1, :3]
    return a, b


def trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The dsl's integer division: rounds toward zero, x / 0 is 0."""
    safe = np.where(b == 0, 1, b)
    q = np.abs(a.astype(object)) // np.abs(safe.astype(object))
    q = np.where((a < 0) != (safe < 0), -q, q)
    return np.where(b == 0, 0, q).astype(np.int64 if a.dtype.kind == "i" else np.uint64) \
        .astype(a.dtype)


BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "pl.maximum(x, y)": np.maximum,
    "pl.minimum(x, y)": np.minimum,
    "pl.div(x, y)": trunc_div,
    "pl.add(x, y)": np.add,
    "pl.mul(x, y)": np.multiply,
}
UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "pl.relu(x)": lambda a: np.maximum(a, np.zeros((), a.dtype)),
    "pl.abs(x)": np.abs,
}
COMPARE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "pl.lt(x, y)": np.less, "pl.le(x, y)": np.less_equal, "pl.gt(x, y)": np.greater,
    "pl.ge(x, y)": np.greater_equal, "pl.eq(x, y)": np.equal, "x < y": np.less,
}


def tensor(dtype: str, shape: tuple[int, ...] = SHAPE) -> str:
    return f"pl.Tensor[{list(shape)}, pl.{dtype}]"


@pytest.mark.parametrize("dtype", UNSIGNED + SIGNED)
@pytest.mark.parametrize("expr", list(BINARY))
def test_binary_ops(dtype: str, expr: str) -> None:
    f = compile_fn(f"""
        @pl.function
        def f(x: {tensor(dtype)}, y: {tensor(dtype)}) -> {tensor(dtype)}:
            return {expr}
    """)
    a, b = operands(dtype)
    with np.errstate(over="ignore"):
        want = BINARY[expr](a, b)
    np.testing.assert_array_equal(f(a, b), want)


@pytest.mark.parametrize("dtype", UNSIGNED + SIGNED)
@pytest.mark.parametrize("expr", list(UNARY))
def test_unary_ops(dtype: str, expr: str) -> None:
    f = compile_fn(f"""
        @pl.function
        def f(x: {tensor(dtype)}) -> {tensor(dtype)}:
            return {expr}
    """)
    a, _ = operands(dtype)
    np.testing.assert_array_equal(f(a), UNARY[expr](a))


@pytest.mark.parametrize("dtype", (*UNSIGNED, "INT8", "INT64"))
@pytest.mark.parametrize("expr", list(COMPARE))
def test_comparisons(dtype: str, expr: str) -> None:
    f = compile_fn(f"""
        @pl.function
        def f(x: {tensor(dtype)}, y: {tensor(dtype)}) -> {tensor("BOOL")}:
            return {expr}
    """)
    a, b = operands(dtype)
    np.testing.assert_array_equal(f(a, b), COMPARE[expr](a, b))


@pytest.mark.parametrize("dtype", (*UNSIGNED, "INT8", "INT32"))
def test_comparison_and_maximum_with_a_scalar(dtype: str) -> None:
    limit = 200 if dtype.startswith("U") else 100
    f = compile_fn(f"""
        @pl.function
        def f(x: {tensor(dtype)}) -> {tensor(dtype)}:
            return pl.select(x > {limit}, pl.maximum(x, {limit}), pl.minimum(x, {limit // 2}))
    """)
    a, _ = operands(dtype)
    s = np.array(limit, a.dtype)
    want = np.where(a > s, np.maximum(a, s), np.minimum(a, np.array(limit // 2, a.dtype)))
    np.testing.assert_array_equal(f(a), want)


@pytest.mark.parametrize("dtype", UNSIGNED + SIGNED)
@pytest.mark.parametrize(("op", "axis"), [("max", 1), ("min", 1), ("max", 0), ("min", 0),
                                          ("sum", 1)])
def test_reductions(dtype: str, op: str, axis: int) -> None:
    out = (SHAPE[1 - axis],)
    f = compile_fn(f"""
        @pl.function
        def f(x: {tensor(dtype)}) -> {tensor(dtype, out)}:
            return pl.{op}(x, axis={axis})
    """)
    a, _ = operands(dtype)
    with np.errstate(over="ignore"):
        want = np.sum(a, axis=axis, dtype=a.dtype) if op == "sum" else getattr(np, op)(a, axis)
    np.testing.assert_array_equal(f(a), want)


@pytest.mark.parametrize("dtype", UNSIGNED + SIGNED)
@pytest.mark.parametrize("axis", [0, 1])
def test_argmax(dtype: str, axis: int) -> None:
    out = (SHAPE[1 - axis],)
    f = compile_fn(f"""
        @pl.function
        def f(x: {tensor(dtype)}) -> {tensor("INT64", out)}:
            return pl.argmax(x, {axis})
    """)
    a, _ = operands(dtype)
    np.testing.assert_array_equal(f(a), np.argmax(a, axis=axis))


CAST_TARGETS = ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
                "FP32", "FP64", "BOOL")


@pytest.mark.parametrize("source", UNSIGNED + SIGNED)
@pytest.mark.parametrize("target", CAST_TARGETS)
def test_integer_casts(source: str, target: str) -> None:
    """Widening zero-extends unsigned and sign-extends signed sources, narrowing
    truncates, int -> float is by value (200 as UINT8 is 200.0, not -56.0)."""
    f = compile_fn(f"""
        @pl.function
        def f(x: {tensor(source)}) -> {tensor(target)}:
            return pl.cast(x, pl.{target})
    """)
    a, _ = operands(source)
    got, want = f(a), a.astype(np_dtype(target))
    if target.startswith("FP"):
        np.testing.assert_allclose(got, want, rtol=1e-7)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("source", ["FP32", "FP64"])
@pytest.mark.parametrize("target", UNSIGNED)
def test_float_to_unsigned_casts(source: str, target: str) -> None:
    """Values above the signed range of the target convert (fptoui, not fptosi)."""
    f = compile_fn(f"""
        @pl.function
        def f(x: {tensor(source, (8,))}) -> {tensor(target, (8,))}:
            return pl.cast(x, pl.{target})
    """)
    top = float(np.iinfo(np_dtype(target)).max)
    values = [0.0, 1.9, 127.0, 200.0, 255.0, 3.0, 0.5, 250.7]
    if source == "FP64" or top < 2**24:
        values[5] = float(np.floor(top * 0.75))
    x = np.array(values, np_dtype(source))
    np.testing.assert_array_equal(f(x), x.astype(np_dtype(target)))


@pytest.mark.parametrize("dtype", UNSIGNED)
def test_widening_matmul_zero_extends(dtype: str) -> None:
    f = compile_fn(f"""
        @pl.function
        def f(x: {tensor(dtype, (4, 8))}, y: {tensor(dtype, (8, 3))}) -> {tensor("UINT64", (4, 3))}:
            return pl.matmul(x, y, out_dtype=pl.UINT64)
    """)
    a = np.full((4, 8), 200, np_dtype(dtype))
    b = np.arange(24, dtype=np_dtype(dtype)).reshape(8, 3) + 250
    np.testing.assert_array_equal(f(a, b), a.astype(np.uint64) @ b.astype(np.uint64))


def test_signed_matmul_still_sign_extends() -> None:
    f = compile_fn(f"""
        @pl.function
        def f(x: {tensor("INT8", (2, 2))}, y: {tensor("INT8", (2, 2))}) -> {tensor("INT32", (2, 2))}:
            return pl.matmul(x, y, out_dtype=pl.INT32)
    """)
    a = np.array([[-56, 3], [1, -1]], np.int8)
    np.testing.assert_array_equal(f(a, a), a.astype(np.int32) @ a.astype(np.int32))


def test_unsigned_elements_in_a_kernel() -> None:
    """Kernel scalars of UINT8 elements: unsigned compare, division, max and cast."""
    import runtime_index_defs as defs

    a, b = operands("UINT8")
    x, y = a.ravel(), np.where(b.ravel() == 0, 1, b.ravel()).astype(np.uint8)
    z, f = np.zeros_like(x), np.zeros(x.shape, np.float32)
    jit(defs.unsigned_elements)(x, y, z, f)
    np.testing.assert_array_equal(z, np.where(x > y, x // y, np.maximum(x, y)))
    np.testing.assert_array_equal(f, x.astype(np.float32))
