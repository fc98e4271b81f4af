"""Every compiled call of the parser tests checks its inputs."""

from __future__ import annotations

import os

# Every compiled call in these tests checks that it left its non-output inputs
# byte-identical (docs/runtime.md, "Value semantics"); read when a function is compiled.
os.environ.setdefault("DSL_CHECK_INPUTS", "1")
