"""``jit(fn, backend="interpret")`` / ``DSL_INTERPRET=1``, and the interpreter agreeing with
the compiled code on the programs of the test corpus and the examples."""

from __future__ import annotations

import importlib.util
import inspect
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dsl_core as dc
import dsl_parser.language as pl
from dsl_parser.interpreter import Interpreted, interpret
from dsl_runtime import jit

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "packages" / "dsl-parser" / "tests"))
import corpus  # noqa: E402

N = pl.dynamic("N")


def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]):
    return pl.add(pl.mul(x, 2.0), y)


def test_backend_interpret_runs_without_compiling() -> None:
    f = jit(scale_add, backend="interpret")
    assert isinstance(f, Interpreted)
    x, y = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
    assert f(x, y).tolist() == [1.0, 3.0, 5.0, 7.0]
    out = np.zeros(4, np.float32)
    assert f(x, y, out=out) is out and out.tolist() == [1.0, 3.0, 5.0, 7.0]


def test_dsl_interpret_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSL_INTERPRET", "1")
    f = jit(scale_add)
    assert isinstance(f, Interpreted)
    monkeypatch.delenv("DSL_INTERPRET")
    g = jit(scale_add)
    assert not isinstance(g, Interpreted)
    x, y = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
    np.testing.assert_array_equal(f(x, y), g(x, y))


# -- agreement with the compiled code ---------------------------------------------------------
TOLERANCE = {"float16": 2e-2, "float32": 1e-4, "float64": 1e-10}


def _inputs(fn: Any, skip_self: bool, seed: int) -> dict[str, Any]:
    """Arguments for every parameter from its annotation (dynamic sizes are 6)."""
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    params = list(inspect.signature(fn, eval_str=True).parameters.values())[1 if skip_self else 0:]
    for p in params:
        ann = p.annotation
        if isinstance(ann, pl.DType):
            ann = pl.ScalarType(ann)
        if isinstance(ann, pl.TensorType):
            shape = tuple(d if isinstance(d, int) else 6 for d in (ann.shape or (6,)))
            dtype = ann.dtype
            if dtype.is_float:
                values = rng.uniform(-2, 2, shape).astype(dtype.numpy_name)
            elif dtype.kind == "bool":
                values = rng.integers(0, 2, shape).astype(bool)
            else:
                values = rng.integers(0 if dtype.kind == "uint" else -5, 6, shape).astype(
                    dtype.numpy_name)
            out[p.name] = values
        elif isinstance(ann, pl.ScalarType):
            out[p.name] = 1.5 if ann.dtype.is_float else (True if ann.dtype.kind == "bool" else 2)
        elif "Constexpr" in repr(ann):
            out[p.name] = 4  # a tile size
        else:
            out[p.name] = None  # a stream
    return out


def _same(got: Any, want: Any, what: str, half: bool = False) -> None:
    """Equal results: exactly for integers, within the dtype's tolerance for floats. With
    ``half`` (16-bit float inputs) a float result may carry the rounding differences of
    half-precision arithmetic: hosts with native FP16 (AVX512-FP16) fuse a multiply and an
    add into one FMA, rounding once where the interpreter rounds the product and the sum
    (docs/parser.md), so the error scales with the largest value, not with each result."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    tol = TOLERANCE.get(got.dtype.name)
    if tol is None:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    atol = tol
    if half:
        tol = max(tol, TOLERANCE["float16"])
        atol = tol * max(1.0, float(np.nanmax(np.abs(want.astype(np.float64)), initial=1.0)))
    np.testing.assert_allclose(got, want, rtol=tol, atol=atol, equal_nan=True, err_msg=what)


def _agree(target: Any, fn: Any, entry: str | None, seed: int = 0) -> None:
    """Compiled and interpreted calls give the same results and the same written outputs."""
    kw = {"entry": entry} if entry else {}
    args = _inputs(fn, entry is not None, seed)
    compiled_args = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
    interp_args = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
    got = jit(target, **kw)(**compiled_args)
    want = interpret(target, **kw, **interp_args)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    half = any(isinstance(v, np.ndarray) and v.dtype.itemsize == 2 and v.dtype.kind in "fV"
               for v in args.values())
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if g is not None or w is not None:
            _same(g, w, f"{fn.__qualname__}: result {i}", half)
    for name, value in compiled_args.items():  # kernels' outputs, written in place
        if isinstance(value, np.ndarray):
            _same(value, interp_args[name], f"{fn.__qualname__}: argument {name}", half)


def _load(name: str, text: str, tmp_path: Path) -> Any:
    path = tmp_path / f"corpus_{name}.py"
    if "import dsl_parser.language as pl" not in text:
        text = "import dsl_parser.language as pl\n" + text
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(f"corpus_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # inspect reads classes' source through sys.modules
    spec.loader.exec_module(module)
    return module


#: Corpus programs that cannot be compared: their results are scalars (which compiled
#: functions do not return) or depend on pl.create_tensor's undefined contents.
NOT_COMPARABLE = {"scalars": "scalar results", "dynamic": "reads pl.create_tensor contents"}


@pytest.mark.parametrize("name", sorted(set(corpus.ALL) - set(NOT_COMPARABLE)))
def test_interpreter_agrees_with_compiled_code_on_the_corpus(name: str, tmp_path: Path) -> None:
    module = _load(name, corpus.ALL[name], tmp_path)
    targets = [v for v in vars(module).values() if hasattr(v, "python") and hasattr(v, "module")]
    assert targets
    for target in targets:
        if hasattr(target, "functions"):
            for entry in target.functions:
                fn = target.python.__dict__[entry]
                _agree(target, fn, entry)
        else:
            _agree(target, target.python, None)


def _module(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"interp_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # inspect reads classes' source through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path, names", [
    (ROOT / "examples" / "kernels.py", ("vadd", "transpose", "row_sum")),
    (ROOT / "examples" / "demo.py", ("scale_add",)),
    (ROOT / "packages" / "dsl-runtime" / "tests" / "runtime_kernel_defs.py",
     ("vadd", "transpose", "row_sum", "matmul")),
])
def test_interpreter_agrees_with_compiled_code_on_examples(path: Path,
                                                            names: tuple[str, ...]) -> None:
    module = _module(path)
    for name in names:
        value = getattr(module, name)
        impl = getattr(value, "impl", None)
        fn = getattr(impl, "_fn", value)
        assert inspect.isfunction(fn), name
        _agree(value, fn, None)


@dc.struct
class Offset:
    shift: dc.UInt8


@dc.struct
class Affine:
    scale: dc.Float32
    offset: Offset


def affine(x: pl.Tensor[[N], pl.UINT8], a: Affine) -> pl.Tensor[[N], pl.FP32]:
    shifted = pl.add(x, a.offset.shift)  # uint8 wraps
    return pl.mul(pl.cast(shifted, pl.FP32), a.scale)


def test_struct_arguments_interpreted_as_compiled() -> None:
    """A nested @dc.struct argument: the interpreted body reads its leaves as the compiled
    body does (typed scalars: the uint8 leaf wraps), same values."""
    x = np.array([0, 7, 250, 255], np.uint8)
    for a in (Affine(0.5, Offset(10)), Affine(-2.0, Offset(0))):
        np.testing.assert_array_equal(jit(affine, backend="interpret")(x, a), jit(affine)(x, a))
    assert jit(affine, backend="interpret")(x, Affine(1.0, Offset(10))).tolist() == [10, 17, 4, 9]
    with pytest.raises(TypeError, match=r"argument 'a' expects a Affine struct, got Offset"):
        jit(affine, backend="interpret")(x, Offset(1))
