"""The op table: IR of every pl op, tensor operators, broadcasting, and op errors."""

from __future__ import annotations

import re

import numpy as np
import pytest
from parser_helpers import fn, raises_at

import dsl_parser.language as pl
from dsl_parser import InvalidOperationError, ParserTypeError
from dsl_parser.ops import OPS

T = "pl.Tensor[[4, 8], pl.FP32]"


@pytest.mark.parametrize(("call", "mlir"), [
    ("pl.add(x, y)", "dsl.add"), ("pl.sub(x, y)", "dsl.sub"),
    ("pl.mul(x, y)", "dsl.mul"), ("pl.div(x, y)", "dsl.div"),
    ("x + y", "dsl.add"), ("x - y", "dsl.sub"), ("x * y", "dsl.mul"), ("x / y", "dsl.div"),
])
def test_elementwise_ops_and_operators(call: str, mlir: str) -> None:
    f = fn(f"""
        @pl.function
        def f(x: {T}, y: {T}) -> {T}:
            z = {call}
            return z
    """)
    assert f"%0 = {mlir} %arg0, %arg1 : tensor<4x8xf32>" in str(f)
    assert f"z: {T} = pl.{mlir[4:]}(x, y)" in f.as_python()


def test_scalar_operand_is_used_directly() -> None:
    f = fn("""
        @pl.function
        def f(x: pl.Tensor[[4, 8], pl.FP16]) -> pl.Tensor[[4, 8], pl.FP16]:
            return pl.mul(2.0, x)
    """)
    text = str(f)
    assert re.search(r"%cst = arith.constant 2.000000e\+00 : f16\n\s+%0 = dsl.mul %cst, %arg0 "
                     r": \(f16, tensor<4x8xf16>\) -> tensor<4x8xf16>", text), text
    assert "dsl.full" not in text
    assert "pl.mul(2.0, x)" in f.as_python()


def test_matmul_transposes_and_wider_result() -> None:
    f = fn("""
        @pl.function
        def f(a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[32, 128], pl.FP16]):
            c = pl.matmul(a, b, b_trans=True, out_dtype=pl.FP32)
            d = pl.matmul(b, b, a_trans=True)
            return c
    """)
    text = str(f)
    assert "dsl.matmul %arg0, %arg1 {b_trans} : tensor<64x128xf16>, tensor<32x128xf16> -> " \
           "tensor<64x32xf32>" in text
    assert "dsl.matmul %arg1, %arg1 {a_trans} : tensor<32x128xf16>, tensor<32x128xf16> -> " \
           "tensor<128x128xf16>" in text
    printed = f.as_python()
    assert "pl.matmul(a, b, b_trans=True, out_dtype=pl.FP32)" in printed
    assert "pl.matmul(b, b, a_trans=True)" in printed


def test_matmul_contracting_mismatch() -> None:
    err = raises_at(ParserTypeError, """
        @pl.function
        def f(a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[64, 128], pl.FP16]):
            c = pl.matmul(a, b)
            return c
    """, 4, 22, ["contracting dimensions differ", "K=128", "K=64"])
    assert err.span.end_column == 23


def test_matmul_rank_and_out_dtype_errors() -> None:
    raises_at(ParserTypeError, """
        @pl.function
        def f(a: pl.Tensor[[64], pl.FP16]):
            return pl.matmul(a, a)
    """, 4, 22, ["must be 2-D matrices or 3-D batches of matrices"])
    raises_at(ParserTypeError, """
        @pl.function
        def f(a: pl.Tensor[[4, 4], pl.FP32]):
            return pl.matmul(a, a, out_dtype=pl.FP16)
    """, 4, 38, ["at least as wide"])


