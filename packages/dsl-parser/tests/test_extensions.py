"""Downstream extensions: discovery, broken extensions, namespaces, IRDL ops, printer, lowering."""

from __future__ import annotations

import ctypes
import importlib
import importlib.metadata
import sys
import textwrap
from collections.abc import Iterator
from types import ModuleType

import dsl_mlir
import numpy as np
import parser_ext_fixture
import pytest
from dsl_mlir.runtime import get_ranked_memref_descriptor
from parser_helpers import fn, ops_of, raises_at

import dsl_parser.language as pl
from dsl_parser import (
    InvalidOperationError,
    ParserTypeError,
    UndefinedVariableError,
    extensions,
    structural_equal,
)
from dsl_parser.extensions import ExtensionWarning, registry
from dsl_parser.ops import BY_MLIR_NAME, EXTENSION_OPS, OPS

T = "pl.Tensor[[4], pl.FP32]"
HEADER = "\n        import parser_ext_fixture_ns as tx"  # indented like the code it precedes


@pytest.fixture
def tx() -> Iterator[ModuleType]:
    """The ``tx`` namespace, activated by importing its module (as a user would)."""
    sys.modules.pop("parser_ext_fixture_ns", None)
    yield importlib.import_module("parser_ext_fixture_ns")
    extensions.deactivate("tx-ext")
    sys.modules.pop("parser_ext_fixture_ns", None)


@pytest.fixture
def fake_entry_points(
        monkeypatch: pytest.MonkeyPatch) -> Iterator[list[importlib.metadata.EntryPoint]]:
    """Installed extensions replaced by the list the test fills; discovery runs again."""
    installed: list[importlib.metadata.EntryPoint] = []

    def entry_points(**params: object) -> list[importlib.metadata.EntryPoint]:
        return installed if params.get("group") == extensions.ENTRY_POINT_GROUP else []

    before = set(registry._ACTIVE)
    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(registry, "_DISCOVERED", False)
    monkeypatch.setattr(registry, "_FAILED", {})
    yield installed
    for name in set(registry._ACTIVE) - before:
        extensions.deactivate(name)


def _ep(name: str, value: str) -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name, value, extensions.ENTRY_POINT_GROUP)


# -- discovery ------------------------------------------------------------------------------
def test_an_installed_extension_is_activated_through_its_entry_point(
        fake_entry_points: list[importlib.metadata.EntryPoint]) -> None:
    fake_entry_points.append(_ep("tx-ext", "parser_ext_fixture:register"))
    assert "tx.neg" not in EXTENSION_OPS
    active = extensions.active()
    ext = active["tx-ext"]
    assert ext.origin == "entry point parser_ext_fixture:register"
    assert (ext.namespaces, ext.dialects, ext.lowerings) == (["tx"], ["tx"], ["tx.neg", "tx.boom"])
    assert ext.ops == ["tx.square", "tx.neg", "tx.bad", "tx.boom"]
    assert EXTENSION_OPS["tx.neg"] is parser_ext_fixture.NEG
    assert BY_MLIR_NAME["tx.neg"] is parser_ext_fixture.NEG
    assert OPS["neg"] is not parser_ext_fixture.NEG  # pl.neg stays the language's own
    assert ("tx-ext", "unversioned") in extensions.fingerprint()


