"""Generated code depends on libc, libm and dsl-mlir's runtime only, and its float
conversions round correctly without the host's compiler runtime.

gcc 12's libgcc has no bf16 helpers (`__truncsfbf2`), so code that LLVM lowers to
such calls works on one distribution and fails to link on another. The first test
makes that class of bug visible on any host: it compiles every element type through
every op family and checks the object code's undefined symbols against
``dsl_mlir.objects`` (the one list of what generated code may import).
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from mlir_helpers import from_bf16_bits, run_text, to_bf16_bits

import dsl_mlir
from dsl_mlir import ir, objects

FLOATS = ("f16", "bf16", "f32", "f64")
INTS = ("i8", "i16", "i32", "i64")
NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": np.uint16}


def _ops_module(t: str) -> str:
    tt = f"tensor<5x19x{t}>"
    binary = ["add", "sub", "mul", "div", "maximum", "minimum"]
    lines = [f"%b{i} = dsl.{op} %x, %y : {tt}" for i, op in enumerate(binary)]
    if t in FLOATS:
        unary = ["exp", "log", "sqrt", "rsqrt", "tanh", "abs", "neg", "relu"]
        lines += [f"%u{i} = dsl.{op} %x : {tt}" for i, op in enumerate(unary)]
        lines.append(f"%p = dsl.pow %x, %y : {tt}")
    lines += [f"%s = dsl.sum %x [1] : {tt} -> tensor<5x{t}>",
              f"%m = dsl.max %x [0] : {tt} -> tensor<19x{t}>"]
    body = "\n  ".join(lines)
    return f"func.func @f(%x: {tt}, %y: {tt}) -> {tt} {{\n  {body}\n  return %b0 : {tt} }}"


def _cast_module(src: str, dst: str) -> str:
    a, b = f"tensor<7x{src}>", f"tensor<7x{dst}>"
    return f"func.func @f(%x: {a}) -> {b} {{ %0 = dsl.cast %x : {a} to {b}\n return %0 : {b} }}"


def _matmul_module(t: str) -> str:
    a = f"tensor<16x16x{t}>"
    acc = "f64" if t == "f64" else "f32"
    return (f"func.func @f(%a: {a}, %b: {a}) -> tensor<16x16x{acc}> {{ %0 = dsl.matmul %a, %b :"
            f" {a}, {a} -> tensor<16x16x{acc}>\n return %0 : tensor<16x16x{acc}> }}")


MODULES = (
    [(f"ops-{t}", _ops_module(t)) for t in FLOATS + INTS]
    + [(f"cast-{s}-{d}", _cast_module(s, d)) for s in FLOATS + INTS for d in FLOATS + INTS if s != d]
    + [(f"matmul-{t}", _matmul_module(t)) for t in FLOATS]
)
OPTION_SETS = {"default": None, "scalar": {"vectorize": False}, "parallel": {"parallel": True}}


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
def test_object_code_imports_only_libc_libm_and_our_runtime(tmp_path: Path, options: str) -> None:
    offenders: dict[str, set[str]] = {}
    everything: set[str] = set()
    with dsl_mlir.context():
        for name, text in MODULES:
            lowered = dsl_mlir.lower(dsl_mlir.parse_module(text), options=OPTION_SETS[options])
            engine = dsl_mlir.jit(lowered, object_dump=True, parallel=options == "parallel")
            path = tmp_path / f"{name}.o"
            engine.dump_to_object_file(str(path))
            imported = objects.undefined_symbols(path)
            everything |= imported
            bad = {s for s in imported if not objects.allowed(s)}
            if bad:
                offenders[name] = bad
    # The reader does see imports (memset initializes the reductions' accumulators).
    assert everything & objects.LIBC
    assert offenders == {}


def test_undefined_symbols_reads_a_real_object(tmp_path: Path) -> None:
    text = """
    llvm.func @cosh(f64) -> f64
    llvm.func @g(%x: f64) -> f64 attributes {llvm.emit_c_interface} {
      %0 = llvm.call @cosh(%x) : (f64) -> f64
      llvm.return %0 : f64 }"""
    with dsl_mlir.context():
        engine = dsl_mlir.jit(dsl_mlir.parse_module(text), object_dump=True)
        engine.dump_to_object_file(str(tmp_path / "g.o"))
    assert "cosh" in objects.undefined_symbols(tmp_path / "g.o")
    assert objects.disallowed_symbols(tmp_path / "g.o") == set()
    assert not objects.allowed("__truncsfbf2") and objects.allowed("memcpy")


def _bf16_nearest(x: np.ndarray) -> np.ndarray:
    """Reference rounding of f32/f64 values to bf16 bits (nearest, ties to even), computed
    from the value with math.frexp, independent of the bit trick the pass uses."""
    def one(v: float) -> int:
        mag = abs(v)
        _, e = math.frexp(mag)  # mag = m * 2**e, 0.5 <= m < 1
        quantum = 2.0 ** max(e - 8, -133)  # 8 significand bits; bf16 subnormals below 2**-126
        steps = math.floor(mag / quantum)
        below, above = steps * quantum, (steps + 1) * quantum
        nearer_below = mag - below < above - mag
        tie_to_even = mag - below == above - mag and steps % 2 == 0
        chosen = below if nearer_below or tie_to_even else above
        bits = int(np.array([math.copysign(chosen, v)], np.float32).view(np.uint32)[0])
        return bits >> 16
    flat = np.asarray(x, np.float64).ravel()
    return np.array([one(float(v)) for v in flat], np.uint16).reshape(np.shape(x))


def _bf16_probe_values(dtype: type) -> np.ndarray:
    rng = np.random.default_rng(7)
    base = rng.standard_normal(300) * np.exp2(rng.integers(-30, 30, 300))
    bf = np.array([1.0, 3.0, 255.0, 1.0 / 3.0, 65504.0, 3.3895e38, 1e-40], np.float64)
    # exact ties and near-ties between two bf16 values: 1 + k/256 + 1/512 (+- tiny)
    ties = 1.0 + np.arange(8) / 128.0 + 1.0 / 256.0
    vals = np.concatenate([base, bf, -bf, ties, ties + 2.0**-30, ties - 2.0**-30, [0.0, -0.0]])
    return vals.astype(dtype)


@pytest.mark.parametrize("src", ["f32", "f64"])
def test_cast_to_bf16_rounds_to_nearest_even(ctx: ir.Context, src: str) -> None:
    x = _bf16_probe_values(NP[src])
    out = np.zeros(x.shape, np.uint16)
    text = _cast_module(src, "bf16").replace("7x", f"{x.size}x")
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, _bf16_nearest(x))


def test_cast_f64_to_f16_is_correctly_rounded(ctx: ir.Context) -> None:
    # halfway cases between f16 values that a naive f64->f32->f16 double rounding gets wrong
    eps = 2.0 ** -11
    tricky = 1.0 + eps * (1 + 2.0 ** -20) + eps * np.arange(16) * 2
    x = np.concatenate([tricky, -tricky, _bf16_probe_values(np.float64), [65520.0, 65519.99]])
    out = np.zeros(x.shape, np.float16)
    run_text(_cast_module("f64", "f16").replace("7x", f"{x.size}x"), [x], [out])
    np.testing.assert_array_equal(out, x.astype(np.float16))


def test_bf16_nan_and_inf_survive(ctx: ir.Context) -> None:
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 3.4e38, -3.4e38, 1.0], np.float32)
    out = np.zeros(x.shape, np.uint16)
    run_text(_cast_module("f32", "bf16").replace("7x", "7x"), [x], [out])
    back = from_bf16_bits(out)
    assert np.isnan(back[0]) and np.isnan(back[1])
    np.testing.assert_array_equal(back[2:], [np.inf, -np.inf, np.inf, -np.inf, 1.0])


def test_bf16_arithmetic_rounds_once(ctx: ir.Context) -> None:
    rng = np.random.default_rng(3)
    x32 = rng.standard_normal((5, 19)).astype(np.float32)
    y32 = rng.standard_normal((5, 19)).astype(np.float32)
    x, y = _bf16_nearest(x32), _bf16_nearest(y32)
    out = np.zeros((5, 19), np.uint16)
    tt = "tensor<5x19xbf16>"
    run_text(f"func.func @f(%x: {tt}, %y: {tt}) -> {tt} {{ %0 = dsl.mul %x, %y : {tt}\n"
             f" return %0 : {tt} }}", [x, y], [out])
    exact = from_bf16_bits(x).astype(np.float64) * from_bf16_bits(y).astype(np.float64)
    np.testing.assert_array_equal(out, _bf16_nearest(exact.astype(np.float32)))


@pytest.mark.parametrize("src", ["i16", "i32", "i64"])
def test_int_to_bf16(ctx: ir.Context, src: str) -> None:
    dtype = {"i16": np.int16, "i32": np.int32, "i64": np.int64}[src]
    info = np.iinfo(dtype)
    x = np.array([0, 1, -1, 255, 257, 259, 1000, -30001, info.max, info.min], dtype)
    out = np.zeros(x.shape, np.uint16)
    run_text(_cast_module(src, "bf16").replace("7x", f"{x.size}x"), [x], [out])
    np.testing.assert_array_equal(out, _bf16_nearest(x.astype(np.float64)))


def test_missing_symbol_is_an_exception_with_llvms_words() -> None:
    """Used to print 'JIT session error' on stderr only, and abort on dump_to_object_file."""
    script = textwrap.dedent("""
        import dsl_mlir
        text = '''
        llvm.func @no_such_helper_xyz(f64) -> f64
        llvm.func @g(%x: f64) -> f64 attributes {llvm.emit_c_interface} {
          %0 = llvm.call @no_such_helper_xyz(%x) : (f64) -> f64
          llvm.return %0 : f64 }'''
        with dsl_mlir.context():
            try:
                dsl_mlir.jit(dsl_mlir.parse_module(text), object_dump=True)
            except dsl_mlir.MLIRDiagnosticError as err:
                print("RAISED", str(err).replace(chr(10), " "))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "RAISED JIT compilation failed:" in proc.stdout
    assert "Symbols not found" in proc.stdout and "no_such_helper_xyz" in proc.stdout


