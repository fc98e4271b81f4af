"""The protocol support table of seeds/000, checked on the classes and on values."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dsl_core as dc


@dc.struct
class AllScalars:
    a: dc.Int32
    s: dc.Stream


@dc.struct
class WithVector:
    a: dc.Int32
    v: dc.Vector


@dc.struct
class WithStoredVector:
    a: dc.Int32
    v: dc.Vector[dc.Float32, 4]


@dc.struct
class WithArray:
    a: dc.Array[dc.Int8, 2]
    n: dc.Constexpr[int] = 1


@dc.union
class U:
    i: dc.Int32
    f: dc.Float32


# (type, DslType, JitArgument, Storable)
TABLE = [
    *[(t, True, True, True) for t in (dc.Int8, dc.UInt64, dc.Float16, dc.BFloat16, dc.Boolean)],
    (dc.Vector, True, False, False), (dc.Pointer, True, False, False),
    (dc.Tensor, True, False, False),
    (dc.Vector[dc.Float32, 4], True, False, True), (dc.Pointer[dc.Int32], True, False, True),
    (dc.Stream, True, True, False), (dc.Array[dc.Int32, 4], True, False, True),
    (AllScalars, True, True, False), (WithVector, True, False, False),
    (WithStoredVector, True, False, True), (WithArray, True, False, True),
    (U, False, False, True), (dc.Constexpr[int], True, True, False),
]


@pytest.mark.parametrize(("t", "dsl", "jit", "storable"), TABLE)
def test_support_table(t, dsl, jit, storable):
    assert dc.capabilities(t) == {"JitArgument": jit, "DslType": dsl, "Storable": storable}
    assert issubclass(t, dc.DslType) is dsl
    assert issubclass(t, dc.JitArgument) is jit
    assert issubclass(t, dc.Storable) is storable


def test_isinstance_on_values():
    assert isinstance(dc.Int32(1), dc.JitArgument) and isinstance(dc.Int32(1), dc.Storable)
    assert not isinstance(U(i=1), dc.DslType) and isinstance(U(i=1), dc.Storable)
    assert isinstance(WithArray([1, 2]), dc.DslType)
    assert not isinstance(WithArray([1, 2]), dc.JitArgument)
    assert isinstance(dc.Constexpr(3), dc.JitArgument)


def test_reasons_name_the_offending_field():
    with pytest.raises(TypeError, match="c_abi_spec: struct WithVector is not JitArgument: field "
                                        "'v' of type Vector is not JitArgument"):
        dc.c_abi_spec(WithVector(1, dc.Vector[dc.Float32, 2]([1, 2])))
    with pytest.raises(TypeError, match="dsl_size_of: struct AllScalars is not Storable: field "
                                        "'s' of type Stream is not Storable"):
        dc.dsl_size_of(AllScalars)
    with pytest.raises(TypeError, match="extract_to_ir_values: U is not DslType"):
        dc.extract_to_ir_values(U(i=1))
    with pytest.raises(TypeError, match=r"get_ir_types: Array\[Int32, 4\] is not JitArgument"):
        dc.get_ir_types(dc.Array[dc.Int32, 4]([1, 2, 3, 4]))


def test_host_only_values_have_no_ir_value_form():
    with pytest.raises(TypeError, match="Vector host values need a specialized type"):
        dc.Vector([1, 2])
    with pytest.raises(TypeError, match=r"a host Stream has no ir.Value"):
        dc.extract_to_ir_values(dc.Stream(0))
    with pytest.raises(TypeError, match=r"a host Pointer\[Int32\] has no ir.Value"):
        dc.extract_to_ir_values(dc.Pointer[dc.Int32](0x10))


def test_ir_hooks_without_dsl_mlir_say_what_is_missing(monkeypatch):
    import dsl_core._ir as core_ir

    monkeypatch.setitem(sys.modules, "dsl_mlir", None)
    monkeypatch.setattr(core_ir, "_IR", None)
    with pytest.raises(ImportError, match=r"need the dsl-mlir package \(pip install "
                                          r"'dsl-core\[ir\]'\)"):
        dc.get_ir_types(dc.Int32(1))


def test_incompatible_dsl_mlir_version_is_reported(monkeypatch):
    import types

    import dsl_core._ir as core_ir

    fake = types.ModuleType("dsl_mlir")
    fake.__version__ = "0.3.1"
    fake.ir = types.SimpleNamespace(Value=type("Value", (), {}))
    monkeypatch.setitem(sys.modules, "dsl_mlir", fake)
    monkeypatch.setattr(core_ir, "_IR", None)
    with pytest.raises(ImportError, match=r"dsl-core 0.1.0 needs dsl-mlir>=0.1,<0.2 but "
                                          r"dsl-mlir 0.3.1 is installed; fix: pip install "
                                          r"'dsl-mlir>=0.1,<0.2'"):
        dc.get_ir_types(dc.Int32(1))


def test_import_is_light_and_does_not_load_mlir_numpy_or_ctypes():
    code = ("import sys, time; t = time.perf_counter(); import dsl_core; "
            "dt = time.perf_counter() - t; "
            "print([m for m in ('dsl_mlir', 'numpy', 'ctypes', 'dataclasses', 'inspect') "
            "if m in sys.modules], dt)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("] ")
    assert out[0] == "["
    assert float(out[1]) < 0.25  # typically 15 ms with bytecode cached, 45 ms without


def test_version():
    assert dc.__version__ == "0.1.0"
