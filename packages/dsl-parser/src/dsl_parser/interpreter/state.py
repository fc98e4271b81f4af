"""The running interpreter: where in the user's code it is, and what ``pl.*`` means now.

While a DSL function runs under the interpreter, the ``pl`` markers (``pl.add``,
``pl.range``, ``pl.thread_id``...) call ``dispatch`` here instead of raising: the
interpreter is active per thread (``markers.set_interpreter``).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any

_local = threading.local()

#: Code objects of functions compiled for the interpreter (their frames are the user's lines).
CODES: set[CodeType] = set()


@dataclass
class Thread:
    """The position of the kernel thread being run (x, y, z each)."""

    block_id: tuple[int, int, int]
    thread_id: tuple[int, int, int]
    block_dim: tuple[int, int, int]
    grid_dim: tuple[int, int, int]


@dataclass
class Frame:
    """One interpreted call: its dynamic-size bindings, kernel thread, open loops."""

    dynamic: dict[str, int] = field(default_factory=dict)
    thread: Thread | None = None
    loops: list[Any] = field(default_factory=list)
    kernel: bool = False
    #: What the threads of the running block share (``blocks.Block``), in kernels.
    block: Any = None


def frames() -> list[Frame]:
    stack = getattr(_local, "frames", None)
    if stack is None:
        stack = _local.frames = []
    return stack


def current() -> Frame:
    stack = frames()
    if not stack:
        raise RuntimeError("no DSL function is being interpreted")
    return stack[-1]


def user_frame() -> FrameType | None:
    """The innermost frame running interpreted DSL code."""
    f: FrameType | None = sys._getframe(1)
    while f is not None and f.f_code not in CODES:
        f = f.f_back
    return f


def where() -> str:
    """``file:line`` of the DSL statement being run (``?`` outside one)."""
    f = user_frame()
    return f"{f.f_code.co_filename}:{f.f_lineno}" if f is not None else "?"


def location() -> tuple[str, int]:
    f = user_frame()
    return (f.f_code.co_filename, f.f_lineno or 0) if f is not None else ("?", 0)


# Late-bound entry points (set by dsl_parser.interpreter.runtime, which imports the op
# machinery): kept as module attributes so that values.py stays import-light.
def op(name: str, args: tuple[object, ...], kwargs: dict[str, object] | None = None) -> Any:
    from .runtime import call_op_named

    return call_op_named(name, args, kwargs or {})


def subscript(tensor: Any, key: object) -> Any:
    from .runtime import subscript as impl

    return impl(tensor, key)


def store_element(tensor: Any, key: object, value: object) -> None:
    from .runtime import store_element as impl

    impl(tensor, key, value)


def iter_loops() -> Iterator[Any]:
    yield from reversed(current().loops)
