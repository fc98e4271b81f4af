from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import core_sig_types
import pytest
from core_sig_types import Mode, OtherPair, Pair, Tiled

import dsl_core as dc


def test_scalar_signature_is_the_type_not_the_value():
    assert dc.cache_signature(dc.Int32(5)) == dc.cache_signature(dc.Int32(-9)) == "Int32"
    assert dc.cache_signature(dc.Int32(5)) != dc.cache_signature(dc.UInt32(5))
    assert dc.cache_signature(dc.Float16(1.0)) != dc.cache_signature(dc.BFloat16(1.0))


def test_struct_signature_has_qualified_name_fields_and_layout():
    sig = dc.cache_signature(Pair(1, 2.0))
    assert sig == ("struct", "core_sig_types.Pair", (("a", "Int32"), ("b", "Float32")), (),
                   (8, 4, (0, 4)))
    assert dc.cache_signature(Pair(9, -1.0)) == sig
    assert dc.cache_signature(OtherPair(1, 2.0)) != sig
    assert hash(sig) == hash(dc.cache_signature(Pair(0, 0.0)))


def test_constexpr_values_specialize_the_signature():
    a = dc.cache_signature(Tiled(8, Mode.FAST, Pair(1, 2.0), dc.Stream(0), 1))
    b = dc.cache_signature(Tiled(8, Mode.FAST, Pair(5, 6.0), dc.Stream(7), 2))
    c = dc.cache_signature(Tiled(16, Mode.FAST, Pair(1, 2.0), dc.Stream(0), 1))
    d = dc.cache_signature(Tiled(8, Mode.SAFE, Pair(1, 2.0), dc.Stream(0), 1))
    assert a == b and len({a, c, d}) == 3
    assert ("tile", ("int", 8)) in a[3]
    assert ("mode", ("enum", "core_sig_types.Mode", "FAST")) in a[3]
    assert ("al", ("Align", "Int64", 16)) in a[2]


def test_constexpr_one_and_true_differ():
    one, true = dc.cache_signature(dc.Constexpr(1)), dc.cache_signature(dc.Constexpr(True))
    assert one == ("Constexpr", ("int", 1)) and true == ("Constexpr", ("bool", True))
    assert one != true
    assert dc.cache_signature(dc.Constexpr(1.0)) == ("Constexpr", ("float", "0x1.0000000000000p+0"))


def test_sequences_give_tuples_of_signatures():
    assert dc.cache_signature([dc.Int8(1), (dc.Stream(3), dc.Boolean(True))]) == \
        ("Int8", ("Stream", "Boolean"))


def test_signatures_of_types_carry_layout_metadata():
    assert dc.type_signature(dc.Array[dc.Int16, 4]) == ("Array", "Int16", 4)
    assert dc.type_signature(dc.Vector[dc.Float32, (2, 2)]) == ("Vector", "Float32", (2, 2))
    assert dc.type_signature(dc.Pointer[dc.Float32, 3]) == ("Pointer", "Float32", 3)


def test_non_jit_values_have_no_signature():
    with pytest.raises(TypeError, match=r"cache_signature: Array\[Int32, 2\] is not JitArgument"):
        dc.cache_signature(dc.Array[dc.Int32, 2]([1, 2]))
    with pytest.raises(TypeError, match="cache_signature: int is not JitArgument"):
        dc.cache_signature(3)


def test_unhashable_constexpr_values_are_refused():
    with pytest.raises(TypeError, match="Constexpr: a value of type object has no stable cache"):
        dc.Constexpr(object())


def _signatures_in_subprocess(seed: str) -> list[str]:
    here = Path(__file__).parent
    path = os.pathsep.join(p for p in (str(here), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=path)
    code = ("import dsl_core as dc, core_sig_types as t; s = t.signatures(); "
            "print(repr(s)); print(dc.signature_digest(tuple(s)))")
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True, cwd=here).stdout
    return out.splitlines()


def test_signatures_are_identical_across_processes():
    first, second = _signatures_in_subprocess("1"), _signatures_in_subprocess("12345")
    assert first == second
    assert first[0] == repr(core_sig_types.signatures())
    assert first[1] == dc.signature_digest(tuple(core_sig_types.signatures()))
