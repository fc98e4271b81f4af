"""Integer division and remainder by zero are a ZeroDivisionError naming the user's line
(dsl-check-divisions), in kernels and host code, on every cpu variant; the signed
``INT_MIN // -1`` gives the wrapped quotient. Each case runs in a subprocess: the CPU
traps on both, which used to kill the process (SIGFPE)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import runtime_division_defs as d

from dsl_parser.interpreter import IntegerDivisionByZero, UndefinedBehaviorError
from dsl_runtime import jit

OPTIONS = {"serial": "", "parallel": "pipeline_options={'parallel': True}",
           "boundscheck": "boundscheck=True"}


def run(script: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).parent)
    assert done.returncode in (0, 1), f"died with {done.returncode}: {done.stderr}"
    return done


PRELUDE = """
import numpy as np, runtime_division_defs as d
from dsl_runtime import jit
"""


@pytest.mark.parametrize("how", list(OPTIONS))
def test_division_by_zero_in_a_kernel(how: str) -> None:
    done = run(PRELUDE + f"""
x = np.array([7, -7, 9, 5, -9, 4] * 8, np.int32)
div = np.array([2, 2, 0, -3, 0, 1] * 8, np.int32)
q, r = np.zeros_like(x), np.zeros_like(x)
try:
    jit(d.div, {OPTIONS[how]})(x, div, q, r)
except ZeroDivisionError as e:
    print("ZeroDivisionError", e)
print(q.tolist())
print(r.tolist())
""")
    lines = done.stdout.strip().split("\n")
    assert lines[0].startswith("ZeroDivisionError div: ")
    assert lines[0].endswith("runtime_division_defs.py:16:16: integer division or modulo by zero")
    x = np.array([7, -7, 9, 5, -9, 4] * 8, np.int32)
    div = np.array([2, 2, 0, -3, 0, 1] * 8, np.int32)
    safe = np.where(div == 0, 1, div)
    assert lines[1] == str((x // safe).tolist())  # Python's floor division, 1 for 0
    r = np.array(json.loads(lines[2]))
    np.testing.assert_array_equal(r[div != 0], (x % safe)[div != 0])


def test_the_interpreter_raises_a_zero_division_error_too() -> None:
    x = np.array([1, 2], np.int32)
    zero = np.array([1, 0], np.int32)
    with pytest.raises(ZeroDivisionError, match="integer division by zero") as info:
        jit(d.div, backend="interpret")(x, zero, np.zeros_like(x), np.zeros_like(x))
    assert isinstance(info.value, IntegerDivisionByZero)
    assert isinstance(info.value, UndefinedBehaviorError)


@pytest.mark.parametrize("how", list(OPTIONS))
def test_smallest_by_minus_one_wraps(how: str) -> None:
    done = run(PRELUDE + f"""
for dt, f in ((np.int32, d.div), (np.int64, d.div64)):
    low = np.iinfo(dt).min
    x = np.array([low, low, 6], dt)
    m = np.array([-1, 1, -1], dt)
    q = np.zeros_like(x)
    args = (x, m, q, np.zeros_like(x)) if dt is np.int32 else (x, m, q)
    jit(f, {OPTIONS[how]})(*args)
    print(q.tolist())
""")
    assert done.returncode == 0, done.stderr
    lo32, lo64 = np.iinfo(np.int32).min, np.iinfo(np.int64).min
    assert done.stdout.strip().split("\n") == [str([lo32, lo32, -6]), str([lo64, lo64, -6])]


def test_unsigned_division_by_zero() -> None:
    done = run(PRELUDE + """
x = np.array([10, 20, 30], np.uint32)
q = np.zeros_like(x)
try:
    jit(d.udiv)(x, np.array([3, 0, 7], np.uint32), q)
except ZeroDivisionError as e:
    print("ZeroDivisionError", e)
print(q.tolist())
""")
    lines = done.stdout.strip().split("\n")
    assert lines[0].startswith("ZeroDivisionError udiv: ") and "integer division" in lines[0]
    assert lines[1] == "[3, 20, 4]"


def test_division_by_zero_in_host_code() -> None:
    done = run(PRELUDE + """
x = np.zeros(6, np.int32)
jit(d.blocks_of)(x, 2)
print(x.tolist())
try:
    jit(d.blocks_of)(np.zeros(6, np.int32), 0)
except ZeroDivisionError as e:
    print("ZeroDivisionError", e)
""")
    lines = done.stdout.strip().split("\n")
    assert lines[0] == "[1, 1, 1, 0, 0, 0]"
    assert lines[1].startswith("ZeroDivisionError blocks_of: ")
    assert lines[1].endswith("runtime_division_defs.py:53:27: integer division or modulo by zero")
