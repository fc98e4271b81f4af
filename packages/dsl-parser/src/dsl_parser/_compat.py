"""Import-time check that the installed dsl-mlir is in range (as jax checks jaxlib).

It reads the installed distribution's metadata, so it runs before the native
package is imported: an incompatible dsl-mlir fails with this message, not
with an obscure error from inside its extension modules.
"""

from __future__ import annotations

from importlib import metadata

from ._version import SIBLINGS, __version__


def _parse(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def _installed(dist: str) -> str | None:
    """The installed version of ``dist`` (from its metadata, else its ``__version__``)."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        pass
    try:  # e.g. a build tree on sys.path, without installed metadata
        module = __import__(dist.replace("-", "_"))
    except ImportError:
        return None
    return str(getattr(module, "__version__", "")) or None


def check_siblings(siblings: dict[str, tuple[str, str]] = SIBLINGS) -> dict[str, str]:
    """Versions of the siblings; an ImportError naming both versions and the fix if one is
    out of range or missing."""
    found = {}
    for dist, (low, high) in siblings.items():
        wanted = f"{dist}>={low},<{high}"
        version = _installed(dist)
        if version is None:
            raise ImportError(f"dsl-parser {__version__} needs {wanted}, which is not installed; "
                              f"fix: pip install '{wanted}'")
        if not _parse(low) <= _parse(version) < _parse(high):
            raise ImportError(
                f"dsl-parser {__version__} needs {wanted} but {dist} {version} is installed; "
                f"fix: pip install '{wanted}' (or a dsl-parser release that supports "
                f"{dist} {version})")
        found[dist] = version
    return found
