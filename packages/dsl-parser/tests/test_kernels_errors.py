"""Errors of kernels and launches: class, words and the user's line."""

from __future__ import annotations

import parser_kernel_defs as kd
import pytest
from parser_kernel_helpers import line_of, raises_at

import dsl_parser.language as pl
from dsl_parser import (
    InvalidOperationError,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    UnsupportedFeatureError,
)

VADD = """
@pl.kernel
def vadd_k(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32],
           n: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < n:
        z[i] = x[i] + y[i]

"""  # lines 1-8 of every program below; N is defined on line 1


def host(body: str, params: str = "x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], "
                                  "z: pl.Tensor[[N], pl.FP32]", extra: str = "",
         returns: str = "") -> str:
    """VADD, ``extra`` (one line each), then ``def h(params):`` and ``body`` (one line each).

    The first body line is line 11 + the number of ``extra`` lines."""
    lines = ['N = pl.dynamic("N")', *VADD.strip("\n").split("\n"), "", *extra.split("\n"),
             "@pl.function", f"def h({params}){returns}:"]
    lines += ["    " + b for b in body.split("\n")]
    return "\n".join(lines) + "\n"


# -- host functions ------------------------------------------------------------------------------
def test_a_launch_makes_a_host_function_that_can_not_use_tensor_ops() -> None:
    code = host("w = pl.add(x, y)\nvadd_k(x, y, z, 4).launch(grid=1, block=4)")
    raises_at(UnsupportedFeatureError, code, 12,
              ["pl.add", "tensor operations are not available in a function that launches "
                         "kernels"], col=9)
    code = host("vadd_k(x, y, z, 4).launch(grid=1, block=4)\nw = x * 2.0")
    raises_at(UnsupportedFeatureError, code, 13, ["tensor operations are not available"], col=9)


def test_a_host_function_returns_nothing() -> None:
    code = host("vadd_k(x, y, z, 4).launch(grid=1, block=4)\nreturn x")
    raises_at(ParserTypeError, code, 13, ["launches kernels returns nothing"], col=12)
    code = host("vadd_k(x, y, z, 4).launch(grid=1, block=4)", returns=" -> pl.Tensor[[N], pl.FP32]")
    raises_at(ParserTypeError, code, 11, ["cannot declare results"], col=94)


def test_host_functions_only_name_scalars_and_do_not_index() -> None:
    code = host("w = x\nvadd_k(x, y, z, 4).launch(grid=1, block=4)")
    raises_at(UnsupportedFeatureError, code, 12, ["'w' would hold a tensor"], col=5)
    code = host("v = x[0]\nvadd_k(x, y, z, 4).launch(grid=1, block=4)")
    raises_at(UnsupportedFeatureError, code, 12, ["only available inside a @pl.kernel"], col=9)
    code = host("x[0] = 1.0\nvadd_k(x, y, z, 4).launch(grid=1, block=4)")
    raises_at(UnsupportedFeatureError, code, 12, ["storing into a tensor",
                                                  "only available inside a @pl.kernel"], col=5)


def test_kernel_intrinsics_outside_kernels() -> None:
    code = host("t = pl.thread_id(0)\nvadd_k(x, y, z, t).launch(grid=1, block=4)")
    raises_at(InvalidOperationError, code, 12,
              ["pl.thread_id is only available inside a @pl.kernel function"], col=9)
    with pytest.raises(InvalidOperationError) as info:
        pl.parse_function(kd.uses_thread_id)
    line, col = line_of(kd.__file__, "pl.thread_id(0)  # outside a kernel")
    assert info.value.message == "pl.thread_id is only available inside a @pl.kernel function"
    assert info.value.span is not None
    assert (info.value.span.begin_line, info.value.span.begin_column) == (line, col)


