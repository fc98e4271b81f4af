"""dsl_mlir.context(multithreading=...): the thread pool of contexts, and when ``lower``
switches it on for an "auto" context (the runtime's: small kernels lower faster on one
thread)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

import pytest

import dsl_mlir
from dsl_mlir import ir
from dsl_mlir.api import THREADED_LOWERING_MIN_OPS

FUNC = """
func.func @f{i}(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {{
  %0 = dsl.mul %a, %a : tensor<?xf32>
  %1 = dsl.add %0, %b : tensor<?xf32>
  return %1 : tensor<?xf32>
}}
"""


def _module_text(functions: int) -> str:
    return "".join(FUNC.format(i=i) for i in range(functions))


def _recording(ctx: ir.Context) -> list[bool]:
    """The arguments of every ``enable_multithreading`` call on ``ctx`` from now on."""
    calls: list[bool] = []
    native = ctx.enable_multithreading

    def record(enable: bool) -> None:
        calls.append(enable)
        native(enable)

    ctx.enable_multithreading = record
    return calls


def test_a_context_has_the_threads_it_was_made_with() -> None:
    cpus = len(os.sched_getaffinity(0))
    assert dsl_mlir.context().get_num_threads() == cpus  # MLIR's default: a pool
    assert dsl_mlir.context(multithreading=True).get_num_threads() == cpus
    assert dsl_mlir.context(multithreading=False).get_num_threads() == 1
    assert dsl_mlir.context(multithreading="auto").get_num_threads() == 1


@pytest.mark.parametrize("bad", ["yes", 1, None, "AUTO"])
def test_an_unknown_setting_is_refused_by_name(bad: object) -> None:
    with pytest.raises(ValueError, match=r"multithreading must be True, False or 'auto', not "
                       + re.escape(repr(bad))):
        dsl_mlir.context(multithreading=bad)  # type: ignore[arg-type]


def test_auto_lowers_a_small_module_on_one_thread() -> None:
    with dsl_mlir.context(multithreading="auto") as ctx, ir.Location.unknown():
        module = dsl_mlir.parse_module(_module_text(2))
        calls = _recording(ctx)
        lowered = dsl_mlir.lower(module)
    assert calls == [False, False]
    assert ctx.get_num_threads() == 1
    assert "llvm.func @_mlir_ciface_f1" in str(lowered)


def test_auto_lowers_a_module_of_many_functions_on_the_pool_and_then_leaves_it() -> None:
    with dsl_mlir.context(multithreading="auto") as ctx, ir.Location.unknown():
        module = dsl_mlir.parse_module(_module_text(THREADED_LOWERING_MIN_OPS))
        calls = _recording(ctx)
        lowered = dsl_mlir.lower(module)
    assert calls == [True, False]
    assert ctx.get_num_threads() == 1
    text = str(lowered)
    assert all(f"llvm.func @_mlir_ciface_f{i}(" in text for i in range(THREADED_LOWERING_MIN_OPS))


BAD = """
func.func @bad(%a: i32) -> tensor<4xf32> {
  %0 = builtin.unrealized_conversion_cast %a : i32 to tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_a_failed_lowering_gives_the_setting_back() -> None:
    with dsl_mlir.context(multithreading="auto") as ctx, ir.Location.unknown():
        module = dsl_mlir.parse_module(_module_text(THREADED_LOWERING_MIN_OPS) + BAD)
        calls = _recording(ctx)
        with pytest.raises(dsl_mlir.MLIRDiagnosticError, match="not bufferized"):
            dsl_mlir.lower(module)
        assert calls == [True, False]
        with pytest.raises(dsl_mlir.MLIRDiagnosticError):  # refused before any run
            dsl_mlir.lower(module, "no-such-pass-anywhere")
        assert calls == [True, False]
    assert ctx.get_num_threads() == 1


@pytest.mark.parametrize("setting", [True, False, "auto"])
def test_dump_dir_runs_on_one_thread_and_gives_the_setting_back(
        setting: bool | Literal["auto"], tmp_path: Path) -> None:
    with dsl_mlir.context(multithreading=setting) as ctx, ir.Location.unknown():
        module = dsl_mlir.parse_module(_module_text(1))
        calls = _recording(ctx)
        dsl_mlir.lower(module, dump_dir=tmp_path)
    assert calls == [False, setting is True]
    assert any(tmp_path.rglob("*.mlir"))


def test_one_thread_and_the_pool_lower_to_the_same_module() -> None:
    texts = []
    settings: tuple[bool | Literal["auto"], ...] = (True, "auto", False)
    for setting in settings:
        with dsl_mlir.context(multithreading=setting) as ctx, ir.Location.unknown():
            module = dsl_mlir.parse_module(_module_text(THREADED_LOWERING_MIN_OPS + 1), ctx)
            texts.append(str(dsl_mlir.lower(module)))
    assert texts[0] == texts[1] == texts[2]
