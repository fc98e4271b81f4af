"""Random valid DSL programs for differential fuzzing (compiled code vs the interpreter).

``programs(features)`` is a hypothesis strategy of ``Case``s: the source of a module
with one DSL entry function (a plain function, or ``main`` of a ``@pl.program`` when it
calls helper methods), its inputs, and the names of what it returns. ``check(case)``
compiles it under every option set of ``OPTION_SETS``, runs it, and compares each result
with the reference interpreter (tolerance per dtype), and checks that no input changed.

A known bug being fixed is behind a ``Features`` flag that is off by default
(``KNOWN_BUGS`` says which bug it hits), so that the CI run is green and the flag can be
switched on when the fix lands; the flags of fixed bugs are on.
"""

from __future__ import annotations

import importlib.util
import itertools
import multiprocessing
import os
import sys
import tempfile
import textwrap
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

import dsl_parser.language as pl
from dsl_parser import ParserError
from dsl_parser.interpreter import UndefinedBehaviorError, interpret
from dsl_runtime import jit


@dataclass(frozen=True)
class Features:
    """What the generator may produce. The gated ones hit known bugs (see KNOWN_BUGS)."""

    unsigned: bool = True
    arange_reduction: bool = True
    iter_args_on_params: bool = True
    assemble_on_params: bool = True
    repeated_results: bool = True
    negative_slices: bool = True
    bf16: bool = True
    f64_to_f16: bool = True
    dynamic_call_results: bool = True
    dynamic_one_broadcast: bool = True

    @classmethod
    def all(cls) -> Features:
        return cls(**{f.name: True for f in fields(cls)})


#: Gated feature -> the bug it hits today (turn the flag on when the fix lands).
#: (Fixed, flags on: ``dynamic_one_broadcast``, a pl.dynamic size that is 1 at run time
#: broadcast against a static n, was read out of bounds; now a run-time check raises a
#: ValueError in compiled code and in the interpreter alike.)
KNOWN_BUGS: dict[str, str] = {}

#: The compile options every program runs under.
OPTION_SETS: dict[str, dict[str, Any]] = {
    "default": {},
    "parallel": {"pipeline_options": {"parallel": True}},
    "llvm_default": {"llvm_passes": "default"},
    "O0": {"opt_level": 0},
}

FLOATS = ("FP32", "FP64", "FP16", "BF16")
SIGNED = ("INT8", "INT16", "INT32", "INT64")
UNSIGNED = ("UINT8", "UINT16", "UINT32", "UINT64")

#: Tolerance (relative, and absolute relative to the largest magnitude) per dtype.
TOLERANCE = {"FP64": 1e-9, "FP32": 2e-4, "FP16": 2e-2, "BF16": 8e-2}


@dataclass
class Value:
    name: str
    shape: tuple[int, ...]
    dtype: str
    param: bool = False
    dims: tuple[int | str, ...] = ()  # the annotation's sizes (a str: a pl.dynamic name)
    root: str = ""  # the value it may be at run time (a loop's init, a branch's operand)


@dataclass
class Case:
    """One generated program: its source, entry, inputs and features."""

    source: str
    entry: str
    program: bool
    inputs: dict[str, Any]
    dtypes: list[str] = field(default_factory=list)  # each result's DSL dtype

    def describe(self) -> str:
        shown = {k: (v.dtype.name, list(v.shape)) if isinstance(v, np.ndarray) else v
                 for k, v in self.inputs.items()}
        return f"{self.source}\n# inputs: {shown}"


