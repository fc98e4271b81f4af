"""The main demo: a DSL function compiled by @jit, checked against numpy, timed.

Run: make demo   (or: python examples/demo.py inside .venv)
"""

from __future__ import annotations

import time

import numpy as np

import dsl_parser.language as pl
from dsl_runtime import jit

N = pl.dynamic("N")


@jit
def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.add(pl.mul(x, x), y)


def per_call_us(fn, *args, repeat: int = 20000, **kw) -> float:  # type: ignore[no-untyped-def]
    fn(*args, **kw)
    start = time.perf_counter()
    for _ in range(repeat):
        fn(*args, **kw)
    return (time.perf_counter() - start) / repeat * 1e6


def main() -> None:
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    y = np.arange(1000, dtype=np.float32)

    z = scale_add(x, y)  # first call: parse, lower, JIT (or load from the disk cache)
    np.testing.assert_allclose(z, x * x + y, rtol=1e-6)
    phases = ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in scale_add.timings.items())
    print(f"compiled scale_add: {phases}")

    out = np.empty_like(x)
    scale_add(x, y, out=out)  # no allocation
    np.testing.assert_array_equal(out, z)

    compiled = scale_add.compile(x, y)
    print("\n".join(compiled.mlir("dsl").splitlines()[:6]))
    print(f"ABI: {[(p.name, p.slots[0].ctype) for p in (*compiled.abi.inputs, *compiled.abi.results)]}")

    small = [np.ones(16, np.float32) for _ in range(3)]
    ours = per_call_us(scale_add, small[0], small[1], out=small[2])
    ref = per_call_us(np.add, small[0], small[1], out=small[2])
    print(f"cache-hit call, 16 elements, out= given: {ours:.2f} us (numpy's np.add alone: {ref:.2f} us)")

    try:
        scale_add(x, y.astype(np.float64))
    except TypeError as err:
        print(f"wrong dtype is caught before native code runs: {err}")
    print("demo ok")


if __name__ == "__main__":
    main()
