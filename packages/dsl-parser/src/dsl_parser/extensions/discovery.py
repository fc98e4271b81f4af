"""The installed extensions as the cache keys see them, without loading any: the scan of
the entry points, and the fingerprints (versions, digests of their packages' files).

Light on purpose (no dataclasses, no op tables): a process's first call with a warm disk
cache computes its key from this module only.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterable
from typing import Any

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


_SOURCE_SUFFIXES = (".py", ".so", ".mlir", ".pyd", ".dylib")
#: Packages whose files hold more than this are fingerprinted by size and mtime only.
_CONTENT_LIMIT = 16 << 20


@functools.cache
def package_digest(top: str) -> str:
    """SHA-256 (16 hex digits) of the source and library files of package ``top``."""
    import hashlib
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return "unknown"
    if spec is None:
        return "unknown"
    files: list[tuple[str, str]] = []
    for base in spec.submodule_search_locations or ():
        for folder, dirs, names in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files.extend((os.path.join(folder, n), os.path.relpath(os.path.join(folder, n), base))
                         for n in sorted(names) if n.endswith(_SOURCE_SUFFIXES))
    if not files and spec.origin and os.path.isfile(spec.origin):
        files.append((spec.origin, os.path.basename(spec.origin)))
    sizes = []
    for path, _ in files:
        try:
            sizes.append(os.stat(path).st_size)
        except OSError:
            sizes.append(-1)
    by_content = sum(max(0, n) for n in sizes) <= _CONTENT_LIMIT
    h = hashlib.sha256()
    for (path, rel), size in zip(files, sizes, strict=True):
        h.update(rel.encode())
        try:
            if by_content:
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
            else:  # a large package (bundled libraries): size and modification time
                st = os.stat(path)
                h.update(f"{size}:{st.st_mtime_ns}".encode())
        except OSError:
            h.update(b"unreadable")
    return h.hexdigest()[:16]
