"""The objects behind ``pl.add``, ``pl.range``, ``pl.yield_``...: markers the parser
recognizes. Calling one outside a DSL function is an error, not a computation, except
while the reference interpreter (``dsl_parser.interpreter``) runs a DSL function in
this thread: then the call is its ``pl.*`` operation."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

_active = threading.local()

if TYPE_CHECKING:
    class DslValue(Any):  # type: ignore[misc]
        """What ``pl.add(...)``, ``pl.range(...)``... give, to a type checker: a value of
        the DSL (a tensor, a scalar, a loop's iterator) that is accepted wherever a type is
        expected (``return pl.add(x, y)`` from a function annotated ``-> pl.Tensor[...]``)
        and whose attributes and operations are unchecked. The parser checks it."""
else:
    DslValue = object  # only named in annotations

#: The interpreter's entry point: (builtin or Kernel, args, kwargs) -> result.
Handler = Callable[[Any, tuple[object, ...], dict[str, object]], "DslValue"]


def set_interpreter(handler: Handler | None) -> Handler | None:
    """Install ``handler`` for this thread (``None`` removes it); returns the previous one."""
    previous: Handler | None = getattr(_active, "handler", None)
    _active.handler = handler
    return previous


def interpreter() -> Handler | None:
    """The interpreter running in this thread, if any."""
    return getattr(_active, "handler", None)


class DslBuiltin:
    """A name of the ``pl`` namespace that only has a meaning inside a DSL function."""

    __slots__ = ("doc", "name")

    def __init__(self, name: str, doc: str = "") -> None:
        self.name = name
        self.doc = doc

    def __call__(self, *args: object, **kwargs: object) -> DslValue:
        handler: Handler | None = getattr(_active, "handler", None)
        if handler is not None:
            return handler(self, args, kwargs)
        raise RuntimeError(
            f"{self!r}(...) only has a meaning inside a @pl.function or @pl.program; "
            "it is read by the parser, not executed")

    def __repr__(self) -> str:  # "pl.add"; an extension's op key is already qualified ("dx.cube")
        return self.name if "." in self.name else f"pl.{self.name}"


class OpBuiltin(DslBuiltin):
    """A ``pl.<op>`` of ``dsl_parser.ops.OPS``, or an extension's ``dx.<op>`` of ``EXTENSION_OPS``;
    ``name`` is the op's key in the table."""

    __slots__ = ()


class ControlBuiltin(DslBuiltin):
    """``pl.range``, ``pl.unroll`` and ``pl.yield_``: control-flow syntax."""

    __slots__ = ()


class KernelBuiltin(DslBuiltin):
    """``pl.block_id``, ``pl.thread_id``, ``pl.block_dim``, ``pl.grid_dim``: the position of
    the running thread, only meaningful inside a ``@pl.kernel`` function."""

    __slots__ = ()

    def __call__(self, *args: object, **kwargs: object) -> DslValue:
        handler: Handler | None = getattr(_active, "handler", None)
        if handler is not None:
            return handler(self, args, kwargs)
        raise RuntimeError(
            f"{self!r}(...) only has a meaning inside a @pl.kernel function: kernels are not "
            "run as Python, they must be launched from a @jit (or @pl.function) host function "
            "with kernel(...).launch(grid=..., block=...)")


class AtomicBuiltin(DslBuiltin):
    """``pl.atomic_add``, ``pl.atomic_min``... : read-modify-write of one tensor element
    inside a ``@pl.kernel``, returning the element's old value."""

    __slots__ = ()


class BlockBuiltin(DslBuiltin):
    """``pl.shared`` and ``pl.barrier``: memory and synchronization of a thread block,
    inside a ``@pl.kernel``."""

    __slots__ = ()


class WarpBuiltin(DslBuiltin):
    """``pl.lane_id``, ``pl.warp_size``, ``pl.shuffle_*`` and ``pl.warp_*`` reductions:
    the 32 threads of a warp, inside a ``@pl.kernel``."""

    __slots__ = ()


class VectorBuiltin(DslBuiltin):
    """``pl.load`` / ``pl.store``: several contiguous elements of a tensor at once, inside
    a ``@pl.kernel``."""

    __slots__ = ()


class ScalarBuiltin(DslBuiltin):
    """``pl.ceil_div``: scalar arithmetic with no Python operator. On Python ints it
    computes (as the parser folds it); on anything else it only has a meaning in DSL code."""

    __slots__ = ()

    def __call__(self, *args: object, **kwargs: object) -> DslValue:
        handler: Handler | None = getattr(_active, "handler", None)
        if handler is not None:
            return handler(self, args, kwargs)
        if self.name == "ceil_div" and not kwargs and len(args) == 2 and all(
                isinstance(a, int) and not isinstance(a, bool) for a in args):
            a, b = args
            assert isinstance(a, int) and isinstance(b, int)
            return -(-a // b)  # type: ignore[return-value]  # an int is a DSL value
        return super().__call__(*args, **kwargs)
