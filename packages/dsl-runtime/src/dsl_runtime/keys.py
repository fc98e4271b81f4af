"""Cache keys: stable across processes, covering source, specialization, options and versions."""

from __future__ import annotations

import hashlib
import platform
from functools import cache
from typing import Any

from . import fingerprint, source_index
from ._version import __version__
from .fingerprint import Path

_COMPONENTS = ("dsl-core", "dsl-mlir", "dsl-parser")
_CONSTANT_TYPES = (int, float, bool, str, bytes, type(None))


def _layer_version(dist: str) -> str:
    """The version of layer ``dist`` that runs: its imported package's ``__version__``
    (free: the layers are imported before anything is compiled), else the installed one."""
    import sys

    version = getattr(sys.modules.get(dist.replace("-", "_")), "__version__", None)
    if isinstance(version, str) and version:
        return version
    from dsl_core.versions import installed_version

    return installed_version(dist) or "missing"


@cache
def component_versions() -> tuple[tuple[str, str], ...]:
    """Versions of every layer, plus the MLIR release and the ``dsl`` dialect version that
    dsl-mlir embeds (a change in any invalidates cached code)."""
    found = [("dsl-runtime", __version__)]
    found += [(dist, _layer_version(dist)) for dist in _COMPONENTS]
    import dsl_mlir

    found.append(("mlir", str(getattr(dsl_mlir, "MLIR_VERSION", "unknown"))))
    found.append(("dsl-dialect", str(getattr(dsl_mlir, "DIALECT_VERSION", "unknown"))))
    # A rebuild of the native pipelines with an unchanged version (a developer's build,
    # a patched wheel) must not reuse code its predecessor compiled.
    found.append(("dsl-mlir-build", dsl_mlir.native_build_id()))
    return tuple(found)


@cache
def host_target() -> str:
    """The JIT targets the host CPU: its model and feature flags are part of the key."""
    import os

    text = b""
    try:  # the first CPU's record only: the kernel formats /proc/cpuinfo as it is read
        fd = os.open("/proc/cpuinfo", os.O_RDONLY | os.O_CLOEXEC)
        try:
            while b"\nflags" not in text or not text.split(b"\nflags", 1)[1].count(b"\n"):
                chunk = os.read(fd, 16384)
                if not chunk:
                    break
                text += chunk
        finally:
            os.close(fd)
    except OSError:
        pass
    flags = ""
    for line in text.decode("utf-8", "replace").splitlines(keepends=True):
        if line.startswith(("model name", "flags")):
            flags += line
        if line.startswith("flags"):
            break
    return f"{platform.machine()}:{hashlib.sha256(flags.encode()).hexdigest()[:16]}"


def _constant(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_constant(v) for v in value)
    return isinstance(value, _CONSTANT_TYPES)


def _referenced(fn: Any) -> list[tuple[str, Any]]:
    """(name, value) of the module globals (sorted) and closure cells the function's code names."""
    code = fn.__code__
    found = [(name, fn.__globals__[name]) for name in sorted(set(code.co_names))
             if name in fn.__globals__]
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            found.append((name, cell.cell_contents))
        except ValueError:
            continue
    return found


def referenced_constants(fn: Any) -> list[tuple[str, str]]:
    """Module-level and closure constants the function's code names (they may shape the code)."""
    return [(name, repr(value)) for name, value in _referenced(fn) if _constant(value)]


def referenced_kernels(fn: Any) -> list[Any]:
    """The ``@pl.kernel`` objects the function's code names (globals and closure cells)."""
    return [v for _, v in _referenced(fn) if type(v).__name__ == "Kernel" and hasattr(v, "fn")]


def function_identity(fn: Any, _seen: frozenset[int] = frozenset()) -> str | None:
    """Source-level identity of a Python function, or None when its source is unavailable.

    It covers the source and referenced constants of the function and, recursively, of
    every kernel it launches (editing a kernel invalidates its host function's entries)."""
    found = source_index.facts(fn)
    if found is None:
        return None
    source = found[0]
    parts = [getattr(fn, "__module__", "") or "", fn.__qualname__, source,
             repr(referenced_constants(fn))]
    for kernel in referenced_kernels(fn):
        if id(kernel.fn) in _seen:
            continue
        inner = function_identity(kernel.fn, _seen | {id(fn)})
        if inner is None:
            return None
        parts.append(inner)
    return "\n".join(parts)