# -- launches --------------------------------------------------------------------------------------
def test_launch_arity() -> None:
    code = host("vadd_k(x, y, z).launch(grid=1, block=4)")
    raises_at(InvalidOperationError, code, 12,
              ["kernel 'vadd_k' takes 4 arguments, 3 given", "missing 'n'"], col=5)
    code = host("vadd_k(x, y, z, 4, 5).launch(grid=1, block=4)")
    raises_at(InvalidOperationError, code, 12, ["kernel 'vadd_k' takes 4 arguments, 5 given"],
              col=5)
    code = host("vadd_k(x, y, z, m=4).launch(grid=1, block=4)")
    raises_at(InvalidOperationError, code, 12, ["kernel 'vadd_k' has no parameter 'm'"], col=21)
    code = host("vadd_k(x, y, z, 4, n=4).launch(grid=1, block=4)")
    raises_at(InvalidOperationError, code, 12, ["got two values for 'n'"], col=24)


def test_launch_argument_types() -> None:
    params = "x: pl.Tensor[[N], pl.FP16], y: pl.Tensor[[N, 2], pl.FP32], z: pl.Tensor[[8], pl.FP32]"
    err = raises_at(ParserTypeError, host("vadd_k(x, y, z, 4).launch(grid=1, block=4)", params),
                    12, ["argument 'x' of kernel 'vadd_k'", "expected pl.Tensor[[N], pl.FP32]",
                         "given pl.Tensor[[N], pl.FP16]", "element type"], col=12)
    assert err.notes == ()
    raises_at(ParserTypeError, host("vadd_k(z, y, z, 4).launch(grid=1, block=4)", params), 12,
              ["argument 'y'", "given pl.Tensor[[N, 2], pl.FP32]", "rank 2, not 1"], col=15)
    raises_at(ParserTypeError, host("vadd_k(z, z, z, 1.5).launch(grid=1, block=4)", params), 12,
              ["argument 'n'", "float literal 1.5"], col=21)
    raises_at(ParserTypeError, host("vadd_k(z, z, 4, 4).launch(grid=1, block=4)", params), 12,
              ["argument 'z'", "expected pl.Tensor[[N], pl.FP32], given int 4"], col=18)


def test_static_shapes_must_agree() -> None:
    code = """
        @pl.kernel
        def k(x: pl.Tensor[[64], pl.FP32]):
            x[pl.thread_id(0)] = 0.0

        @pl.function
        def h(x: pl.Tensor[[32], pl.FP32]):
            k(x).launch(grid=1, block=32)
    """
    raises_at(ParserTypeError, code, 7, ["dimension 0 is 32, not 64"], col=7)


def test_scalar_argument_dtype() -> None:
    code = host("vadd_k(x, y, z, m).launch(grid=1, block=4)",
                params="x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], "
                       "z: pl.Tensor[[N], pl.FP32], m: pl.Scalar[pl.INT32]")
    raises_at(ParserTypeError, code, 12, ["argument 'n' of kernel 'vadd_k'",
                                          "expected pl.Scalar[pl.INDEX]",
                                          "given pl.Scalar[pl.INT32]"], col=21)


def test_grid_and_block_sizes() -> None:
    launch = "vadd_k(x, y, z, 4).launch({})"
    raises_at(InvalidOperationError, host(launch.format("grid=(0,), block=32")), 12,
              ["grid size x is 0", "at least 1 block"], col=37)
    raises_at(InvalidOperationError, host(launch.format("grid=2, block=(32, -1)")), 12,
              ["block size y is -1"], col=50)
    err = raises_at(InvalidOperationError, host(launch.format("grid=2, block=(64, 32)")), 12,
                    col=45)
    assert err.message == "1 block of 2048 threads exceeds the limit of 1024 threads per block"
    raises_at(InvalidOperationError, host(launch.format("grid=2, block=(2048, x.shape[0])")), 12,
              ["1 block of at least 2048 threads exceeds the limit of 1024"], col=45)
    raises_at(ParserTypeError, host(launch.format("grid=(1, 1, 1, 1), block=32")), 12,
              ["grid= takes 1 to 3 sizes"], col=36)
    raises_at(ParserTypeError, host(launch.format("grid=1.5, block=32")), 12,
              ["a grid size must be an INDEX or integer scalar or an int", "float 1.5"], col=36)
    raises_at(InvalidOperationError, host(launch.format("grid=1")), 12,
              [".launch is missing block="], col=5)
    raises_at(InvalidOperationError, host(launch.format("grid=1, block=1, shared=4")), 12,
              [".launch has no parameter 'shared'"], col=48)
    raises_at(ParserTypeError, host(launch.format("grid=1, block=1, stream=x")), 12,
              ["stream= takes a dc.Stream parameter"], col=55)


