"""``@autotune``: pick the fastest of several Constexpr configurations, per key.

Triton's convention::

    @autotune(configs=[{"TILE": 8}, {"TILE": 16}, {"TILE": 32}], key=["a", "b"])
    @jit
    def matmul(a, b, c, TILE: dc.Constexpr[int]): ...

    matmul(a, b, c)          # TILE chosen for a's and b's shapes and dtypes

``configs`` are values of Constexpr parameters of the function (the caller no longer
passes them); ``key`` names the arguments whose shapes and dtypes (arrays) or values
(anything else) select a tuning. The first call for a key runs every config
(``warmup`` calls, which compile it, then the median of ``rep`` timed calls, on the
backend in use), keeps the fastest, and records the choice in the disk cache beside the
compiled code, so a warm process tunes nothing. A config that fails (to compile or to
run) is skipped with a debug log line; if all fail, the last error is raised.

Tuning runs the function several times on the caller's arrays. Arguments named in
``reset_to_zero`` are zeroed before every run and ``restore_value`` ones restored to
their values at the call, so that the call's own run (with the chosen config, last)
sees the inputs it was given.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from . import cache, keys
from .jit import JitFunction, implementation, jit

log = logging.getLogger("dsl_runtime.tuning")

Config = Mapping[str, Any]


def _measure(run: Callable[[], Any], warmup: int, rep: int) -> float:
    """Milliseconds per call of ``run``: the median of ``rep`` calls after ``warmup``."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(rep):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1e3)
    import statistics

    return statistics.median(samples)


