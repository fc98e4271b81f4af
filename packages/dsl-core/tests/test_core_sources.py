"""dsl_core.sources: a function's definition read by code positions, and Python parsing
that is safe on several threads (first calls of @jit functions on two threads parse at
once)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from dsl_core.sources import definition, parse_python

RACE = textwrap.dedent("""
    import ast, gc, sys, threading
    from dsl_core.sources import parse_python
    parse = ast.parse if sys.argv[1] == "raw" else parse_python
    src = "def f(x):\\n" + "".join(
        f"    y{i} = (((x + {i}) * 2) - (x if x > {i} else -x)) // 3\\n" for i in range(60))
    # frequent collections running Python code, and thread switches as often as can be:
    # a switch inside the AST converter is what breaks CPython 3.11's ast.parse
    gc.set_threshold(50, 5, 5)
    sys.setswitchinterval(1e-6)
    gc.callbacks.append(lambda phase, info: sum(range(50)))
    errors = []
    def work():
        try:
            for _ in range(150):
                tree = parse(src)
                assert len(tree.body[0].body) == 60
        except SystemError as err:
            errors.append(err)
    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(len(errors))
""")


def _failures(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", RACE, mode], capture_output=True, text=True,
                          timeout=300, check=True)
    return int(done.stdout.split()[-1])


def test_parsing_on_threads_at_once_never_fails() -> None:
    """Six threads parsing at once under forced thread switches: ast.parse fails with
    SystemError on the affected CPython versions (3.11.7 here), parse_python never."""
    assert _failures("locked") == 0
    raw = _failures("raw")
    print(f"ast.parse failures on {sys.version.split()[0]}: {raw} of 6 threads")


def sample(a: int,
           b: int = 2) -> int:
    return a * b  # two lines of signature, a body


def test_definition_cuts_the_function_from_its_file() -> None:
    found = definition(sample)
    assert found is not None
    text, tree, first = found
    assert text.startswith("def sample(a: int,\n")
    assert text.rstrip().endswith("return a * b  # two lines of signature, a body")
    assert first == sample.__code__.co_firstlineno
    assert tree.body[0].name == "sample"  # type: ignore[attr-defined]
    assert parse_python("x = 1", "f.py").body[0].lineno == 1