def test_a_kernel_call_without_launch() -> None:
    raises_at(InvalidOperationError, host("vadd_k(x, y, z, 4)"), 12,
              ["kernel 'vadd_k' cannot be called directly", ".launch(grid=..., block=...)"], col=5)
    code = host("vadd_k(x, y, z, 4)\nvadd_k(x, y, z, 4).launch(grid=1, block=1)")
    raises_at(InvalidOperationError, code, 12, ["cannot be called directly"], col=5)


def test_constexpr_arguments_must_be_compile_time() -> None:
    code = """
        @pl.kernel
        def k(x: pl.Tensor[[N], pl.FP32], B: dc.Constexpr[int]):
            x[pl.thread_id(0)] = 0.0

        N = pl.dynamic("N")

        @pl.function
        def h(x: pl.Tensor[[N], pl.FP32], b: pl.Scalar[pl.INDEX]):
            k(x, b).launch(grid=1, block=32)
    """
    raises_at(ParserTypeError, code, 9,
              ["argument 'B' of kernel 'k' is a dc.Constexpr[int]", "compile-time constant",
               "given pl.Scalar[pl.INDEX]"], col=10)
    raises_at(ParserTypeError, code.replace("k(x, b)", "k(x, 1.5)"), 9,
              ["argument 'B' of kernel 'k'", "expected a value of type int"], col=10)


def test_constexpr_host_parameters_need_a_value() -> None:
    with pytest.raises(ParserTypeError, match=r"parameter 'B' is a dc\.Constexpr") as info:
        pl.parse_function(kd.with_constexpr)
    line, col = line_of(kd.__file__, "B: dc.Constexpr[int]):")
    _assert_at(info.value, kd.__file__, line, col + len("B: "))


def test_struct_arguments() -> None:
    def host_function(x: pl.Tensor[[8], pl.FP32], p: kd.Affine) -> None:
        kd.affine_k(x, x, p, 8).launch(grid=1, block=8)

    with pytest.raises(ParserTypeError) as info:
        pl.parse_function(host_function)
    assert "argument 'p' of kernel 'affine_k': expected a Params struct, given a Affine struct" \
        in info.value.message
    _assert_at(info.value, __file__, *line_of(__file__, "p, 8).launch(grid=1, block=8)"))


def test_streams_are_for_host_functions() -> None:
    code = """
        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32], s: dc.Stream) -> pl.Tensor[[4], pl.FP32]:
            return x
    """
    raises_at(UnsupportedFeatureError, code, 2,
              ["parameter 's': only a function that launches kernels can take a dc.Stream"], col=38)
    code = """
        @pl.kernel
        def k(x: pl.Tensor[[4], pl.FP32], s: dc.Stream):
            x[0] = 0.0

        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32], s: dc.Stream):
            k(x, s).launch(grid=1, block=1)
    """
    raises_at(UnsupportedFeatureError, code, 2, ["a @pl.kernel cannot take a dc.Stream"], col=38)


# -- kernel bodies ---------------------------------------------------------------------------------
KERNEL_HOST = """
@pl.function
def h(x: pl.Tensor[[8, 4], pl.FP32], v: pl.Tensor[[8], pl.INT32]):
    k(x, v, 3).launch(grid=1, block=8)
"""


def kernel(body: str) -> str:
    """A kernel ``k(x: [8, 4] FP32, v: [8] INT32, n: INDEX)`` whose body starts on line 3."""
    head = ("@pl.kernel\n"
            "def k(x: pl.Tensor[[8, 4], pl.FP32], v: pl.Tensor[[8], pl.INT32], "
            "n: pl.Scalar[pl.INDEX]):\n")
    return head + "".join("    " + b + "\n" for b in body.split("\n")) + KERNEL_HOST


