"""Invalid IR, bad pipelines and failing passes raise; nothing aborts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import dsl_mlir
from dsl_mlir import ir

BAD_SHAPES = """
func.func @bad(%a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<4xf32> {
  %0 = dsl.add %a, %b : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

GOOD = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = dsl.mul %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_parse_error_carries_location(ctx: ir.Context) -> None:
    with pytest.raises(dsl_mlir.MLIRDiagnosticError) as info:
        dsl_mlir.parse_module("func.func @f() {\n  %0 = dsl.nope\n}")
    diag = info.value.diagnostics[0]
    assert diag.severity == "error"
    assert diag.line == 2
    assert "dsl.nope" in diag.message or "dsl.nope" in str(info.value)


def test_verifier_error_names_operands_and_location(ctx: ir.Context) -> None:
    with pytest.raises(dsl_mlir.MLIRDiagnosticError) as info:
        dsl_mlir.parse_module(BAD_SHAPES)
    diag = info.value.diagnostics[0]
    assert ("operands tensor<4xf32> and tensor<5xf32> are not broadcast-compatible: "
            "dimension 0 is 4 vs 5") in diag.message
    assert diag.line == 3


def test_verifier_error_from_python_built_ir(ctx: ir.Context) -> None:
    from dsl_mlir.dialects import dsl, func

    t4 = ir.RankedTensorType.get([4], ir.F32Type.get())
    t5 = ir.RankedTensorType.get([5], ir.F32Type.get())
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("f", ir.FunctionType.get([t4, t5], [t4]))
        block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            loc = ir.Location.file("kernel.py", 12, 9)
            bad = dsl.AddOp(t4, block.arguments[0], block.arguments[1], loc=loc)
            func.ReturnOp([bad.result])
    with pytest.raises(dsl_mlir.MLIRDiagnosticError) as info:
        dsl_mlir.lower(module)  # verifies before running any pass
    diag = info.value.diagnostics[0]
    assert (diag.filename, diag.line, diag.column) == ("kernel.py", 12, 9)


def test_bad_pipeline_name(ctx: ir.Context) -> None:
    module = dsl_mlir.parse_module(GOOD)
    with pytest.raises(dsl_mlir.MLIRDiagnosticError, match="no-such-pass"):
        dsl_mlir.lower(module, "no-such-pass")


def test_bad_pipeline_option(ctx: ir.Context) -> None:
    module = dsl_mlir.parse_module(GOOD)
    with pytest.raises(dsl_mlir.MLIRDiagnosticError, match="bogus"):
        dsl_mlir.lower(module, options={"bogus": 1})


def test_failing_pass_raises_with_diagnostics(ctx: ir.Context) -> None:
    module = dsl_mlir.parse_module("""
    func.func @f(%a: i32) -> tensor<4xf32> {
      %0 = builtin.unrealized_conversion_cast %a : i32 to tensor<4xf32>
      return %0 : tensor<4xf32>
    }""")
    with pytest.raises(dsl_mlir.MLIRDiagnosticError) as info:
        dsl_mlir.lower(module)
    assert "dsl-to-llvm-cpu" in info.value.summary
    diag = info.value.diagnostics[0]
    assert diag.message == "op was not bufferized"
    assert diag.line == 3
    assert str(module).count("unrealized_conversion_cast") == 1  # the input is untouched


def test_lower_does_not_mutate_input(ctx: ir.Context) -> None:
    module = dsl_mlir.parse_module(GOOD)
    before = str(module)
    lowered = dsl_mlir.lower(module)
    assert str(module) == before
    assert "llvm.func @_mlir_ciface_f" in str(lowered)


def test_dump_dir_has_ir_after_every_pass(ctx: ir.Context, tmp_path: os.PathLike[str]) -> None:
    module = dsl_mlir.parse_module(GOOD)
    dsl_mlir.lower(module, dump_dir=tmp_path)
    dumps = sorted(str(p.relative_to(tmp_path)) for p in __import__("pathlib").Path(tmp_path).rglob("*.mlir"))
    joined = "\n".join(dumps)
    assert "convert-dsl-to-linalg" in joined and "convert-func-to-llvm" in joined
    assert len(dumps) >= 15


def test_to_llvm_ir(ctx: ir.Context) -> None:
    text = dsl_mlir.to_llvm_ir(dsl_mlir.lower(dsl_mlir.parse_module(GOOD)))
    assert "define void @_mlir_ciface_f(ptr" in text
    assert "fmul <4 x float>" in text  # the 4-element tile is one vector op


def test_to_assembly_compiles_as_the_jit_does(ctx: ir.Context) -> None:
    lowered = dsl_mlir.lower(dsl_mlir.parse_module(GOOD))
    fast = dsl_mlir.to_assembly(lowered, llvm_passes=dsl_mlir.FAST_LLVM_PASSES)
    assert "_mlir_ciface_f:" in fast and ".globl\t_mlir_ciface_f" in fast
    assert "mulps" in fast  # the 4-element tile is one packed multiply (SSE or AVX spelling)
    unoptimized = dsl_mlir.to_assembly(lowered, 0)
    assert unoptimized != fast and "_mlir_ciface_f:" in unoptimized
    with pytest.raises(dsl_mlir.MLIRDiagnosticError, match="invalid LLVM pass pipeline 'no-such-pass'"):
        dsl_mlir.to_assembly(lowered, llvm_passes="no-such-pass")
    with pytest.raises(ValueError, match=r"opt_level must be 0\.\.3, got 4"):
        dsl_mlir.to_assembly(lowered, 4)
    with pytest.raises(dsl_mlir.MLIRDiagnosticError, match="missing `LLVMTranslationDialectInterface`"):
        dsl_mlir.to_assembly(dsl_mlir.parse_module(GOOD))


def test_dsl_opt_invalid_input_exits_nonzero(tmp_path: os.PathLike[str]) -> None:
    src = os.path.join(tmp_path, "bad.mlir")
    with open(src, "w") as f:
        f.write(BAD_SHAPES)
    from dsl_mlir import dsl_opt_path

    proc = subprocess.run([dsl_opt_path(), src, "--dsl-to-llvm-cpu"], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "bad.mlir:3:8: error: 'dsl.add' op operands tensor<4xf32> and tensor<5xf32> are not" in proc.stderr
    assert "Assertion" not in proc.stderr


def test_errors_never_abort_the_process() -> None:
    code = (
        "import dsl_mlir\n"
        "from dsl_mlir import ir\n"
        f"src = {BAD_SHAPES!r}\n"
        "with dsl_mlir.context():\n"
        "    for _ in range(3):\n"
        "        try:\n"
        "            dsl_mlir.parse_module(src)\n"
        "        except dsl_mlir.MLIRDiagnosticError:\n"
        "            pass\n"
        "print('survived')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "survived"


@pytest.mark.parametrize("memfd", [True, False], ids=["memfd", "temporary-file"])
def test_captured_stderr_is_handed_out_and_written_back(
        memfd: bool, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """What native code prints on fd 2 inside the block becomes data and still reaches
    stderr; without a memfd (an old kernel, a seccomp filter) a temporary file holds it."""
    from dsl_mlir import _errors

    if not memfd:
        def refused(name: str, flags: int = 0) -> int:
            raise OSError(38, "Function not implemented")
        monkeypatch.setattr(os, "memfd_create", refused, raising=False)
    text = "JIT session error: Symbols not found: [ no_such_helper_xyz ]\n" + "é" * 3000
    with _errors.capture_stderr() as printed:
        os.write(2, text.encode())
        assert printed == []
    assert printed == [text]
    assert capfd.readouterr().err == text
    with _errors.capture_stderr() as nothing:
        pass
    assert nothing == [""] and capfd.readouterr().err == ""
