"""Import-time check that the installed sibling packages are in range."""

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


def check_siblings(siblings: dict[str, tuple[str, str]] = SIBLINGS) -> dict[str, str]:
    """Versions of the siblings; ImportError naming both versions and the fix if one is out of range."""
    found = {}
    for dist, (low, high) in siblings.items():
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            raise ImportError(
                f"dsl-runtime {__version__} needs {dist}>={low},<{high}, which is not installed; "
                f"fix: pip install '{dist}>={low},<{high}'") from None
        if not _parse(low) <= _parse(version) < _parse(high):
            raise ImportError(
                f"dsl-runtime {__version__} needs {dist}>={low},<{high} but {dist} {version} is "
                f"installed; fix: pip install '{dist}>={low},<{high}' (or a dsl-runtime release "
                f"that supports {dist} {version})")
        found[dist] = version
    return found
