"""Load the example C++ plugin into dsl-mlir, lower its op with its pass, JIT-run it.

    examples/cpp-plugin/build.sh                       # -> examples/cpp-plugin/build/libMyExtPlugin.so
    python examples/cpp-plugin/run_plugin.py [PLUGIN]  # builds it first when PLUGIN is not given

See docs/extending.md, "Extending with C++".
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import dsl_mlir
from dsl_mlir.runtime import get_ranked_memref_descriptor

HERE = Path(__file__).resolve().parent

SOURCE = """
func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = myext.square %x : tensor<?xf32>
  %1 = dsl.add %0, %y : tensor<?xf32>
  return %1 : tensor<?xf32>
}
"""


def build() -> str:
    """Build the plugin with build.sh (incremental) and return its path."""
    env = dict(os.environ, PYTHON=sys.executable)
    out = subprocess.run([str(HERE / "build.sh")], check=True, env=env, stdout=subprocess.PIPE, text=True).stdout
    return out.strip().splitlines()[-1]


def main(argv: list[str]) -> int:
    path = argv[1] if len(argv) > 1 else build()
    plugin = dsl_mlir.load_plugin(path)
    print(f"loaded plugin {plugin.name} {plugin.version} (dialects: {plugin.dialects}, passes: {plugin.passes})")

    with dsl_mlir.context():
        module = dsl_mlir.parse_module(SOURCE)  # myext.square parses and verifies
        rewritten = dsl_mlir.lower(module, "myext-lower-square")
        print(rewritten)
        assert "myext.square" not in str(rewritten) and "dsl.mul %arg0, %arg0" in str(rewritten)
        engine = dsl_mlir.jit(dsl_mlir.lower(module, "myext-lower-square,dsl-to-llvm-cpu"))

    x = np.linspace(-2.0, 2.0, 9, dtype=np.float32)
    y = np.full(9, 0.5, dtype=np.float32)
    z = np.zeros(9, dtype=np.float32)
    engine.invoke("f", *[ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in (x, y, z)])
    np.testing.assert_allclose(z, x * x + y, rtol=1e-6)
    print("myext.square(x) + y =", z)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