def test_batched_matmul_types_and_broadcasting() -> None:
    f = fn("""
        @pl.function
        def f(x: pl.Tensor[[8, 64, 128], pl.FP32], w: pl.Tensor[[128, 32], pl.FP32],
              one: pl.Tensor[[1, 32, 128], pl.FP32]):
            a = pl.matmul(x, w)
            b = pl.matmul(x, one, b_trans=True)
            c = pl.matmul(w, x, a_trans=True, b_trans=True)
            return a, b, c
    """)
    text = str(f)
    assert "dsl.matmul %arg0, %arg1 : tensor<8x64x128xf32>, tensor<128x32xf32> -> " \
           "tensor<8x64x32xf32>" in text
    assert "dsl.matmul %arg0, %arg2 {b_trans} : tensor<8x64x128xf32>, tensor<1x32x128xf32> -> " \
           "tensor<8x64x32xf32>" in text
    assert "dsl.matmul %arg1, %arg0 {a_trans, b_trans} : tensor<128x32xf32>, " \
           "tensor<8x64x128xf32> -> tensor<8x32x64xf32>" in text
    assert "pl.matmul(x, one, b_trans=True)" in f.as_python()


def test_batched_matmul_errors() -> None:
    raises_at(ParserTypeError, """
        @pl.function
        def f(a: pl.Tensor[[4, 8, 16], pl.FP32], b: pl.Tensor[[3, 16, 8], pl.FP32]):
            return pl.matmul(a, b)
    """, 4, 25, ["batch sizes differ", "only a static 1 or a 2-D operand broadcasts"])
    raises_at(ParserTypeError, """
        @pl.function
        def f(a: pl.Tensor[[2, 4, 8, 16], pl.FP32]):
            return pl.matmul(a, a)
    """, 4, 22, ["must be 2-D matrices or 3-D batches of matrices", "[2, 4, 8, 16]"])


def test_cast_slice_create_full_dim_const() -> None:
    f = fn("""
        @pl.function
        def f(x: pl.Tensor[[16, 32], pl.FP16], i: pl.Scalar[pl.INDEX]):
            a = pl.cast(x, target_type=pl.FP32)
            b = pl.slice(x, [4, 8], [i, 16])
            c = pl.create_tensor([2, 3], dtype=pl.INT8)
            d = pl.full([5], 7, dtype=pl.INT32)
            e = pl.dim(x, 1)
            g = pl.const(42, pl.INT64)
            return a
    """)
    text = str(f)
    assert "dsl.cast %arg0 : tensor<16x32xf16> to tensor<16x32xf32>" in text
    assert re.search(r"%c16 = arith.constant 16 : index\n\s+%1 = dsl.slice %arg0\[%arg1, %c16\] "
                     r": tensor<16x32xf16> -> tensor<4x8xf16>", text), text
    assert "dsl.create_tensor : tensor<2x3xi8>" in text
    assert re.search(r"%c7_i32 = arith.constant 7 : i32\n\s+%3 = dsl.full %c7_i32 : i32 -> "
                     r"tensor<5xi32>", text), text
    assert "arith.constant 42 : i64" in text
    assert "tensor.dim" not in text  # static: pl.dim folds to the int 32
    printed = f.as_python(concise=True)
    for line in ("a = pl.cast(x, target_type=pl.FP32)", "b = pl.slice(x, [4, 8], [i, 16])",
                 "c = pl.create_tensor([2, 3], dtype=pl.INT8)",
                 "d = pl.full([5], 7, dtype=pl.INT32)", "g = pl.const(42, pl.INT64)"):
        assert line in printed


