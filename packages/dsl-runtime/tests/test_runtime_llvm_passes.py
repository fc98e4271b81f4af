"""CompileOptions.llvm_passes and the extension discovery of the cold compile path."""

from __future__ import annotations

import numpy as np
import pytest

import dsl_parser.language as pl
from dsl_runtime import CompileError, CompileOptions, jit

N = pl.dynamic("N")


def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.add(pl.mul(x, x), y)


@pytest.mark.parametrize("passes", ["fast", "default", "function(instcombine<no-verify-fixpoint>)"])
def test_every_llvm_pipeline_gives_the_same_results(passes: str) -> None:
    f = jit(scale_add, llvm_passes=passes)
    x = np.linspace(-3, 3, 777, dtype=np.float32)
    np.testing.assert_allclose(f(x, x), x * x + x, rtol=1e-6)
    assert CompileOptions(llvm_passes=passes).key() != CompileOptions().key() or passes == "fast"


def test_fast_is_the_default_and_resolves_to_dsl_mlirs_pipeline() -> None:
    import dsl_mlir

    assert CompileOptions().llvm_passes == "fast"
    assert CompileOptions().llvm_pipeline == dsl_mlir.FAST_LLVM_PASSES
    assert CompileOptions(llvm_passes="default").llvm_pipeline is None


def test_a_bad_llvm_pipeline_is_a_compile_error() -> None:
    f = jit(scale_add, llvm_passes="not-a-pass")
    x = np.ones(4, np.float32)
    with pytest.raises(CompileError, match="invalid LLVM pass pipeline"):
        f(x, x)


def test_core_only_modules_do_not_discover_extensions(monkeypatch: pytest.MonkeyPatch) -> None:
    from dsl_parser.extensions import lowering

    calls: list[int] = []
    monkeypatch.setattr(lowering, "load", lambda: calls.append(1))
    parsed = pl.parse_function(scale_add)
    assert lowering.lower_extensions(parsed.module) is parsed.module
    assert calls == []


def test_extension_rules_cannot_claim_core_ops() -> None:
    from dsl_parser.extensions import registry

    reg = registry.ExtensionRegistry(registry.Extension(name="t", version=None, origin="test"))
    with pytest.raises(ValueError, match="belongs to dsl-mlir"):
        reg.lowering("dsl.add", lambda op: [])
    assert "dsl.add" not in registry.LOWERINGS
