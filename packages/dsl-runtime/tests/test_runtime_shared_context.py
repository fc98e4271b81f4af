"""The runtime compiles on its thread's long-lived MLIR context (dsl_mlir.shared_context):
specializations compiled on one thread share it, another thread has its own, and the code
is the same as on a fresh context."""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np
import pytest
import runtime_kernels as k

import dsl_mlir
from dsl_runtime import jit


def _fresh(fn: Any) -> Any:
    """A new JitFunction of ``fn``'s Python function (no specialization compiled yet) that
    does not read the disk cache."""
    return jit(fn.__wrapped__, cache=False)


def test_specializations_on_one_thread_share_the_context_and_run_right() -> None:
    x = np.linspace(-3, 3, 257, dtype=np.float32)
    y = np.arange(257, dtype=np.float32)
    first = _fresh(k.scale_add).compile(x, y)
    second = _fresh(k.unshaped_mul).compile(x, y)
    assert first.keepalive[0] is second.keepalive[0] is dsl_mlir.shared_context()
    np.testing.assert_allclose(first(x, y), x * x + y, rtol=1e-6)
    np.testing.assert_array_equal(second(x, y), x * y)
    assert str(first.artifacts.lowered).count("llvm.func @_mlir_ciface_scale_add") == 1


def test_another_thread_compiles_on_its_own_context() -> None:
    x = np.arange(64, dtype=np.float32)
    here = _fresh(k.scale_add).compile(x, x)
    found: list[Any] = []
    errors: list[BaseException] = []

    def compile_there() -> None:
        try:
            compiled = _fresh(k.scale_add).compile(x, x)
            found.append((compiled.keepalive[0], compiled(x, x), compiled.artifacts.lowered))
        except BaseException as err:  # reported by the test, not lost in the thread
            errors.append(err)

    thread = threading.Thread(target=compile_there)
    thread.start()
    thread.join()
    assert not errors, errors
    context, result, lowered = found[0]
    assert context is not here.keepalive[0]
    np.testing.assert_array_equal(result, x * x + x)
    assert lowered == here.artifacts.lowered  # the same code from either context


def test_code_equals_that_of_a_fresh_context(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.arange(10, dtype=np.float32)
    shared = _fresh(k.scale_add).compile(x, x)
    made: list[Any] = []

    def fresh_context() -> Any:
        made.append(dsl_mlir.context(multithreading="auto"))
        return made[-1]

    monkeypatch.setattr(sys.modules["dsl_runtime.jit"], "mlir_context", fresh_context)
    alone = _fresh(k.scale_add).compile(x, x)
    assert made and alone.keepalive[0] is made[0]
    assert alone.artifacts.lowered == shared.artifacts.lowered
    np.testing.assert_array_equal(alone(x, x), shared(x, x))
