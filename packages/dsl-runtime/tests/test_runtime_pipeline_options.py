"""Bad ``pipeline_options`` of @jit are exceptions that say what is wrong (issue 12).

The option checks live in dsl-mlir's pipelines; these tests pin that their message
reaches the user through @jit (not only MLIR's stderr), in a child process: a bad
option of the NVPTX pipeline used to abort the process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import dsl_parser.language as pl
    from dsl_runtime import jit

    def double(x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        return pl.add(x, x)

    options, backend = json.loads(sys.argv[1]), sys.argv[2]
    f = jit(double, pipeline_options=options)
    try:
        if backend == "nvptx":
            f.lower(np.ones(8, np.float32), backend="nvptx")
        else:
            f(np.ones(8, np.float32))
    except Exception as err:
        print("RAISED", type(err).__name__)
        print(err)
""")


@pytest.mark.parametrize(("options", "backend", "message"), [
    ('{"vector_sise": 32}', "cpu", "no option vector-sise; did you mean vector-size"),
    ('{"matmul-tile-sizes": "4096,4096,4096"}', "cpu", "matmul-tile-sizes must be at most 64,256,64"),
    ('{"chip": ""}', "nvptx", "chip must be an NVIDIA architecture such as sm_80 or sm_90a, got ''"),
    ('{"opt-level": 9}', "nvptx", "opt-level must be in 0..3, got 9"),
])
def test_bad_pipeline_options_raise_with_the_reason(tmp_path: Path, options: str, backend: str,
                                                   message: str) -> None:
    child = tmp_path / "child.py"  # a file: the parser reads the function's source
    child.write_text(CHILD)
    proc = subprocess.run([sys.executable, str(child), options, backend], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("RAISED"), proc.stdout
    assert message in proc.stdout, proc.stdout


def test_compile_options_are_checked_with_the_users_spelling() -> None:
    from dsl_runtime import jit
    from dsl_runtime.options import CompileOptions

    with pytest.raises(TypeError, match=r"unknown compile option 'opt_levl'; the options are: "
                                        r"backend, boundscheck, llvm_passes, opt_level, "):
        jit(opt_levl=2)
    with pytest.raises(ValueError, match=r"^invalid compile option: opt_level: must be 0, 1, 2 "
                                         r"or 3 \(got 5\)$"):
        CompileOptions(opt_level=5)
    with pytest.raises(ValueError, match=r"^invalid compile option: opt_level: expected int, "
                                         r"got str '2'$"):
        CompileOptions(opt_level="2")
    with pytest.raises(ValueError, match=r"^invalid compile option: backend: expected 'cpu' \| "
                                         r"'nvptx', got str 'cuda'$"):
        CompileOptions(backend="cuda")
    assert CompileOptions(pipeline_options={"vector_size": 8}).pipeline_options == {
        "vector-size": 8}  # Python-style names are the pipeline's
