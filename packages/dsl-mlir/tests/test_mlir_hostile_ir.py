"""IR, pipeline options and text that used to abort, crash or hang the process (issue 12).

Each case runs in a child process (LLVM is built with assertions: an abort would take
pytest down with it) that catches the exception; the test asserts that the child
survived (exit status 0, no signal) and the exception's message.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import json, sys, dsl_mlir
    case = json.loads(sys.stdin.read())
    with dsl_mlir.context():
        try:
            module = dsl_mlir.parse_module(case["text"])
            lowered = dsl_mlir.lower(module, case["pipeline"], case["options"])
            if case["jit"]:
                dsl_mlir.jit(lowered)
        except dsl_mlir.MLIRDiagnosticError as err:
            print("REFUSED")
            print(err)
            print("DIAGNOSTICS", json.dumps([d.message for d in err.diagnostics]))
        else:
            print("ACCEPTED")
            print(lowered if case["print"] else "")
""")

GOOD = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = dsl.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""

TOO_LARGE = "is too large: the product of its nonzero sizes, or its byte size, does not fit in a signed 64-bit integer"


def _run(text: str = GOOD, pipeline: str = "dsl-to-llvm-cpu", options: dict[str, object] | None = None,
         jit: bool = True, print_lowered: bool = False, timeout: float = 120) -> str:
    case = {"text": text, "pipeline": pipeline, "options": options or {}, "jit": jit, "print": print_lowered}
    proc = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(case), capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"the process died ({proc.returncode}): {proc.stderr[-2000:]}"
    assert "Assertion" not in proc.stderr, proc.stderr[-2000:]
    return proc.stdout


def _refused(*args: object, **kwargs: object) -> str:
    out = _run(*args, **kwargs)  # type: ignore[arg-type]
    assert out.startswith("REFUSED"), out
    return out


# --- element types ------------------------------------------------------------------


def test_i0_elements_are_refused_by_the_verifier() -> None:  # used to be SIGFPE
    out = _refused("""func.func @f(%a: tensor<4xi0>) -> tensor<4xi0> {
      %0 = dsl.add %a, %a : tensor<4xi0>
      return %0 : tensor<4xi0>
    }""")
    assert ("'dsl.add' op operand #0 must be ranked tensor or scalar of f16, bf16, f32, f64, i1, i8, i16, "
            "i32 or i64, but got 'tensor<4xi0>'") in out


@pytest.mark.parametrize("target", ["i2", "i3", "i7", "i128", "ui8", "f80"])
def test_casts_to_odd_widths_are_refused(target: str) -> None:  # i1 -> i2 used to abort
    out = _refused(f"""func.func @f(%a: tensor<4xi1>) -> tensor<4x{target}> {{
      %0 = dsl.cast %a : tensor<4xi1> to tensor<4x{target}>
      return %0 : tensor<4x{target}>
    }}""")
    assert f"'dsl.cast' op result #0 must be ranked tensor of f16, bf16, f32, f64, i1, i8, i16, i32 or i64 " \
           f"values, but got 'tensor<4x{target}>'" in out


@pytest.mark.parametrize(("signature", "what"), [
    ("tensor<4xi0>", "block argument #0 has type tensor<4xi0>, whose element type i0"),
    ("memref<4xi2>", "block argument #0 has type memref<4xi2>, whose element type i2"),
    ("tensor<4xcomplex<f32>>", "whose element type complex<f32>"),
    ("i0", "block argument #0 has type i0: the lowering handles integers of 1 to 64 bits"),
    ("f80", "block argument #0 has type f80: the lowering handles the floats f16, bf16, f32 and f64"),
])
def test_types_no_pass_can_lower_are_refused_before_the_pipeline(signature: str, what: str) -> None:
    # No dsl op to verify: the pre-lowering check (dsl-check-lowerable) refuses them.
    out = _refused(f"""func.func @f(%a: {signature}) -> {signature} {{
      return %a : {signature}
    }}""")
    assert what in out
    assert "DIAGNOSTICS" in out


