"""Launches: ``k(args).launch(grid=..., block=..., stream=...)`` -> ``gpu.launch_func``.

The arguments are bound to the kernel's declared parameters (positionally or
by name) and decide its specialization: an unshaped ``pl.Tensor[dtype]`` takes
the argument's memref type, a ``dc.Constexpr[T]`` the argument's compile-time
value. The module's kernel table parses the ``gpu.func`` once per
specialization. Tensor arguments whose memref type differs from the parameter's
(``memref<64xf32>`` for ``memref<?xf32>``) go through ``memref.cast``; struct
arguments are passed leaf by leaf. ``grid`` and ``block`` are 1 to 3 sizes
(missing ones are 1); ``stream`` a ``dc.Stream`` parameter of the host function.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import NoReturn

from .._mlir import Value, gpu, memref
from ..errors import InvalidOperationError, ParserTypeError, UnsupportedFeatureError
from ..kernel import GPU_MODULE, Kernel, KernelSpecialization
from ..types import (
    INDEX,
    ConstValue,
    Dynamic,
    ParamType,
    PlType,
    ProtocolArgument,
    ScalarType,
    TensorType,
)
from ..values import TypedValue, is_literal, literal_problem
from .element_parser import index_value
from .kernel_params import (
    CONSTEXPR,
    PROTOCOL,
    SCALAR,
    TENSOR,
    KernelParam,
    constant_token,
    describe,
    type_token,
)
from .protocol_params import as_dsl_value, launch_values
from .state import KERNEL, ParserState, StreamValue, _describe
from .structs import leaves

Visit = Callable[[ast.expr], object]

#: The most threads one block may have.
MAX_THREADS_PER_BLOCK = 1024

_LAUNCH_PARAMS = ("grid", "block", "stream")


def launched_call(node: ast.Call) -> ast.Call | None:
    """The ``k(args)`` of ``k(args).launch(...)``, else None."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "launch" \
            and isinstance(func.value, ast.Call):
        return func.value
    return None


