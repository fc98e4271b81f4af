"""What importing the packages loads: nothing heavy until it is used (issue: start-up
latency). Budgets are counts of modules and names of modules that must stay out, never
times (those are measured by bench/dispatch_bench.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PROBE = textwrap.dedent("""
    import json, sys
    before = set(sys.modules)
    {statement}
    print(json.dumps(sorted(set(sys.modules) - before)))
""")

#: Modules whose import costs tens to hundreds of milliseconds, or loads MLIR's native
#: library: none of them is imported by a user's ``import`` lines or ``@jit`` decorations.
HEAVY = ("dsl_mlir._mlir._mlir_libs._mlir",  # the MLIR bindings (the aggregate library)
         "dsl_mlir._lib", "dsl_mlir.api", "ml_dtypes", "dsl_parser.parser.entry",
         "importlib.metadata", "packaging", "pydantic")


def _imported(statement: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(statement=statement)],
                         capture_output=True, text=True, check=True).stdout
    return list(json.loads(out.splitlines()[-1]))


@pytest.mark.parametrize("statement", [
    "import dsl_runtime, dsl_parser.language",
    "import dsl_mlir, dsl_mlir.dispatch",
    # a user's module: imports, annotations and a @jit decoration
    "import dsl_parser.language as pl\nfrom dsl_runtime import jit\nN = pl.dynamic('N')\n"
    "@jit\ndef f(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:\n    return pl.exp(x)",
])
def test_imports_and_decorations_load_nothing_heavy(statement: str) -> None:
    loaded = _imported(statement)
    heavy = [m for m in loaded if m in HEAVY or m.startswith(tuple(f"{h}." for h in HEAVY))]
    assert heavy == []


def test_the_user_imports_stay_within_a_module_budget() -> None:
    # numpy alone is ~150 modules; ours about as many. A regression that pulls in a large
    # library (a model framework, the MLIR bindings, the parser) blows through this.
    loaded = _imported("import numpy")
    ours = _imported("import dsl_runtime, dsl_parser.language")
    assert len(ours) <= len(loaded) + 200, (len(ours), len(loaded))


def test_the_lazy_names_still_resolve_in_a_fresh_process() -> None:
    code = textwrap.dedent("""
        from dsl_mlir.ir import Context
        from dsl_mlir.runtime import get_ranked_memref_descriptor
        from dsl_mlir.dialects import arith
        import dsl_mlir, dsl_parser.language as pl
        from dsl_parser._mlir import DYNAMIC_SIZE
        assert Context is dsl_mlir.ir.Context and callable(get_ranked_memref_descriptor)
        assert arith.AddIOp.OPERATION_NAME == "arith.addi"
        assert DYNAMIC_SIZE == dsl_mlir.ir.ShapedType.get_dynamic_size()
        assert pl.parse_function is __import__("dsl_parser.parser.entry").parser.entry.parse_function
        print("OK", dsl_mlir.PLUGIN_ABI_VERSION)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("OK dsl-mlir ")


def test_a_cold_compile_imports_neither_the_llvm_dialect_module_nor_tempfile(tmp_path: Path) -> None:
    # reading an LLVM-dialect attribute (or iterating op views) imports the dialect's
    # generated Python module: ~30-60 ms of a first compile, for nothing the JIT needs
    code = textwrap.dedent("""
        import os, sys
        os.environ["DSL_DISABLE_DISK_CACHE"] = "1"
        import numpy as np
        import dsl_parser.language as pl
        from dsl_runtime import jit
        N = pl.dynamic("N")

        @jit
        def f(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
            return pl.add(pl.mul(x, x), x)

        print(f(np.arange(3, dtype=np.float32)).tolist(),
              [m for m in sys.modules if m.startswith("dsl_mlir._mlir.dialects") and "llvm" in m],
              [m for m in ("tempfile", "shutil", "bz2", "lzma", "random") if m in sys.modules])
    """)
    script = tmp_path / "cold_kernel.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    # nor tempfile and what it loads (~10 ms): the JIT's stderr capture uses a memfd
    assert out.stdout.strip() == "[0.0, 2.0, 6.0] [] []"