# --- sizes that overflow 64 bits ------------------------------------------------------


def test_reshape_of_2_to_the_64_elements_is_a_verifier_error() -> None:
    t = "tensor<4294967296x4294967296xf32>"
    out = _refused(f"""func.func @f(%a: {t}) -> {t} {{
      %0 = dsl.reshape %a : {t} -> {t}
      return %0 : {t}
    }}""")
    assert f"'dsl.reshape' op operand #0 of type {t} {TOO_LARGE}" in out


def test_matmul_dimension_of_2_to_the_62_is_a_verifier_error() -> None:
    big = "tensor<4611686018427387904x2xf32>"
    out = _refused(f"""func.func @f(%a: {big}, %b: tensor<2x2xf32>) -> {big} {{
      %0 = dsl.matmul %a, %b : {big}, tensor<2x2xf32> -> {big}
      return %0 : {big}
    }}""")
    assert f"'dsl.matmul' op operand #0 of type {big} {TOO_LARGE}" in out


def test_byte_size_overflow_without_element_overflow_is_refused() -> None:
    # 2^62 elements fit, 2^64 bytes of f32 do not.
    t = "tensor<4611686018427387904xf32>"
    out = _refused(f"func.func @f(%a: {t}) -> {t} {{\n  return %a : {t}\n}}")
    assert f"block argument #0 of type {t} {TOO_LARGE}" in out


# Found by the IR fuzz test: a size 0 does not make the other sizes safe (strides
# multiply the sizes from the right: makeCanonicalStridedLayoutExpr asserted).
def test_zero_size_beside_sizes_whose_product_overflows_is_refused() -> None:  # fuzz case 25
    t = "tensor<0x4x9223372036854775807xbf16>"
    out = _refused(f"func.func @f(%a: tensor<4xf32>, %b: {t}) -> tensor<4xf32> {{\n"
                   "  return %a : tensor<4xf32>\n}")
    assert f"block argument #1 of type {t} {TOO_LARGE}" in out


def test_dsl_op_on_a_zero_size_tensor_with_huge_sizes_is_a_verifier_error() -> None:  # fuzz case 3625
    t = "tensor<4611686018427387904x0x7xf32>"
    out = _refused(f"""func.func @f(%a: {t}) -> {t} {{
      %0 = dsl.concat %a, %a axis 1 : {t}, {t} -> {t}
      return %0 : {t}
    }}""")
    assert f"'dsl.concat' op operand #0 of type {t} {TOO_LARGE}" in out


def test_concat_whose_sizes_add_up_past_64_bits_is_refused() -> None:
    t = "tensor<4611686018427387904xi8>"
    out = _refused(f"""func.func @f(%a: {t}) -> tensor<?xi8> {{
      %0 = dsl.concat %a, %a, %a axis 0 : {t}, {t}, {t} -> tensor<?xi8>
      return %0 : tensor<?xi8>
    }}""")
    assert "'dsl.concat' op the inputs' sizes along axis 0 add up to more than fit in 64 bits" in out


# --- pipeline options -----------------------------------------------------------------


def test_unknown_option_names_the_option_it_resembles() -> None:
    out = _refused(options={"vector_size": 32}, jit=False)
    assert "dsl-to-llvm-cpu: no option vector_size; did you mean vector-size?" in out
    # ... in the exception and its diagnostics, not only on stderr.
    assert '"dsl-to-llvm-cpu: no option vector_size; did you mean vector-size?' in out.split("DIAGNOSTICS")[1]