class LaunchParser:
    """Parses one launch statement of a host function."""

    def __init__(self, state: ParserState, visit: Visit) -> None:
        self.state = state
        self.visit = visit

    def parse(self, node: ast.Call, call: ast.Call, kernel: Kernel) -> None:
        """``call.launch(...)`` where ``call`` is ``kernel(args)``."""
        state = self.state
        if state.mode == KERNEL:
            state.src.error(node, UnsupportedFeatureError,
                            "a @pl.kernel cannot launch kernels: .launch is only available in "
                            "the host function (@jit / @pl.function)")
        table = state.kernels
        assert table is not None, "a host function is parsed with its module's kernel table"
        try:
            params = table.params(kernel)
        except ValueError as err:  # no source (a kernel made by exec, a lambda, ...)
            state.src.error(call.func, InvalidOperationError,
                            f"kernel '{kernel.name}' cannot be parsed: {err}")
        bound = self._bind(kernel, params, call)
        config = self._config(node)
        overrides: dict[str, object] = {}
        tokens: list[str] = []
        for param in params:
            self._specialize(kernel, param, *bound[param.name], overrides, tokens)
        spec = table.specialize(kernel, overrides, tokens, call, state.src)
        operands: list[Value] = []
        for param in params:
            operands += self._operands(param, *bound[param.name], spec)
        grid, block, stream = config
        b = state.builder
        gpu.LaunchFuncOp([GPU_MODULE, spec.symbol], grid, block, operands,
                         async_object=stream, loc=b.loc, ip=b.ip)
        if not any(s is spec for s in state.launched):
            state.launched.append(spec)

    # -- arguments ---------------------------------------------------------------------------
    def _bind(self, kernel: Kernel, params: list[KernelParam],
              call: ast.Call) -> dict[str, tuple[object, ast.AST]]:
        src = self.state.src
        names = [p.name for p in params]
        given = len(call.args) + len(call.keywords)
        if len(call.args) > len(params):
            src.error(call, InvalidOperationError,
                      f"kernel '{kernel.name}' takes {len(params)} arguments, {given} given")
        bound: dict[str, tuple[object, ast.AST]] = {
            p.name: (self.visit(a), a) for p, a in zip(params, call.args, strict=False)}
        for keyword in call.keywords:
            if keyword.arg is None:
                src.error(keyword, UnsupportedFeatureError, "**kwargs are not supported")
            if keyword.arg not in names:
                src.error(keyword, InvalidOperationError,
                          f"kernel '{kernel.name}' has no parameter '{keyword.arg}'",
                          hint=f"its parameters are: {', '.join(names)}")
            if keyword.arg in bound:
                src.error(keyword, InvalidOperationError,
                          f"kernel '{kernel.name}' got two values for '{keyword.arg}'")
            bound[keyword.arg] = (self.visit(keyword.value), keyword.value)
        missing = [n for n in names if n not in bound]
        if missing:
            src.error(call, InvalidOperationError,
                      f"kernel '{kernel.name}' takes {len(params)} arguments, {given} given "
                      f"(missing {', '.join(repr(m) for m in missing)})")
        return bound

    def _mismatch(self, kernel: Kernel, param: KernelParam, value: object, where: ast.AST,
                  detail: str = "") -> NoReturn:
        self.state.src.error(where, ParserTypeError,
                             f"argument '{param.name}' of kernel '{kernel.name}': expected "
                             f"{describe(param)}, given {_describe(value)}{detail}")

    def _specialize(self, kernel: Kernel, param: KernelParam, value: object, where: ast.AST,
                    overrides: dict[str, object], tokens: list[str]) -> None:
        """Check one argument; record what it specializes (overrides and symbol tokens)."""
        if param.kind == CONSTEXPR:
            raw = self._constexpr(kernel, param, value, where)
            overrides[param.name] = ConstValue(raw)
            tokens.append(constant_token(raw))
        elif param.kind == TENSOR:
            t = self._tensor(kernel, param, value, where)
            if isinstance(param.type, TensorType) and param.type.shape is None:
                shape = tuple(Dynamic(None) if isinstance(d, Dynamic) else d for d in t.shape or ())
                overrides[param.name] = TensorType(shape, t.dtype)
                tokens.append(type_token(shape, t.dtype.mlir_name))
        elif param.kind == SCALAR:
            self._scalar(kernel, param, value, where)
        elif param.kind == PROTOCOL:
            overrides[param.name] = self._protocol(kernel, param, value, where, tokens)
        elif not _is_struct_of(value, param.annotation):
            self._mismatch(kernel, param, value, where)

    def _protocol(self, kernel: Kernel, param: KernelParam, value: object, where: ast.AST,
                  tokens: list[str]) -> ProtocolArgument:
        """A protocol argument: the kernel is specialized on the DSL types of its values
        (dynamic sizes anonymous, as for tensors)."""
        assert isinstance(param.annotation, type)
        if not isinstance(value, param.annotation):
            self._mismatch(kernel, param, value, where)
        found = launch_values(value, param.annotation, self.state.builder.info)
        if isinstance(found, str):
            self.state.src.error(where, ParserTypeError,
                                 f"argument '{param.name}' of kernel '{kernel.name}': {found}")
        types: list[PlType] = []
        for item in found:
            t = item.type
            if isinstance(t, TensorType):
                shape = tuple(Dynamic(None) if isinstance(d, Dynamic) else d
                              for d in t.shape or ())
                t = TensorType(shape, t.dtype)
                tokens.append(type_token(shape, t.dtype.mlir_name))
            else:
                tokens.append(f"s{t.dtype.short}")
            types.append(t)
        return ProtocolArgument(param.annotation, value, tuple(types))

    def _constexpr(self, kernel: Kernel, param: KernelParam, value: object,
                   where: ast.AST) -> int | float | bool:
        src = self.state.src
        if not is_literal(value) or isinstance(value, TypedValue):
            src.error(where, ParserTypeError,
                      f"argument '{param.name}' of kernel '{kernel.name}' is a {describe(param)}: "
                      f"it must be a compile-time constant, given {_describe(value)}",
                      hint="pass a Python number, or a dc.Constexpr parameter of the host "
                           "function")
        check = getattr(param.annotation, "check", None)
        try:
            checked = check(value) if callable(check) else value
        except (TypeError, ValueError) as err:
            src.error(where, ParserTypeError,
                      f"argument '{param.name}' of kernel '{kernel.name}': {err}")
        raw = getattr(checked, "value", checked)
        if not isinstance(raw, (int, float, bool)):
            src.error(where, ParserTypeError,
                      f"argument '{param.name}' of kernel '{kernel.name}': a Constexpr must hold "
                      f"an int, float or bool, got {type(raw).__name__}")
        return raw

    def _tensor(self, kernel: Kernel, param: KernelParam, value: object,
                where: ast.AST) -> TensorType:
        want = param.type
        assert isinstance(want, TensorType)
        if not isinstance(value, TypedValue) or not isinstance(value.type, TensorType):
            self._mismatch(kernel, param, value, where)
            raise AssertionError  # unreachable: _mismatch raises
        got: TensorType = value.type
        assert got.shape is not None
        if got.dtype != want.dtype:
            self._mismatch(kernel, param, value, where,
                           f" (element type {got.dtype!r}, not {want.dtype!r})")
        if want.shape is not None:
            if len(want.shape) != len(got.shape):
                self._mismatch(kernel, param, value, where,
                               f" (rank {len(got.shape)}, not {len(want.shape)})")
            for axis, (w, g) in enumerate(zip(want.shape, got.shape, strict=True)):
                if isinstance(w, int) and isinstance(g, int) and w != g:
                    self._mismatch(kernel, param, value, where,
                                   f" (dimension {axis} is {g}, not {w})")
        return got

    def _scalar(self, kernel: Kernel, param: KernelParam, value: object, where: ast.AST) -> None:
        want = param.type
        assert isinstance(want, ScalarType)
        if isinstance(value, Dynamic):
            if want.dtype != INDEX:
                self._mismatch(kernel, param, value, where, " (a dimension is an INDEX)")
            return
        if isinstance(value, TypedValue):
            if value.type != want:
                self._mismatch(kernel, param, value, where)
            return
        if not is_literal(value):
            self._mismatch(kernel, param, value, where)
        problem = literal_problem(value, want.dtype)
        if problem is not None:
            self.state.src.error(where, ParserTypeError,
                                 f"argument '{param.name}' of kernel '{kernel.name}': {problem}")

    # -- operands ----------------------------------------------------------------------------
    def _operands(self, param: KernelParam, value: object, where: ast.AST,
                  spec: KernelSpecialization) -> list[Value]:
        state, b = self.state, self.state.builder
        if param.kind == CONSTEXPR:
            return []
        if param.kind == SCALAR:
            assert isinstance(param.type, ScalarType)
            return [state.materialize(value, where, param.type.dtype).value]
        types = {p.name: p.type for p in spec.signature.params}
        if param.kind == TENSOR:
            assert isinstance(value, TypedValue)
            return [self._cast(value, types[param.name], where)]
        if param.kind == PROTOCOL:
            assert isinstance(param.annotation, type)
            passed = launch_values(value, param.annotation, b.info)
            assert not isinstance(passed, str), passed  # checked when specializing
            return [self._cast(v, types[f"{param.name}.{i}"], where) if v.is_tensor else v.value
                    for i, v in enumerate(passed)]
        if getattr(value, "is_traced", False) or _traced_struct(value):
            import dsl_core as dc  # a struct parameter of the host function: its DslType hook

            return list(dc.extract_to_ir_values(value))
        values = []  # a struct built on the host: its fields become constants
        found = leaves(param.annotation, (param.name,))
        assert not isinstance(found, str), found  # the kernel's parse rejected such a struct
        for leaf in found:
            item: object = value
            for part in leaf.path[1:]:
                item = getattr(item, part)
            item = as_dsl_value(item, b.info)
            if not isinstance(item, TypedValue):
                item = getattr(item, "value", item)
            values.append(state.materialize(item, where, leaf.type.dtype).value)
        return values

    def _cast(self, value: TypedValue, t: ParamType, where: ast.AST) -> Value:
        """A memref operand of the parameter type ``t`` (``memref.cast`` when the static
        sizes differ from the parameter's dynamic ones)."""
        b = self.state.builder
        want = b.mlir_type(t)
        if value.value.type == want:
            return value.value
        with b.located(where):
            return memref.CastOp(want, value.value, loc=b.loc, ip=b.ip).result

    # -- grid, block, stream -----------------------------------------------------------------
    def _config(self, node: ast.Call) -> tuple[list[Value], list[Value], Value | None]:
        src = self.state.src
        given: dict[str, ast.expr] = {}
        if len(node.args) > len(_LAUNCH_PARAMS):
            src.error(node, InvalidOperationError,
                      f".launch takes grid, block and stream, {len(node.args)} given")
        given.update(zip(_LAUNCH_PARAMS, node.args, strict=False))
        for keyword in node.keywords:
            if keyword.arg not in _LAUNCH_PARAMS:
                src.error(keyword, InvalidOperationError,
                          f".launch has no parameter '{keyword.arg}'",
                          hint="k(...).launch(grid=(gx, gy, gz), block=(bx, by, bz), stream=s)")
            if keyword.arg in given:
                src.error(keyword, InvalidOperationError,
                          f".launch got two values for '{keyword.arg}'")
            given[keyword.arg] = keyword.value
        for name in ("grid", "block"):
            if name not in given:
                src.error(node, InvalidOperationError, f".launch is missing {name}=",
                          hint="k(...).launch(grid=(blocks,), block=(threads,))")
        one: list[Value] = []
        grid = self._sizes("grid", given["grid"], one)
        block = self._sizes("block", given["block"], one)
        return grid, block, self._stream(given.get("stream"))

    def _sizes(self, what: str, expr: ast.expr, one: list[Value]) -> list[Value]:
        """Three index values for ``grid=``/``block=`` (missing dimensions are 1)."""
        src = self.state.src
        value = self.visit(expr)
        items = list(value) if isinstance(value, (tuple, list)) else [value]
        nodes: list[ast.AST] = list(expr.elts) \
            if isinstance(expr, (ast.Tuple, ast.List)) and len(expr.elts) == len(items) \
            else [expr] * len(items)
        if not 1 <= len(items) <= 3:
            src.error(expr, ParserTypeError,
                      f"{what}= takes 1 to 3 sizes (x, y, z), got {len(items)}")
        unit = "blocks" if what == "grid" else "threads"
        values: list[Value] = []
        for axis, (item, where) in enumerate(zip(items, nodes, strict=True)):
            if isinstance(item, int) and not isinstance(item, bool) and item <= 0:
                src.error(where, InvalidOperationError,
                          f"{what} size {'xyz'[axis]} is {item}: a launch needs at least 1 "
                          f"{unit[:-1]} in every dimension")
            values.append(index_value(self.state, item, where, f"a {what} size"))
        constants = [i for i in items if isinstance(i, int) and not isinstance(i, bool)]
        threads = math.prod(constants)
        if what == "block" and threads > MAX_THREADS_PER_BLOCK:
            least = "" if len(constants) == len(items) else "at least "
            src.error(expr, InvalidOperationError,
                      f"1 block of {least}{threads} threads exceeds the limit of "
                      f"{MAX_THREADS_PER_BLOCK} threads per block")
        while len(values) < 3:
            if not one:
                one.append(self.state.materialize(1, expr, INDEX).value)
            values.append(one[0])
        return values

    def _stream(self, expr: ast.expr | None) -> Value | None:
        if expr is None:
            return None
        value = self.visit(expr)
        if value is None:
            return None
        if not isinstance(value, StreamValue):
            self.state.src.error(expr, ParserTypeError,
                                 f"stream= takes a dc.Stream parameter of the host function "
                                 f"(or None), got {_describe(value)}")
        return value.value


def _is_struct_of(value: object, cls: object) -> bool:
    return isinstance(cls, type) and isinstance(value, cls)


def _traced_struct(value: object) -> bool:
    """A struct whose leaves are all traced (a host function's struct parameter)."""
    fields = getattr(type(value), "__dsl_runtime_fields__", None)
    if fields is None:
        return False
    for f in fields:
        item = getattr(value, f.name)
        if not (getattr(item, "is_traced", False) or _traced_struct(item)):
            return False
    return True