def test_build_id_of_the_native_library(tmp_path: Path) -> None:
    """dsl-runtime keys its cache on it: a rebuild with an unchanged version must not reuse
    code compiled by the previous build."""
    ident = objects.build_id(dsl_mlir.CAPI_LIBRARY)
    assert ident is not None and len(ident) >= 32 and int(ident, 16) > 0
    assert dsl_mlir.native_build_id() == ident
    # another library has another ID; a relocatable object (no program headers) has none
    assert objects.build_id(dsl_mlir.ASYNC_RUNTIME) not in (None, ident)
    with dsl_mlir.context():
        engine = dsl_mlir.jit(dsl_mlir.parse_module(
            "llvm.func @g() attributes {llvm.emit_c_interface} { llvm.return }"), object_dump=True)
        engine.dump_to_object_file(str(tmp_path / "g.o"))
    assert objects.build_id(tmp_path / "g.o") is None
    (tmp_path / "text").write_text("not an ELF file")
    with pytest.raises(ValueError, match="not a little-endian ELF64 file"):
        objects.build_id(tmp_path / "text")


# -- bf16 shapes that LLVM's x86 back end could not legalize (found by the IR fuzz test) ----
# Each case runs in a child process: they used to abort it.
def _in_child(call: str) -> None:
    script = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
              f"import test_mlir_portable_code as t\n{call}\nprint('checked')")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "checked", proc.stderr[-3000:]