@pytest.mark.parametrize(("options", "message"), [
    ({"vectorize": "maybe"}, "dsl-to-llvm-cpu: vectorize must be true or false, got 'maybe'"),
    ({"fuse-elementwise": 2}, "dsl-to-llvm-cpu: fuse-elementwise must be true or false, got '2'"),
    ({"fuse-rows": "maybe"}, "dsl-to-llvm-cpu: fuse-rows must be true or false, got 'maybe'"),
    ({"parallel": "yes"}, "dsl-to-llvm-cpu: parallel must be true or false, got 'yes'"),
    ({"internalize-entries": "x"}, "dsl-to-llvm-cpu: internalize-entries must be true or false, got 'x'"),
    ({"approximate-math": "x"}, "dsl-to-llvm-cpu: approximate-math must be true or false, got 'x'"),
    ({"avx512-exp": 3}, "dsl-to-llvm-cpu: avx512-exp must be true or false, got '3'"),
    ({"vector-size": "abc"}, "dsl-to-llvm-cpu: vector-size must be an integer, got 'abc'"),
    ({"vector-size": 0}, "dsl-to-llvm-cpu: vector-size must be a power of two, got 0"),
    ({"vector-size": 4096}, "dsl-to-llvm-cpu: vector-size must be at most 1024, got 4096"),
    ({"matmul-tile-sizes": "4,x,1"}, "matmul-tile-sizes must be a comma-separated list of integers, got '4,x,1'"),
    ({"matmul-tile-sizes": "4,8"}, "matmul-tile-sizes must be three positive sizes M,N,K with N a power of two"),
    ({"matmul-tile-sizes": "4096,4096,4096"},
     "dsl-to-llvm-cpu: matmul-tile-sizes must be at most 64,256,64 with M*N*K at most 16384"),
    ({"matmul-tile-sizes": "64,256,2"}, "with M*N*K at most 16384"),
    ({"matmul-k-block": -1}, "dsl-to-llvm-cpu: matmul-k-block must be in 0..1048576, got -1"),
    ({"matmul-n-block": 1 << 21}, "dsl-to-llvm-cpu: matmul-n-block must be in 0..1048576, got 2097152"),
    ({"target-vector-bits": 384},
     "dsl-to-llvm-cpu: target-vector-bits must be 0 (this host), 128, 256 or 512, got 384"),
    ({"num-threads": 100000}, "dsl-to-llvm-cpu: num-threads must be in 0..4096, got 100000"),
    ({"nontemporal-min-bytes": -1},
     "dsl-to-llvm-cpu: nontemporal-min-bytes must be in 0..1099511627776, got -1"),
])
def test_every_cpu_option_is_checked(options: dict[str, object], message: str) -> None:
    out = _refused(options=options, jit=False)
    assert message in out


@pytest.mark.parametrize(("options", "message"), [
    ({"chip": ""}, "dsl-to-llvm-nvptx: chip must be an NVIDIA architecture such as sm_80 or sm_90a, got ''"),
    ({"chip": "gfx90a"}, "got 'gfx90a'"),
    ({"features": ""}, "dsl-to-llvm-nvptx: features must be a comma-separated list of target features"),
    ({"features": "ptx80"}, "got 'ptx80'"),
    ({"opt-level": 9}, "dsl-to-llvm-nvptx: opt-level must be in 0..3, got 9"),
    ({"opt-level": -1}, "dsl-to-llvm-nvptx: opt-level must be in 0..3, got -1"),
    ({"opt_level": 2}, "dsl-to-llvm-nvptx: no option opt_level; did you mean opt-level?"),
    # A value is one value: it cannot smuggle in another option.
    ({"chip": "sm_80 opt-level=9"}, "chip must be an NVIDIA architecture such as sm_80 or sm_90a, got "
                                    "'sm_80 opt-level=9'"),
    ({"features": "+ptx80} cse {"}, "the value of option features holds a brace, which a pass pipeline cannot "
                                    "carry: '+ptx80} cse {'"),
    ({"opt-level=1 chip": "sm_80"}, "'opt-level=1 chip' is not an option name"),
])
def test_every_nvptx_option_is_checked(options: dict[str, object], message: str) -> None:
    out = _refused(pipeline="dsl-to-llvm-nvptx", options=options, jit=False)
    assert message in out


