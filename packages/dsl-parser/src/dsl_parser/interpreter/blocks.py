"""Thread blocks under the interpreter: shared memory and barriers.

Threads of a block run one after another, unless the kernel calls ``pl.barrier``: then
each thread of the block is a Python thread and the barrier a real one (a
:class:`BlockBarrier`), so writes to shared memory before it are seen after it, as on a
GPU. ``pl.shared`` gives every thread of a block the same tile per call site.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..ops.numerics import np, numpy_dtype
from ..types import DType
from . import state
from .values import ITensor


class BlockBarrier:
    """A barrier for the threads of a block that still run: a thread that has returned
    no longer counts (so the others do not wait for it forever)."""

    def __init__(self, threads: int) -> None:
        self._cond = threading.Condition()
        self._live = threads
        self._arrived = 0
        self._generation = 0
        self._broken = False

    def wait(self) -> None:
        with self._cond:
            if self._broken:
                raise threading.BrokenBarrierError
            generation = self._generation
            self._arrived += 1
            if self._arrived >= self._live:
                self._release()
                return
            while generation == self._generation and not self._broken:
                self._cond.wait()
            if self._broken:
                raise threading.BrokenBarrierError

    def leave(self) -> None:
        """A thread finished: the others no longer wait for it."""
        with self._cond:
            self._live -= 1
            if self._arrived and self._arrived >= self._live:
                self._release()

    def abort(self) -> None:
        with self._cond:
            self._broken = True
            self._cond.notify_all()

    def _release(self) -> None:
        self._arrived = 0
        self._generation += 1
        self._cond.notify_all()


class Block:
    """What the threads of one block share."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.tiles: dict[tuple[Any, int], ITensor] = {}
        self.lock = threading.Lock()
        self.barrier = BlockBarrier(threads)
        self.exchange: dict[int, Any] = {}

    def shuffle(self, me: int, value: Any, source: int | None) -> Any:
        """Every thread publishes ``value``; each reads thread ``source``'s (its own when
        None or outside the block). Two barriers: all written, then all read."""
        self.exchange[me] = value
        self.barrier.wait()
        found = self.exchange.get(source, value) if source is not None else value
        self.barrier.wait()
        return found

    def tile(self, shape: list[int], dtype: DType) -> ITensor:
        frame = state.user_frame()
        key = (frame.f_code, frame.f_lasti) if frame is not None else (None, 0)
        with self.lock:
            found = self.tiles.get(key)
            if found is None:
                found = self.tiles[key] = ITensor(np().zeros(shape, numpy_dtype(dtype)), dtype)
            return found


#: Builtins that synchronize the threads of a block (or of a warp).
SYNCHRONIZING = frozenset({"barrier", "shuffle_xor", "shuffle_down", "shuffle_up",
                           "shuffle_idx", "warp_sum", "warp_max", "warp_min"})


def synchronizes(fn: Any) -> bool:
    """Whether the kernel ``fn`` calls ``pl.barrier`` or a warp shuffle (its code names
    one of them)."""
    return not SYNCHRONIZING.isdisjoint(fn.__code__.co_names)


def run_block(fn: Any, values: list[Any], dynamic: dict[str, int],
              block_id: tuple[int, int, int], block: tuple[int, int, int],
              grid: tuple[int, int, int], run: Callable[..., Any]) -> None:
    """The threads of one block: in order, or as Python threads when the kernel uses
    barriers (the first error of a thread is raised after all have stopped)."""
    shared = Block(block[0] * block[1] * block[2])
    ids = [(tx, ty, tz) for tz in range(block[2]) for ty in range(block[1])
           for tx in range(block[0])]

    def frame(tid: tuple[int, int, int]) -> state.Frame:
        thread = state.Thread(block_id, tid, block, grid)
        return state.Frame(dynamic=dict(dynamic), thread=thread, kernel=True, block=shared)

    if not synchronizes(fn):
        for tid in ids:
            run(fn, values, frame(tid))
        return
    errors: list[BaseException] = []

    def work(tid: tuple[int, int, int]) -> None:
        try:
            run(fn, values, frame(tid))
        except threading.BrokenBarrierError:
            pass  # another thread failed first
        except BaseException as err:  # re-raised in the launching thread
            errors.append(err)
            shared.barrier.abort()
        finally:
            shared.barrier.leave()

    threads = [threading.Thread(target=work, args=(tid,), daemon=True) for tid in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
