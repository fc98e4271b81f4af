"""``Stream``: an execution stream handle. JitArgument and DslType, not Storable.

On the host a stream is an opaque pointer-sized handle: ``None`` or ``0`` (the default
stream), an ``int``, an object with a ``.handle`` attribute, or an object implementing the
``__cuda_stream__`` protocol (returning ``(version, handle)``). The handle is read from the
argument each time a C-ABI slot is filled. In IR a stream is ``!llvm.ptr``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from . import _ir
from .protocols import AbiEntry


def stream_handle(obj: Any) -> int:
    """The integer handle of a host stream object (see the module docstring)."""
    if isinstance(obj, Stream):
        obj = obj.source
    if obj is None:
        return 0
    if type(obj) is int:
        return obj
    protocol = getattr(obj, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    handle = getattr(obj, "handle", None)
    if handle is not None:
        return int(handle)
    if hasattr(obj, "__index__"):
        return int(obj)
    raise TypeError(
        f"Stream: expected None, an int handle, an object with .handle or __cuda_stream__, "
        f"got {type(obj).__name__}"
    )


class Stream:
    """A stream argument; ``Stream(handle)`` on the host, ``Stream.from_ir_value(v)`` traced."""

    __slots__ = ("source",)
    source: Any

    def __init__(self, source: Any = None) -> None:
        if isinstance(source, Stream):
            source = source.source
        elif not _ir.is_value(source):
            stream_handle(source)
        self.source = source

    @classmethod
    def from_ir_value(cls, value: Any) -> Stream:
        _ir.check_value("Stream", value, cls.ir_type())
        obj = object.__new__(cls)
        obj.source = value
        return obj

    @property
    def is_traced(self) -> bool:
        return _ir.is_value(self.source)

    @property
    def handle(self) -> int:
        """The current host handle (read from the wrapped object now)."""
        return stream_handle(self.source)

    def __repr__(self) -> str:
        return f"Stream({self.source!r})"

    @classmethod
    def ir_type(cls) -> Any:
        return _ir.parse_type("!llvm.ptr")

    @classmethod
    def __get_ir_types__(cls) -> list[Any]:
        return [cls.ir_type()]

    @classmethod
    def __cache_signature__(cls) -> Hashable:
        return "Stream"

    @classmethod
    def __c_abi_spec__(cls) -> list[AbiEntry]:
        from .abi import abi_spec_of_type

        return abi_spec_of_type(cls)

    def __extract_to_ir_values__(self) -> list[Any]:
        if not self.is_traced:
            raise TypeError("extract_to_ir_values: a host Stream has no ir.Value; pass it as "
                            "a JIT argument to get a traced Stream")
        return [self.source]

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Stream:
        _ir.check_values("Stream", values, [cls.ir_type()])
        return cls.from_ir_value(values[0])

    @classmethod
    def __dsl_type_signature__(cls) -> Hashable:
        return "Stream"

    __dsl_static_signature__ = True

    @classmethod
    def __dsl_ir_arity__(cls, exemplar: Any = None) -> int:
        return 1

    @classmethod
    def _dsl_coerce_(cls, value: Any) -> Stream:
        return value if isinstance(value, Stream) else cls(value)
