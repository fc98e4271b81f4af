from __future__ import annotations

import ctypes

import pytest

import dsl_core as dc


class Celsius(float):
    pass


class HostTemp:
    """A raw host type that needs an adapter."""

    def __init__(self, degrees: float) -> None:
        self.degrees = degrees


class TempArg:
    """Adapter: the host contract of HostTemp (one f32 slot)."""

    def __init__(self, t: HostTemp) -> None:
        self.t = t

    def __get_ir_types__(self):
        return dc.get_ir_types(dc.Float32(0.0))

    def __cache_signature__(self):
        return "TempArg"

    def __c_abi_spec__(self):
        def fill(arg, storage):
            storage.value = arg.t.degrees

        return [(ctypes.c_float, fill)]


@pytest.fixture
def registry():
    yield dc.JitArgumentRegistry
    if dc.JitArgumentRegistry.lookup(HostTemp) is not None:
        dc.JitArgumentRegistry.unregister(HostTemp)


def test_defaults_for_python_scalars_with_subclass_fallback():
    arg, dsl_type = dc.JitArgumentRegistry.adapt(True)
    assert (arg, dsl_type) == (dc.Boolean(True), dc.Boolean)
    arg, dsl_type = dc.JitArgumentRegistry.adapt(7)
    assert type(arg) is dc.Int32 and dsl_type is dc.Int32
    arg, dsl_type = dc.JitArgumentRegistry.adapt(Celsius(1.5))
    assert arg == dc.Float32(1.5) and dsl_type is dc.Float32
    assert dc.JitArgumentRegistry.lookup(Celsius).py_type is float


def test_values_implementing_both_protocols_need_no_adapter():
    v = dc.Int64(3)
    assert dc.JitArgumentRegistry.adapt(v) == (v, dc.Int64)
    s = dc.Stream(0)
    assert dc.JitArgumentRegistry.adapt(s) == (s, dc.Stream)


def test_register_adapter_as_decorator(registry):
    @registry.register(HostTemp, dsl_type=dc.Float32)
    def adapt_temp(t: HostTemp) -> TempArg:
        return TempArg(t)

    arg, dsl_type = registry.adapt(HostTemp(36.6))
    assert isinstance(arg, TempArg) and dsl_type is dc.Float32
    [(ctype, fill)] = dc.c_abi_spec(arg)
    st = ctype()
    fill(arg, st)
    assert st.value == pytest.approx(36.6)
    with pytest.raises(ValueError, match="HostTemp is already registered"):
        registry.register(HostTemp, TempArg, dsl_type=dc.Float32)
    registry.register(HostTemp, TempArg, dsl_type=dc.Float64, replace=True)
    assert registry.lookup(HostTemp).dsl_type is dc.Float64


def test_registration_errors(registry):
    with pytest.raises(TypeError, match=r"dsl_type must be a DslType \(HostTemp is not DslType "
                                        r"\(it has no __extract_to_ir_values__ hook\)\)"):
        registry.register(HostTemp, TempArg, dsl_type=HostTemp)
    with pytest.raises(TypeError, match="py_type must be a type"):
        registry.register("HostTemp", TempArg, dsl_type=dc.Float32)
    with pytest.raises(TypeError, match="no JitArgument adapter for HostTemp"):
        registry.adapt(HostTemp(1.0))
    with pytest.raises(KeyError, match="HostTemp is not registered"):
        registry.unregister(HostTemp)


def test_constexpr_type_checks():
    assert dc.Constexpr[int](3).value == 3
    assert dc.Constexpr[float](2).value == 2.0
    assert dc.Constexpr[dc.Int8](5).value == dc.Int8(5)
    with pytest.raises(TypeError, match=r"Constexpr\[int\]: expected a value of type int, got "
                                        r"bool True"):
        dc.Constexpr[int](True)
    with pytest.raises(TypeError, match=r"Constexpr\[str\]: expected a value of type str, got "
                                        r"int 1"):
        dc.Constexpr[str](1)
    with pytest.raises(ValueError, match="Int8: value 300 is out of range"):
        dc.Constexpr[dc.Int8](300)
    assert dc.Constexpr[int] is dc.Constexpr[int]


def test_constexpr_has_no_ir_values_or_slots():
    c = dc.Constexpr[int](4)
    assert dc.get_ir_types(c) == [] and dc.extract_to_ir_values(c) == []
    assert dc.c_abi_spec(c) == []
    assert dc.construct_from_ir_values(dc.Constexpr[int], [], c) is c
    assert dc.construct_from_ir_values(dc.Constexpr[int], [], 9).value == 9
    with pytest.raises(TypeError, match=r"Constexpr\[int\] expects 0 ir.Values, got 1"):
        dc.construct_from_ir_values(dc.Constexpr[int], [object()], c)
    with pytest.raises(TypeError, match="needs an exemplar carrying its value"):
        dc.construct_from_ir_values(dc.Constexpr[int], [])


def test_constexpr_equality_follows_signatures():
    assert dc.Constexpr(1) == dc.Constexpr(1) and dc.Constexpr(1) != dc.Constexpr(True)
    assert len({dc.Constexpr(1), dc.Constexpr(True), dc.Constexpr(1.0)}) == 3


def test_a_registration_without_dsl_type_uses_each_values_own_class():
    class Family:
        pass

    class Member(Family):
        def __extract_to_ir_values__(self):
            return []

        @classmethod
        def __construct_from_ir_values__(cls, values, exemplar=None):
            return cls()

    dc.JitArgumentRegistry.register(Family, lambda v: ("adapted", v), dsl_type=None)
    try:
        m = Member()
        assert dc.JitArgumentRegistry.adapt(m) == (("adapted", m), Member)
        assert dc.JitArgumentRegistry.dsl_type_for(Member) is Member
        assert dc.JitArgumentRegistry.dsl_type_for(Family) is None  # not a DslType itself
        with pytest.raises(TypeError, match=r"Family is not a DslType"):
            dc.JitArgumentRegistry.adapt(Family())
    finally:
        dc.JitArgumentRegistry.unregister(Family)


def test_attribute_registrations_adapt_duck_typed_values():
    """register_attribute: any type with the attribute (after the type registrations);
    the attribute must be readable on the value itself (a raising property does not
    count), and attribute registrations are tried in registration order."""

    class Duck:
        def __quack__(self):
            return "quack"

    class Shy:
        @property
        def __quack__(self):
            raise AttributeError("not on this instance")

        def __honk__(self):
            return "honk"

    reg = dc.JitArgumentRegistry
    reg.register_attribute("__quack__", lambda v: ("quacked", v), dsl_type=dc.Int32)
    reg.register_attribute("__honk__", lambda v: ("honked", v), dsl_type=dc.Float32)
    try:
        d, s = Duck(), Shy()
        assert reg.adapt(d) == (("quacked", d), dc.Int32)
        assert reg.adapt(s) == (("honked", s), dc.Float32)  # its __quack__ raises
        assert reg.lookup(int).adapter is dc.Int32  # type registrations come first
        with pytest.raises(ValueError, match="__quack__ is already registered"):
            reg.register_attribute("__quack__", lambda v: v, dsl_type=dc.Int32)
        with pytest.raises(TypeError, match="is not an attribute name"):
            reg.register_attribute("no such", lambda v: v, dsl_type=dc.Int32)
    finally:
        reg.unregister_attribute("__quack__")
        reg.unregister_attribute("__honk__")
    with pytest.raises(TypeError, match="no JitArgument adapter for Duck"):
        reg.adapt(Duck())
    with pytest.raises(KeyError, match="no registration for attribute __quack__"):
        reg.unregister_attribute("__quack__")
