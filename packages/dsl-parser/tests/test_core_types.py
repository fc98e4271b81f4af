"""dsl-parser reads dsl-core's types (issue 13): one dtype table, dc scalar annotations."""

from __future__ import annotations

import dsl_core as dc
from dsl_core import dtypes
from parser_kernel_helpers import arg_types, gpu_funcs, parse_text

import dsl_parser.language as pl
from dsl_parser import ParserTypeError
from dsl_parser.types import DTYPES, ScalarType, TensorType

SCALARS = {dc.Float64: pl.FP64, dc.Float32: pl.FP32, dc.Float16: pl.FP16, dc.BFloat16: pl.BF16,
           dc.Int64: pl.INT64, dc.Int32: pl.INT32, dc.Int16: pl.INT16, dc.Int8: pl.INT8,
           dc.UInt64: pl.UINT64, dc.UInt32: pl.UINT32, dc.UInt16: pl.UINT16, dc.UInt8: pl.UINT8,
           dc.Boolean: pl.BOOL}


def test_pl_dtypes_are_dsl_cores() -> None:
    for scalar, dtype in SCALARS.items():
        assert scalar.dtype is dtype, scalar
    assert tuple(DTYPES.values()) == tuple(dtypes.BY_DSL_NAME.values())
    assert all(DTYPES[d.name] is d for d in dtypes.ALL)
    assert pl.Tensor[[2], dc.UInt8] == pl.Tensor[[2], pl.UINT8]
    assert pl.Scalar[dc.Int16] == pl.Scalar[pl.INT16]


def scaled(x: pl.Tensor[[4], dc.Float32], n: dc.Int32, flag: dc.Boolean,
           u: dc.UInt8) -> pl.Tensor[[4], dc.Float32]:
    k: dc.Float32 = pl.cast(n, pl.FP32)
    w: dc.UInt8 = u + 1
    m: dc.Float32 = k + pl.cast(w, pl.FP32)
    return pl.mul(x, m)


def test_dc_scalar_annotations_on_parameters_and_locals() -> None:
    fn = pl.parse_function(scaled)
    types = [p.type for p in fn.signature.params]
    assert types == [TensorType((4,), pl.FP32), ScalarType(pl.INT32), ScalarType(pl.BOOL),
                     ScalarType(pl.UINT8)]
    assert fn.signature.results == [TensorType((4,), pl.FP32)]
    assert "arith.uitofp" in str(fn) and "arith.sitofp" in str(fn)  # UINT8 stays unsigned


def test_dc_scalar_annotations_in_kernels() -> None:
    fn = parse_text("""
        N = pl.dynamic("N")

        @pl.kernel
        def axpy(a: dc.Float32, x: pl.Tensor[[N], dc.Float32], y: pl.Tensor[[N], pl.FP32],
                 n: dc.Int64):
            i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
            if pl.cast(i, pl.INT64) < n:
                y[i] = a * x[i] + y[i]

        @pl.function
        def host(a: dc.Float32, x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]):
            axpy(a, x, y, 8).launch(grid=(1,), block=(8,))
    """)
    assert arg_types(gpu_funcs(fn)["axpy"]) == ["f32", "memref<?xf32>", "memref<?xf32>", "i64"]


def test_a_non_scalar_dc_class_is_still_not_a_dsl_type() -> None:
    import pytest

    with pytest.raises(ParserTypeError, match="the annotation of parameter 'p' is not a DSL type"):
        parse_text("""
            @pl.function
            def f(p: dc.Storage) -> pl.Tensor[[2], pl.FP32]:
                return pl.zeros([2], pl.FP32)
        """)


@dc.union
class Bits:
    i: dc.Int32
    f: dc.Float32


def takes_union(x: pl.Tensor[[2], pl.FP32], u: Bits) -> pl.Tensor[[2], pl.FP32]:
    return x


def test_a_union_parameter_is_refused_at_its_annotation() -> None:
    import pytest

    from dsl_parser import UnsupportedFeatureError

    with pytest.raises(UnsupportedFeatureError, match=r"parameter 'u': Bits is a @dc.union, "
                                                      r"which is storage only") as err:
        pl.parse_function(takes_union)
    assert "u: Bits" in str(err.value)
