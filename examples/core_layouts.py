"""Print a struct's C layout and round-trip a value through typed storage.

Run: python examples/core_layouts.py
"""

from __future__ import annotations

import dsl_core as dc


@dc.struct
class Vec3:
    x: dc.Float32
    y: dc.Float32
    z: dc.Float32


@dc.union
class Payload:
    count: dc.UInt32
    ratio: dc.Float32


@dc.struct
class Particle:
    id: dc.UInt16
    pos: Vec3
    mass: dc.Float64
    tags: dc.Array[dc.UInt8, 3]
    payload: Payload
    hot: dc.Align[dc.Int32, 16]
    alive: dc.Boolean


def print_layout(t: type) -> None:
    layout = dc.layout_of(t)
    print(f"struct {t.__name__}: size {layout.size}, align {layout.align}")
    for f in layout.fields:
        print(f"  {f.offset:>3}  {f.name:<8} {f.type.__name__:<20} size {f.size:>2}, "
              f"align {f.align}")


def main() -> None:
    print_layout(Particle)
    assert (dc.dsl_size_of(Particle), dc.dsl_align_of(Particle)) == (48, 16)
    assert dc.offset_of(Particle, "pos.z") == 12 and dc.offset_of(Particle, "hot") == 32

    # a union takes one member by keyword, and Storage[T] is built at run time: neither is
    # a static type (see docs/parser.md, "Type checking")
    payload = Payload(ratio=0.25)  # type: ignore[call-arg]
    p = Particle(7, Vec3(1.0, 2.0, 3.0), 0.5, [1, 2, 3], payload, 42, True)
    arena = dc.Arena(256)
    storage = dc.Storage[Particle](arena, value=p)  # type: ignore[misc]
    assert storage.ptr % 16 == 0
    assert storage.load() == p
    storage.field("pos").field("y").store(-2.0)
    back = storage.load()
    assert back.pos == Vec3(1.0, -2.0, 3.0) and back.payload.ratio == dc.Float32(0.25)
    print(f"round trip at {storage.ptr:#x}: {back}")
    print("bytes:", storage.raw().hex(" ", 4))
    print("cache signature:", dc.cache_signature(Vec3(0.0, 0.0, 0.0)))
    print("C ABI slots of Vec3:", [c.__name__ for c in dc.abi_slots(Vec3)])


if __name__ == "__main__":
    main()
