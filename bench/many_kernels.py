"""Many kernels in one process: compile N distinct small element-wise functions, one
first call each, and report the total and the time per function, and how long the process
takes to exit after its last statement (tearing down what it compiled), beside numba and JAX
doing the same in the same run (each in its own fresh process, imports excluded,
bytecode caches warm, our disk cache off).

The functions differ by a constant (``x * c + y`` with c = 1 ... N), so that nothing is
shared between them but the process: what grows is what each compile pays again
(context, pass pipeline, JIT engine), what is paid once (imports, LLVM's target
initialization) shows as the gap between the first and the median function.

    python bench/many_kernels.py [--count 100]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

OURS = textwrap.dedent("""
    import json, time
    import numpy as np
    import dsl_parser.language as pl
    from dsl_runtime import jit
    N = pl.dynamic("N")
    x = np.ones(16, np.float32)
    fns = []
    {defs}
    times = []
    for f in fns:
        t = time.perf_counter(); f(x, x); times.append(time.perf_counter() - t)
    print(json.dumps({"times": times, "end": time.time()}))
""")
OURS_DEF = ("@jit\ndef f{i}(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> "
            "pl.Tensor[[N], pl.FP32]:\n    return pl.add(pl.mul(x, {c}.0), y)\nfns.append(f{i})\n")
NUMBA = textwrap.dedent("""
    import json, time
    import numpy as np, numba
    x = np.ones(16, np.float32); z = np.empty_like(x)
    fns = []
    {defs}
    times = []
    for f in fns:
        t = time.perf_counter(); f(x, x, z); times.append(time.perf_counter() - t)
    print(json.dumps({"times": times, "end": time.time()}))
""")
NUMBA_DEF = ("@numba.njit\ndef f{i}(a, b, out):\n    for k in range(a.shape[0]):\n"
             "        out[k] = a[k] * {c}.0 + b[k]\nfns.append(f{i})\n")
JAX = textwrap.dedent("""
    import json, time
    import numpy as np, jax
    x = jax.numpy.ones(16, np.float32)
    fns = [jax.jit(lambda a, b, c=c: a * c + b) for c in range(1, {count} + 1)]
    times = []
    for f in fns:
        t = time.perf_counter(); f(x, x).block_until_ready(); times.append(time.perf_counter() - t)
    print(json.dumps({"times": times, "end": time.time()}))
""")


def _run(source: str, folder: Path, name: str) -> tuple[list[float], float] | str:
    """Per-function seconds of ``source`` run as a script in a fresh process, and the
    seconds from its last statement until the process is gone (its exit: what
    tearing down its compiled code costs); or why not."""
    script = folder / f"{name}.py"
    script.write_text(source)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["DSL_DISABLE_DISK_CACHE"] = "1"
    for _ in range(2):  # the first run writes the bytecode caches
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env=env, timeout=1800)
        gone = time.time()
        if proc.returncode != 0:
            return proc.stderr.strip().splitlines()[-1][:70] if proc.stderr.strip() else "failed"
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    return [float(t) for t in found["times"]], gone - float(found["end"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    args = parser.parse_args(argv)
    n = args.count

    def defs(template: str) -> str:
        return "\n".join(template.format(i=i, c=i + 1) for i in range(n))

    cases = {
        "dsl @jit": OURS.replace("{defs}", defs(OURS_DEF)),
        "numba @njit": NUMBA.replace("{defs}", defs(NUMBA_DEF)),
        "jax.jit": JAX.replace("{count}", str(n)),
    }
    print(f"{n} distinct small functions, one first call each (fresh process per peer)")
    print(f"| {'peer':<12} | {'total ms':>9} | {'first ms':>9} | {'median ms':>9} | {'last ms':>8} "
          f"| {'exit ms':>8} |")
    print(f"|{'-' * 14}|{'-' * 11}|{'-' * 11}|{'-' * 11}|{'-' * 10}|{'-' * 10}|")
    with tempfile.TemporaryDirectory() as folder:
        for peer, source in cases.items():
            found = _run(source, Path(folder), "bench_" + peer.split()[0].replace(".", "_"))
            if isinstance(found, str):
                print(f"| {peer:<12} | {'n/a':>9} | {found}")
                continue
            ms = [t * 1e3 for t in found[0]]
            middle = sorted(ms)[len(ms) // 2]
            print(f"| {peer:<12} | {sum(ms):>9.1f} | {ms[0]:>9.1f} | {middle:>9.2f} | {ms[-1]:>8.2f} "
                  f"| {found[1] * 1e3:>8.1f} |")


if __name__ == "__main__":
    main()
