"""``python -m dsl_mlir.cmake_dir``: print the folder of ``DslMLIRConfig.cmake``.

For ``cmake -DDslMLIR_DIR=$(python -m dsl_mlir.cmake_dir)``, like ``pybind11 --cmakedir``.
See docs/extending.md, "Extending with C++".
"""

from __future__ import annotations

import os
import sys

from ._paths import get_cmake_dir, get_include_dir

__all__ = ["get_cmake_dir", "get_include_dir", "main"]


def main() -> int:
    path = get_cmake_dir()
    if not os.path.isfile(os.path.join(path, "DslMLIRConfig.cmake")):
        print(f"dsl_mlir.cmake_dir: {path} has no DslMLIRConfig.cmake (dsl-mlir installed without its "
              "development files?)", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
