"""IRDL dialects of extensions: validated once, loaded into each context that needs them.

dsl-mlir's contexts register its own dialects only; an extension's dialect is
loaded into a context the first time an op of it is built there (by its op
rule, through ``ensure_dialect``) or by ``prepare_context`` before parsing MLIR
text that holds its ops. Loading a dialect twice into one context, or under
the name of an existing dialect, would abort MLIR: both are checked here first.
"""

from __future__ import annotations

import threading

from .._mlir import Context, ir, irdl, new_context
from .registry import DIALECTS

_LOCK = threading.Lock()


def _loaded(ctx: Context, name: str) -> bool:
    try:
        ctx.dialects[name]
    except IndexError:
        return False
    return True


def _defined_dialects(module: object) -> list[str]:
    names = []
    for op in module.body.operations:  # type: ignore[attr-defined]
        op = op.operation
        if op.name != "irdl.dialect":
            raise ValueError(f"an IRDL module may only hold irdl.dialect ops, found {op.name}")
        names.append(ir.StringAttr(op.attributes["sym_name"]).value)
    return names


def validate(name: str, text: str) -> None:
    """ValueError unless ``text`` defines exactly the IRDL dialect ``name`` (a new name)."""
    ctx = new_context()
    if _loaded(ctx, name):
        raise ValueError(f"dialect {name!r} already exists in dsl-mlir; choose another name")
    try:
        module = ir.Module.parse(text, ctx)
    except ir.MLIRError as err:
        raise ValueError(f"invalid IRDL for dialect {name!r}: {err}") from None
    defined = _defined_dialects(module)
    if defined != [name]:
        raise ValueError(f"the IRDL text of dialect {name!r} defines {defined}, not [{name!r}]")
    with ctx:
        irdl().load_dialects(module)


def ensure_dialect(ctx: Context, name: str) -> None:
    """Load the registered dialect ``name`` into ``ctx`` unless it is there already."""
    with _LOCK:
        if _loaded(ctx, name):
            return
        dialect = DIALECTS.get(name)
        if dialect is None:
            raise LookupError(f"no extension registers the dialect {name!r}")
        with ctx:
            irdl().load_dialects(ir.Module.parse(dialect.irdl, ctx))


def prepare_context(ctx: Context) -> Context:
    """Load every registered extension dialect into ``ctx`` (before parsing MLIR text that
    uses them, e.g. ``dsl_mlir.parse_module(text, prepare_context(ctx))``); returns ``ctx``."""
    from .registry import load

    load()
    for name in list(DIALECTS):
        ensure_dialect(ctx, name)
    return ctx
