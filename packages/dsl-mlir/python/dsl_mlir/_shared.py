"""Long-lived contexts, one per thread, and the pass managers built on them.

A fresh context costs 1.5-2.5 ms (every registered dialect is loaded), and a new pass
manager initializes each of its passes again on its first run (the canonicalizers
collect the patterns of every loaded op): a few milliseconds of each small compile.
``api.shared_context`` hands out this thread's context instead, and ``api.lower`` keeps
the pass managers it parsed on that context for the next module.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ._lib import ir, passmanager

#: How many times a thread's shared context is handed out before a new one replaces it:
#: a context keeps every type and attribute it ever made (names, shapes, constants,
#: source locations), so a process compiling kernels for hours would grow without bound.
#: Modules and engines made on a replaced context keep it alive while they live.
SHARED_CONTEXT_USES = 256

#: Pass managers kept per shared context (one per pipeline text: pipeline and options).
MAX_CACHED_MANAGERS = 16


class _Shared:
    """A thread's context and the pass managers parsed on it."""

    __slots__ = ("context", "managers", "uses")

    def __init__(self, context: ir.Context) -> None:
        self.context = context
        self.uses = 0
        self.managers: dict[str, passmanager.PassManager] = {}

    def __del__(self) -> None:
        # A pass manager does not keep its context alive: drop them before the context.
        self.managers.clear()


_LOCAL = threading.local()


def _current() -> _Shared | None:
    shared: _Shared | None = getattr(_LOCAL, "shared", None)
    return shared


def shared_context(make: Callable[[], ir.Context]) -> ir.Context:
    """This thread's shared context (``make()`` builds the first one, and a new one after
    ``SHARED_CONTEXT_USES`` hand-outs)."""
    shared = _current()
    if shared is None or shared.uses >= SHARED_CONTEXT_USES:
        shared = _Shared(make())
        _LOCAL.shared = shared  # the replaced one (if any) goes: its managers, then its context
    shared.uses += 1
    return shared.context


def pass_manager(ctx: ir.Context, text: str,
                 parse: Callable[[], passmanager.PassManager]) -> passmanager.PassManager:
    """The pass manager of pipeline ``text`` on ``ctx``: kept from an earlier call when
    ``ctx`` is this thread's shared context, else ``parse()``."""
    shared = _current()
    if shared is None or shared.context is not ctx:
        return parse()
    manager = shared.managers.get(text)
    if manager is None:
        manager = parse()
        if len(shared.managers) >= MAX_CACHED_MANAGERS:
            shared.managers.pop(next(iter(shared.managers)))
        shared.managers[text] = manager
    return manager


def forget_pass_manager(ctx: ir.Context, text: str) -> None:
    """Drop the kept pass manager of ``text`` (after a failed run: the next module gets a
    freshly parsed one, whatever state the failure left in its passes)."""
    shared = _current()
    if shared is not None and shared.context is ctx:
        shared.managers.pop(text, None)
