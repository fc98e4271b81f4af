"""The reference interpreter: DSL functions, programs and kernel launches run in
Python/numpy with the DSL's semantics, with no MLIR compile.

```python
from dsl_parser.interpreter import interpret, interpreted
z = interpret(scale_add, x, y)            # a Python DSL function, a @pl.function object
f = interpreted(MyProgram, entry="main")  # a @pl.program (object or class): f(x, y)
```

The function's own code runs (a copy compiled from its source, same file and lines), so
``print(x)``, ``breakpoint()`` and pdb work inside it; tensors are ``ITensor`` values
(``.array``, ``.numpy()``, ``.shape``), typed scalars ``IScalar``. Each ``pl.<op>`` is
checked by the op table's type inference (the parser's messages, at the user's line) and
computed by its reference rule (``OpRule.reference``). Tensor parameters are never
written; kernels (launched by a host function) run thread by thread in launch order and
write their tensor arguments in place. Needs numpy.
"""

from __future__ import annotations

from types import FunctionType
from typing import Any

from ..ops.numerics import IntegerDivisionByZero, UndefinedBehaviorError
from .runner import ProgramSelf, call, result_to_user
from .values import IScalar, ITensor

__all__ = ["IScalar", "ITensor", "IntegerDivisionByZero", "Interpreted", "UndefinedBehaviorError",
           "interpret", "interpreted"]


class Interpreted:
    """A DSL entry point run by the interpreter: ``Interpreted(fn)(*args, out=None)``.

    ``target`` is a Python DSL function, a ``@pl.function`` object, a ``@pl.program``
    object or class (with ``entry``), or a ``@jit`` function of one of these. Results
    come back as the compiled code gives them (new numpy arrays; BF16 as uint16 bits);
    ``out=`` (an array or a tuple) receives them instead.
    """

    def __init__(self, target: Any, entry: str | None = None) -> None:
        self.fn, self.program = _resolve(target, entry)
        self.__name__ = self.fn.__name__
        self.__qualname__ = getattr(self.fn, "__qualname__", self.fn.__name__)
        self.__doc__ = self.fn.__doc__
        if self.program is None:  # inspect.signature and help show the function's
            self.__wrapped__ = self.fn

    def __call__(self, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        self_ = ProgramSelf(self.program) if self.program is not None else None
        result = call(self.fn, args, kwargs, self_)
        return _deliver(result_to_user(result), out)

    def __repr__(self) -> str:
        return f"<interpreted {self.fn.__qualname__}>"


def _deliver(result: Any, out: Any) -> Any:
    if out is None:
        return result
    results = result if isinstance(result, tuple) else (result,)
    outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != len(results):
        raise ValueError(f"out= has {len(outs)} arrays for {len(results)} results")
    for o, r in zip(outs, results, strict=True):
        if o.shape != r.shape or o.dtype != r.dtype:
            raise ValueError(f"out= array of {o.dtype}{list(o.shape)} for a result of "
                             f"{r.dtype}{list(r.shape)}")
        o[...] = r
    return out


def _resolve(target: Any, entry: str | None) -> tuple[FunctionType, type | None]:
    impl = getattr(target, "impl", target)
    if hasattr(impl, "_fn") and hasattr(impl, "_parsed"):  # a @jit function
        target = impl._fn
        if entry is None and hasattr(target, "functions"):  # jit(program, entry=...)
            entry = impl._parsed.name
    python = getattr(target, "python", None)
    cls = target if isinstance(target, type) else python
    if isinstance(cls, type):
        if entry is None:
            raise TypeError(f"interpreting program {cls.__name__}: give entry=")
        fn = cls.__dict__.get(entry)
        fn = getattr(fn, "__func__", fn)
        if not isinstance(fn, FunctionType):
            raise TypeError(f"program {cls.__name__} has no function {entry!r}")
        return fn, cls
    if isinstance(python, FunctionType):
        return python, None
    if isinstance(target, FunctionType):
        return target, None
    if python is None and hasattr(target, "module"):
        raise TypeError(f"{target!r} was parsed from text: the interpreter runs functions "
                        "defined in Python files (their code runs)")
    raise TypeError(f"the interpreter runs DSL functions and programs, got {target!r}")


def interpreted(target: Any, entry: str | None = None) -> Interpreted:
    """``target`` as an interpreted callable (see ``Interpreted``)."""
    return Interpreted(target, entry)


def interpret(target: Any, *args: Any, entry: str | None = None, out: Any = None,
              **kwargs: Any) -> Any:
    """Run ``target(*args, **kwargs)`` under the interpreter and return its results."""
    return Interpreted(target, entry)(*args, out=out, **kwargs)

