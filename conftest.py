"""Repository-wide test hooks (loaded by ``make test``, whose rootdir is the repository).

Every PTX a test produces in-process (``dsl_mlir.lower`` with an NVPTX pipeline, the
path of ``@jit(backend="nvptx")``, ``jf.ptx()`` and the dsl-mlir tests) is assembled
by CUDA's ``ptxas`` after the test, for its own target and for sm_80 and sm_90 where
the PTX allows (a ``.target sm_90a`` PTX only for itself); an error fails the test.
No GPU is needed. Without ``ptxas`` on PATH nothing is assembled and the report
header says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
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


@pytest.fixture(autouse=True)
def _ptx_is_assembled(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if PTXAS is None or importlib.util.find_spec("dsl_mlir") is None:
        yield
        return
    import dsl_mlir
    from dsl_mlir import gpu

    produced: list[str] = []
    real = dsl_mlir.lower

    def lower(module: Any, pipeline: str = "dsl-to-llvm-cpu", *args: Any, **kwargs: Any) -> Any:
        result = real(module, pipeline, *args, **kwargs)
        if "nvptx" in str(pipeline):
            with contextlib.suppress(ValueError):  # ValueError: no kernels in the module
                produced.extend(gpu.ptx_of(result).values())
        return result

    monkeypatch.setattr(dsl_mlir, "lower", lower)
    yield
    problems = []
    for ptx in produced:
        digest = hashlib.sha256(ptx.encode()).hexdigest()
        if digest in _ASSEMBLED:
            continue
        errors = assemble(ptx)
        if errors:
            problems += errors
        else:
            _ASSEMBLED.add(digest)
    if problems:
        pytest.fail("PTX produced by this test does not assemble:\n" + "\n".join(problems))
