"""Build dsl-mlir's wheel for every supported CPython and give each a true manylinux tag.

Run by ``make wheels`` (``WHEEL_PYTHONS="3.10 3.11 3.12 3.13"``). The native build has
two halves: the MLIR aggregate library, the dialect, dsl-opt and the tablegen outputs,
which do not depend on the Python version (about 190 build steps), and about 30
extension modules (nanobind, the MLIR bindings, ``_dispatch``), which do. So every
version builds in the same incremental build directory, one after another: ninja
rebuilds only the steps whose command changed, that is the extension modules of the
new interpreter. The interpreter of ``.venv`` goes last, which leaves the directory as
``make setup`` uses it.

Each interpreter gets a small build venv under ``build/pyenvs/cp3XY`` (scikit-build-core
and nanobind at the pins of ci/requirements-dev.txt); the MLIR toolchain, cmake, ninja
and auditwheel come from ``.venv``. ``auditwheel repair`` then replaces the
``linux_x86_64`` platform tag with the lowest manylinux policy the binaries satisfy
(nothing is grafted: the wheel needs only the system's libc, libm and libstdc++).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENV = REPO / ".venv"
PACKAGE = REPO / "packages" / "dsl-mlir"
BUILD_DIR = PACKAGE / "build" / "dsl-mlir"  # the directory of `make setup`
PYENVS = REPO / "build" / "pyenvs"
BUILD_TOOLS = ("scikit-build-core", "nanobind", "typing_extensions")  # the last: stubgen on 3.10


def find_python(version: str) -> Path | None:
    """A working CPython ``version`` ("3.12"): pyenv's newest 3.12.x, else ``python3.12`` on
    PATH (a pyenv shim on PATH fails unless that version is selected, so each is tried)."""
    candidates: list[Path] = []
    for root in filter(None, [os.environ.get("PYENV_ROOT", ""), str(Path.home() / ".pyenv")]):
        found = Path(root, "versions").glob(f"{version}.*/bin/python{version}")
        candidates += sorted(found, key=lambda p: [int(x) for x in p.parts[-3].split(".")
                                                    if x.isdigit()], reverse=True)
    on_path = shutil.which(f"python{version}")
    candidates += [Path(on_path)] if on_path else []
    for candidate in candidates:
        probe = subprocess.run([str(candidate), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True, check=False)
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate
    return None


def _run(cmd: list[str | Path], **kw: object) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kw)  # type: ignore[call-overload]


def pins(*names: str) -> list[str]:
    """``name==version`` of each of ``names`` as ci/requirements-dev.txt pins it."""
    pins = {}
    for line in (REPO / "ci" / "requirements-dev.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            pins[line.split("==")[0].strip().lower()] = line.strip()
    return [pins[n] for n in names]


def _build_env(version: str) -> Path:
    """The interpreter that builds ``version``'s wheel: .venv's own, or a small build venv."""
    own = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if version == own and Path(sys.prefix) == VENV.resolve():
        return Path(sys.executable)
    base = find_python(version)
    if base is None:
        raise SystemExit(f"native_wheels: no CPython {version} found (python{version} on PATH "
                         f"or under pyenv's versions/); set WHEEL_PYTHONS to the versions to build")
    env = PYENVS / f"cp{version.replace('.', '')}"
    py = env / "bin" / "python"
    stamp = env / ".tools"
    wanted = " ".join(pins(*BUILD_TOOLS))
    if not py.exists() or not stamp.exists() or stamp.read_text() != wanted:
        shutil.rmtree(env, ignore_errors=True)
        _run([base, "-m", "venv", env])
        _run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--upgrade", "pip"])
        _run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", *wanted.split()])
        stamp.write_text(wanted)
    return py


def _toolchain_defines() -> list[str]:
    """MLIR_DIR/LLVM_DIR of the toolchain wheels in .venv (other interpreters lack them)."""
    site = next(VENV.glob("lib/python3.*/site-packages"))
    return [f"-Ccmake.define.MLIR_DIR={site / 'mlir/lib/cmake/mlir'}",
            f"-Ccmake.define.LLVM_DIR={site / 'llvm/lib/cmake/llvm'}",
            f"-Ccmake.define.DSL_TOOLS_PYTHON={VENV / 'bin' / 'python'}"]


def _keep_build_dir(py: Path) -> None:
    """scikit-build-core clears the CMake cache (and so rebuilds everything) when another
    copy of it ran the last build; each build venv has its own copy of the same pinned
    release, so record this interpreter's copy as the last one. Python itself may change:
    the interpreter, include dir and library are forced into the cache on every run."""
    info_file = BUILD_DIR / ".skbuild-info.json"
    if not info_file.exists():
        return
    probe = "import os, scikit_build_core as m; print(os.path.dirname(os.path.realpath(m.__file__)))"
    path = subprocess.run([str(py), "-c", probe], capture_output=True, text=True, check=True)
    info = json.loads(info_file.read_text())
    info["skbuild_path"] = path.stdout.strip()
    info_file.write_text(json.dumps(info, indent=2))


def check_tags(wheel: Path, tag: str) -> None:
    """Every extension module in ``wheel`` is built for ``tag`` ("cp312") and nothing else."""
    names = zipfile.ZipFile(wheel).namelist()
    modules = [n for n in names if ".cpython-" in n]
    wrong = [n for n in modules if f".cpython-{tag[2:]}-" not in n]
    if not modules or wrong:
        raise SystemExit(f"native_wheels: {wheel.name} holds modules of other versions: {wrong}")


def build(version: str, out: Path) -> Path:
    """Build, check and repair ``version``'s wheel; returns the manylinux wheel in ``out``."""
    py = _build_env(version)
    tag = f"cp{version.replace('.', '')}"
    raw = REPO / "build" / "raw-wheels"
    for old in raw.glob(f"dsl_mlir-*-{tag}-*.whl"):
        old.unlink()
    _keep_build_dir(py)
    env = dict(os.environ, PATH=f"{VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    _run([py, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-build-isolation",
          "--no-deps", "-w", raw, PACKAGE, f"-Cbuild-dir={BUILD_DIR}",
          "-Ccmake.define.CMAKE_BUILD_TYPE=Release", *_toolchain_defines()], env=env)
    (wheel,) = raw.glob(f"dsl_mlir-*-{tag}-{tag}-linux_x86_64.whl")
    check_tags(wheel, tag)
    _run([VENV / "bin" / "auditwheel", "repair", "-w", out, wheel], env=env)
    (repaired,) = out.glob(f"dsl_mlir-*-{tag}-{tag}-manylinux*.whl")
    return repaired


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="+", help="CPython versions, e.g. 3.10 3.11")
    parser.add_argument("-o", "--out", type=Path, default=REPO / "dist")
    args = parser.parse_args(argv)
    own = f"{sys.version_info[0]}.{sys.version_info[1]}"
    order = sorted(args.versions, key=lambda v: v == own)  # .venv's interpreter last
    args.out.mkdir(parents=True, exist_ok=True)
    for version in order:
        print(f"native_wheels: built {build(version, args.out).name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
