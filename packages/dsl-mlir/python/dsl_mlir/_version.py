"""Versions of this package and of the MLIR it embeds."""

__version__ = "0.1.1"
#: The upstream MLIR/LLVM release compiled into this package.
MLIR_VERSION = "22.1.8"
#: Bumped whenever the `dsl` dialect or the lowering ABI changes (cache keys).
DIALECT_VERSION = 1
