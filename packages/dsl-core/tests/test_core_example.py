from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "core_layouts.py"


@pytest.mark.skipif(not EXAMPLE.exists(), reason="runs from a repository checkout only")
def test_core_layouts_example_runs_and_prints_the_layout():
    out = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("struct Particle: size 48, align 16\n")
    assert "   32  hot      Align[Int32, 16]" in out
    assert "C ABI slots of Vec3: ['c_float', 'c_float', 'c_float']" in out