def odd_bf16_matmul(m: int, k: int, n: int, result: str,
                    options: dict[str, object] | None) -> None:
    rng = np.random.default_rng(11)
    a = to_bf16_bits(rng.standard_normal((m, k)).astype(np.float32))
    b = to_bf16_bits(rng.standard_normal((k, n)).astype(np.float32))
    out = np.zeros((m, n), np.float32 if result == "f32" else np.uint16)
    ta, tb, tc = f"tensor<{m}x{k}xbf16>", f"tensor<{k}x{n}xbf16>", f"tensor<{m}x{n}x{result}>"
    with dsl_mlir.context():
        run_text(f"func.func @f(%a: {ta}, %b: {tb}) -> {tc} {{ %0 = dsl.matmul %a, %b :"
                 f" {ta}, {tb} -> {tc}\n return %0 : {tc} }}", [a, b], [out], options=options)
    want = from_bf16_bits(a).astype(np.float64) @ from_bf16_bits(b).astype(np.float64)
    got = out if result == "f32" else from_bf16_bits(out)
    # a bf16 result accumulates in bf16: a few bf16 ulps of the running sums
    tol = 1e-5 if result == "f32" else 0.1
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize(("m", "k", "n", "result", "options"), [
    (7, 16, 17, "f32", None), (7, 16, 17, "f32", {"vector-size": 64}),
    (7, 16, 17, "f32", {"parallel": True}), (16, 8, 33, "bf16", {"vector-size": 64}),
    (16, 8, 33, "bf16", None)])
def test_bf16_matmul_of_odd_sizes(m: int, k: int, n: int, result: str,
                                  options: dict[str, object] | None) -> None:
    """7x16x17 aborted the process in instruction selection (a scalar_to_vector of
    <16 x bfloat>: "Do not know how to soft promote this operator's operand"); so did
    16x8x33 with a bf16 result (vector.fma on <33 x bfloat>)."""
    _in_child(f"t.odd_bf16_matmul({m}, {k}, {n}, {result!r}, {options!r})")


def bf16_reduction_of_33(op: str) -> None:
    x32 = np.random.default_rng(5).standard_normal(33).astype(np.float32)
    x = to_bf16_bits(x32)
    out = np.zeros((), np.uint16)
    with dsl_mlir.context():
        run_text(f"func.func @f(%x: tensor<33xbf16>) -> tensor<bf16> {{ %0 = dsl.{op} %x [0] :"
                 " tensor<33xbf16> -> tensor<bf16>\n return %0 : tensor<bf16> }",
                 [x], [out], options={"vector-size": 64})
    values = from_bf16_bits(x).astype(np.float64)
    want = {"min": values.min(), "max": values.max(), "sum": values.sum()}[op]
    got = float(from_bf16_bits(out.reshape(1))[0])
    if op == "sum":  # accumulated in f32, rounded once to bf16
        assert abs(got - want) <= abs(want) * 2.0**-8 + 1e-6, (got, want)
    else:
        assert got == want, (got, want)


@pytest.mark.parametrize("op", ["min", "max", "sum"])
def test_bf16_reduction_of_33_elements_in_one_vector(op: str) -> None:
    """vector-size 64 reduces all 33 in one vector.reduction: <33 x bfloat> aborted LLVM."""
    _in_child(f"t.bf16_reduction_of_33({op!r})")
