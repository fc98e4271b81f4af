"""dsl_runtime.records: the validated records that the ABI, the options and the cache
manifests are built on (what is read back from a cache folder goes through them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from dsl_runtime.abi import KernelABI, Param, Slot
from dsl_runtime.records import Record, RecordError


@dataclass(frozen=True, kw_only=True)
class Leaf(Record):
    name: str
    size: int | None = None


@dataclass(frozen=True, kw_only=True)
class Tree(Record):
    kind: Literal["a", "b"]
    scale: float = 1.0
    exact: int | float = 0
    loose: float | int = 0
    leaves: tuple[Leaf, ...] = ()
    pair: tuple[int, str] = (0, "")
    table: dict[str, bool | int] = field(default_factory=dict)
    children: tuple[Tree, ...] = ()


Tree.NESTED = {"leaves": Leaf, "children": Tree}


@dataclass(frozen=True, kw_only=True)
class Open(Record):
    EXTRA = True
    key: str
    extra: dict[str, Any] = field(default_factory=dict)


def test_values_are_checked_strictly_and_frozen() -> None:
    tree = Tree.from_dict({"kind": "a", "scale": 2, "leaves": [{"name": "x"}, Leaf(name="y", size=3)],
                           "pair": [1, "one"], "table": {"t": True, "n": 2},
                           "children": [{"kind": "b"}]})
    assert tree.scale == 2.0 and type(tree.scale) is float  # ints are floats where float is asked
    assert tree.leaves == (Leaf(name="x"), Leaf(name="y", size=3))  # lists become tuples
    assert tree.pair == (1, "one") and tree.table == {"t": True, "n": 2}
    assert tree.children == (Tree(kind="b"),)
    # union arms are tried in the order written: an int stays an int under int | float,
    # becomes a float under float | int
    t = Tree(kind="a", exact=1, loose=1)
    assert type(t.exact) is int and type(t.loose) is float
    assert Tree.model_validate_json(tree.model_dump_json()) == tree


@pytest.mark.parametrize(("data", "message"), [
    ({"kind": "c"}, "Tree.kind: expected 'a' | 'b', got str 'c'"),
    ({"kind": ["a"]}, "Tree.kind: expected 'a' | 'b', got list ['a']"),
    ({"kind": "a", "scale": "2"}, "Tree.scale: expected float, got str '2'"),
    ({"kind": "a", "scale": True}, "Tree.scale: expected float, got bool True"),
    ({"kind": "a", "leaves": [{"name": 1}]}, "Tree.leaves[0].name: expected str, got int 1"),
    ({"kind": "a", "leaves": [{"name": "x", "size": True}]},
     "Tree.leaves[0].size: expected int | None, got bool True"),
    ({"kind": "a", "pair": [1]}, "Tree.pair: expected tuple[int, str], got list [1]"),
    ({"kind": "a", "table": {"t": 1.5}}, "Tree.table['t']: expected bool | int, got float 1.5"),
    ({"kind": "a", "children": [{"kind": "a", "pair": [1, 2]}]},
     "Tree.children[0].pair[1]: expected str, got int 2"),
    ({"kind": "a", "colour": 1}, "Tree: unknown field 'colour'"),
    ({"scale": 1.0}, "Tree: "),
    ([], "Tree: expected an object, got list"),
])
def test_a_wrong_value_names_the_field_and_what_was_expected(data: Any, message: str) -> None:
    with pytest.raises(RecordError) as info:
        Tree.from_dict(data)
    assert str(info.value).startswith(message)


def test_unknown_keys_are_kept_where_a_record_allows_them() -> None:
    record = Open.from_dict({"key": "k", "versions": {"dsl": "1"}})
    assert record.extra == {"versions": {"dsl": "1"}}
    assert record.model_dump() == {"key": "k", "versions": {"dsl": "1"}}
    with pytest.raises(RecordError, match="not JSON"):
        Open.model_validate_json(b"{")


def test_a_kernel_abi_round_trips_through_json() -> None:
    slot = Slot(kind="memref", ctype="float*")
    param = Param(name="x", role="input", kind="tensor", dtype="float32", shape=(None, 4, "N"),
                  slots=(slot,), fields=(Param(name="x.0", role="input", kind="scalar"),))
    abi = KernelABI(function="f", packed_symbol="_mlir_f", c_symbol="_mlir_ciface_f",
                    params=(param,), results=(), symbols=("N",))
    again = KernelABI.model_validate_json(abi.model_dump_json())
    assert again == abi and again.params[0].shape == (None, 4, "N")
    with pytest.raises(RecordError, match=r"KernelABI.params\[0\].role: expected 'input'"):
        KernelABI.from_dict({**abi.model_dump(), "params": [{**param.model_dump(), "role": "in"}]})


def _sample_abi() -> KernelABI:
    slot = Slot(kind="memref", ctype="float*")
    inner = Param(name="p.a", role="input", kind="scalar", dtype="float32", slots=(slot,))
    param = Param(name="p", role="input", kind="struct", fields=(inner,), slots=(slot, slot))
    tensor = Param(name="x", role="input", kind="tensor", dtype="float32", shape=(None, 4, "N"),
                   slots=(slot,))
    out = Param(name="out0", role="output", kind="tensor", dtype="float32", shape=("N",))
    return KernelABI(function="f", packed_symbol="_mlir_f", c_symbol="_mlir_ciface_f",
                     params=(tensor, param), results=(out,), symbols=("N",))


def test_trusted_reads_rebuild_the_record_as_written() -> None:
    """from_trusted (the cache's read path) gives what the checked read gives: nested
    records, tuples at every depth, hashable and equal."""
    abi = _sample_abi()
    import json
    data = json.loads(abi.model_dump_json())
    trusted = KernelABI.from_trusted(data)
    assert trusted == KernelABI.from_dict(data) == abi
    assert hash(trusted) == hash(abi)
    assert isinstance(trusted.params[1].fields[0], Param)
    assert trusted.params[0].shape == (None, 4, "N") and isinstance(trusted.symbols, tuple)
    tree = Tree(kind="a", leaves=(Leaf(name="l"),), pair=(1, "x"), table={"t": True},
                children=(Tree(kind="b"),))
    assert Tree.from_trusted(json.loads(tree.model_dump_json())) == tree


@pytest.mark.parametrize("data", [
    {"function": 3},  # fields missing
    [1, 2],
    "abi",
])
def test_trusted_reads_refuse_another_structure(data: Any) -> None:
    with pytest.raises(RecordError, match="not the fields of a KernelABI"):
        KernelABI.from_trusted(data)
    full = _sample_abi().model_dump()
    with pytest.raises(RecordError, match="not the fields of a Param"):
        KernelABI.from_trusted({**full, "params": [{"name": "x"}]})
    with pytest.raises(RecordError, match="not the fields of a KernelABI"):
        KernelABI.from_trusted({**full, "unknown": 1})
    with pytest.raises(RecordError, match="not the fields of a Open"):
        Open.from_trusted({"key": "k"})  # records that keep unknown keys are always checked


def _records() -> list[type[Record]]:
    found, todo = [], list(Record.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def _holds_records(tp: Any) -> set[type[Record]]:
    import typing
    if isinstance(tp, type) and issubclass(tp, Record):
        return {tp}
    return {r for arg in typing.get_args(tp) for r in _holds_records(arg)}


def test_every_record_declares_the_records_it_nests() -> None:
    """NESTED (what from_trusted rebuilds) agrees with the annotations of every record
    class, the ABI's, the options', the cache manifest's and this file's."""
    import dsl_runtime.cache
    import dsl_runtime.options  # noqa: F401
    for cls in _records():
        nested = {name: found for name, tp in cls._field_types().items()
                  if (found := _holds_records(tp))}
        assert {n: {c} for n, c in cls.NESTED.items()} == nested, cls.__name__