@pytest.mark.parametrize(("pipeline", "message"), [
    ("func.func(dsl-tile{vector-size=abc})", "dsl-tile: vector-size must be an integer, got 'abc'"),
    ("func.func(dsl-tile{matmul-tile-sizes=4096,4096,4096})", "dsl-tile: matmul-tile-sizes must be at most"),
    ("func.func(dsl-tile{vector_size=8})", "dsl-tile: no option vector_size; did you mean vector-size?"),
    ("func.func(dsl-vectorize{approximate-math=maybe})",
     "dsl-vectorize: approximate-math must be true or false, got 'maybe'"),
    ("func.func(dsl-vectorize{avx512-exp=maybe})", "dsl-vectorize: avx512-exp must be true or false, got 'maybe'"),
    ("dsl-emit-c-interface{internalise}", "dsl-emit-c-interface: no option internalise; did you mean internalize?"),
])
def test_options_of_dsl_passes_are_checked(pipeline: str, message: str) -> None:
    out = _refused(pipeline=pipeline, jit=False)
    assert message in out


def test_the_largest_matmul_tile_compiles_in_bounded_time() -> None:
    # 4096,4096,4096 unrolled into code that took LLVM > 45 s; the bound keeps it quick.
    t = "tensor<64x64xf32>"
    out = _run(f"""func.func @f(%a: {t}, %b: {t}) -> {t} {{
      %0 = dsl.matmul %a, %b : {t}, {t} -> {t}
      return %0 : {t}
    }}""", options={"matmul-tile-sizes": "64,256,1"}, timeout=60)
    assert out.startswith("ACCEPTED"), out


def test_valid_options_are_still_accepted() -> None:
    options = {"fuse-elementwise": True, "vectorize": True, "vector-size": 8, "matmul-tile-sizes": "4,16,2",
               "matmul-k-block": 32, "approximate-math": False, "parallel": False, "num-threads": 0,
               "internalize-entries": True}
    assert _run(options=options).startswith("ACCEPTED")


def test_dsl_emit_c_interface_runs_on_its_own() -> None:
    # The LLVM dialect is not loaded by this module: the pass declares it.
    out = _run(pipeline="dsl-emit-c-interface{internalize=true}", jit=False, print_lowered=True)
    assert out.startswith("ACCEPTED"), out
    assert "llvm.emit_c_interface" in out and "llvm.linkage = #llvm.linkage<internal>" in out


# --- text the parser would recurse on without end -------------------------------------


def test_deeply_nested_brackets_are_refused_before_parsing() -> None:  # used to overflow the stack
    text = "module attributes {dsl.x = " + "[" * 100_000 + "]" * 100_000 + "} {}"
    out = _refused(text, jit=False)
    assert "brackets nested deeper than 512 levels" in out
    assert 'loc("-":1:' in out


def test_nesting_below_the_bound_parses() -> None:
    text = "module attributes {dsl.x = " + "[" * 400 + "]" * 400 + "} {\n" + GOOD + "\n}"
    assert _run(text, jit=False).startswith("ACCEPTED")


def test_brackets_in_strings_and_comments_do_not_count() -> None:
    quoted = '"' + "[" * 2000 + '"'
    text = f"// {'(' * 2000}\nmodule attributes {{dsl.x = {quoted}}} {{\n{GOOD}\n}}"
    assert _run(text, jit=False).startswith("ACCEPTED")