def value_sources(fn: Any) -> list[tuple[Any, list[Path]]] | None:
    """``(function, chains)`` for ``fn`` and every kernel it launches: the names and
    attribute chains whose values the compiled code may depend on (None: no source)."""
    found: list[tuple[Any, list[Path]]] = []
    todo, seen = [fn], set()
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        facts = source_index.facts(f)
        if facts is None:
            return None
        found.append((f, facts[1]))
        todo.extend(k.fn for k in referenced_kernels(f) if k.fn is not None)
    return found


def read_values(sources: list[tuple[Any, list[Path]]]) -> list[tuple[str, str]]:
    """What those names hold now, as (name, typed deep hash); ``Unhashable`` when a value
    cannot be covered (the function is then compiled without the disk cache)."""
    return [item for f, chains in sources for item in fingerprint.read_values(f, chains)]


def module_identity(parsed: Any) -> str:
    """Identity of an already parsed function: its module with locations, and its name."""
    return f"{parsed.name}\n{parsed.module.operation.get_asm(enable_debug_info=True)}"


def extension_versions() -> tuple[tuple[str, str], ...]:
    """(name, version) of every installed or active dsl extension (their lowering rules
    shape the code); metadata only: no extension code runs here."""
    return _extension_fingerprints()[0]


def extension_code() -> tuple[tuple[str, str], ...]:
    """(name, digest of its package's files) of every dsl extension: an edited editable
    extension changes the key even without a version bump."""
    return _extension_fingerprints()[1]


def _extension_fingerprints() -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """(versions, code digests) of the extensions, from the index of installed ones
    (``installed_extensions``) and the active ones: what ``digest`` keys on.

    Before the parser's extension registry is loaded, no extension is active and the
    fingerprints are those of the installed ones alone, computed here as
    ``dsl_parser.extensions.discovery.fingerprints`` does (a test checks that the two
    agree), without importing the parser's extension modules: a process's first call
    with a warm disk cache does not load them. The code digests come from the index too
    while the files they cover are unchanged (``installed_code``)."""
    import sys

    if "dsl_parser.extensions.registry" in sys.modules:
        from dsl_parser.extensions import discovery

        return discovery.fingerprints(installed_extensions())
    state = _path_state()
    found: dict[str, str] = {}
    modules: dict[str, str] = {}
    for name, value, version in installed_extensions(state):
        found.setdefault(name, version or "unversioned")
        modules.setdefault(name, value.split(":")[0].strip())
    code = tuple(sorted((name, installed_code(module.split(".")[0], state))
                        for name, module in modules.items()))
    return tuple(sorted(found.items())), code


#: ``<cache>/v1/<INDEX>``: for the last ``INDEX_STATES`` states of the ``sys.path``
#: folders (installing or removing a distribution changes its folder; scripts in
#: different folders see different paths), the installed extensions then, and the code
#: digest of each extension's package with the states of the files and folders it
#: covers.
INDEX = "extensions-index-v2.json"
INDEX_STATES = 32
_scanned: dict[str, list[Any]] = {}
#: The index of each cache folder as read (or last written) by this process:
#: ``{state: {"found": ..., "code": {package: [digest, [[path, size, mtime_ns], ...]]}}}``.
_indexes: dict[str, dict[str, Any]] = {}
#: Code digests by (``sys.path`` state, package), once per process.
_code: dict[tuple[str, str], str] = {}


