"""Types whose cache signatures are compared across processes (see test_signatures.py)."""

from __future__ import annotations

import enum

import dsl_core as dc


class Mode(enum.Enum):
    FAST = 1
    SAFE = 2


@dc.struct
class Pair:
    a: dc.Int32
    b: dc.Float32


@dc.struct
class OtherPair:
    a: dc.Int32
    b: dc.Float32


@dc.struct
class Tiled:
    tile: dc.Constexpr[int]
    mode: dc.Constexpr[Mode]
    p: Pair
    s: dc.Stream
    al: dc.Align[dc.Int64, 16]


def values() -> list[object]:
    return [
        dc.Int32(5), dc.BFloat16(1.0), Pair(1, 2.0), OtherPair(1, 2.0),
        Tiled(8, Mode.FAST, Pair(3, 4.0), dc.Stream(0), 1),
        dc.Constexpr(1), dc.Constexpr(True), dc.Constexpr[float](0.1),
        dc.Constexpr[str]("x"), dc.Constexpr((1, "a", None)), (dc.Int8(1), dc.Stream(5)),
    ]


def signatures() -> list[object]:
    return [dc.cache_signature(v) for v in values()]

