"""Fuzz test of the IR path: generated dsl modules through parse -> verify -> lower -> JIT.

Batches of modules from ``ir_fuzz.py`` run in child processes; a child that dies from a
signal (an LLVM assertion aborts, a stack overflow segfaults, an i0 divides by zero) or
hangs, or a module that raises anything but MLIRDiagnosticError, is a failure that names
the module. The budget is fixed (``DSL_FUZZ_IR_SECONDS``, default 60 s of wall time, in
batches of ``DSL_FUZZ_IR_BATCH`` modules); ``DSL_FUZZ_IR_SEED`` moves the first case, so
a longer run (``make fuzz-ir``) explores new modules. The cases are deterministic: a
failure's case number reproduces it (``python ir_fuzz.py CASE 1``).
"""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time

import ir_fuzz

HERE = pathlib.Path(__file__).resolve().parent
BUDGET_S = float(os.environ.get("DSL_FUZZ_IR_SECONDS", "60"))
BATCH = int(os.environ.get("DSL_FUZZ_IR_BATCH", "40"))
FIRST = int(os.environ.get("DSL_FUZZ_IR_SEED", "0"))
#: A batch that runs longer than this hangs (a module compiles in well under a second).
BATCH_TIMEOUT_S = 240


def _describe(case: int, why: str) -> str:
    text, options = ir_fuzz.generate(case)
    return f"case {case} ({why}), options {options}:\n{text}"


def _run_batch(first: int, count: int) -> tuple[list[str], int, dict[str, int]]:
    """(findings, cases finished, outcome counts) of one child process."""
    try:
        proc = subprocess.run([sys.executable, str(HERE / "ir_fuzz.py"), str(first), str(count)],
                              capture_output=True, text=True, timeout=BATCH_TIMEOUT_S)
        stdout, returncode = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired as err:
        out = err.stdout or b""
        stdout, returncode = out.decode() if isinstance(out, bytes) else out, None
    findings, counts, started, done = [], {"ok": 0, "refused": 0}, None, 0
    for line in stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "CASE":
            started = int(rest)
        elif kind == "DONE":
            case, _, outcome = rest.partition(" ")
            done += 1
            started = None
            if outcome in counts:
                counts[outcome] += 1
            else:
                findings.append(_describe(int(case), outcome))
    if returncode is None:
        findings.append(_describe(started if started is not None else first + done, "hangs"))
    elif returncode != 0:
        why = (f"killed by {signal.Signals(-returncode).name}" if returncode < 0
               else f"exit status {returncode}")
        tail = proc.stderr.strip().splitlines()[-3:]
        findings.append(_describe(started if started is not None else first + done,
                                  f"{why}: {' | '.join(tail)}"))
    return findings, done, counts


def test_generated_modules_never_kill_the_process() -> None:
    deadline = time.monotonic() + BUDGET_S
    findings: list[str] = []
    total, counts = 0, {"ok": 0, "refused": 0}
    first = FIRST
    while time.monotonic() < deadline and len(findings) < 5:
        found, done, batch_counts = _run_batch(first, BATCH)
        findings += found
        total += done
        for key, value in batch_counts.items():
            counts[key] += value
        first += BATCH
    print(f"\nIR fuzz: {total} modules, {counts['ok']} compiled, {counts['refused']} refused")
    assert not findings, "\n\n".join(findings)
    assert total >= min(BATCH, 20), "the budget ran out before a batch finished"
    # The generator must reach both sides: modules that compile and modules refused.
    assert counts["ok"] > 0 and counts["refused"] > 0, counts


def test_generator_is_deterministic_and_varied() -> None:
    texts = [ir_fuzz.generate(case)[0] for case in range(200)]
    assert texts == [ir_fuzz.generate(case)[0] for case in range(200)]
    joined = "\n".join(texts)
    for op in ("dsl.matmul", "dsl.reshape", "dsl.cast", "dsl.concat", "dsl.arange", "dsl.sum",
               "dsl.slice", "dsl.assemble", "dsl.select", "dsl.broadcast", "dsl.transpose"):
        assert op in joined, op
    for odd in ("xi0>", "x0x", "4294967296", "tensor<?x"):
        assert odd in joined, odd
