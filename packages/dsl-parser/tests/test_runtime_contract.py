"""What the runtime layer calls: parse_function, overrides, ConstValue, Signature, contexts.

No ``from __future__ import annotations`` here: parameter annotations are evaluated by
Python, so names used only in annotations (``M`` below) resolve through them.
"""

import dsl_mlir
import pytest

import dsl_parser
import dsl_parser.language as pl
from dsl_parser import Function, ParserTypeError
from dsl_parser.function import Param, Signature
from dsl_parser.types import ScalarType, TensorType


def kernel(x: pl.Tensor[pl.FP32], n: pl.Scalar[pl.INDEX], scale) -> pl.Tensor[pl.FP32]:
    y = pl.mul(x, scale)
    for _i in range(n * 2):
        pl.add(y, y)
    pl.create_tensor([n, 4], dtype=pl.FP32)
    return y


def test_overrides_specialize_types_and_constants() -> None:
    f = pl.parse_function(kernel, overrides={"x": pl.Tensor[[8, 16], pl.FP32],
                                             "n": pl.ConstValue(3),
                                             "scale": pl.ConstValue(0.5)})
    assert isinstance(f, Function) and f.name == "kernel"
    assert f.signature == Signature([Param("x", TensorType((8, 16), pl.FP32))],
                                    [TensorType((8, 16), pl.FP32)])
    assert f.constants == {"n": 3, "scale": 0.5}
    text = str(f)
    assert "func.func @kernel(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32>" in text
    assert "arith.constant 5.000000e-01 : f32" in text
    assert "%c6 = arith.constant 6 : index" in text  # range(n * 2) folded
    assert "dsl.create_tensor : tensor<3x4xf32>" in text  # n used in a shape


def test_locations_are_in_the_real_file() -> None:
    f = pl.parse_function(kernel, overrides={"x": pl.Tensor[[8], pl.FP32],
                                             "scale": pl.ConstValue(2.0)})
    import inspect
    lines, start = inspect.getsourcelines(kernel)
    mul = next(op for op in f.func_op.regions[0].blocks[0].operations
               if op.operation.name == "dsl.mul")
    loc = mul.location
    assert loc.filename == __file__ and loc.start_line == start + 1
    assert lines[1][loc.start_col - 1:].startswith("pl.mul(x, scale)")


def test_unshaped_parameter_without_override_is_an_error() -> None:
    with pytest.raises(ParserTypeError, match="rank/shape must be specialized") as info:
        pl.parse_function(kernel, overrides={"scale": pl.ConstValue(1.0)})
    assert info.value.span is not None and info.value.span.filename == __file__


def test_unknown_override_and_non_function() -> None:
    with pytest.raises(ValueError, match="override for unknown parameter 'zz'"):
        pl.parse_function(kernel, overrides={"zz": pl.ConstValue(1)})
    with pytest.raises(TypeError, match="takes a Python function"):
        pl.parse_function(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ConstValue takes an int, float or bool"):
        pl.ConstValue("x")  # type: ignore[arg-type]


def test_closure_cells_and_globals_resolve() -> None:
    width = 12

    def scaled(x: pl.Tensor[[4, width], pl.FP32]):
        return pl.full([4, width], 1.0, dtype=pl.FP32)

    f = pl.parse_function(scaled)
    assert "tensor<4x12xf32>" in str(f)


def test_dynamic_and_scalar_types_in_signature() -> None:
    M = pl.dynamic("M")

    def g(x: pl.Tensor[[M, 4], pl.FP16], k: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
        return k

    f = pl.parse_function(g)
    x, k = f.signature.params
    assert isinstance(x.type, TensorType) and x.type.shape == (pl.Dynamic("M"), 4)
    assert x.type.dtype.numpy_name == "float16"
    assert k.type == ScalarType(pl.INT32) and f.signature.results == [ScalarType(pl.INT32)]
    ctx = dsl_mlir.context()
    with ctx:
        assert str(x.type.to_mlir(ctx)) == "tensor<?x4xf16>"
        assert str(k.type.to_mlir(ctx)) == "i32"


def test_context_is_the_one_passed() -> None:
    ctx = dsl_mlir.context()

    def h(x: pl.Tensor[[2], pl.FP32]):
        return x

    assert pl.parse_function(h, context=ctx).context == ctx
    assert pl.parse_function(h).context == dsl_parser.default_context()


def test_decorator_is_a_thin_wrapper() -> None:
    def body(x: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
        return pl.add(x, x)

    decorated = pl.function(body)
    direct = pl.parse_function(body)
    assert dsl_parser.structural_equal(decorated, direct)
    assert str(decorated.module.operation.get_asm(enable_debug_info=True)) == \
        str(direct.module.operation.get_asm(enable_debug_info=True))


def test_error_from_mlir_maps_pass_failures() -> None:
    def bad(x: pl.Tensor[[4], pl.FP32]):
        return pl.add(x, x)

    f = pl.parse_function(bad)
    from dsl_mlir import MLIRDiagnosticError
    try:
        dsl_mlir.lower(f.module, pipeline="definitely-not-a-pass")
    except MLIRDiagnosticError as exc:
        err = f.error_from_mlir(exc)
    assert isinstance(err, dsl_parser.InvalidOperationError)
    assert "definitely-not-a-pass" in err.message
