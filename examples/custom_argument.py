"""User-defined argument types through dsl-core's protocols, with no change to the toolkit.

Two types a user brings, passed to ``@jit`` functions like any built-in argument:

* ``QuantizedTensor``: int8 data, a float scale and an int zero point. One Python
  argument becomes three ABI slots (a memref descriptor, a float, an int32). Its
  ``JitArgument`` adapter says which MLIR types it contributes, how it is cached and
  where each slot's value comes from (``NativeSlot`` entries: the C dispatcher
  marshals and checks them itself, no Python fill per call); the class itself is the
  ``DslType`` that rebuilds it, in the function's body, from the IR values (``q.data``,
  ``q.scale``, ``q.zero_point``).
* Python's built-in ``complex``: registered with an adapter to a ``@dc.struct Complex``
  of two float32 (the struct implements all three protocols already).

A QuantizedTensor also crosses into a ``@pl.kernel``: the host function passes it to the
launch, which specializes the kernel on the types of its values.

Run: python examples/custom_argument.py
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

import dsl_core as dc
import dsl_parser.language as pl
from dsl_runtime import jit
from dsl_runtime.adapters import array_slot


class QuantizedTensor:
    """``value = (data - zero_point) * scale``, with int8 data (host value or, in a
    compiled function's body, the IR values the DslType hooks rebuild)."""

    def __init__(self, data: Any, scale: Any, zero_point: Any) -> None:
        self.data, self.scale, self.zero_point = data, scale, zero_point

    @classmethod
    def quantize(cls, x: np.ndarray, bits: int = 8) -> QuantizedTensor:
        lo, hi = float(x.min()), float(x.max())
        scale = (hi - lo) / (2**bits - 1) or 1.0
        zero = round(-128 - lo / scale)
        data = np.clip(np.round(x / scale) + zero, -128, 127).astype(np.int8)
        return cls(data, scale, zero)

    # -- DslType: the value in a compiled function's body --------------------------------
    def __extract_to_ir_values__(self) -> list[Any]:
        return [self.data, self.scale, self.zero_point]

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any],
                                     exemplar: Any = None) -> QuantizedTensor:
        data, scale, zero_point = values
        return cls(data, scale, zero_point)


class QuantizedArgument:
    """JitArgument of a host QuantizedTensor: IR types, cache signature and ABI slots."""

    def __init__(self, q: QuantizedTensor) -> None:
        if not isinstance(q.data, np.ndarray) or q.data.dtype != np.int8:
            raise TypeError("QuantizedTensor data must be an int8 numpy array")
        self.q = q

    def __get_ir_types__(self) -> list[Any]:
        from dsl_mlir import ir

        shape = "x".join(str(n) for n in self.q.data.shape)
        return [ir.Type.parse(f"tensor<{shape}xi8>"), ir.F32Type.get(),
                ir.IntegerType.get_signless(32)]

    def __cache_signature__(self) -> Hashable:
        return ("QuantizedTensor", self.q.data.shape)  # one compile per shape

    def __c_abi_spec__(self) -> list[dc.NativeSlot]:
        # each entry: the slot's kind and where its value comes from, per call
        return [array_slot(pl.INT8, self.q.data.ndim, lambda a: a.q.data),
                dc.scalar_slot(dc.Float32, lambda a: a.q.scale),
                dc.scalar_slot(dc.Int32, lambda a: a.q.zero_point)]


dc.JitArgumentRegistry.register(QuantizedTensor, QuantizedArgument, dsl_type=QuantizedTensor)


@dc.struct
class Complex:
    re: dc.Float32
    im: dc.Float32


dc.JitArgumentRegistry.register(complex, lambda z: Complex(z.real, z.imag), dsl_type=Complex)


@jit
def dequantize(q: QuantizedTensor) -> pl.Tensor[pl.FP32]:
    shifted = pl.sub(pl.cast(q.data, pl.FP32), pl.cast(q.zero_point, pl.FP32))
    return pl.mul(shifted, q.scale)


@pl.kernel
def dequantize_k(q: QuantizedTensor, out: pl.Tensor[pl.FP32]) -> None:
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < out.shape[0]:
        out[i] = (pl.cast(q.data[i], pl.FP32) - pl.cast(q.zero_point, pl.FP32)) * q.scale


N = pl.dynamic("N")


@jit
def dequantize_launch(q: QuantizedTensor, out: pl.Tensor[[N], pl.FP32]) -> None:
    dequantize_k(q, out).launch(grid=(pl.ceil_div(out.shape[0], 64),), block=(64,))


@jit
def rotate(x: pl.Tensor[[4], pl.FP32], y: pl.Tensor[[4], pl.FP32],
           z: complex) -> tuple[pl.Tensor[[4], pl.FP32], pl.Tensor[[4], pl.FP32]]:
    """(x + iy) * z, element-wise (in the body, z is the registered Complex struct)."""
    return (pl.sub(pl.mul(x, z.re), pl.mul(y, z.im)),  # type: ignore[attr-defined]
            pl.add(pl.mul(x, z.im), pl.mul(y, z.re)))  # type: ignore[attr-defined]


def main() -> None:
    x = np.linspace(-1.0, 3.0, 24, dtype=np.float32).reshape(4, 6)
    q = QuantizedTensor.quantize(x)
    got = dequantize(q)
    want = (q.data.astype(np.float32) - q.zero_point) * np.float32(q.scale)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert np.abs(got - x).max() <= q.scale  # within one quantization step
    print("dequantize: max error", float(np.abs(got - x).max()), "scale", q.scale)
    cf = dequantize.compile(q)
    param = cf.abi.params[0]
    print(f"  abi: {param.name} ({param.kind}) {param.mlir_type}:",
          ", ".join(s.ctype for s in param.slots))

    flat = QuantizedTensor.quantize(np.linspace(0.0, 1.0, 100, dtype=np.float32))
    out = np.zeros(100, np.float32)
    dequantize_launch(flat, out)  # the kernel reads q.data[i], q.scale, q.zero_point
    np.testing.assert_allclose(out, dequantize(flat), rtol=1e-6)
    print("dequantize in a @pl.kernel: max error", float(np.abs(out - np.linspace(0, 1, 100)).max()))

    re, im = np.array([1, 0, -1, 2], np.float32), np.array([0, 1, 1, 0.5], np.float32)
    out_re, out_im = rotate(re, im, 0.5 + 2j)
    want_z = (re + 1j * im) * (0.5 + 2j)
    np.testing.assert_allclose(out_re + 1j * out_im, want_z, rtol=1e-6)
    print("rotate by 0.5+2j:", out_re + 1j * out_im)


if __name__ == "__main__":
    main()
