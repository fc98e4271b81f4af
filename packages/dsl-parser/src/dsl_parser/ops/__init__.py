"""The op table: every ``pl.<op>`` is one ``OpRule`` entry.

An entry gives the op's parameters (how each argument is checked), its type
inference, how it emits MLIR and how the printer spells it back. Adding an op
(``pl.exp``, a reduction, ...) is adding an entry to ``OPS``: the language
namespace, the parser and the printer all read this table.

Each op family has its own module holding all of that family's rules, its numpy
reference rule (``OpRule.reference``, what ``dsl_parser.interpreter`` runs) included (mirroring
``lib/Conversion/DslToLinalg/`` of dsl-mlir): ``elementwise``, ``reductions``,
``shape``, ``creation``, ``matmul``, ``scalars``; ``rule`` defines ``OpRule`` and
``common`` the checks they share.
"""

from __future__ import annotations

from . import creation, elementwise, matmul, reductions, scalars, shape
from .common import broadcast_shapes
from .elementwise import PREDICATES
from .numerics import UndefinedBehaviorError
from .rule import REQUIRED, Arg, OpCall, OpContext, OpRule, Param, RefCall, Spelling


def _table(*rules: OpRule) -> dict[str, OpRule]:
    for rule in rules:
        _require_reference(rule)
    return {rule.name: rule for rule in rules}


def _require_reference(rule: OpRule) -> None:
    """A ``pl`` op must say what it means: its numpy reference rule (the interpreter's)."""
    if rule.namespace == "pl" and rule.reference is None:
        raise ValueError(f"{rule.qualname} has no reference rule (OpRule.reference): every pl "
                         "op gives its meaning in numpy for the reference interpreter")


OPS: dict[str, OpRule] = _table(
    *elementwise.RULES, *reductions.RULES, *shape.RULES, *creation.RULES, *matmul.RULES,
    *scalars.RULES,
)

#: Ops of extension namespaces by qualified name (``"dx.cube"``); see dsl_parser.extensions.
EXTENSION_OPS: dict[str, OpRule] = {}

#: Printer dispatch: MLIR op name -> rule (of either table).
BY_MLIR_NAME: dict[str, OpRule] = {rule.mlir_name: rule for rule in OPS.values()
                                   if rule.mlir_name is not None}


def lookup(key: str) -> OpRule:
    """The rule of ``pl.<key>`` or of the extension op ``key`` (``"dx.cube"``)."""
    rule = OPS.get(key)
    return rule if rule is not None else EXTENSION_OPS[key]


def register(rule: OpRule) -> None:
    """Add ``pl.<rule.name>`` to ``OPS`` (or ``<namespace>.<name>`` to ``EXTENSION_OPS``).

    The parser, the printer and the namespace pick it up at once. Downstream
    packages normally register through ``dsl_parser.extensions``."""
    _require_reference(rule)
    table = OPS if rule.namespace == "pl" else EXTENSION_OPS
    if rule.key in table or (rule.mlir_name is not None and rule.mlir_name in BY_MLIR_NAME):
        raise ValueError(f"{rule.qualname} / {rule.mlir_name} is already registered")
    table[rule.key] = rule
    if rule.mlir_name is not None:
        BY_MLIR_NAME[rule.mlir_name] = rule


def unregister(name: str) -> None:
    """Remove an op added with ``register`` (``name`` is its key: ``"empty"``, ``"dx.cube"``)."""
    rule = OPS.pop(name) if name in OPS else EXTENSION_OPS.pop(name)
    if rule.mlir_name is not None and BY_MLIR_NAME.get(rule.mlir_name) is rule:
        del BY_MLIR_NAME[rule.mlir_name]


def unknown_op_hint(name: str, namespace: str = "pl") -> str | None:
    """'did you mean pl.matmul?' for a misspelled op name (of ``namespace``)."""
    import difflib

    if namespace == "pl":
        names = [*OPS, "range", "unroll", "yield_"]
    else:
        names = [rule.name for rule in EXTENSION_OPS.values() if rule.namespace == namespace]
    close = difflib.get_close_matches(name, names, n=1)
    return f"did you mean {namespace}.{close[0]}?" if close else None


__all__ = [
    "BY_MLIR_NAME",
    "EXTENSION_OPS",
    "OPS",
    "PREDICATES",
    "REQUIRED",
    "Arg",
    "OpCall",
    "OpContext",
    "OpRule",
    "Param",
    "RefCall",
    "Spelling",
    "UndefinedBehaviorError",
    "broadcast_shapes",
    "lookup",
    "register",
    "unknown_op_hint",
    "unregister",
]
