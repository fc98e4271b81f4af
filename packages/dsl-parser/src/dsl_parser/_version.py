"""Version of dsl-parser and the range of dsl-mlir it works with."""

__version__ = "0.1.0"

#: dsl-mlir versions this release is built and tested against: >=0.1, <0.2.
DSL_MLIR_RANGE: tuple[tuple[int, int], tuple[int, int]] = ((0, 1), (0, 2))
