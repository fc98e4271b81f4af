"""The layering of the four packages, checked on their sources (issue 13).

dsl-mlir is at the bottom and imports none of the others; dsl-core needs nothing at
import time and loads dsl-mlir lazily, in its one IR module; dsl-parser builds on
dsl-core and dsl-mlir; dsl-runtime on all three. No file imports another package's
private (``_``-prefixed) modules. ruff's TID251 enforces the last rule while editing;
this test keeps it in CI.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SOURCES = {
    "dsl_core": REPO / "packages/dsl-core/src/dsl_core",
    "dsl_mlir": REPO / "packages/dsl-mlir/python/dsl_mlir",
    "dsl_parser": REPO / "packages/dsl-parser/src/dsl_parser",
    "dsl_runtime": REPO / "packages/dsl-runtime/src/dsl_runtime",
}
#: Which packages each package may import (anywhere in its code).
ALLOWED = {
    "dsl_mlir": set(),
    "dsl_core": {"dsl_mlir"},
    "dsl_parser": {"dsl_core", "dsl_mlir"},
    "dsl_runtime": {"dsl_core", "dsl_mlir", "dsl_parser"},
}


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """(module, line, at module level) of every absolute import in ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno, id(node) in top))
            found += [(f"{node.module}.{a.name}", node.lineno, id(node) in top)
                      for a in node.names]
    return found


def _files() -> list[tuple[str, Path]]:
    out = [(pkg, f) for pkg, root in SOURCES.items() for f in sorted(root.rglob("*.py"))]
    out += [("", f) for d in ("examples", "bench") for f in sorted((REPO / d).rglob("*.py"))]
    out += [(pkg, f) for pkg, root in SOURCES.items()
            for f in sorted((root.parents[1] if root.parent.name == "src" else root.parent.parent)
                            .glob("tests/*.py"))]
    return out


def test_no_package_imports_another_packages_private_modules() -> None:
    bad = []
    for owner, path in _files():
        for module, line, _ in _imports(path):
            parts = module.split(".")
            if parts[0] in SOURCES and parts[0] != owner and len(parts) > 1 \
                    and parts[1].startswith("_") and not parts[1].startswith("__"):
                bad.append(f"{path.relative_to(REPO)}:{line}: {module}")
    assert bad == []


@pytest.mark.parametrize("package", sorted(SOURCES))
def test_the_dependency_graph(package: str) -> None:
    bad = []
    for path in sorted(SOURCES[package].rglob("*.py")):
        for module, line, top in _imports(path):
            other = module.split(".")[0]
            if other in SOURCES and other != package and other not in ALLOWED[package]:
                bad.append(f"{path.relative_to(REPO)}:{line}: {module}")
            if package == "dsl_core" and other == "dsl_mlir" and (top or path.name != "_ir.py"):
                bad.append(f"{path.relative_to(REPO)}:{line}: dsl_mlir outside _ir's functions")
    assert bad == []
