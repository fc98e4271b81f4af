"""Where the C++ development files of dsl-mlir are installed (docs/extending.md)."""

from __future__ import annotations

import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def get_cmake_dir() -> str:
    """The folder of ``DslMLIRConfig.cmake``, for ``find_package(DslMLIR CONFIG)``."""
    return os.path.join(_HERE, "lib", "cmake", "DslMLIR")


def get_include_dir() -> str:
    """The folder of the dsl headers (``dsl/...``, ``dsl-c/Dsl.h``)."""
    return os.path.join(_HERE, "include")