# -- generation --------------------------------------------------------------------------------
class Builder:
    """Draws one program statement by statement, keeping every value's shape and dtype."""

    def __init__(self, draw: Callable[..., Any], features: Features) -> None:
        self.draw = draw
        self.f = features
        self.values: list[Value] = []
        self.params: list[tuple[str, str]] = []
        self.inputs: dict[str, Any] = {}
        self.lines: list[str] = []
        self.helpers: list[str] = []
        self.exprs: dict[tuple[str, int], str] = {}
        self.dynamic: dict[int, str] = {}
        self.counter = itertools.count()
        self.indent = 1
        self.seed = draw(st.integers(0, 2**31 - 1))

    # -- helpers -------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def dtypes(self) -> tuple[str, ...]:
        out = ("FP32", "FP64", "FP16", *SIGNED)
        out += ("BF16",) if self.f.bf16 else ()
        return out + (UNSIGNED if self.f.unsigned else ())

    def shape(self, rank: int | None = None) -> tuple[int, ...]:
        rank = self.draw(st.integers(1, 3)) if rank is None else rank
        return tuple(self.draw(st.sampled_from((0, 1, 2, 3, 4, 5))) if self.draw(
            st.integers(0, 9)) == 0 else self.draw(st.integers(1, 5)) for _ in range(rank))

    def param(self, shape: tuple[int, ...], dtype: str, dynamic: bool | None = None) -> Value:
        name = self.fresh("p")
        if dynamic is None:
            dynamic = self.draw(st.integers(0, 3)) == 0
        dims: list[int | str] = []
        for d in shape:
            # (a pl.dynamic size that is 1 at run time against a static n: a ValueError)
            if dynamic and (d != 1 or self.f.dynamic_one_broadcast) and self.draw(st.booleans()):
                dims.append(self.dynamic.setdefault(d, f"D{d}"))
            else:
                dims.append(d)
        self.params.append((name, f"pl.Tensor[[{', '.join(str(d) for d in dims)}], pl.{dtype}]"))
        self.inputs[name] = data(self.seed + len(self.inputs), shape, dtype)
        value = Value(name, shape, dtype, True, tuple(dims))
        self.values.append(value)
        return value

    def scalar_param(self, dtype: str, value: int) -> str:
        name = self.fresh("s")
        self.params.append((name, f"pl.Scalar[pl.{dtype}]"))
        self.inputs[name] = value
        return name

    def pick(self, where: Callable[[Value], bool] = lambda v: True) -> Value | None:
        choices = [v for v in self.values if where(v)]
        return self.draw(st.sampled_from(choices)) if choices else None

    def operand(self, where: Callable[[Value], bool] = lambda v: True) -> Value:
        found = self.pick(where) if self.draw(st.integers(0, 3)) else None
        if found is None:
            found = self.param(self.shape(), self.draw(st.sampled_from(self.dtypes())))
            if not where(found):
                self.values.remove(found)
                self.params.pop()
                del self.inputs[found.name]
                return self.operand_of(where)
        return found

    def operand_of(self, where: Callable[[Value], bool]) -> Value:
        """A new parameter that satisfies ``where``, or a value computed from one."""
        for dtype in self.dtypes():
            for _ in range(3):
                v = Value("", self.shape(), dtype, param=True)
                if where(v):
                    return self.param(v.shape, dtype)
        p = self.param(self.shape(), "FP32")
        return self.define(f"pl.mul({p.name}, 2.0)", p.shape, p.dtype)

    def define(self, expr: str, shape: tuple[int, ...], dtype: str, prefix: str = "t") -> Value:
        name = self.fresh(prefix)
        self.emit(f"{name} = {expr}")
        # the same expression twice is one value after CSE
        same = self.exprs.setdefault((expr, self.indent), name) if self.indent == 1 else name
        value = Value(name, shape, dtype, root=same)
        self.values.append(value)
        return value

    # -- statements ----------------------------------------------------------------------
    def statement(self) -> None:
        kinds: list[Callable[[], None]] = [
            self.unary, self.binary, self.binary, self.scalar_operand, self.compare_select,
            self.reduce, self.cast, self.slice_, self.assemble, self.matmul, self.shape_op,
            self.create, self.loop, self.branch]
        kinds.append(self.call)
        self.draw(st.sampled_from(kinds))()

    def unary(self) -> None:
        x = self.operand(lambda v: v.dtype != "BOOL")
        ops = ["abs", "neg", "relu"]
        if x.dtype in FLOATS:
            ops += ["exp", "tanh", "sqrt", "log", "rsqrt"]
        op = self.draw(st.sampled_from(ops))
        arg = f"pl.abs({x.name})" if op in ("sqrt", "log", "rsqrt") else x.name
        self.define(f"pl.{op}({arg})", x.shape, x.dtype)

    def binary(self) -> None:
        a = self.operand(lambda v: v.dtype != "BOOL")
        b = self.broadcast_partner(a)
        ops = ["add", "sub", "mul", "maximum", "minimum"]
        if a.dtype in FLOATS:
            ops += ["div", "pow"]
        op = self.draw(st.sampled_from(ops))
        shape = np.broadcast_shapes(a.shape, b.shape)
        rhs = f"pl.abs({b.name})" if op == "pow" else b.name
        lhs = f"pl.abs({a.name})" if op == "pow" else a.name
        if op in ("add", "sub", "mul", "div") and self.draw(st.booleans()):
            symbol = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[op]
            self.define(f"{lhs} {symbol} {rhs}", shape, a.dtype)
        else:
            self.define(f"pl.{op}({lhs}, {rhs})", shape, a.dtype)

    def broadcast_partner(self, a: Value) -> Value:
        """A value of a's dtype whose shape broadcasts with a's."""
        def fits(v: Value) -> bool:
            if v.name == a.name:  # maximum(a, a) folds to a
                return False
            try:
                np.broadcast_shapes(a.shape, v.shape)
            except ValueError:
                return False
            return v.dtype == a.dtype
        found = self.pick(fits) if self.draw(st.booleans()) else None
        if found is not None:
            return found
        shape = list(a.shape)
        for i in range(len(shape)):
            if self.draw(st.integers(0, 3)) == 0:
                shape[i] = 1
        drop = self.draw(st.integers(0, len(shape) - 1)) if len(shape) > 1 else 0
        return self.param(tuple(shape[drop:]), a.dtype)

    def scalar_operand(self) -> None:
        a = self.operand(lambda v: v.dtype != "BOOL")
        if a.dtype in FLOATS:
            lit = repr(self.draw(st.sampled_from((0.5, 2.0, -1.5, 3.25))))
            op = self.draw(st.sampled_from(("add", "sub", "mul", "div", "maximum")))
        else:
            lit = str(self.draw(st.sampled_from((2, 3, 7))))
            op = self.draw(st.sampled_from(("add", "sub", "mul", "div", "minimum")))
        args = (a.name, lit) if self.draw(st.booleans()) or op == "div" else (lit, a.name)
        self.define(f"pl.{op}({args[0]}, {args[1]})", a.shape, a.dtype)

    def compare_select(self) -> None:
        a = self.operand(lambda v: v.dtype != "BOOL")
        b = self.broadcast_partner(a)
        op = self.draw(st.sampled_from(("eq", "ne", "lt", "le", "gt", "ge")))
        shape = np.broadcast_shapes(a.shape, b.shape)
        cond = self.define(f"pl.{op}({a.name}, {b.name})", shape, "BOOL", "c")
        if self.draw(st.booleans()):
            self.define(f"pl.select({cond.name}, {a.name}, {b.name})", shape, a.dtype)

    def reduce(self) -> None:
        x = self.operand(lambda v: v.dtype != "BOOL")
        if self.f.arange_reduction and self.draw(st.integers(0, 3)) == 0:
            n = x.shape[-1]
            r = self.define(f"pl.arange({n}, dtype=pl.{x.dtype})", (n,), x.dtype, "r")
            x = self.define(f"pl.mul({x.name}, {r.name})", x.shape, x.dtype)
        ops = ["sum", "max", "min", "argmax"] + (["mean"] if x.dtype in FLOATS else [])
        op = self.draw(st.sampled_from(ops))
        rank = len(x.shape)
        keep = self.draw(st.booleans())
        if op == "argmax":
            axis = self.draw(st.integers(-rank, rank - 1))
            axes = [axis % rank]
            expr = f"pl.argmax({x.name}, {axis}{', keepdim=True' if keep else ''})"
            dtype = "INT64"
        else:
            axes = sorted(set(self.draw(st.lists(st.integers(0, rank - 1), min_size=1,
                                                 max_size=rank))))
            spelled = "None" if len(axes) == rank and self.draw(st.booleans()) else (
                str(axes[0]) if len(axes) == 1 else str(axes))
            expr = f"pl.{op}({x.name}, axis={spelled}{', keepdim=True' if keep else ''})"
            dtype = x.dtype
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)
                      if keep or i not in axes)
        if not shape:
            return  # rank-0 results are not tensors the runtime returns; skip
        self.define(expr, shape, dtype)

    def cast(self) -> None:
        x = self.operand()
        targets = [d for d in self.dtypes() if d != x.dtype] + ["BOOL"]
        target = self.draw(st.sampled_from(targets))
        if x.dtype == "FP64" and target == "FP16" and not self.f.f64_to_f16:
            target = "FP32"
        source = x.name
        if x.dtype in FLOATS and target not in FLOATS and target != "BOOL":
            low, high = (0, 100) if target.startswith("U") else (-100, 100)
            source = f"pl.maximum(pl.minimum({x.name}, {float(high)}), {float(low)})"
        self.define(f"pl.cast({source}, pl.{target})", x.shape, target)

    def slice_(self) -> None:
        x = self.operand(lambda v: all(d > 0 for d in v.shape))
        sizes = [self.draw(st.integers(1, d)) for d in x.shape]
        offsets: list[str] = []
        for d, n in zip(x.shape, sizes, strict=True):
            o = self.draw(st.integers(0, d - n))
            if self.draw(st.integers(0, 2)) == 0:
                offsets.append(self.scalar_param("INDEX", o))
            else:
                offsets.append(str(o))
        if all(o.isdigit() for o in offsets) and self.draw(st.booleans()):
            parts = []
            for d, n, o in zip(x.shape, sizes, offsets, strict=True):
                lo, hi = int(o), int(o) + n
                if self.f.negative_slices and hi < d and self.draw(st.booleans()):
                    parts.append(f"{lo}:{hi - d}")
                else:
                    parts.append(f"{lo}:{hi}")
            self.define(f"{x.name}[{', '.join(parts)}]", tuple(sizes), x.dtype)
            return
        self.define(f"pl.slice({x.name}, {sizes}, [{', '.join(offsets)}])", tuple(sizes),
                    x.dtype)

    def assemble(self) -> None:
        dst = self.operand(lambda v: v.param is False or self.f.assemble_on_params)
        src_shape = tuple(self.draw(st.integers(0, d)) for d in dst.shape)
        src = self.pick(lambda v: v.shape == src_shape and v.dtype == dst.dtype) \
            or self.param(src_shape, dst.dtype)
        offsets = []
        for d, n in zip(dst.shape, src_shape, strict=True):
            o = self.draw(st.integers(0, d - n))
            offsets.append(self.scalar_param("INDEX", o) if self.draw(st.booleans()) else str(o))
        self.define(f"pl.assemble({dst.name}, {src.name}, [{', '.join(offsets)}])", dst.shape,
                    dst.dtype)

    def matmul(self) -> None:
        dtype = self.draw(st.sampled_from([d for d in self.dtypes() if d != "BOOL"]))
        m, k, n = (self.draw(st.integers(0 if i == 1 else 1, 5)) for i in range(3))
        a_t, b_t = self.draw(st.booleans()), self.draw(st.booleans())
        a = self.pick(lambda v: v.dtype == dtype and v.shape == ((k, m) if a_t else (m, k))) \
            or self.param((k, m) if a_t else (m, k), dtype)
        b = self.pick(lambda v: v.dtype == dtype and v.shape == ((n, k) if b_t else (k, n))) \
            or self.param((n, k) if b_t else (k, n), dtype)
        wider = {"FP16": "FP32", "BF16": "FP32", "FP32": "FP64", "INT8": "INT32",
                 "INT16": "INT32", "INT32": "INT64", "UINT8": "UINT32"}.get(dtype)
        out = wider if wider and (wider != "BF16" or self.f.bf16) and self.draw(
            st.booleans()) else None
        flags = (", a_trans=True" if a_t else "") + (", b_trans=True" if b_t else "")
        flags += f", out_dtype=pl.{out}" if out else ""
        self.define(f"pl.matmul({a.name}, {b.name}{flags})", (m, n), out or dtype)

    def shape_op(self) -> None:
        x = self.operand()
        rank = len(x.shape)
        op = self.draw(st.sampled_from(("transpose", "reshape", "concat", "expand_dims",
                                        "squeeze", "broadcast")))
        if op == "transpose" and rank > 1:
            perm = self.draw(st.permutations(range(rank)).filter(
                lambda p: list(p) != list(range(rank))))
            self.define(f"pl.transpose({x.name}, {list(perm)})",
                        tuple(x.shape[p] for p in perm), x.dtype)
        elif op == "reshape" and not any(isinstance(d, str) for d in x.dims):
            total = int(np.prod(x.shape))
            shape = (total,) if self.draw(st.booleans()) or total == 0 else (1, total)
            if shape == x.shape:
                shape = (1, *shape)
            self.define(f"pl.reshape({x.name}, {list(shape)})", shape, x.dtype)
        elif op == "concat":
            axis = self.draw(st.integers(0, rank - 1))
            other_shape = tuple(self.draw(st.integers(0, 3)) if i == axis else d
                                for i, d in enumerate(x.shape))
            y = self.param(other_shape, x.dtype, dynamic=False)
            shape = tuple(d + other_shape[i] if i == axis else d for i, d in enumerate(x.shape))
            self.define(f"pl.concat([{x.name}, {y.name}], {axis})", shape, x.dtype)
        elif op == "expand_dims":
            axis = self.draw(st.integers(0, rank))
            self.define(f"pl.expand_dims({x.name}, {axis})",
                        (*x.shape[:axis], 1, *x.shape[axis:]), x.dtype)
        elif op == "squeeze" and 1 in x.shape and rank > 1:
            axis = x.shape.index(1)
            self.define(f"pl.squeeze({x.name}, {axis})", x.shape[:axis] + x.shape[axis + 1:],
                        x.dtype)
        elif op == "broadcast" and not any(isinstance(d, str) for d in x.dims):
            shape = (self.draw(st.integers(1, 3)), *(self.draw(st.integers(1, 4)) if d == 1
                                                     else d for d in x.shape))
            self.define(f"pl.broadcast({x.name}, {list(shape)})", shape, x.dtype)

    def create(self) -> None:
        dtype = self.draw(st.sampled_from([d for d in self.dtypes() if d != "BOOL"]))
        if self.draw(st.booleans()):
            n = self.draw(st.integers(0, 6))
            start = "1.5" if dtype in FLOATS else "2"
            step = "0.5" if dtype in FLOATS else "3"
            self.define(f"pl.arange({n}, start={start}, step={step}, dtype=pl.{dtype})", (n,),
                        dtype)
        else:
            shape = self.shape()
            value = "0.75" if dtype in FLOATS else "5"
            self.define(f"pl.full({list(shape)}, {value}, dtype=pl.{dtype})", shape, dtype)

    def loop(self) -> None:
        init = self.operand(lambda v: v.dtype != "BOOL" and (not v.param
                                                           or self.f.iter_args_on_params))
        other = init  # the same type as the iteration argument
        n = self.draw(st.integers(0, 3))
        bound = self.scalar_param("INDEX", n) if self.draw(st.booleans()) else str(n)
        acc, nxt, out = self.fresh("acc"), self.fresh("n"), self.fresh("l")
        op = self.draw(st.sampled_from(("add", "maximum", "sub")))
        self.emit(f"for i{next(self.counter)}, ({acc},) in pl.range({bound}, "
                  f"init_values=({init.name},)):")
        self.indent += 1
        self.emit(f"{nxt} = pl.{op}({acc}, {other.name})")
        self.emit(f"{out} = pl.yield_({nxt})")
        self.indent -= 1
        self.values.append(Value(out, init.shape, init.dtype, root=init.name))

    def branch(self) -> None:
        a = self.operand(lambda v: v.dtype != "BOOL")
        b = a  # both branches yield the same type
        s = self.scalar_param("INT32", self.draw(st.integers(-2, 2)))
        out = self.fresh("r")
        self.emit(f"if {s} > 0:")
        self.emit(f"    {out} = pl.yield_(pl.add({a.name}, {b.name}))")
        self.emit("else:")
        self.emit(f"    {out} = pl.yield_({b.name})")
        self.values.append(Value(out, a.shape, a.dtype, root=a.name))

    def call(self) -> None:
        dtype = self.draw(st.sampled_from(self.dtypes()))
        a = self.param(self.shape(), dtype, dynamic=self.f.dynamic_call_results)
        name = f"h{len(self.helpers)}"
        dims = ", ".join(str(d) for d in a.dims)
        t = f"pl.Tensor[[{dims}], pl.{a.dtype}]"
        op = self.draw(st.sampled_from(("add", "mul", "maximum")))
        self.helpers.append(f"    @pl.function\n    def {name}(self, a: {t}, b: {t}) -> {t}:\n"
                            f"        return pl.{op}(a, b)\n")
        self.define(f"self.{name}({a.name}, {a.name})", a.shape, a.dtype)

    # -- the program -------------------------------------------------------------------------
    def results(self) -> list[str]:
        computed = [v for v in self.values if not v.param and v.shape]
        if not computed:
            return []
        count = self.draw(st.integers(1, min(3, len(computed))))
        picked = [computed[-1]] + [self.draw(st.sampled_from(computed))
                                   for _ in range(count - 1)]
        if not self.f.repeated_results:  # one result per value it may be at run time
            roots: dict[str, Value] = {}
            for v in picked:
                roots.setdefault(self.root(v), v)
            picked = list(roots.values())
        return [v.name for v in picked]

    def root(self, v: Value) -> str:
        by_name = {x.name: x for x in self.values}
        while v.root and v.root != v.name and v.root in by_name:
            v = by_name[v.root]
        return v.name

    def source(self, results: list[str], program: bool) -> tuple[str, str]:
        head = ["import dsl_parser.language as pl", ""]
        head += [f'{n} = pl.dynamic("{n}")' for n in sorted(set(self.dynamic.values()))]
        args = ", ".join(f"{n}: {a}" for n, a in self.params)
        body = [*self.lines, "    return " + ", ".join(results)]
        if not program:
            return "\n".join([*head, "", "", f"def main({args}):", *body, ""]), "main"
        method = [f"    def main(self, {args}):", *("    " + line for line in body)]
        text = [*head, "", "", "@pl.program", "class Prog:", *self.helpers, *method, ""]
        return "\n".join(text), "main"


