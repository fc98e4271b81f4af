"""Apply the extensions' Python lowering rules to a module, before dsl-mlir's pipeline.

The driver is a table lookup, not a pattern engine: it walks the module, and
for every op whose name has a rule calls the rule with the insertion point just
before the op and the op's location active (so what the rule builds points at
the user's line), replaces the op's results with the values the rule returns
and erases it. It repeats while rules produce further extension ops (a rule may
lower to another extension op), up to ``MAX_ROUNDS``.

``dsl_runtime`` calls ``lower_extensions`` on every module it compiles; a user
of dsl-parser and dsl-mlir alone calls it before ``dsl_mlir.lower``.
"""

from __future__ import annotations

from .._mlir import Diagnostic, MLIRDiagnosticError, Module, Operation, ir, parse_module
from .registry import CORE_DIALECTS, LOWERINGS, Lowering, load

#: How many times lowering may produce further extension ops.
MAX_ROUNDS = 8


def _pending(module: Module) -> list[Operation]:
    found: list[Operation] = []

    def visit(op: Operation) -> object:
        if op.name in LOWERINGS:
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _foreign_ops(module: Module) -> bool:
    """Whether the module has an op outside dsl-mlir's own dialects."""
    found = False

    def visit(op: Operation) -> object:
        nonlocal found
        if op.name.split(".", 1)[0] not in CORE_DIALECTS:
            found = True
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _file_location(loc: object) -> tuple[str | None, int | None, int | None]:
    """(file, line, column) of a FileLineColLoc (or of the first one a fused loc holds)."""
    if loc.is_a_file():  # type: ignore[attr-defined]
        return str(loc.filename), int(loc.start_line), int(loc.start_col)  # type: ignore[attr-defined]
    if loc.is_a_fused():  # type: ignore[attr-defined]
        for inner in loc.locations:  # type: ignore[attr-defined]
            found = _file_location(inner)
            if found[0] is not None:
                return found
    if loc.is_a_name():  # type: ignore[attr-defined]
        return _file_location(loc.child_loc)  # type: ignore[attr-defined]
    return None, None, None


def _failure(op: Operation, rule: Lowering, message: str) -> MLIRDiagnosticError:
    filename, line, column = _file_location(op.location)
    text = f"extension {rule.extension!r} could not lower {op.name}: {message}"
    diagnostic = Diagnostic("error", text, str(op.location), filename, line, column)
    return MLIRDiagnosticError(f"lowering extension op {op.name} failed", [diagnostic])


def _apply(op: Operation) -> None:
    rule = LOWERINGS[op.name]
    with ir.InsertionPoint(op), op.location:
        try:
            values = list(rule.fn(op))
        except MLIRDiagnosticError:
            raise
        except Exception as exc:
            raise _failure(op, rule, f"{type(exc).__name__}: {exc}") from exc
    results = list(op.results)
    if [v.type for v in values] != [r.type for r in results]:
        got = ", ".join(str(v.type) for v in values)
        want = ", ".join(str(r.type) for r in results)
        raise _failure(op, rule, f"the rule returned ({got}) for results ({want})")
    for old, new in zip(results, values, strict=True):
        old.replace_all_uses_with(new)
    op.erase()


def lower_extensions(module: Module) -> Module:
    """``module`` with every extension op lowered by its rule.

    Returns ``module`` itself when it holds no extension op, else a lowered copy
    (the input is left untouched). Rule failures raise ``MLIRDiagnosticError``
    at the op's location (``Function.error_from_mlir`` maps it to the user's line).
    """
    if not _foreign_ops(module):
        return module  # dsl-mlir's dialects only: no rule can apply, nothing to discover
    load()
    if not LOWERINGS or not _pending(module):
        return module
    module = parse_module(module.operation.get_asm(enable_debug_info=True), module.context)
    for _ in range(MAX_ROUNDS):
        pending = _pending(module)
        if not pending:
            return module
        for op in pending:
            _apply(op)
    names = sorted({op.name for op in _pending(module)})
    raise MLIRDiagnosticError(f"extension lowering did not finish after {MAX_ROUNDS} rounds; "
                              f"left: {', '.join(names)}", [])
