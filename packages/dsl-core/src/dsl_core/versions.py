"""The one check that sibling packages are installed at versions a release works with.

dsl-parser and dsl-runtime call :func:`check_requirements` at import time (before they
import dsl-mlir's native code); dsl-core's IR hooks call :func:`check_version` on the
``dsl_mlir`` module they load. Ranges are PEP 440 specifiers (``">=0.1,<0.2"``); the
message names both versions and the fix. Imported only by those checks: ``import
dsl_core`` does not load it.

Fast, since it runs on every import of dsl-parser and dsl-runtime: it reads the
sibling's ``_version.py`` (found without importing the package) rather than
``importlib.metadata`` (tens of milliseconds to import and scan), and compares plain
release numbers itself (``packaging`` reads every other specifier and version).
"""

from __future__ import annotations

import functools
import importlib.util
import operator
import os
import re
from collections.abc import Callable, Mapping

_VERSION_LINE = re.compile(r"""^__version__\s*=\s*["']([^"']+)["']""", re.MULTILINE)
_RELEASE = re.compile(r"\d+(?:\.\d+)*")
_CLAUSE = re.compile(r"\s*(>=|<=|==|!=|<|>)\s*(\d+(?:\.\d+)*)\s*")
_COMPARE: dict[str, Callable[[tuple[int, ...], tuple[int, ...]], bool]] = {
    ">=": operator.ge, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
    "<": operator.lt, ">": operator.gt,
}


def _module_version(module: str) -> str | None:
    """``__version__`` as written in the ``_version.py`` (else the ``__init__.py``) of
    top-level package ``module``, found without importing it; None when neither says."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    for folder in spec.submodule_search_locations or ():
        for name in ("_version.py", "__init__.py"):
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    found = _VERSION_LINE.search(f.read())
            except OSError:
                continue
            if found:
                return found.group(1)
    return None


def installed_version(dist: str) -> str | None:
    """The installed version of distribution ``dist``: the ``__version__`` its package
    declares in ``_version.py`` or ``__init__.py`` (every dsl package does, a build tree
    on ``sys.path`` too), else its metadata, else its module's ``__version__``; None if
    absent."""
    module = dist.replace("-", "_")
    found = _module_version(module)
    if found is not None:
        return found
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        pass
    try:
        imported = __import__(module)
    except ImportError:
        return None
    return str(getattr(imported, "__version__", "")) or None


def _release(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()  # 0.1 == 0.1.0
    return tuple(parts)


def _plain_satisfies(version: str, specifier: str) -> bool | None:
    """``satisfies`` for a plain release (``0.1.7``) and a specifier of plain comparisons
    (the ranges the dsl packages write); None when either is anything else."""
    if not _RELEASE.fullmatch(version):
        return None
    clauses = [_CLAUSE.fullmatch(c) for c in specifier.split(",")]
    if not all(clauses):
        return None
    have = _release(version)
    return all(_COMPARE[m.group(1)](have, _release(m.group(2))) for m in clauses if m)


def satisfies(version: str, specifier: str) -> bool:
    """Whether ``version`` is within ``specifier`` (pre-releases count; an unparsable
    version never is)."""
    plain = _plain_satisfies(version, specifier)
    if plain is not None:
        return plain
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

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


_SOURCE_SUFFIXES = (".py", ".so", ".mlir", ".pyd", ".dylib")
#: Packages whose files hold more than this are fingerprinted by size and mtime only.
_CONTENT_LIMIT = 16 << 20


#: A file's or folder's state: (path, size, modification time in ns).
FileState = tuple[str, int, int]


@functools.cache
def package_digest(top: str) -> str:
    """SHA-256 (16 hex digits) of the source and library files of top-level package (or
    module) ``top``, found without importing it; ``"unknown"`` when it is not found.
    Cache keys of compiled code use it for code that shapes the code they cache (the
    dsl extensions): an edited editable install changes it without a version bump.
    Once per process."""
    return package_fingerprint(top)[0]


def package_fingerprint(top: str) -> tuple[str, list[FileState]]:
    """``(package_digest(top), states)``: the digest, and the state of every folder
    walked and file read, each taken before it was read. While every state is unchanged
    (and the files were not modified in the same instant as they were read, see
    :func:`settled`), the digest is too: a caller may keep it and check the states
    instead of reading the files again. A folder's time changes when a file is added,
    removed or renamed in it."""
    import hashlib

    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return "unknown", []
    if spec is None:
        return "unknown", []
    states: list[FileState] = []
    files: list[tuple[str, str]] = []
    for base in spec.submodule_search_locations or ():
        for folder, dirs, names in os.walk(base):
            states.append(_state(folder))
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files.extend((os.path.join(folder, n), os.path.relpath(os.path.join(folder, n), base))
                         for n in sorted(names) if n.endswith(_SOURCE_SUFFIXES))
    if not files and spec.origin and os.path.isfile(spec.origin):
        files.append((spec.origin, os.path.basename(spec.origin)))
    file_states = [_state(path) for path, _ in files]
    states += file_states
    by_content = sum(max(0, size) for _, size, _ in file_states) <= _CONTENT_LIMIT
    h = hashlib.sha256()
    for (path, rel), (_, size, mtime) in zip(files, file_states, strict=True):
        h.update(rel.encode())
        try:
            if by_content:
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
            else:  # a large package (bundled libraries): size and modification time
                h.update(f"{size}:{mtime}".encode())
        except OSError:
            h.update(b"unreadable")
    return h.hexdigest()[:16], states


def _state(path: str) -> FileState:
    try:
        st = os.stat(path)
    except OSError:
        return path, -1, -1
    return path, st.st_size, st.st_mtime_ns


#: Files modified less than this long before they were read may be modified again with
#: the same size and time stamp (coarse file-system clocks; FAT keeps two seconds).
SETTLE_NS = 2_000_000_000


def settled(states: list[FileState], now_ns: int | None = None) -> bool:
    """Whether every state names an existing path last modified at least
    :data:`SETTLE_NS` before ``now_ns`` (default: now): only then does an unchanged
    state imply unchanged contents (the "racy" case of git's index)."""
    import time

    now = time.time_ns() if now_ns is None else now_ns
    return all(size >= 0 and now - mtime >= SETTLE_NS for _, size, mtime in states)


def unchanged(states: list[FileState]) -> bool:
    """Whether every path still has the state recorded (a missing one never has)."""
    return all(size >= 0 and _state(path) == (path, size, mtime) for path, size, mtime in states)


__all__ = ["FileState", "check_requirements", "installed_version", "package_digest",
           "package_fingerprint", "problem", "satisfies", "settled", "unchanged"]
