"""pl.dynamic: symbolic dimensions shared by name."""

from __future__ import annotations

from corpus import DYNAMIC
from parser_helpers import dsl, fn, raises_at

import dsl_parser.language as pl
from dsl_parser import ParserTypeError
from dsl_parser.types import Dynamic, TensorType


def test_dynamic_dimensions_in_signature_and_body() -> None:
    f = dsl(DYNAMIC)
    text = str(f)
    assert "func.func @dyn(%arg0: tensor<?x32xf32>, %arg1: tensor<?x32xf32>) -> " \
           "tensor<?x32xf32>" in text
    assert "%dim = tensor.dim %arg0, %c0 : tensor<?x32xf32>" in text
    assert "dsl.create_tensor[%dim] : tensor<?x32xf32>" in text
    assert "scf.for %arg2 = %c0_0 to %dim step %c1" in text
    assert f.signature.params[0].type == TensorType((Dynamic("M"), 32), pl.FP32)
    printed = f.as_python()
    assert 'M = pl.dynamic("M")\n' in printed
    assert "z: pl.Tensor[[M, 32], pl.FP32] = pl.create_tensor([M, 32], dtype=pl.FP32)" in printed
    assert "pl.range(M, init_values=(z,))" in printed


def test_different_names_do_not_match() -> None:
    raises_at(ParserTypeError, """
        M = pl.dynamic("M")
        N = pl.dynamic("N")

        @pl.function
        def f(x: pl.Tensor[[M], pl.FP32], y: pl.Tensor[[N], pl.FP32]):
            return pl.add(x, y)
    """, 7, 22, ["different shapes", "[[M], pl.FP32]", "[[N], pl.FP32]"])


def test_unbound_dynamic_dimension() -> None:
    raises_at(ParserTypeError, """
        M = pl.dynamic("M")
        K = pl.dynamic("K")

        @pl.function
        def f(x: pl.Tensor[[M], pl.FP32]):
            y = pl.create_tensor([K], dtype=pl.FP32)
    """, 7, 26, ["dynamic dimension K is not the size of any parameter"])


def test_shape_introspection_and_index_sizes() -> None:
    f = fn("""
        M = pl.dynamic("M")

        @pl.function
        def f(x: pl.Tensor[[M, 4], pl.FP32], n: pl.Scalar[pl.INDEX]):
            a = pl.create_tensor(x.shape, dtype=x.dtype)
            b = pl.create_tensor([n, x.shape[1] * 2], dtype=pl.INT32)
            return a
    """)
    text = str(f)
    assert "dsl.create_tensor[%dim] : tensor<?x4xf32>" in text
    assert "dsl.create_tensor[%arg1] : tensor<?x8xi32>" in text
    assert "pl.create_tensor([n, 8], dtype=pl.INT32)" in f.as_python(concise=True)
