"""Decorators, signatures, types and programs."""

from __future__ import annotations

import pytest
from parser_helpers import fn, ops_of

import dsl_parser
import dsl_parser.language as pl
from dsl_parser import Function, Program
from dsl_parser.types import TensorType


def test_function_decorator_builds_verified_module() -> None:
    @pl.function
    def simple_add(
        x: pl.Tensor[[64, 128], pl.FP16],
        y: pl.Tensor[[64, 128], pl.FP16],
    ) -> pl.Tensor[[64, 128], pl.FP16]:
        result: pl.Tensor[[64, 128], pl.FP16] = pl.add(x, y)
        return result

    assert isinstance(simple_add, Function)
    assert simple_add.name == "simple_add"
    text = str(simple_add)
    assert "func.func @simple_add(%arg0: tensor<64x128xf16>, %arg1: tensor<64x128xf16>)" \
        " -> tensor<64x128xf16>" in text
    assert "dsl.add %arg0, %arg1 : tensor<64x128xf16>" in text
    assert ops_of(simple_add) == ["func.func", "dsl.add", "func.return"]
    simple_add.module.operation.verify()


def test_legacy_call_syntax_equals_subscript() -> None:
    assert pl.Tensor((64, 128), pl.FP16) == pl.Tensor[[64, 128], pl.FP16]
    f = fn("""
        @pl.function
        def f(x: pl.Tensor((4, 8), pl.FP32)) -> pl.Tensor((4, 8), pl.FP32):
            return x
    """)
    assert f.signature.params[0].type == TensorType((4, 8), pl.FP32)
    assert "pl.Tensor[[4, 8], pl.FP32]" in f.as_python()


@pytest.mark.parametrize(("dtype", "mlir"), [
    (pl.FP16, "f16"), (pl.BF16, "bf16"), (pl.FP32, "f32"), (pl.FP64, "f64"),
    (pl.INT8, "i8"), (pl.INT16, "i16"), (pl.INT32, "i32"), (pl.INT64, "i64"),
    (pl.UINT8, "i8"), (pl.UINT16, "i16"), (pl.UINT32, "i32"), (pl.UINT64, "i64"),
    (pl.BOOL, "i1"),
])
def test_tensor_dtypes_map_to_mlir(dtype: pl.DType, mlir: str) -> None:
    f = fn(f"""
        @pl.function
        def f(x: pl.Tensor[[2, 3], pl.{dtype.name}]) -> pl.Tensor[[2, 3], pl.{dtype.name}]:
            return x
    """)
    assert f"tensor<2x3x{mlir}>" in str(f)
    assert f.signature.results == [TensorType((2, 3), dtype)]


def test_dtype_introspection() -> None:
    assert (pl.FP16.name, pl.FP16.bits, pl.FP16.numpy_name) == ("FP16", 16, "float16")
    assert pl.BF16.numpy_name == "bfloat16" and pl.BF16.is_float
    assert pl.UINT32.is_signed is False and pl.INT32.is_signed is True
    assert pl.BOOL.bits == 1 and not pl.BOOL.is_float
    assert pl.INDEX.numpy_name == "int64"
    assert repr(pl.INT64) == "pl.INT64"


def test_scalar_annotations_and_index() -> None:
    f = fn("""
        @pl.function
        def f(n: pl.Scalar[pl.INT32], i: pl.Scalar[pl.INDEX], b: pl.BOOL) -> pl.Scalar[pl.INT32]:
            return n
    """)
    assert "(%arg0: i32, %arg1: index, %arg2: i1) -> i32" in str(f)
    assert [str(p.type) for p in f.signature.params] == [
        "pl.Scalar[pl.INT32]", "pl.Scalar[pl.INDEX]", "pl.Scalar[pl.BOOL]"]


def test_shapes_from_enclosing_scope() -> None:
    rows, cols = 16, [8]

    @pl.function
    def f(x: pl.Tensor[[rows, cols[0] * 2], pl.FP32]) -> pl.Tensor[[rows, 16], pl.FP32]:
        y: pl.Tensor[[rows, cols[0] * 2], pl.FP32] = pl.create_tensor([rows, cols[0] * 2],
                                                                      dtype=pl.FP32)
        return pl.add(x, y)

    assert "tensor<16x16xf32>" in str(f)


def test_shapes_from_module_constants_in_text() -> None:
    f = fn("""
        import dsl_parser.language as pl
        N = 4 * 8
        SHAPE = [N, 2]

        @pl.function
        def f(x: pl.Tensor[SHAPE, pl.FP32]) -> pl.Tensor[[N, 2], pl.FP32]:
            return x
    """)
    assert "tensor<32x2xf32>" in str(f)


def test_program_calls_and_get_function() -> None:
    @pl.program
    class MathOps:
        @pl.function
        def square(self, x: pl.Tensor[[1], pl.INT32]) -> pl.Tensor[[1], pl.INT32]:
            result: pl.Tensor[[1], pl.INT32] = pl.mul(x, x)
            return result

        @pl.function
        def sum_of_squares(self, a: pl.Tensor[[1], pl.INT32],
                           b: pl.Tensor[[1], pl.INT32]) -> pl.Tensor[[1], pl.INT32]:
            a_squared: pl.Tensor[[1], pl.INT32] = self.square(a)
            b_squared: pl.Tensor[[1], pl.INT32] = self.square(b)
            return pl.add(a_squared, b_squared)

    assert isinstance(MathOps, Program)
    assert list(MathOps.functions) == ["square", "sum_of_squares"]
    text = str(MathOps)
    assert text.startswith("module @MathOps {")
    assert text.count("call @square(") == 2
    sos = MathOps.get_function("sum_of_squares")
    assert [p.name for p in sos.signature.params] == ["a", "b"]  # self stripped
    assert sos.func_op.sym_name.value == "sum_of_squares"
    with pytest.raises(KeyError, match="has no function 'cube'"):
        MathOps.get_function("cube")


def test_program_forward_reference_and_tuple_results() -> None:
    from corpus import FORWARD_CALLS
    from parser_helpers import dsl
    program = dsl(FORWARD_CALLS)
    assert isinstance(program, Program)
    main = program.get_function("main")
    text = str(program)
    assert "%0:2 = call @order(%arg0, %arg1)" in text
    assert "call @scale(%0#0, %c2)" in text
    # results inferred from the returns (no annotation on main / order)
    assert [str(t) for t in main.signature.results] == ["pl.Tensor[[8], pl.FP32]"] * 2


def test_methods_without_self_are_rejected() -> None:
    from parser_helpers import raises_at
    raises_at(dsl_parser.ParserSyntaxError, """
        @pl.program
        class P:
            def f(x: pl.Tensor[[1], pl.FP32]):
                return x
    """, 4, 5, ["must take self first"])


def test_version_and_exports() -> None:
    assert dsl_parser.__version__ == "0.1.1"
    for name in ("ParserError", "ParserSyntaxError", "ParserTypeError", "UndefinedVariableError",
                 "SSAViolationError", "ScopeIsolationError", "UnsupportedFeatureError",
                 "InvalidOperationError"):
        assert issubclass(getattr(dsl_parser, name), dsl_parser.ParserError)


def test_builtins_fail_outside_the_parser() -> None:
    with pytest.raises(RuntimeError, match=r"pl.add\(...\) only has a meaning inside"):
        pl.add(1, 2)
    with pytest.raises(AttributeError, match="no operation or attribute 'nope'"):
        pl.nope  # noqa: B018
