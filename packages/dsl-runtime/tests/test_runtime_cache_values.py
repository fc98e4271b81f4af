"""Every value the compiled code depends on is in the disk-cache key (issue 12, stale keys)."""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from dsl_runtime import cache, fingerprint, jit

PROG = textwrap.dedent("""
    import os
    import dsl_parser.language as pl
    from dsl_runtime import jit
    import cfg

    BOX = [float(os.environ["VAL"])]
    SIZE = int(os.environ["SIZE"])
    TABLE = {"scale": float(os.environ["VAL"])}


    def make():
        scale = [float(os.environ["VAL"])]

        @jit
        def closure_f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            return pl.mul(x, scale[0])
        return closure_f


    @jit
    def box_f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        return pl.mul(x, BOX[0])


    @jit
    def cfg_f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        return pl.mul(x, cfg.ALPHA)


    @jit
    def dict_f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        return pl.mul(x, TABLE["scale"])


    @jit
    def sized(x: pl.Tensor[[SIZE], pl.FP32]) -> pl.Tensor[[SIZE], pl.FP32]:
        return pl.add(x, x)


    closure_f = make()
""")

CHILD = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, {folder!r})
    import prog
    x = np.arange(4, dtype=np.float32)
    for name in ("box_f", "cfg_f", "closure_f", "dict_f"):
        f = getattr(prog, name)
        print(name, f(x).tolist(), f.compile(x).source)
    y = np.arange(prog.SIZE, dtype=np.float32)
    print("sized", prog.sized(y).tolist(), prog.sized.compile(y).source)
""")


def _run(folder: Path, cache_dir: Path, value: str, size: str = "4") -> dict[str, tuple[str, str]]:
    env = {**os.environ, "DSL_CACHE_DIR": str(cache_dir), "VAL": value, "SIZE": size}
    proc = subprocess.run([sys.executable, "-c", CHILD.format(folder=str(folder))], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = {}
    for line in proc.stdout.strip().splitlines():
        name, rest = line.split(" ", 1)
        numbers, source = rest.rsplit(" ", 1)
        found[name] = (numbers, source)
    return found


@pytest.fixture()
def program(tmp_path: Path) -> Path:
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "prog.py").write_text(PROG)
    (folder / "cfg.py").write_text("import os\nALPHA = float(os.environ['VAL'])\n")
    return folder


def test_a_changed_global_list_module_attribute_closure_or_dict_is_not_served_stale(
        program: Path, _isolated_cache: Path) -> None:
    first = _run(program, _isolated_cache, "3.0")
    assert {n: r[0] for n, r in first.items() if n != "sized"} == {
        n: "[0.0, 3.0, 6.0, 9.0]" for n in ("box_f", "cfg_f", "closure_f", "dict_f")}
    again = _run(program, _isolated_cache, "3.0")
    assert all(source == "disk-cache" for _, source in again.values()), again
    changed = _run(program, _isolated_cache, "5.0")
    for name in ("box_f", "cfg_f", "closure_f", "dict_f"):
        assert changed[name] == ("[0.0, 5.0, 10.0, 15.0]", "compiled"), (name, changed)


def test_a_global_used_only_in_an_annotation_is_in_the_key(program: Path,
                                                           _isolated_cache: Path) -> None:
    assert _run(program, _isolated_cache, "1.0", size="4")["sized"] == ("[0.0, 2.0, 4.0, 6.0]",
                                                                       "compiled")
    eight = _run(program, _isolated_cache, "1.0", size="8")["sized"]
    assert eight == (str([2.0 * i for i in range(8)]), "compiled")
    assert _run(program, _isolated_cache, "1.0", size="4")["sized"][1] == "disk-cache"


def test_in_the_same_process_recompile_reads_the_new_value(_isolated_cache: Path) -> None:
    import runtime_value_defs as defs

    fresh = jit(defs.scale_by_box.__wrapped__)
    x = np.arange(4, dtype=np.float32)
    defs.BOX[0] = 2.0
    np.testing.assert_array_equal(fresh(x), x * 2)
    defs.BOX[0] = 7.0
    np.testing.assert_array_equal(fresh(x), x * 2)  # compiled code keeps the value it read
    fresh.recompile()
    np.testing.assert_array_equal(fresh(x), x * 7)
    defs.BOX[0] = 2.0


def test_a_new_specialization_after_a_change_drops_code_compiled_for_the_old_value(
        _isolated_cache: Path) -> None:
    import runtime_value_defs as defs

    fresh = jit(defs.unshaped_box.__wrapped__)
    defs.BOX[0] = 2.0
    x4, x3 = np.arange(4, dtype=np.float32), np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(fresh(x4), x4 * 2)
    defs.BOX[0] = 3.0
    np.testing.assert_array_equal(fresh(x3), x3 * 3)  # a new specialization reads 3.0 ...
    np.testing.assert_array_equal(fresh(x4), x4 * 3)  # ... and the old one is not mixed in
    defs.BOX[0] = 2.0


def test_a_value_that_cannot_be_hashed_compiles_without_the_disk_cache(
        _isolated_cache: Path, caplog: pytest.LogCaptureFixture) -> None:
    import runtime_value_defs as defs

    fresh = jit(defs.reads_opaque.__wrapped__)
    x = np.arange(4, dtype=np.float32)
    with caplog.at_level(logging.DEBUG, logger="dsl_runtime.jit"):
        np.testing.assert_array_equal(fresh(x), x + 1)
    cache.flush()
    assert cache.entries() == []
    assert any("without the disk cache" in r.getMessage() and "OPAQUE" in r.getMessage()
               for r in caplog.records)


@dataclasses.dataclass
class Point:
    x: float
    y: list[int]


def test_fingerprints_are_typed_and_deep() -> None:
    fp = fingerprint.fingerprint
    assert len({fp(1), fp(1.0), fp(True), fp("1"), fp(np.int32(1)), fp(np.float32(1))}) == 6
    assert fp([1, 2]) != fp((1, 2)) and fp([1, 2]) == fp([1, 2]) and fp([1, [2]]) != fp([1, [3]])
    assert fp({"a": 1}) != fp({"a": 2}) and fp({1, 2}) == fp({2, 1})
    a = np.arange(6, dtype=np.float32)
    assert fp(a) == fp(a.copy()) and fp(a) != fp(a.reshape(2, 3)) and fp(a) != fp(a.astype(np.float64))
    b = a.copy()
    b[5] = 0
    assert fp(a) != fp(b)
    assert fp(Point(1.0, [2])) != fp(Point(1.0, [3]))
    cycle: list[object] = []
    cycle.append(cycle)
    with pytest.raises(fingerprint.Unhashable, match="refers to itself"):
        fp(cycle)
    with pytest.raises(fingerprint.Unhashable, match="cannot hash"):
        fp(object())
    with pytest.raises(fingerprint.Unhashable, match="too large"):
        fp(list(range(fingerprint.MAX_ITEMS + 1)))


def test_references_cover_annotations_attribute_chains_and_closures() -> None:
    import runtime_value_defs as defs

    chains = fingerprint.references(defs.unshaped_box.__wrapped__)
    assert chains is not None
    assert ("BOX",) in chains and ("pl", "mul") in chains and ("pl", "Tensor") in chains
    assert not any(c[0] == "x" for c in chains)  # parameters are not globals
