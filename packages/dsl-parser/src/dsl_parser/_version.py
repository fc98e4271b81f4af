"""Version of dsl-parser and the sibling ranges it supports."""

__version__ = "0.1.1"

#: Sibling packages and the versions this release works with: [low, high).
SIBLINGS: dict[str, tuple[str, str]] = {
    "dsl-mlir": ("0.1", "0.2"),
}
