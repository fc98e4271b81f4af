"""The source a cache key reads: cut from the file by the code's positions (no tokenizer
on a process's first call), equal to ``inspect.getsource`` wherever that finds one."""

from __future__ import annotations

import inspect
import sys

import fingerprint_source_defs as defs
import pytest

from dsl_runtime import fingerprint


@pytest.mark.parametrize("fn", [defs.decorated.__wrapped__, defs.ends_with_nested_def,
                                defs.multiline_tail, defs.Holder.method, defs.deco])
def test_source_by_positions_is_getsource(fn) -> None:  # type: ignore[no-untyped-def]
    if sys.version_info < (3, 11):
        assert fingerprint._source_by_positions(fn) == (None, None)  # no co_positions: the tokenizer
    else:
        assert fingerprint._source_by_positions(fn)[0] == inspect.getsource(fn)
    assert fingerprint.source(fn) == inspect.getsource(fn)


def test_a_nested_last_statement_is_covered() -> None:
    """The outer code's positions end at the nested def's header; its own code reaches
    the nested body's last line."""
    text = fingerprint.source(defs.last_is_nested)
    assert text is not None and "return z" in text
    assert text.rstrip().endswith("return z")


def test_a_lambda_falls_back_to_the_tokenizer() -> None:
    assert fingerprint._source_by_positions(defs.LAMBDA) == (None, None)
    assert fingerprint.source(defs.LAMBDA) == inspect.getsource(defs.LAMBDA)


def test_no_file_means_no_source() -> None:
    namespace: dict[str, object] = {}
    exec("def made_up(x):\n    return x\n", namespace)
    assert fingerprint.source(namespace["made_up"]) is None