def data(seed: int, shape: tuple[int, ...], dtype: str) -> Any:
    """Deterministic small inputs of ``dtype`` (BF16 as uint16 bits, as the runtime takes)."""
    rng = np.random.default_rng(seed)
    if dtype in FLOATS:
        values = np.round(rng.uniform(-3, 3, shape), 2)
        if dtype == "BF16":
            return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        return values.astype(pl.__dict__[dtype].numpy_name)
    if dtype == "BOOL":
        return rng.integers(0, 2, shape).astype(bool)
    numpy_name = pl.__dict__[dtype].numpy_name
    if dtype.startswith("U"):  # small values and values with the top bit set
        small = rng.integers(0, 7, shape).astype(numpy_name)
        big = np.iinfo(numpy_name).max - small  # in the unsigned dtype
        return np.where(rng.integers(0, 2, shape) == 1, big, small).astype(numpy_name)
    return rng.integers(-6, 7, shape).astype(numpy_name)


@st.composite
def programs(draw: Callable[..., Any], features: Features = Features()) -> Case:
    b = Builder(draw, features)
    for _ in range(draw(st.integers(1, 6))):
        b.statement()
    results = b.results()
    if not results:
        x = b.param(b.shape(), draw(st.sampled_from(b.dtypes())))
        b.define(f"pl.neg({x.name})", x.shape, x.dtype)
        results = b.results()
    program = bool(b.helpers)
    source, entry = b.source(results, program)
    by_name = {v.name: v.dtype for v in b.values}
    return Case(source, entry, program, b.inputs, [by_name[r] for r in results])


