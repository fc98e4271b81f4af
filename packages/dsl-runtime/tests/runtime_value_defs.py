"""@jit functions that read module values (a real module: @jit needs their source)."""

from __future__ import annotations

import dsl_parser.language as pl
from dsl_runtime import jit

BOX = [2.0]


class Opaque:
    """An object the cache key cannot hash (no stable value)."""

    one = 1.0


OPAQUE = Opaque()


@jit
def scale_by_box(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    return pl.mul(x, BOX[0])


@jit
def unshaped_box(x: pl.Tensor[pl.FP32]) -> pl.Tensor[pl.FP32]:
    return pl.mul(x, BOX[0])


@jit
def reads_opaque(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    return pl.add(x, OPAQUE.one)
