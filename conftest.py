"""Repository-wide test hooks (loaded by ``make test``, whose rootdir is the repository).

Every PTX a test produces, in its own process or in the subprocesses it starts (every
``dsl_mlir.lower`` that yields a ``gpu.binary`` writes its PTX into the folder named by
``DSL_PTX_DUMP_DIR``, which this file sets for the session), is assembled by CUDA's
``ptxas`` after the test, for its own target and for sm_80 and sm_90 where the PTX
allows (a ``.target sm_90a`` PTX only for itself); an error fails the test. No GPU is
needed. Without ``ptxas`` on PATH nothing is assembled and the report says so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PTXAS = shutil.which("ptxas")
ARCHS = ("sm_80", "sm_90")
_ASSEMBLED: set[str] = set()  # digests of PTX already assembled in this session


def pytest_report_header(config: Any) -> str:
    if PTXAS is None:
        return "ptxas: not on PATH; the PTX tests produce is not assembled"
    lines = subprocess.run([PTXAS, "--version"], capture_output=True, text=True).stdout.split("\n")
    version = next((line for line in lines if "release" in line), "unknown version").strip()
    return f"ptxas: {PTXAS} ({version}); every PTX is assembled for its target, {', '.join(ARCHS)}"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The ptxas line again at the end (``-q`` runs, as ``make test``, print no header)."""
    line = pytest_report_header(terminalreporter.config)
    if PTXAS is not None:
        line += f"; {len(_ASSEMBLED)} distinct PTX assembled without error"
    terminalreporter.write_line(line)


def targets(ptx: str) -> list[str]:
    """The architectures to assemble ``ptx`` for: its ``.target`` and those of ARCHS it
    runs on (same or newer, unless it uses arch-specific ``a`` features)."""
    found = re.search(r"^\s*\.target\s+(sm_(\d+)(a?))", ptx, re.M)
    if found is None:
        return list(ARCHS)
    own, number, specific = found.group(1), int(found.group(2)), found.group(3)
    if specific:
        return [own]
    return [own, *(a for a in ARCHS if a != own and int(a[3:]) >= number)]


def assemble(ptx: str) -> list[str]:
    """ptxas's errors for ``ptx`` (an empty list when every target assembles)."""
    assert PTXAS is not None
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "k.ptx"
        source.write_text(ptx)
        for arch in targets(ptx):
            proc = subprocess.run([PTXAS, f"-arch={arch}", "-o", str(Path(tmp) / "k.cubin"),
                                   str(source)], capture_output=True, text=True, timeout=120)
            if proc.returncode != 0:
                errors.append(f"ptxas -arch={arch}: {proc.stderr.strip()[:2000]}")
    return errors


def _dump_dir() -> Path | None:
    """The session's PTX folder (set in the environment, so subprocesses write there too)."""
    if PTXAS is None:
        return None
    given = os.environ.get("DSL_PTX_DUMP_DIR")
    if given:
        return Path(given)
    folder = Path(tempfile.mkdtemp(prefix="dsl-ptx-"))
    os.environ["DSL_PTX_DUMP_DIR"] = str(folder)
    return folder


DUMP = _dump_dir()
_OWN_DUMP = DUMP is not None and DUMP.name.startswith("dsl-ptx-")


def pytest_sessionfinish(session: Any) -> None:
    if _OWN_DUMP and DUMP is not None:
        shutil.rmtree(DUMP, ignore_errors=True)


@pytest.fixture(autouse=True)
def _ptx_is_assembled() -> Iterator[None]:
    yield
    if DUMP is None or not DUMP.is_dir():
        return
    problems = []
    for path in sorted(DUMP.glob("*.ptx")):
        if path.stem in _ASSEMBLED:
            continue
        errors = assemble(path.read_text())
        if errors:
            problems += [f"{path.name}: {e}" for e in errors]
            path.unlink()  # reported once, here
        else:
            _ASSEMBLED.add(path.stem)
    if problems:
        pytest.fail("PTX produced by this test does not assemble:\n" + "\n".join(problems))