# -- running -------------------------------------------------------------------------------
_MODULES: list[Any] = []


def load(case: Case, directory: Path) -> Any:
    try:
        return _load(case, directory)
    except ParserError as err:
        raise Skip(f"not a valid program: {err.message}") from None


def _load(case: Case, directory: Path) -> Any:
    """Import the case's source from a file in ``directory`` (the parser and the
    interpreter read it); the caller owns the directory and removes it."""
    name = f"dslfuzz_{abs(hash(case.source)) % 10**12}"
    path = directory / f"{name}.py"
    path.write_text(case.source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _MODULES.append(module)
    return module


def entry_of(case: Case, module: Any) -> tuple[Any, dict[str, Any]]:
    if case.program:
        return module.Prog, {"entry": case.entry}
    return getattr(module, case.entry), {}


class Skip(Exception):
    """The program's meaning is undefined for these inputs (e.g. a float cast out of range)."""


@dataclass(frozen=True)
class Raised:
    """What the interpreter raised where a run-time check fails (the compiled code must
    raise the same class): ``kind`` is ``"ValueError"`` (sizes) or ``"IndexError"``."""

    kind: str
    message: str


def expected(case: Case, module: Any) -> tuple[Any, ...] | Raised:
    target, kw = entry_of(case, module)
    if not case.program:  # programs were parsed when imported
        try:
            pl.parse_function(target)
        except ParserError as err:  # the generator's shape bookkeeping is approximate
            raise Skip(f"not a valid program: {err.message}") from None
    try:
        result = interpret(target, **kw, **_copies(case.inputs))
    except UndefinedBehaviorError as err:
        raise Skip(str(err)) from None
    except (ValueError, IndexError) as err:  # a run-time check of sizes or offsets
        return Raised(type(err).__name__, str(err))
    return result if isinstance(result, tuple) else (result,)


def _copies(inputs: dict[str, Any]) -> dict[str, Any]:
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.items()}