def _exact_depth(text: str) -> int:
    """The nesting MLIR's parser would recurse through (strings and comments skipped)."""
    import re

    depth = deepest = 0
    for token in re.findall(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->|>=|[\[\](){}<>]', text):
        if token in "([{<":
            depth += 1
            deepest = max(deepest, depth)
        elif token in ")]}>":
            depth = max(0, depth - 1)
    return deepest


def test_the_fast_nesting_bound_never_underestimates() -> None:
    import random

    from dsl_mlir import api

    rng = random.Random(12)
    alphabet = ["(", ")", "[", "]", "{", "}", "<", ">", "->", ">=", '"', "\\", "/", "\n", " ", "x", "-", "="]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        assert api._nesting_bound(text) >= _exact_depth(text), repr(text)


@pytest.mark.parametrize("via", ["file", "stdin"])
def test_dsl_opt_refuses_deep_nesting_before_parsing(tmp_path, via: str) -> None:  # type: ignore[no-untyped-def]
    """dsl-opt parsed 100,000 nested `[` with MLIR's recursive parser (a stack overflow)."""
    from dsl_mlir import dsl_opt_path

    deep = "module attributes {dsl.x = " + "[" * 100_000 + "]" * 100_000 + "} {}\n"
    src = tmp_path / "deep.mlir"
    src.write_text(deep)
    args, stdin = ([dsl_opt_path(), str(src)], None) if via == "file" else ([dsl_opt_path()], deep)
    proc = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr[-2000:]
    name = str(src) if via == "file" else "<stdin>"
    # the `{` of `attributes {` is level 1: the 512th `[` (column 28 + 511) is level 513
    assert proc.stderr.startswith(f"{name}:1:539: error: brackets nested deeper than 512 levels")


@pytest.mark.parametrize("via", ["file", "stdin"])
def test_dsl_opt_parses_nesting_below_the_bound(tmp_path, via: str) -> None:  # type: ignore[no-untyped-def]
    from dsl_mlir import dsl_opt_path

    quoted = '"' + "[" * 2000 + '"'  # brackets in strings and comments do not count
    text = (f"// {'(' * 2000}\nmodule attributes {{dsl.x = " + "[" * 400 + "]" * 400
            + f", dsl.y = {quoted}}} {{\n{GOOD}\n}}\n")
    src = tmp_path / "ok.mlir"
    src.write_text(text)
    args, stdin = ([dsl_opt_path(), str(src)], None) if via == "file" else ([dsl_opt_path()], text)
    proc = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "dsl.y = \"" + "[" * 2000 in proc.stdout and "func.func @f" in proc.stdout


# --- translation of IR that is not (all) in the LLVM dialect -------------------------

TRANSLATE = textwrap.dedent("""
    import sys
    import dsl_mlir
    with dsl_mlir.context():
        module = dsl_mlir.parse_module(sys.stdin.read())
        jit = lambda m: dsl_mlir.jit(m, llvm_passes=dsl_mlir.FAST_LLVM_PASSES)
        for make in (dsl_mlir.to_llvm_ir, dsl_mlir.to_assembly, jit, dsl_mlir.jit):
            try:
                make(module)
            except dsl_mlir.MLIRDiagnosticError as err:
                print("REFUSED", " | ".join(str(err).splitlines()))
            else:
                print("ACCEPTED")
""")


@pytest.mark.parametrize(("text", "op"), [(GOOD, "func.func"), ("""module {
  llvm.func @f(%a: f32) -> f32 {
    %0 = arith.addf %a, %a : f32
    llvm.return %0 : f32
  }
}""", "arith.addf")], ids=["dsl-and-func", "arith-inside-llvm"])
def test_translating_ir_not_lowered_to_llvm_is_an_error(text: str, op: str) -> None:
    """Used to crash the process (upstream's binding dereferenced the failed translation)."""
    proc = subprocess.run([sys.executable, "-c", TRANSLATE], input=text, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, f"the process died ({proc.returncode}): {proc.stderr[-2000:]}"
    lines = proc.stdout.splitlines()
    assert len(lines) == 4, lines
    missing = f"cannot be converted to LLVM IR: missing `LLVMTranslationDialectInterface` registration " \
              f"for dialect for op: {op}"
    for line in lines[:2]:  # to_llvm_ir, then to_assembly (which translates first)
        assert line.startswith("REFUSED translation to LLVM IR failed: loc(") and line.endswith(missing)
    for line in lines[2:]:  # jit with the fast LLVM pipeline, then with LLVM's default one
        assert line.startswith("REFUSED JIT compilation failed: ") and line.endswith(missing)
    assert "error" not in proc.stderr  # the diagnostics are in the exceptions, not on stderr
