"""The per-function call plan of a function with struct or stream parameters.

The C dispatcher marshals arrays and numbers itself; a ``@dc.struct`` argument stands for
one slot per scalar leaf and a ``dc.Stream`` for a handle. For a function with a single
specialization, :func:`expander` generates (once) a Python function that turns the
call's arguments into the kernel's: ``expand(x, p) -> (x, p.a.value, p.b.value)``, with
an exact type check of each struct (anything unexpected raises TypeError, and the
general path then explains it). Field names are the struct's declared fields (Python
identifiers, checked again here), so the generated code holds no user text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dsl_core as dc

from .params import ParamSpec


def _leaf_exprs(cls: type, base: str) -> list[str]:
    out = []
    for f in dc.fields_of(cls):
        if f.constexpr:
            continue
        if not f.name.isidentifier():  # declared fields always are; never generate otherwise
            raise ValueError(f"struct {cls.__qualname__}: field name {f.name!r}")
        if getattr(f.value_type, "__dsl_kind__", None) == "struct":
            out.extend(_leaf_exprs(f.value_type, f"{base}.{f.name}"))
        else:
            out.append(f"{base}.{f.name}.value")
    return out


_LEAF_GETTERS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def leaf_getter(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    """``leaves(value) -> (scalar leaf values...)`` of a ``@dc.struct`` instance, in
    declaration order (the flattening of dsl-core's C ABI; generated once per class)."""
    found = _LEAF_GETTERS.get(cls)
    if found is None:
        namespace: dict[str, Any] = {}
        source = f"def leaves(v):\n    return ({', '.join(_leaf_exprs(cls, 'v'))},)\n"
        exec(compile(source, "<dsl_runtime.binder>", "exec"), namespace)
        found = _LEAF_GETTERS[cls] = namespace["leaves"]
    return found


def stream_handle(value: Any) -> int | None:
    """The integer handle of a stream argument (None: the default stream)."""
    return dc.Stream(value).handle or None


def expander(specs: tuple[ParamSpec, ...]) -> Callable[..., tuple[Any, ...]] | None:
    """``expand(*args) -> kernel arguments`` for tensor, scalar, struct and stream
    parameters (None when there is nothing to expand: the arguments are the kernel's)."""
    if all(s.kind in ("tensor", "scalar") for s in specs):
        return None
    if any(s.kind not in ("tensor", "scalar", "struct", "stream") for s in specs):
        return None  # specializing kinds have no single plan
    namespace: dict[str, Any] = {"_stream": stream_handle, "TypeError": TypeError}
    args, checks, items = [], [], []
    for i, spec in enumerate(specs):
        name = f"a{i}"
        args.append(name)
        if spec.kind == "struct":
            namespace[f"T{i}"] = spec.annotation
            checks.append(f"    if {name}.__class__ is not T{i}: raise TypeError")
            items.extend(_leaf_exprs(spec.annotation, name))
        elif spec.kind == "stream":
            items.append(f"_stream({name})")
        else:
            items.append(name)
    body = "\n".join(checks)
    source = (f"def expand({', '.join(args)}):\n{body}\n"
              f"    return ({', '.join(items)},)\n")
    exec(compile(source, "<dsl_runtime.binder>", "exec"), namespace)
    expand: Callable[..., tuple[Any, ...]] = namespace["expand"]
    return expand


def fast_call(kernel: Any, expand: Callable[..., tuple[Any, ...]], nargs: int,
              nresults: int) -> Callable[..., Any]:
    """``f(*args, *outs)`` for the C dispatcher: the expanded arguments, then the outputs
    (TypeError, so that the general path explains, unless there are exactly those)."""
    total = nargs + nresults

    def call(*given: Any) -> Any:
        if len(given) != total:
            raise TypeError
        return kernel(*expand(*given[:nargs]), *given[nargs:])

    return call
