"""Ahead-of-time export: a DSL function as a C library, called from a C program.

``dsl_runtime.export`` writes ``librms_scale.so``, ``rms_scale.h`` and
``rms_scale.abi.json``; the C program below includes the header, links the library and
runs without Python. Its output is checked against numpy. See docs/distributed.md.

Run: python examples/export_c.py   (needs a C compiler: cc, or $CC)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import dsl_parser.language as pl
from dsl_runtime import export, jit

R = pl.dynamic("R")


@jit
def rms_scale(x: pl.Tensor[[R, 8], pl.FP32], gain: pl.Scalar[pl.FP32]) -> pl.Tensor[[R, 8], pl.FP32]:
    """Each row divided by its root mean square, times ``gain``."""
    return x * pl.rsqrt(pl.mean(x * x, axis=1, keepdim=True) + 1e-6) * gain


PROGRAM = r"""
#include <stdio.h>
#include "rms_scale.h"

int main(void) {
  enum { rows = 3 };
  float x[rows * 8], y[rows * 8];
  for (int i = 0; i < rows * 8; ++i) x[i] = (float)(i % 7) - 2.5f;
  dsl_memref_float32_2d in = {x, x, 0, {rows, 8}, {8, 1}}, out = {y, y, 0, {rows, 8}, {8, 1}};
  int bad = rms_scale_checked(&in, 2.0f, &out);
  if (bad) { fprintf(stderr, "argument %d does not fit\n", bad); return 1; }
  for (int i = 0; i < rows * 8; ++i) printf("%.9g\n", y[i]);
  dsl_memref_float32_2d wrong = {x, x, 0, {rows, 7}, {7, 1}};
  printf("wrong width -> argument %d\n", rms_scale_checked(&wrong, 2.0f, &out));
  return 0;
}
"""


def main() -> int:
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        print("no C compiler (cc or $CC): nothing to build", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        done = export(rms_scale, np.zeros((2, 8), np.float32), 1.0, path=out)
        print("wrote", ", ".join(p.name for p in (done.library, done.header, done.abi)))
        (out / "main.c").write_text(PROGRAM)
        subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-I", tmp, str(out / "main.c"),
                        "-L", tmp, "-lrms_scale", f"-Wl,-rpath,{tmp}", "-o", str(out / "main")],
                       check=True)
        lines = subprocess.run([str(out / "main")], check=True, capture_output=True,
                               text=True, env={"PATH": "/usr/bin:/bin"}).stdout.splitlines()
    x = ((np.arange(24) % 7) - 2.5).astype(np.float32).reshape(3, 8)
    expected = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * 2.0
    np.testing.assert_allclose(np.array(lines[:24], np.float32).reshape(3, 8), expected,
                               rtol=1e-5, atol=1e-6)
    print(lines[24])
    assert lines[24] == "wrong width -> argument 1"
    print("export_c ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