def test_kernel_errors_point_at_the_kernel_with_a_note_at_the_launch() -> None:
    err = raises_at(UnsupportedFeatureError, kernel("i = pl.thread_id(0)\ny = pl.exp(x)"), 4,
                    ["pl.exp is a tensor operation", "not available inside a @pl.kernel"], col=9)
    assert len(err.notes) == 1
    assert "while parsing kernel 'k' for this launch" in err.notes[0].message
    assert err.notes[0].span is not None and err.notes[0].span.begin_line == 4 + 2 + 3 + 1


def test_tensor_constructs_in_kernels() -> None:
    raises_at(UnsupportedFeatureError, kernel("y = pl.matmul(x, x)"), 3, ["pl.matmul"], col=9)
    raises_at(UnsupportedFeatureError, kernel("v[0] = 1\ny = x + x"), 4,
              ["pl.add is a tensor operation"], col=9)
    raises_at(UnsupportedFeatureError, kernel("y = x"), 3,
              ["'y' would hold a tensor: in a @pl.kernel only scalars can be named"], col=5)
    raises_at(ParserTypeError, kernel("return x[0, 0]"), 3,
              ["a @pl.kernel returns nothing"], col=12)
    raises_at(ParserTypeError, kernel("if n > 2:\n    return 1\nv[0] = 1"), 4,
              ["a @pl.kernel returns nothing"], col=16)
    raises_at(UnsupportedFeatureError, kernel("k(x, v, n).launch(grid=1, block=1)"), 3,
              ["a @pl.kernel cannot launch kernels"], col=5)
    raises_at(InvalidOperationError, kernel("k(x, v, n)"), 3,
              ["kernel 'k' cannot be called inside a @pl.kernel"], col=5)
    # (a valueless return inside a loop is an early return: test_runtime_control_flow.py)


def test_indexing_errors() -> None:
    raises_at(ParserTypeError, kernel("a = x[1]"), 3,
              ["'x' has rank 2 (pl.Tensor[[8, 4], pl.FP32]) but 1 index is given"], col=9)
    raises_at(ParserTypeError, kernel("a = v[1, 2]"), 3, ["rank 1", "2 indices are given"], col=9)
    raises_at(ParserTypeError, kernel("a = n[0]"), 3,
              ["'n' is a pl.Scalar[pl.INDEX]: only tensor parameters can be indexed"], col=9)
    raises_at(ParserTypeError, kernel("a = x[0, 1.5]"), 3,
              ["an index must be an INDEX or integer scalar or an int, got float 1.5"], col=14)
    raises_at(ParserTypeError, kernel("a = x[0, -1]"), 3, ["an index -1 is negative"], col=14)
    raises_at(UnsupportedFeatureError, kernel("a = x[0:2, 1]"), 3, ["slices are not supported"],
              col=11)
    raises_at(ParserTypeError, kernel("a = x[0, 0] < 1.0\nb = x[a, 0]"), 4,
              ["an index must be an INDEX or integer scalar", "pl.Scalar[pl.BOOL]"], col=11)


def test_store_errors() -> None:
    raises_at(ParserTypeError, kernel("w = 1.0\nw[0] = 2.0"), 4,
              ["cannot store into 'w'", "not a tensor parameter"], col=5)
    raises_at(ParserTypeError, kernel("v[0] = x[0, 0]"), 3,
              ["cannot store a pl.Scalar[pl.FP32] into 'v' whose elements are pl.INT32"], col=5)
    raises_at(ParserTypeError, kernel("v[0] = 1.5"), 3,
              ["cannot store into 'v'", "float literal 1.5"], col=5)
    raises_at(ParserTypeError, kernel("x[0] = 1.0"), 3, ["rank 2", "1 index is given"], col=5)
    raises_at(ParserTypeError, kernel("v[0] = 3000000000"), 3, ["out of range for pl.INT32"], col=5)