def _path_state() -> str:
    """Digest of the interpreter and of the distributions ``sys.path`` shows: each
    folder's modification time (installing, upgrading or removing a distribution adds,
    renames or removes its ``*.dist-info`` there), except the first entry's (the script's
    folder, where users edit files): there, the names and times of its ``*.dist-info`` /
    ``*.egg-info`` only."""
    import os
    import sys

    h = hashlib.sha256(sys.version.encode())
    for i, entry in enumerate(sys.path):
        h.update(f"{entry}\0".encode())
        try:
            if i > 0:
                h.update(str(os.stat(entry).st_mtime_ns).encode())
                continue
            with os.scandir(entry or ".") as found:
                for item in found:
                    if item.name.endswith((".dist-info", ".egg-info")):
                        h.update(f"{item.name}:{item.stat().st_mtime_ns}\0".encode())
        except NotADirectoryError:
            h.update(str(os.stat(entry).st_mtime_ns).encode())
        except OSError:
            h.update(b"-")
    return h.hexdigest()


def _read_index() -> dict[str, Any]:
    """The index's states (read once per process and cache folder; empty when missing or
    unreadable)."""
    from . import cache

    folder = str(cache.root())
    found = _indexes.get(folder)
    if found is None:
        import json

        data = cache.read_note(INDEX)
        try:
            states = json.loads(data)["states"] if data is not None else {}
            found = {k: v for k, v in states.items() if isinstance(v, dict)}
        except (ValueError, TypeError, KeyError, AttributeError):
            found = {}  # unreadable: scan again
        _indexes[folder] = found
    return found


def _write_index() -> None:
    import json

    from . import cache

    states = _read_index()
    kept = dict(list(states.items())[-INDEX_STATES:])  # the newest last
    cache.write_note(INDEX, json.dumps({"states": kept}).encode())


def installed_extensions(state: str | None = None) -> list[Any]:
    """The installed extensions (``dsl_parser.extensions.installed()``), read from the
    index in the cache folder while ``sys.path`` is unchanged, else scanned (and the
    index rewritten): the entry-point scan and the import of ``importlib.metadata`` cost
    a process's first call tens of milliseconds. Once per process and ``state`` (of
    ``sys.path``, ``_path_state()``: computed when not given)."""
    state = _path_state() if state is None else state
    if state in _scanned:
        return _scanned[state]
    states = _read_index()
    found: list[Any] | None = None
    try:
        found = [(str(n), str(v), None if d is None else str(d))
                 for n, v, d in states[state]["found"]]
    except (KeyError, ValueError, TypeError):
        found = None
    if found is None:
        from dsl_parser.extensions import discovery

        found = discovery.installed()
        old = states.pop(state, None)
        codes = old.get("code") if isinstance(old, dict) else None
        states[state] = {"found": found, "code": codes if isinstance(codes, dict) else {}}
        _write_index()
    _scanned[state] = found
    return found


def installed_code(package: str, state: str) -> str:
    """``dsl_core.versions.package_digest(package)``, taken from the index entry of
    ``state`` (of ``sys.path``) while the files and folders it covered have the states
    recorded, else computed (and recorded once they have settled, see
    ``dsl_core.versions.settled``). Once per process."""
    if (state, package) in _code:
        return _code[state, package]
    from dsl_core.versions import package_fingerprint, settled, unchanged

    entry = _read_index().setdefault(state, {})
    codes = entry.setdefault("code", {})
    if not isinstance(codes, dict):
        codes = entry["code"] = {}
    digest: str | None = None
    try:
        recorded, files = codes[package]
        states = [(str(p), int(n), int(t)) for p, n, t in files]
        if isinstance(recorded, str) and states and unchanged(states):
            digest = recorded
    except (KeyError, ValueError, TypeError):
        digest = None
    if digest is None:
        digest, states = package_fingerprint(package)
        if states and settled(states):
            codes[package] = [digest, [list(s) for s in states]]
            _write_index()
    _code[state, package] = digest
    return digest


def digest(*parts: object) -> str:
    """The disk-cache key: ``parts`` plus every layer's and extension's version and code,
    and the host."""
    versions, code = _extension_fingerprints()
    h = hashlib.sha256()
    for part in (*parts, component_versions(), versions, code, host_target()):
        h.update(repr(part).encode())
        h.update(b"\0")
    return h.hexdigest()