def test_broken_extensions_warn_by_name_and_the_core_keeps_working(
        fake_entry_points: list[importlib.metadata.EntryPoint]) -> None:
    fake_entry_points += [
        _ep("missing-ext", "dsl_no_such_module_xyz:register"),
        _ep("raising-ext", "parser_ext_fixture:register_raising"),
        _ep("arith-thief", "parser_ext_fixture:register_stealing_a_dialect"),
        _ep("tx-ext", "parser_ext_fixture:register"),
    ]
    with pytest.warns(ExtensionWarning) as record:
        extensions.load()
    messages = sorted(str(w.message) for w in record)
    assert len(messages) == 3, messages
    assert messages[0].startswith("dsl extension 'arith-thief' (entry point parser_ext_fixture:"
                                  "register_stealing_a_dialect) failed to load and is disabled: "
                                  "ValueError: dialect 'arith' already exists in dsl-mlir")
    assert "'missing-ext'" in messages[1]
    assert "ModuleNotFoundError: No module named 'dsl_no_such_module_xyz'" in messages[1]
    assert "'raising-ext'" in messages[2] and "RuntimeError: half-registered" in messages[2]
    assert set(extensions.failures()) == {"missing-ext", "raising-ext", "arith-thief"}
    # What the raising extension registered before failing is gone again.
    assert "bx" not in registry.NAMESPACES and "bx.square" not in EXTENSION_OPS
    # The healthy extension and the core work.
    assert "tx-ext" in extensions.active()
    f = fn(f"""
        @pl.function
        def f(x: {T}) -> {T}:
            return pl.add(x, x)
    """)
    assert ops_of(f) == ["func.func", "dsl.add", "func.return"]