def test_intrinsic_arguments() -> None:
    raises_at(ParserTypeError, kernel("i = pl.thread_id(3)"), 3,
              ["pl.thread_id takes the dimension 0, 1 or 2"], col=22)
    raises_at(InvalidOperationError, kernel("i = pl.block_id()"), 3, ["takes one argument"], col=9)
    raises_at(ParserTypeError, kernel("i = pl.ceil_div(x[0, 0], 2.0)"), 3,
              ["pl.ceil_div takes INDEX or integer scalars"], col=9)
    raises_at(ParserTypeError, kernel("i = pl.min(n, v[0])"), 3,
              ["pl.min: the operands have different types"], col=9)


def test_kernel_parameter_errors() -> None:
    code = """
        @pl.kernel
        def k(x):
            pass

        @pl.function
        def h(x: pl.Tensor[[4], pl.FP32]):
            k(x).launch(grid=1, block=1)
    """
    raises_at(ParserTypeError, code, 2, ["parameter 'x' of kernel 'k' has no type annotation"],
              col=7)
    raises_at(ParserTypeError, code.replace("def k(x):", "def k(x: int):"), 2,
              ["the annotation of parameter 'x' of kernel 'k' is not a DSL type"], col=10)
    raises_at(UnsupportedFeatureError, code.replace("def k(x):", "def k(x: pl.FP32 = 1.0):"), 2,
              ["default values"], col=20)


def test_kernels_are_not_program_methods() -> None:
    code = """
        @pl.program
        class P:
            @pl.kernel
            def k(self, x: pl.Tensor[[4], pl.FP32]):
                pass

            def f(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
                return x
    """
    raises_at(UnsupportedFeatureError, code, 4, ["kernel 'k' is defined inside a program class"],
              col=5)


def test_errors_in_python_kernels_use_the_real_file_lines() -> None:
    with pytest.raises(ParserError) as info:
        pl.parse_function(kd.launches_broken)
    err = info.value
    assert type(err) is UnsupportedFeatureError
    line, col = line_of(kd.__file__, "pl.exp(x)")
    assert err.span is not None and (err.span.begin_line, err.span.begin_column) == (line, col)
    launch_line, _ = line_of(kd.__file__, "broken_k(x).launch")
    assert err.notes[-1].span is not None and err.notes[-1].span.begin_line == launch_line
    assert f"--> {kd.__file__}:{line}:{col}" in str(err)


def test_code_after_an_early_return() -> None:
    raises_at(ParserSyntaxError, kernel("if n > 2:\n    return\nelse:\n    return\nv[0] = 1"), 7,
              ["code after return is not allowed"], col=5)


def test_host_functions_of_programs_are_not_called() -> None:
    program = """
        @pl.kernel
        def k(x: pl.Tensor[[4], pl.FP32]):
            x[pl.thread_id(0)] = 1.0

        @pl.program
        class P:
            def f(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
                {f}

            def h(self, x: pl.Tensor[[4], pl.FP32]):
                k(x).launch(grid=1, block=4)
                {h}
    """
    calls_host = program.format(f="self.h(x)\n                return x", h="")
    raises_at(UnsupportedFeatureError, calls_host, 8,
              ["self.h(...): 'h' launches kernels, so it cannot be called"], col=9)
    raises_at(UnsupportedFeatureError, program.format(f="return x", h="self.f(x)"), 12,
              ["a function that launches kernels cannot call other functions"], col=9)


def test_a_kernel_without_source() -> None:
    namespace: dict[str, object] = {"pl": pl}
    exec("def made(x: pl.Tensor[[4], pl.FP32]):\n    x[0] = 1.0\n", namespace)
    made = pl.kernel(namespace["made"])

    def host_function(x: pl.Tensor[[4], pl.FP32]) -> None:
        made(x).launch(grid=1, block=1)

    with pytest.raises(InvalidOperationError, match="kernel 'made' cannot be parsed") as info:
        pl.parse_function(host_function)
    _assert_at(info.value, __file__, *line_of(__file__, "made(x).launch(grid=1, block=1)"))


def _assert_at(err: ParserError, filename: str, line: int, col: int) -> None:
    """The error points at ``filename:line:col``."""
    assert err.span is not None and err.span.filename == filename, str(err)
    assert (err.span.begin_line, err.span.begin_column) == (line, col), str(err)
    assert f"--> {filename}:{line}:{col}" in str(err)
