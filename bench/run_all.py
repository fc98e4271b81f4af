"""Run every benchmark of bench/ in turn (`make bench`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ["core_bench.py", "mlir_bench.py", "parse_bench.py", "dispatch_bench.py", "many_kernels.py",
           "kernels.py", "launch_bench.py", "block_kernels_bench.py", "thread_loops_bench.py"]

if __name__ == "__main__":
    status = 0
    for name in SCRIPTS:
        path = HERE / name
        if not path.exists():
            print(f"\n== {name}: missing, skipped")
            continue
        print(f"\n== {name}", flush=True)
        status |= subprocess.run([sys.executable, str(path)]).returncode
    sys.exit(status)