class Autotuner:
    """A @jit function with its Constexpr configurations chosen per key (see the module)."""

    def __init__(self, fn: Any, configs: Sequence[Config], key: Sequence[str], *,
                 warmup: int = 1, rep: int = 5, reset_to_zero: Sequence[str] = (),
                 restore_value: Sequence[str] = ()) -> None:
        self.fn = fn if implementation(fn) is not None else jit(fn)
        impl = implementation(self.fn)
        assert isinstance(impl, JitFunction)
        self.impl = impl
        self.configs = [dict(c) for c in configs]
        self.key = list(key)
        self.warmup, self.rep = max(0, int(warmup)), max(1, int(rep))
        self.reset_to_zero, self.restore_value = list(reset_to_zero), list(restore_value)
        self._check()
        tuned = set(self.configs[0])
        self.params = [s.name for s in impl.specs if s.name not in tuned]
        #: key -> the chosen config; key -> [(config, ms or None)] of the tunings run here
        self.choices: dict[Any, dict[str, Any]] = {}  # key: ((parameter, its signature), ...)
        self.timings: dict[Hashable, list[tuple[dict[str, Any], float | None]]] = {}
        self.__name__ = impl.name
        self.__doc__ = getattr(impl._fn, "__doc__", None)

    def _check(self) -> None:
        name = self.impl.name
        if not self.configs or not all(isinstance(c, dict) for c in self.configs):
            raise TypeError(f"autotune({name}): configs must be a non-empty list of dicts")
        constexprs = {s.name for s in self.impl.specs if s.kind == "constexpr"}
        names = set(self.configs[0])
        for c in self.configs:
            if set(c) != names:
                raise TypeError(f"autotune({name}): every config must set the same parameters "
                                f"({', '.join(sorted(names))}), got {sorted(c)}")
        unknown = sorted(names - constexprs)
        if unknown:
            raise TypeError(f"autotune({name}): {', '.join(unknown)} is not a Constexpr "
                            f"parameter of {name} (its Constexpr parameters: "
                            f"{', '.join(sorted(constexprs)) or 'none'})")
        params = {s.name for s in self.impl.specs}
        for what, items in (("key", self.key), ("reset_to_zero", self.reset_to_zero),
                            ("restore_value", self.restore_value)):
            bad = sorted(set(items) - (params - names))
            if bad:
                raise TypeError(f"autotune({name}): {what} names {', '.join(bad)}, which is "
                                f"not an argument of {name} the caller passes")

    # -- calls ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = self._bind(args, kwargs)
        k = self._key_of(bound)
        config = self.choices.get(k)
        if config is None:
            config = self._choose(k, args, kwargs, bound)
        return self.fn(*args, **kwargs, **config)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        if len(args) > len(self.params):
            raise TypeError(f"{self.__name__}() takes {len(self.params)} arguments (the "
                            f"tuned ones are chosen by autotune), got {len(args)}")
        bound = dict(zip(self.params, args))
        for name, value in kwargs.items():
            if name not in self.params:
                raise TypeError(f"{self.__name__}() got an unexpected argument '{name}'")
            bound[name] = value
        return bound

    def _key_of(self, bound: Mapping[str, Any]) -> Hashable:
        parts = []
        for name in self.key:
            if name not in bound:
                raise TypeError(f"{self.__name__}() missing argument '{name}'")
            value = bound[name]
            shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
            parts.append((name, tuple(shape), str(dtype)) if shape is not None
                         else (name, repr(value)))
        return tuple(parts)

    # -- tuning --------------------------------------------------------------------------
    def _choose(self, k: Hashable, args: tuple[Any, ...], kwargs: dict[str, Any],
                bound: Mapping[str, Any]) -> dict[str, Any]:
        record = self._record_key(k)
        config = self._stored(record) if record is not None else None
        if config is not None:
            log.info("%s: recorded choice for %s -> %s", self.__name__, k, config)
        if config is None:
            config = self._tune(k, args, kwargs, bound)
            if record is not None:
                cache.store_record(record, json.dumps({"config": config}).encode())
        self.choices[k] = config
        return config

    def _record_key(self, k: Hashable) -> str | None:
        """The disk record of a choice: the function's identity, options, configs, key."""
        identity = self.impl._identity if self.impl._identity is not False else None
        if identity is None:
            identity = keys.function_identity(self.impl._fn) if self.impl._parsed is None \
                else keys.module_identity(self.impl._parsed)
        if identity is None or not cache.enabled():
            return None
        return keys.digest("autotune", identity, self.impl.options.key(),
                           repr(self.configs), k)

    def _stored(self, record: str) -> dict[str, Any] | None:
        """The recorded choice, when it is one of this tuner's configs (else None)."""
        data = cache.load_record(record)
        if data is None:
            return None
        try:
            config = json.loads(data)["config"]
        except (ValueError, KeyError, TypeError):
            return None
        return dict(config) if config in self.configs else None

    def _tune(self, k: Hashable, args: tuple[Any, ...], kwargs: dict[str, Any],
              bound: Mapping[str, Any]) -> dict[str, Any]:
        saved = {n: bound[n].copy() for n in self.restore_value}
        results: list[tuple[dict[str, Any], float | None]] = []
        error: BaseException | None = None

        def prepare() -> None:
            for n in self.reset_to_zero:
                bound[n][...] = 0
            for n, value in saved.items():
                bound[n][...] = value

        for config in self.configs:
            def run(config: dict[str, Any] = config) -> Any:
                prepare()
                return self.fn(*args, **kwargs, **config)

            try:
                ms = _measure(run, self.warmup, self.rep)
            except Exception as err:  # a config that does not compile or run
                log.debug("autotune %s: config %s failed: %s: %s", self.__name__, config,
                          type(err).__name__, err)
                results.append((config, None))
                error = err
                continue
            results.append((config, ms))
        prepare()
        self.timings[k] = results
        timed = [(ms, i) for i, (_, ms) in enumerate(results) if ms is not None]
        if not timed:
            assert error is not None
            raise error
        best = self.configs[min(timed)[1]]
        log.info("tuned %s for %s -> %s (%s)", self.__name__, k, best,
                 ", ".join("failed" if ms is None else f"{ms:.3f} ms" for _, ms in results))
        return dict(best)


def autotune(configs: Sequence[Config], key: Sequence[str], *, warmup: int = 1, rep: int = 5,
             reset_to_zero: Sequence[str] = (), restore_value: Sequence[str] = ()
             ) -> Callable[[Any], Autotuner]:
    """Decorator: ``@autotune(configs=[{...}, ...], key=[...])`` over a ``@jit`` function
    (or a plain DSL function, jit-compiled with the default options); see the module."""
    def wrap(fn: Any) -> Autotuner:
        return Autotuner(fn, configs, key, warmup=warmup, rep=rep, reset_to_zero=reset_to_zero,
                         restore_value=restore_value)

    return wrap


__all__ = ["Autotuner", "autotune"]
