"""The one check that sibling packages are installed at versions a release works with.

dsl-parser and dsl-runtime call :func:`check_requirements` at import time (before they
import dsl-mlir's native code); dsl-core's IR hooks call :func:`check_version` on the
``dsl_mlir`` module they load. Ranges are PEP 440 specifiers (``">=0.1,<0.2"``), read
with ``packaging``; the message names both versions and the fix. Imported only by those
checks: ``import dsl_core`` does not load it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import metadata

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version


def installed_version(dist: str) -> str | None:
    """The installed version of distribution ``dist`` (its metadata, else the
    ``__version__`` of its module, e.g. a build tree on ``sys.path``); None if absent."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        pass
    try:
        module = __import__(dist.replace("-", "_"))
    except ImportError:
        return None
    return str(getattr(module, "__version__", "")) or None


def satisfies(version: str, specifier: str) -> bool:
    """Whether ``version`` is within ``specifier`` (pre-releases count; an unparsable
    version never is)."""
    try:
        return SpecifierSet(specifier).contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def problem(owner: str, dist: str, specifier: str, version: str | None) -> str | None:
    """Why ``dist`` at ``version`` (None: not installed) cannot serve ``owner`` ("dsl-parser
    0.1.1"), or None when it can."""
    wanted = f"{dist}{specifier}"
    if version is None:
        return f"{owner} needs {wanted}, which is not installed; fix: pip install '{wanted}'"
    if satisfies(version, specifier):
        return None
    release = owner.rsplit(" ", 1)[0]
    return (f"{owner} needs {wanted} but {dist} {version} is installed; fix: pip install "
            f"'{wanted}' (or a {release} release that supports {dist} {version})")


def check_requirements(owner: str, requirements: Mapping[str, str],
                       find: Callable[[str], str | None] = installed_version) -> dict[str, str]:
    """The installed version of each required distribution; an ImportError naming both
    versions and the fix for the first one missing or out of range."""
    found = {}
    for dist, specifier in requirements.items():
        version = find(dist)
        message = problem(owner, dist, specifier, version)
        if message is not None:
            raise ImportError(message)
        assert version is not None
        found[dist] = version
    return found


__all__ = ["check_requirements", "installed_version", "problem", "satisfies"]
