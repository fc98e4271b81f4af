"""A downstream extension used from @jit: dx.cube (a composite of dsl ops) and
dx.leaky_relu (an IRDL op lowered in Python to linalg.generic), against numpy.

Needs examples/downstream-ext installed (``make setup`` installs it); see
docs/extending.md.
"""

from __future__ import annotations

import downstream_ext.language as dx
import numpy as np

import dsl_parser.language as pl
from dsl_parser import extensions
from dsl_runtime import jit

N = pl.dynamic("N")


@jit
def activation(x: pl.Tensor[[N], pl.FP32], bias: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return dx.leaky_relu(pl.add(dx.cube(x), bias), alpha=0.01)


def reference(x: np.ndarray, bias: np.ndarray) -> np.ndarray:
    z = x * x * x + bias
    result: np.ndarray = np.where(z > 0, z, np.float32(0.01) * z)
    return result


for n in (1, 5, 4096):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    np.testing.assert_allclose(activation(x, bias), reference(x, bias), rtol=1e-6, atol=1e-7)
ext = extensions.active()["downstream-ext"]
print(f"downstream_ext_demo ok: extension {ext.name} {ext.version}, ops {', '.join(ext.ops)}")
