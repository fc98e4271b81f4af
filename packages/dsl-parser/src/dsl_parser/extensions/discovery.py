"""The installed extensions as the cache keys see them, without loading any: the scan of
the entry points, and the fingerprints (versions, digests of their packages' files).

Light on purpose (no dataclasses, no op tables): a process's first call with a warm disk
cache computes its key from this module only.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from dsl_core.versions import package_digest

#: The entry-point group extensions publish their ``register(registry)`` in.
ENTRY_POINT_GROUP = "dsl.extensions"


def entry_points() -> Iterable[Any]:
    """The installed entry points of ``ENTRY_POINT_GROUP`` (reads every distribution's
    metadata)."""
    from importlib.metadata import entry_points as scan

    return scan(group=ENTRY_POINT_GROUP)


#: An installed extension as ``fingerprints`` reads it: (entry-point name, its value
#: ``module:function``, the version of the distribution declaring it or None).
Installed = tuple[str, str, str | None]


def installed() -> list[Installed]:
    """The installed extensions, from a scan of the entry points (every distribution's
    metadata is read: milliseconds, plus the import of ``importlib.metadata``)."""
    found = []
    for ep in entry_points():
        dist = getattr(ep, "dist", None)
        found.append((str(ep.name), str(ep.value), getattr(dist, "version", None)))
    return found


def fingerprints(scanned: Iterable[Installed] | None = None,
                 ) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """``(declared_fingerprint(), code_fingerprint())`` from one scan of the installed
    entry points (``scanned``: a scan the caller kept, e.g. dsl-runtime's index of it,
    which spares a process's first call the scan)."""
    registry = sys.modules.get(f"{__package__}.registry")  # none active before it is loaded
    active = list(registry._ACTIVE.values()) if registry is not None else []
    found = {e.name: e.version or "unversioned" for e in active}
    # an extension's package: from "entry point pkg.mod:register of dist 1.0" or "pkg.mod:fn"
    modules = {e.name: e.origin.removeprefix("entry point ").split(":")[0].strip()
               for e in active}
    for name, value, version in (installed() if scanned is None else scanned):
        found.setdefault(name, version or "unversioned")
        modules.setdefault(name, value.split(":")[0].strip())
    code = tuple(sorted((name, package_digest(module.split(".")[0]))
                        for name, module in modules.items()))
    return tuple(sorted(found.items())), code


__all__ = ["ENTRY_POINT_GROUP", "Installed", "entry_points", "fingerprints", "installed",
           "package_digest"]
