"""Run every example under examples/ (each asserts its own results); exit non-zero on failure.

The scripts examples/*.py, and examples/<project>/run_*.py of the example projects that
need a build step first (examples/cpp-plugin/run_plugin.py builds its plugin with build.sh).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    examples = ROOT / "examples"
    scripts = sorted(examples.glob("*.py")) + sorted(examples.glob("*/run_*.py"))
    failed = []
    for script in scripts:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True)
        status = "ok" if proc.returncode == 0 else "FAILED"
        print(f"{status:>6}  {script.relative_to(ROOT)}  ({time.perf_counter() - start:.1f} s)")
        if proc.returncode != 0:
            failed.append(script)
            print(proc.stdout[-2000:], proc.stderr[-4000:], sep="\n")
    print(f"examples: {len(scripts) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
