"""Column reductions (``axis=0`` of a matrix, the middle axis of a 3-D tensor) against
numpy at sizes around dsl-tile's blocks (8 rows, 16-element vectors), dynamic and static,
fused with an element-wise op, serial and with parallel=True; inputs unchanged."""

from __future__ import annotations

import numpy as np
import pytest
import runtime_reduction_defs as d

from dsl_runtime import jit

SHAPES = [(1, 1), (1, 17), (7, 15), (8, 16), (9, 17), (17, 33), (100, 200), (3, 1000)]


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_column_reductions_f32(shape: tuple[int, int], parallel: bool) -> None:
    x = np.random.default_rng(shape[0] * 1000 + shape[1]).standard_normal(shape).astype(np.float32)
    keep = x.copy()
    options = {"pipeline_options": {"parallel": True}} if parallel else {}
    np.testing.assert_allclose(jit(d.col_sum, **options)(x), x.sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(jit(d.col_max, **options)(x), x.max(0))
    np.testing.assert_allclose(jit(d.col_mean, **options)(x), x.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(x, keep)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_column_min_int32(shape: tuple[int, int]) -> None:
    x = np.random.default_rng(shape[1]).integers(-1000, 1000, shape).astype(np.int32)
    np.testing.assert_array_equal(jit(d.col_min_i32)(x), x.min(0))


@pytest.mark.parametrize("shape", [(2, 9, 17), (3, 8, 16), (1, 1, 1), (4, 20, 5)], ids=str)
def test_middle_axis_sum(shape: tuple[int, int, int]) -> None:
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(jit(d.middle_sum)(x), x.sum(1), rtol=1e-5, atol=1e-5)


def test_static_shapes_fused_with_an_elementwise_op() -> None:
    x = np.random.default_rng(3).standard_normal((37, 21)).astype(np.float32)
    np.testing.assert_allclose(jit(d.static_col_sum)(x), (x + 1).sum(0), rtol=1e-5, atol=1e-5)
