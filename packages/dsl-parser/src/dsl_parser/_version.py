"""Version of dsl-parser and the sibling ranges it supports."""

__version__ = "0.1.1"

#: Sibling packages and the versions this release works with (PEP 440 specifiers).
SIBLINGS: dict[str, str] = {
    "dsl-core": ">=0.1,<0.2",
    "dsl-mlir": ">=0.1,<0.2",
}
