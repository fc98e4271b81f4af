"""dsl_mlir.shared_context(): one long-lived context per thread, renewed after a number of
uses, and the pass managers ``lower`` keeps on it (the runtime compiles on it)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import dsl_mlir
from dsl_mlir import _shared, ir

SOURCE = """
func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = dsl.mul %a, %a : tensor<?xf32>
  %1 = dsl.add %0, %b : tensor<?xf32>
  return %1 : tensor<?xf32>
}
"""

#: Valid IR on which ``STRICT`` fails: folding the add changes the IR, so one
#: iteration of the greedy driver does not converge.
FOLDABLE = """
func.func @g() -> i32 {
  %a = arith.constant 1 : i32
  %b = arith.constant 2 : i32
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}
"""
STRICT = "canonicalize{test-convergence=true max-iterations=1}"

PIPELINE = "builtin.module(dsl-check-lowerable,dsl-to-llvm-cpu)"


def _kept() -> dict[str, object]:
    shared = _shared._current()
    assert shared is not None
    return shared.managers  # type: ignore[return-value]


@pytest.fixture(autouse=True)
def _fresh_shared_context(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no shared context on its thread (and restores none)."""
    monkeypatch.setattr(_shared._LOCAL, "shared", None, raising=False)


def test_one_thread_gets_the_same_context_and_another_thread_its_own() -> None:
    first = dsl_mlir.shared_context()
    assert dsl_mlir.shared_context() is first
    other: list[ir.Context] = []
    thread = threading.Thread(target=lambda: other.append(dsl_mlir.shared_context()))
    thread.start()
    thread.join()
    assert other and other[0] is not first
    assert first.get_num_threads() == 1  # "auto": single-threaded for small modules


def test_the_context_is_renewed_after_its_uses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_shared, "SHARED_CONTEXT_USES", 3)
    contexts = [dsl_mlir.shared_context() for _ in range(4)]
    assert contexts[0] is contexts[1] is contexts[2]
    assert contexts[3] is not contexts[0]
    # a module made on the replaced context still lowers (a pass manager of its own)
    old = dsl_mlir.parse_module(SOURCE, contexts[0])
    fresh = dsl_mlir.parse_module(SOURCE, dsl_mlir.context())
    assert str(dsl_mlir.lower(old)) == str(dsl_mlir.lower(fresh))
    assert PIPELINE not in _kept()  # kept only for the current shared context


def test_lower_keeps_one_pass_manager_per_pipeline_and_gives_the_same_code() -> None:
    ctx = dsl_mlir.shared_context()
    reference = str(dsl_mlir.lower(dsl_mlir.parse_module(SOURCE, dsl_mlir.context())))
    first = str(dsl_mlir.lower(dsl_mlir.parse_module(SOURCE, ctx)))
    manager = _kept()[PIPELINE]
    second = str(dsl_mlir.lower(dsl_mlir.parse_module(SOURCE, ctx)))
    assert _kept()[PIPELINE] is manager
    assert first == second == reference
    assert "llvm.func @_mlir_ciface_f" in first
    options = dsl_mlir.lower(dsl_mlir.parse_module(SOURCE, ctx), options={"vectorize": False})
    assert "vector<" not in str(options) and "vector<" in first
    assert len(_kept()) == 2


def test_a_failed_run_drops_its_pass_manager_and_the_next_module_lowers() -> None:
    ctx = dsl_mlir.shared_context()
    text = f"builtin.module(dsl-check-lowerable,{STRICT})"
    dsl_mlir.lower(dsl_mlir.parse_module(SOURCE, ctx), STRICT)  # nothing to fold: converges
    assert text in _kept()
    with pytest.raises(dsl_mlir.MLIRDiagnosticError, match="Failure while executing pass pipeline"):
        dsl_mlir.lower(dsl_mlir.parse_module(FOLDABLE, ctx), STRICT)
    assert text not in _kept()
    lowered = dsl_mlir.lower(dsl_mlir.parse_module(SOURCE, ctx), STRICT)
    assert "dsl.mul" in str(lowered)
    assert text in _kept()


def test_a_dump_dir_run_is_not_kept_and_does_not_print_later_runs(tmp_path: Path) -> None:
    ctx = dsl_mlir.shared_context()
    dump = tmp_path / "dump"
    dsl_mlir.lower(dsl_mlir.parse_module(SOURCE, ctx), dump_dir=dump)
    written = sorted(p for p in dump.rglob("*") if p.is_file())
    assert written and PIPELINE not in _kept()
    dsl_mlir.lower(dsl_mlir.parse_module(SOURCE, ctx))
    assert sorted(p for p in dump.rglob("*") if p.is_file()) == written
    assert PIPELINE in _kept()


def test_at_most_the_cap_of_pass_managers_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_shared, "MAX_CACHED_MANAGERS", 2)
    ctx = dsl_mlir.shared_context()
    for size in (128, 256, 512):
        dsl_mlir.lower(dsl_mlir.parse_module(SOURCE, ctx), options={"target-vector-bits": size})
    kept = list(_kept())
    assert len(kept) == 2
    assert all("target-vector-bits=128" not in text for text in kept)  # the oldest went