def test_activation_is_idempotent_and_names_must_be_unique(
        tx: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_FAILED", {})
    assert extensions.activate(parser_ext_fixture.register, name="tx-ext") is True
    with pytest.warns(ExtensionWarning, match=r"'tx-again'.*ValueError: namespace 'tx' is "
                                              r"already taken by parser_ext_fixture_ns"):
        ok = extensions.activate(lambda r: r.namespace("tx", "elsewhere"), name="tx-again")
    assert ok is False
    assert "tx-again" in extensions.failures() and "tx-again" not in extensions.active()
    assert extensions.active()["tx-ext"].version == "1.2.3"


# -- parsing, errors, printing ---------------------------------------------------------------
def test_extension_ops_parse_from_python_objects(tx: ModuleType) -> None:
    def kernel(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        return tx.neg(tx.square(x), scale=2.5)

    f = pl.parse_function(kernel)
    assert ops_of(f) == ["func.func", "dsl.mul", "tx.neg", "func.return"]
    assert '"tx.neg"(%0) {scale = 2.500000e+00 : f64} : (tensor<4xf32>) -> tensor<4xf32>' in str(f)
    assert repr(tx.neg) == "tx.neg"
    with pytest.raises(RuntimeError, match=r"tx.neg\(...\) only has a meaning inside"):
        tx.neg(1)


def test_printer_imports_the_namespace_and_round_trips(tx: ModuleType) -> None:
    f = fn(HEADER + f"""
        @pl.function
        def f(x: {T}) -> {T}:
            y = tx.square(x)
            return tx.neg(y, scale=0.1)
    """)
    printed = f.as_python()
    assert printed.startswith("import dsl_parser.language as pl\n"
                              "import parser_ext_fixture_ns as tx\n")
    assert "return tx.neg(y, scale=0.1)" in printed
    assert "y: pl.Tensor[[4], pl.FP32] = pl.mul(x, x)" in printed  # a composite prints expanded
    again = pl.parse(printed)
    assert structural_equal(again, f)
    assert again.as_python() == printed
    # The default of a parameter is not printed.
    g = fn(HEADER + f"""
        @pl.function
        def g(x: {T}) -> {T}:
            return tx.neg(x)
    """)
    assert "return tx.neg(x)\n" in g.as_python()


def test_argument_errors_point_at_the_users_line(tx: ModuleType) -> None:
    code = HEADER + """
        @pl.function
        def f(x: pl.Tensor[[4], pl.INT32]) -> pl.Tensor[[4], pl.INT32]:
            return tx.neg(x)
    """
    err = raises_at(ParserTypeError, code, 5, 19, ["tx.neg: x must be a tensor of floats"])
    assert "tensor<" not in err.message
    raises_at(InvalidOperationError, HEADER + f"""
        @pl.function
        def f(x: {T}) -> {T}:
            return tx.neg(x, factor=2.0)
    """, 5, 22, ["tx.neg has no parameter 'factor'"])


def test_unknown_op_of_a_namespace_has_a_hint(tx: ModuleType) -> None:
    err = raises_at(InvalidOperationError, HEADER + f"""
        @pl.function
        def f(x: {T}) -> {T}:
            return tx.nge(x)
    """, 5, 12, ["unknown operation 'tx.nge'"])
    assert err.hint == "did you mean tx.neg?"


def test_irdl_constraints_are_reported_at_the_users_line(tx: ModuleType) -> None:
    err = raises_at(InvalidOperationError, HEADER + f"""
        @pl.function
        def f(x: {T}) -> pl.Tensor[[4], pl.FP64]:
            y = pl.add(x, x)
            return tx.bad(y)
    """, 6, 12, ["invalid IR", "expected 'tensor<4xf32>' but got 'tensor<4xf64>'"])
    assert err.hint is not None and "verifier" in err.hint


def test_prepare_context_loads_dialects_once_and_irdl_verifies_text(tx: ModuleType) -> None:
    text = textwrap.dedent("""
        func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
          %0 = "tx.neg"(%x) {scale = ATTR} : (tensor<4xf32>) -> tensor<4xf32>
          return %0 : tensor<4xf32>
        }""")
    ctx = dsl_mlir.context()
    with pytest.raises(dsl_mlir.MLIRDiagnosticError, match="unregistered dialect"):
        dsl_mlir.parse_module(text.replace("ATTR", "2.0 : f64"), ctx)
    extensions.prepare_context(ctx)
    extensions.prepare_context(ctx)  # loading twice would abort MLIR: it must be a no-op
    module = dsl_mlir.parse_module(text.replace("ATTR", "2.0 : f64"), ctx)
    assert '"tx.neg"' in str(module)
    with pytest.raises(dsl_mlir.MLIRDiagnosticError,
                       match=r"expected base attribute 'builtin.float' but got 'builtin.integer'"):
        dsl_mlir.parse_module(text.replace("ATTR", "2 : i64"), ctx)


# -- lowering ----------------------------------------------------------------------------------
def _run(module: object, x: np.ndarray) -> np.ndarray:
    engine = dsl_mlir.jit(dsl_mlir.lower(module))  # type: ignore[arg-type]
    out = np.zeros_like(x)
    args = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in (x, out)]
    engine.invoke("f", *args)
    return out


def test_lowering_rules_rewrite_a_copy_that_compiles_and_runs(tx: ModuleType) -> None:
    f = fn(HEADER + f"""
        @pl.function
        def f(x: {T}) -> {T}:
            return tx.neg(tx.square(x), scale=0.5)
    """)
    lowered = extensions.lower_extensions(f.module)
    assert lowered is not f.module
    assert "tx.neg" in str(f.module)  # the input is untouched
    assert "tx.neg" not in str(lowered) and "linalg.generic" in str(lowered)
    x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    np.testing.assert_array_equal(_run(lowered, x), -0.5 * x * x)
    plain = fn(f"""
        @pl.function
        def f(x: {T}) -> {T}:
            return pl.add(x, x)
    """)
    assert extensions.lower_extensions(plain.module) is plain.module


def test_a_failing_lowering_rule_is_reported_at_the_users_line(tx: ModuleType) -> None:
    f = fn(HEADER + f"""
        @pl.function
        def f(x: {T}) -> {T}:
            y = pl.mul(x, x)
            return tx.boom(y)
    """)
    with pytest.raises(dsl_mlir.MLIRDiagnosticError) as info:
        extensions.lower_extensions(f.module)
    err = f.error_from_mlir(info.value)
    assert err.span is not None and (err.span.begin_line, err.span.begin_column) == (6, 12)
    assert "extension 'tx-ext' could not lower tx.boom: RuntimeError: boom while lowering" \
        in err.message


def test_a_namespace_module_that_fails_to_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_FAILED", {})
    assert extensions.activate(lambda r: r.namespace("zz", "dsl_no_such_ns_xyz"), name="zz-ext")
    try:
        raises_at(UndefinedVariableError, """
            import dsl_no_such_ns_xyz as zz

            @pl.function
            def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
                return x
        """, 2, 8, ["cannot import the extension namespace dsl_no_such_ns_xyz"])
    finally:
        extensions.deactivate("zz-ext")
    assert "zz" not in registry.NAMESPACES
