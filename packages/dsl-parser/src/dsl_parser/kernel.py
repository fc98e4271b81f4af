"""``@pl.kernel``: GPU-style kernels, parsed when a host function launches them.

A ``Kernel`` only holds the Python function (or, in text parsing, its ``def``);
nothing is parsed at decoration time. A host function's ``k(args).launch(grid=...,
block=..., stream=...)`` parses ``k`` for the types and compile-time values of
that launch into a ``gpu.func`` of its module (see ``dsl_parser.parser.kernel_parser``).
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .function import Signature

#: The symbol of the ``gpu.module`` that holds a module's kernels.
GPU_MODULE = "dsl_kernels"

if TYPE_CHECKING:
    from .parser.source import SourceTracker


@dataclass(frozen=True)
class KernelText:
    """A kernel defined in DSL text: its ``def``, the text's source and module globals."""

    node: ast.FunctionDef
    src: SourceTracker
    globals: Mapping[str, object]


class Kernel:
    """A ``@pl.kernel`` function.

    ``name`` is the Python name, ``fn`` the Python function (``None`` for a kernel
    defined in text parsed with ``pl.parse``), ``strict_ssa`` the SSA mode of its body
    (kernels default to ``False``: loop-carried scalars and values assigned in both
    branches of an ``if`` need no ``pl.yield_``). A kernel cannot be called from
    Python: a host function launches it with ``k(args).launch(grid=..., block=...)``.
    """

    def __init__(self, fn: Callable[..., Any] | None, *, strict_ssa: bool = False,
                 name: str | None = None, text: KernelText | None = None) -> None:
        self.fn = fn
        self.name: str = name or str(getattr(fn, "__name__", "kernel"))
        self.strict_ssa = strict_ssa
        self.text = text
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn

    def __call__(self, *args: object, **kwargs: object) -> Any:
        from .markers import interpreter

        handler = interpreter()
        if handler is not None:  # a host function run by the reference interpreter
            return handler(self, args, kwargs)
        raise RuntimeError(
            f"kernel '{self.name}' cannot be called from Python: kernels must be launched "
            f"from a @jit (or @pl.function) host function, as "
            f"{self.name}(...).launch(grid=..., block=...)")

    def _params(self) -> list[str]:
        if self.text is not None:
            args = self.text.node.args
            return [a.arg + (f": {ast.unparse(a.annotation)}" if a.annotation else "")
                    for a in args.posonlyargs + args.args]
        if self.fn is None:
            return []
        try:
            params = inspect.signature(self.fn).parameters.values()
        except (TypeError, ValueError):
            return []
        return [p.name + ("" if p.annotation is inspect.Parameter.empty
                          else f": {_annotation_text(p.annotation)}") for p in params]

    def _where(self) -> str:
        if self.text is not None:
            return f"{self.text.src.filename}:{self.text.node.lineno + self.text.src.line_offset}"
        code = getattr(self.fn, "__code__", None)
        return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else "?"

    def __repr__(self) -> str:
        return f"<pl.kernel {self.name}({', '.join(self._params())}) at {self._where()}>"


def _annotation_text(annotation: object) -> str:
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type):
        module = getattr(annotation, "__module__", "")
        prefix = "dc." if module.startswith("dsl_core") else ""
        return prefix + annotation.__qualname__
    return str(annotation)


@dataclass(frozen=True)
class KernelSpecialization:
    """One ``gpu.func`` of a module: a kernel parsed for the types and compile-time
    values of a launch.

    ``symbol`` is the ``gpu.func`` name inside ``gpu.module @dsl_kernels`` (the kernel's
    name, mangled with its Constexpr values and specialized tensor types, e.g.
    ``vadd_k__c4``); ``signature`` its parameters (struct leaves flattened, Constexpr
    parameters removed); ``constants`` the Constexpr values by parameter name;
    ``definition`` the ``Kernel`` object.
    """

    kernel: str
    symbol: str
    signature: Signature
    constants: dict[str, object] = field(default_factory=dict)
    #: The ``Kernel`` it was parsed from (its ``fn`` is the Python function, for cache keys).
    definition: Kernel | None = field(default=None, compare=False, repr=False)