@pytest.mark.parametrize(("body", "line_col", "words", "cls"), [
    ("pl.add(x, y)", (5, 15), ["different shapes that do not broadcast",
                               "pl.Tensor[[4, 8], pl.FP32] and pl.Tensor[[8, 4], pl.FP32]"],
     ParserTypeError),
    ("pl.add(x, z)", (5, 15), ["different dtypes"], ParserTypeError),
    ("pl.add(1, 2)", (5, 5), ["at least one operand must be a tensor"], ParserTypeError),
    ("pl.add(x, 1.5, 3)", (5, 5), ["takes 2 arguments, 3 given"], InvalidOperationError),
    ("pl.cast(x)", (5, 5), ["missing its argument 'target_type'"], InvalidOperationError),
    ("pl.cast(x, target=pl.FP16)", (5, 16), ["has no parameter 'target'"],
     InvalidOperationError),
    ("pl.slice(x, [2], [0])", (5, 17), ["1 sizes given for the rank-2"], ParserTypeError),
    ("pl.slice(x, [2, 2], [0, 1.5])", (5, 25), ["must be a list of INDEX offsets"],
     ParserTypeError),
    ("pl.create_tensor([2, -1], dtype=pl.FP32)", (5, 22), ["must be a list of sizes"],
     ParserTypeError),
    ("pl.full([2], 1.5, dtype=pl.INT32)", (5, 18), ["float literal 1.5"], ParserTypeError),
    ("pl.const(300, pl.INT8)", (5, 14), ["out of range for pl.INT8"], ParserTypeError),
    ("pl.add(x, pl.const(1, pl.INT32))", (5, 15), ["scalar operand is pl.Scalar[pl.INT32]"],
     ParserTypeError),
    ("pl.matmull(x, x)", (5, 5), ["unknown operation 'pl.matmull'"], InvalidOperationError),
])
def test_op_errors(body: str, line_col: tuple[int, int], words: list[str],
                   cls: type) -> None:
    err = raises_at(cls, f"""
        @pl.function
        def f(x: pl.Tensor[[4, 8], pl.FP32], y: pl.Tensor[[8, 4], pl.FP32],
              z: pl.Tensor[[4, 8], pl.FP16]):
            {body}
    """, *line_col, words)
    if "matmull" in body:
        assert err.hint == "did you mean pl.matmul?"


def test_every_table_op_is_in_the_namespace() -> None:
    for name, rule in OPS.items():
        stub = getattr(pl, name)
        assert stub.name == name and rule.doc


def test_a_new_op_is_one_table_entry() -> None:
    from dsl_parser import ops, structural_equal
    from dsl_parser.ops import Arg, OpRule, Param

    def infer(call: ops.OpCall) -> pl.TensorType:
        shape, dtype = call["shape"], call["dtype"]
        assert isinstance(shape, tuple) and isinstance(dtype, pl.DType)
        return pl.TensorType(shape, dtype)

    def emit(call: ops.OpCall, t: object) -> object:
        from dsl_mlir.dialects import tensor
        assert isinstance(t, pl.TensorType) and t.shape is not None
        element = call.ctx.mlir_type(pl.ScalarType(t.dtype))
        return tensor.EmptyOp(list(t.shape), element, loc=call.ctx.loc, ip=call.ctx.ip).result

    def spell(s: ops.Spelling) -> str:
        t = s.result_type()
        return f"pl.empty({list(t.shape)!r}, dtype={t.dtype!r})"  # type: ignore[union-attr]

    def reference(call: ops.RefCall, t: object) -> object:
        return np.zeros(call["shape"], dtype=np.float32)  # type: ignore[call-overload]

    ops.register(OpRule("empty", "tensor.empty",
                        (Param("shape", Arg.SHAPE), Param("dtype", Arg.DTYPE)),
                        infer, emit, spell, "An uninitialized tensor (tensor.empty).",
                        reference=reference))
    try:
        f = fn("""
            @pl.function
            def f(x: pl.Tensor[[2, 3], pl.FP32]):
                e = pl.empty([2, 3], dtype=pl.FP32)
                return pl.add(e, x)
        """)
        assert "tensor.empty() : tensor<2x3xf32>" in str(f)
        printed = f.as_python(concise=True)
        assert "e = pl.empty([2, 3], dtype=pl.FP32)" in printed
        assert structural_equal(pl.parse(printed), f)
        assert pl.empty.name == "empty"
        from dsl_parser.interpreter import interpret

        def g(x: pl.Tensor[[2, 3], pl.FP32]):
            return pl.add(pl.empty([2, 3], dtype=pl.FP32), x)

        assert interpret(g, np.ones((2, 3), np.float32)).tolist() == [[1.0] * 3] * 2
    finally:
        ops.unregister("empty")
    assert "empty" not in OPS
