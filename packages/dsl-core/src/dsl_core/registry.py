"""``JitArgumentRegistry``: host adapters for raw Python types, looked up along the MRO.

An adapter turns a Python value into a ``JitArgument`` (the host contract); ``dsl_type`` is
the DSL type seen while tracing (``None``: each value's own type, for a family of types
such as ``Array[E, N]`` whose classes are DslTypes). A value whose type implements both
``JitArgument`` and ``DslType`` needs no adapter. Defaults: ``bool -> Boolean``, ``int -> Int32``,
``float -> Float32`` (re-register with ``replace=True`` to change them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

from ._util import type_name
from .capabilities import supports, why_not
from .dtypes import DType
from .scalars import Boolean, Float32, Int32

Adapter = Callable[[Any], Any]


class Registration(NamedTuple):
    py_type: type
    adapter: Adapter
    dsl_type: type | None  # None: the value's own type
    attribute: str | None = None  # set for a register_attribute entry


class JitArgumentRegistry:
    """Class-level registry (use the classmethods; there are no instances)."""

    _entries: ClassVar[dict[type, Registration]] = {}
    _attributes: ClassVar[dict[str, Registration]] = {}  # duck-typed: by an attribute
    _lookups: ClassVar[dict[type, Registration | None]] = {}
    _native: ClassVar[dict[type, bool]] = {}

    @classmethod
    def register(
        cls, py_type: type, adapter: Adapter | None = None, *, dsl_type: type | None,
        replace: bool = False,
    ) -> Any:
        """Register ``adapter`` for ``py_type``; without ``adapter``, returns a decorator.
        ``dsl_type=None`` means each value's own type (a subclass of ``py_type``) is its
        DslType."""
        if adapter is None:
            def decorator(fn: Adapter) -> Adapter:
                cls.register(py_type, fn, dsl_type=dsl_type, replace=replace)
                return fn

            return decorator
        cls._check(py_type, adapter, dsl_type, replace)
        cls._entries[py_type] = Registration(py_type, adapter, dsl_type)
        cls._lookups.clear()
        return adapter

    @classmethod
    def _check(cls, py_type: Any, adapter: Any, dsl_type: Any, replace: bool) -> None:
        if not isinstance(py_type, type):
            raise TypeError(
                f"JitArgumentRegistry.register: py_type must be a type, got {py_type!r}"
            )
        if not callable(adapter):
            raise TypeError(
                f"JitArgumentRegistry.register({py_type.__name__}): adapter is not callable"
            )
        if dsl_type is not None and (not isinstance(dsl_type, type)
                                     or not supports(dsl_type, "DslType")):
            reason = why_not(dsl_type, "DslType") if isinstance(dsl_type, type) else "not a type"
            raise TypeError(
                f"JitArgumentRegistry.register({py_type.__name__}): dsl_type must be a DslType "
                f"({reason})"
            )
        if py_type in cls._entries and not replace:
            raise ValueError(
                f"JitArgumentRegistry.register: {py_type.__name__} is already registered "
                "(pass replace=True to override)"
            )

    @classmethod
    def register_attribute(cls, attribute: str, adapter: Adapter, *, dsl_type: type | None,
                           replace: bool = False) -> None:
        """Register ``adapter`` for values of any type that has ``attribute`` (a protocol
        such as ``__dlpack__`` or ``__cuda_array_interface__``): tried, in registration
        order, for types that no :meth:`register` entry covers."""
        if not (isinstance(attribute, str) and attribute.isidentifier()):
            raise TypeError(f"JitArgumentRegistry.register_attribute: {attribute!r} is not "
                            "an attribute name")
        cls._check(object, adapter, dsl_type, True)
        if attribute in cls._attributes and not replace:
            raise ValueError(f"JitArgumentRegistry.register_attribute: {attribute} is already "
                             "registered (pass replace=True to override)")
        cls._attributes[attribute] = Registration(object, adapter, dsl_type, attribute)
        cls._lookups.clear()

    @classmethod
    def unregister_attribute(cls, attribute: str) -> None:
        if cls._attributes.pop(attribute, None) is None:
            raise KeyError(f"JitArgumentRegistry: no registration for attribute {attribute}")
        cls._lookups.clear()

    @classmethod
    def unregister(cls, py_type: type) -> None:
        if cls._entries.pop(py_type, None) is None:
            raise KeyError(f"JitArgumentRegistry: {type_name(py_type)} is not registered")
        cls._lookups.clear()

    @classmethod
    def lookup(cls, py_type: type) -> Registration | None:
        """The registration for ``py_type`` or its nearest registered base class, else the
        first attribute registration whose attribute ``py_type`` has."""
        try:
            return cls._lookups[py_type]
        except KeyError:
            pass
        found = next((cls._entries[b] for b in py_type.__mro__ if b in cls._entries), None)
        if found is None:
            found = next((reg for attribute, reg in cls._attributes.items()
                          if hasattr(py_type, attribute)), None)
        cls._lookups[py_type] = found
        return found

    @classmethod
    def for_value(cls, value: Any) -> Registration | None:
        """The registration :meth:`adapt` uses for ``value``: :meth:`lookup` of its type,
        except that an attribute registration needs the attribute on the value itself
        (a class may declare ``__cuda_array_interface__`` as a property that raises on
        CPU instances, as torch does)."""
        reg = cls.lookup(type(value))
        if reg is None or reg.attribute is None or hasattr(value, reg.attribute):
            return reg
        return next((r for a, r in cls._attributes.items() if hasattr(value, a)), None)

    @classmethod
    def is_native(cls, py_type: type) -> bool:
        """True when values of ``py_type`` are both JitArgument and DslType (no adapter)."""
        native = cls._native.get(py_type)
        if native is None:
            native = supports(py_type, "JitArgument") and supports(py_type, "DslType")
            cls._native[py_type] = native
        return native

    @classmethod
    def dsl_type_for(cls, annotation: Any) -> type | None:
        """The DslType a parameter annotated ``annotation`` takes: the ``dsl_type`` of a
        registered Python type (or of the registration naming ``annotation`` as its
        dsl_type), or ``annotation`` itself when it implements both protocols; else None."""
        if not isinstance(annotation, type):
            return None
        reg = cls.lookup(annotation)
        if reg is not None:
            if reg.dsl_type is None:  # the annotation's own type, when it is a DslType
                return annotation if supports(annotation, "DslType") else None
            return reg.dsl_type
        if any(r.dsl_type is annotation for r in cls._entries.values()):
            return annotation
        return annotation if cls.is_native(annotation) else None

    @classmethod
    def parameter_type(cls, annotation: Any) -> type | None:
        """The DslType a parameter annotated ``annotation`` takes as a *protocol* parameter
        (dsl-parser and dsl-runtime ask this): :meth:`dsl_type_for`, except scalars. A
        scalar DslType (one with a ``dtype``) is a scalar annotation instead, and ``int``,
        ``float`` and ``bool`` (registered as Int32, Float32, Boolean) name no width."""
        found = cls.dsl_type_for(annotation)
        return None if found is None or isinstance(getattr(found, "dtype", None), DType) \
            else found

    @classmethod
    def adapt(cls, value: Any) -> tuple[Any, type]:
        """``(jit_argument, dsl_type)`` for a Python argument."""
        t = type(value)
        reg = cls.for_value(value)
        if reg is not None:
            if reg.dsl_type is None and not supports(t, "DslType"):
                raise TypeError(f"{t.__name__} is not a DslType ({why_not(t, 'DslType')})")
            return reg.adapter(value), reg.dsl_type or t
        if cls.is_native(t):
            return value, t
        raise TypeError(
            f"no JitArgument adapter for {t.__name__}: register one with "
            f"JitArgumentRegistry.register({t.__name__}, dsl_type=...), or implement both "
            "JitArgument and DslType"
        )


JitArgumentRegistry.register(bool, Boolean, dsl_type=Boolean)
JitArgumentRegistry.register(int, Int32, dsl_type=Int32)
JitArgumentRegistry.register(float, Float32, dsl_type=Float32)
