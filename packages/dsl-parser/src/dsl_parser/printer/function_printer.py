"""Statements of one function: assignments, loops, branches, yields and return."""

from __future__ import annotations

from collections.abc import Sequence

from .._mlir import Operation, Value, ir
from ..types import INDEX, DType, Dynamic, PlType, TensorType, from_mlir
from ..values import ValueInfo
from .exprs import ExprPrinter
from .naming import Namer
from .plan import BlockPlan

INDENT = "    "


class FunctionPrinter:
    """Prints one ``func.func`` as a ``def`` (``method=True``: with ``self``)."""

    def __init__(self, func_op: Operation, info: ValueInfo, param_names: Sequence[str],
                 param_types: Sequence[PlType], result_types: Sequence[PlType],
                 concise: bool, method: bool, reserved: set[str]) -> None:
        self.func_op = func_op
        self.info = info
        self.concise = concise
        self.method = method
        self.namer = Namer(reserved)
        self.exprs = ExprPrinter(self.type_of)
        self.lines: list[str] = []
        entry = func_op.regions[0].blocks[0]
        self.params = list(entry.arguments)
        self.param_types = dict(zip(self.params, param_types, strict=False))
        self.param_names = list(param_names)
        self.result_types = list(result_types)

    def type_of(self, value: Value) -> PlType:
        t = self.param_types.get(value) or self.info.types.get(value)
        return t if t is not None else from_mlir(value.type)

    # -- the function ---------------------------------------------------------------------------
    def print(self, decorator: str = "@pl.function") -> list[str]:
        names = [self.namer.fresh(n) for n in self.param_names]
        self.exprs.names.update(zip(self.params, names, strict=False))
        params = [f"{n}: {self.type_of(v)}" for n, v in zip(names, self.params, strict=False)]
        if self.method:
            params.insert(0, "self")
        name = self.func_op.attributes["sym_name"].value
        header = f"def {name}({', '.join(params)}){self._returns()}:"
        if len(header) > 100:
            header = f"def {name}(\n" + "".join(f"{INDENT}{p},\n" for p in params) \
                + f"){self._returns()}:"
        self.lines += [decorator, *header.split("\n")]
        self._block(self.func_op.regions[0].blocks[0], 1)
        return self.lines

    def _returns(self) -> str:
        types = self.result_types
        if not types:
            return ""
        if len(types) == 1:
            return f" -> {types[0]}"
        return f" -> tuple[{', '.join(str(t) for t in types)}]"

    # -- blocks ---------------------------------------------------------------------------------
    def _block(self, block: object, depth: int, terminator: str = "") -> None:
        plan = BlockPlan(block, self.info.names, self.type_of, set(self.params))
        self.exprs.inlined |= plan.inlined
        self.exprs.dims.update(plan.dims)
        start = len(self.lines)
        for op in plan.statements:
            self._statement(op, depth, terminator)
        if len(self.lines) == start:
            self._emit(depth, "pass")

    def _emit(self, depth: int, text: str) -> None:
        self.lines.append(INDENT * depth + text)

    def _statement(self, op: Operation, depth: int, terminator: str) -> None:
        name = op.name
        if name == "scf.for":
            self._for(op, depth)
        elif name == "scf.if":
            self._if(op, depth)
        elif name == "scf.yield":
            self._yield(op, depth, terminator)
        elif name == "func.return":
            self._return(op, depth)
        elif len(op.results) == 1:
            self._assign(op, depth)
        elif not op.results:
            self._emit(depth, self.exprs.op(op)[0])
        else:
            names = self._define(list(op.results))
            self._emit(depth, f"{', '.join(names)} = {self.exprs.op(op)[0]}")

    def _assign(self, op: Operation, depth: int) -> None:
        result = op.results[0]
        if op.name == "arith.constant":  # a named constant stays an IR value
            t = self.type_of(result)
            text = f"pl.const({self.exprs.literal_value(op, t.dtype)}, {t.dtype!r})"
        else:
            text = self.exprs.op(op)[0]
        name = self._define([result])[0]
        t = self.type_of(result)
        annotated = not self.concise and not _anonymous(t)
        self._emit(depth, f"{name}: {t} = {text}" if annotated else f"{name} = {text}")

    def _define(self, values: list[Value]) -> list[str]:
        names = [self.namer.fresh(self.info.names.get(v)) for v in values]
        self.exprs.names.update(zip(values, names, strict=False))
        return names

    def _pick(self, values: list[Value]) -> list[str]:
        """Names for the results of a loop or if, reserved before the body that yields them
        (the body then cannot take them: more conservative than the parser, never wrong)."""
        return [self.namer.fresh(self.info.names.get(v)) for v in values]

    def _commit(self, values: list[Value], names: list[str]) -> None:
        self.exprs.names.update(zip(values, names, strict=False))

    # -- control flow -----------------------------------------------------------------------------
    def _for(self, op: Operation, depth: int) -> None:
        lb, ub, step, *inits = op.operands
        results = list(op.results)
        result_names = self._pick(results)
        body = op.regions[0].blocks[0]
        iv, *iter_args = list(body.arguments)
        bounds = self._bounds(lb, ub, step)
        kind = "unroll" if "dsl.kind" in op.attributes and \
            ir.StringAttr(op.attributes["dsl.kind"]).value == "unroll" else "range"
        init_text = ", ".join(self.exprs.text(v) for v in inits) + ("," if len(inits) == 1 else "")
        self.namer.push()
        iv_name = self._define([iv])[0]
        if iter_args:
            arg_names = self._define(iter_args)
            inner = ", ".join(arg_names) + ("," if len(arg_names) == 1 else "")
            header = f"for {iv_name}, ({inner}) in pl.{kind}({bounds}, init_values=({init_text})):"
        else:
            header = f"for {iv_name} in pl.{kind}({bounds}):"
        self._emit(depth, header)
        self._block(body, depth + 1, ", ".join(result_names))
        self.namer.pop()
        self._commit(results, result_names)

    def _bounds(self, lb: Value, ub: Value, step: Value) -> str:
        texts = [self.exprs.text(v, INDEX) for v in (lb, ub, step)]
        trivial_start = self.exprs._is_const(lb) and texts[0] == "0"
        trivial_step = self.exprs._is_const(step) and texts[2] == "1"
        if trivial_start and trivial_step:
            return texts[1]
        return ", ".join(texts[:2] if trivial_step else texts)

    def _if(self, op: Operation, depth: int, names: list[str] | None = None,
            keyword: str = "if") -> None:
        results = list(op.results)
        names = names if names is not None else self._pick(results)
        targets = ", ".join(names)
        self._emit(depth, f"{keyword} {self.exprs.text(op.operands[0])}:")
        self._branch(op.regions[0].blocks[0], depth, targets)
        else_blocks = list(op.regions[1].blocks)
        if else_blocks:
            plan = BlockPlan(else_blocks[0], self.info.names, self.type_of, set(self.params))
            inner = _elif(plan, results)
            if inner is not None:
                self.exprs.inlined |= plan.inlined
                self._if(inner, depth, names, "elif")
            elif results or len(plan.statements) > 1:
                self._emit(depth, "else:")
                self._branch(else_blocks[0], depth, targets)
        self._commit(results, names)

    def _branch(self, block: object, depth: int, targets: str) -> None:
        self.namer.push()
        self._block(block, depth + 1, targets)
        self.namer.pop()

    def _yield(self, op: Operation, depth: int, targets: str) -> None:
        if not op.operands:
            return
        parent = op.parent
        if parent.name == "scf.for":
            implied: list[DType | None] = [self.type_of(r).dtype for r in parent.results]
        else:
            implied = [None for _ in op.operands]
        texts = [self.exprs.text(v, None if isinstance(self.type_of(v), TensorType) else d)
                 for v, d in zip(op.operands, implied, strict=True)]
        values = ", ".join(texts)
        self._emit(depth, f"{targets} = pl.yield_({values})")

    def _return(self, op: Operation, depth: int) -> None:
        if op.operands:
            self._emit(depth, "return " + ", ".join(self.exprs.text(v) for v in op.operands))


def _elif(plan: BlockPlan, results: list[Value]) -> Operation | None:
    """The nested if of an else block that only forwards its results (an ``elif``)."""
    ops = plan.statements
    if len(ops) != 2 or ops[0].name != "scf.if" or ops[1].name != "scf.yield":
        return None
    inner = ops[0]
    forwarded = list(ops[1].operands) == list(inner.results)
    return inner if forwarded and len(inner.results) == len(results) and results else None


def _anonymous(t: PlType) -> bool:
    return isinstance(t, TensorType) and any(
        isinstance(d, Dynamic) and d.name is None for d in t.shape or ())