def compare(got: Any, want: Any, dtype_name: str, what: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (
        f"{what}: got {got.dtype}{list(got.shape)}, expected {want.dtype}{list(want.shape)}")
    if dtype_name in TOLERANCE:
        g, w = got, want
        if dtype_name == "BF16":
            g = (got.astype(np.uint32) << 16).view(np.float32)
            w = (want.astype(np.uint32) << 16).view(np.float32)
        g, w = g.astype(np.float64), w.astype(np.float64)
        tol = TOLERANCE[dtype_name]
        finite = np.isfinite(w)
        scale = float(np.max(np.abs(w[finite]), initial=1.0))
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale, equal_nan=True,
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check(case: Case, option_sets: dict[str, dict[str, Any]] = OPTION_SETS,
          directory: Path | None = None, timeout: float = 300.0) -> int:
    """Compile and run ``case`` under each option set; compare with the interpreter.

    The compiled code runs in a worker process, so that a crash (a signal) or a hang is
    a reported failure, not the end of the run. Returns how many option sets ran; raises
    AssertionError on a difference, a changed input or a crash, and ``Skip`` when the
    program's meaning is undefined for its inputs."""
    module = load(case, directory)
    want = expected(case, module)
    error = WORKER.run(case, want, option_sets, timeout)
    if error is not None:
        raise AssertionError(error)
    return len(option_sets)


def compiled_agrees(case: Case, want: tuple[Any, ...] | Raised,
                    option_sets: dict[str, dict[str, Any]]) -> str | None:
    """(In the worker) the case's compiled results against ``want``; None when they agree.
    The case's source lives in a directory removed when the comparison ends (the worker
    runs thousands of cases; nothing of them stays behind in the temporary directory)."""
    with tempfile.TemporaryDirectory(prefix="dslfuzz-") as scratch:
        return _compiled_agrees(case, want, option_sets, Path(scratch))


def _compiled_agrees(case: Case, want: tuple[Any, ...] | Raised,
                     option_sets: dict[str, dict[str, Any]], scratch: Path) -> str | None:
    module = load(case, scratch)
    target, kw = entry_of(case, module)
    label = "?"
    try:
        for name, options in option_sets.items():
            label = name
            fn = jit(target, **kw, **options)
            inputs = _copies(case.inputs)
            if isinstance(want, Raised):
                _raises_the_same(fn, inputs, want)
                continue
            got = fn(**inputs)
            got = got if isinstance(got, tuple) else (got,)
            assert len(got) == len(want), f"{len(got)} results, expected {len(want)}"
            for i, (g, w) in enumerate(zip(got, want, strict=True)):
                compare(g, w, case.dtypes[i], f"result {i}")
            for name, value in case.inputs.items():
                if isinstance(value, np.ndarray):
                    assert inputs[name].tobytes() == value.tobytes(), \
                        f"input '{name}' was changed by the call"
    except Exception as err:
        message = "".join(traceback.format_exception_only(type(err), err))
        return f"[{label}] {message}"
    return None


def _raises_the_same(fn: Callable[..., Any], inputs: dict[str, Any], want: Raised) -> None:
    try:
        fn(**inputs)
    except Exception as err:
        assert type(err).__name__ == want.kind, (
            f"raised {type(err).__name__}: {err}; the interpreter raised {want.kind}: "
            f"{want.message}")
        return
    raise AssertionError(f"returned where the interpreter raised {want.kind}: {want.message}")


class Worker:
    """One spawned process that compiles and runs cases; replaced after a crash or hang."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None

    def run(self, case: Case, want: tuple[Any, ...] | Raised, option_sets: dict[str, dict[str, Any]],
            timeout: float) -> str | None:
        if self.pool is None:
            self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_worker_init, initargs=(sys.path,))
        future = self.pool.submit(compiled_agrees, case, want, option_sets)
        try:
            return future.result(timeout=timeout)
        except BrokenProcessPool:
            self.close()
            return "compiled code crashed the process (a signal, e.g. SIGSEGV or SIGABRT)"
        except FutureTimeout:
            self.close(kill=True)
            return f"compiled code hung for {timeout:.0f} s"

    def close(self, kill: bool = False) -> None:
        pool, self.pool = self.pool, None
        if pool is None:
            return
        if kill:
            for process in list(getattr(pool, "_processes", {}).values()):
                process.kill()
        pool.shutdown(wait=True, cancel_futures=True)


def _worker_init(path: list[str]) -> None:
    sys.path[:] = path
    os.environ["DSL_DISABLE_DISK_CACHE"] = "1"


WORKER = Worker()


def reproducer(case: Case, error: BaseException, option_sets: dict[str, Any]) -> str:
    """A standalone script that reruns a failing case (``python file.py``)."""
    inputs = ",\n".join(f"    {k!r}: {_literal(v)}" for k, v in case.inputs.items())
    return textwrap.dedent('''\
        """Differential fuzzing failure (compiled code vs the reference interpreter).

        {error}
        """
        import sys
        from pathlib import Path

        import numpy as np

        sys.path.insert(0, {tests!r})
        import fuzz_programs as fp

        SOURCE = """{source}"""
        INPUTS = {{
        {inputs}
        }}
        DTYPES = {dtypes!r}
        OPTION_SETS = {options!r}

        if __name__ == "__main__":
            case = fp.Case(SOURCE, "main", {program!r}, INPUTS, DTYPES)
            fp.check(case, OPTION_SETS, Path(__file__).parent)
            print("passes now")
        ''').format(error=str(error).replace('"""', "'''")[:2000], tests=str(Path(__file__).parent),
                    source=case.source, inputs=inputs, options=option_sets, dtypes=case.dtypes,
                    program=case.program)


def _literal(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r}, dtype=np.{value.dtype.name}).reshape({value.shape})"
    return repr(value)


__all__ = ["KNOWN_BUGS", "OPTION_SETS", "Case", "Features", "Skip", "check", "programs",
           "replace", "reproducer"]
