"""The only module that touches ``dsl_mlir``; it imports it lazily, inside the functions.

``import dsl_core`` never loads MLIR. The IR hooks (``__get_ir_types__``,
``__extract_to_ir_values__``, ``__construct_from_ir_values__``) call into this module, which
imports ``dsl_mlir`` on first use and needs an active ``ir.Context`` (and, to materialize
constants, an active ``ir.InsertionPoint`` and ``ir.Location``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

_IR: Any = None

_FLOAT_TYPES = {"f16": "F16Type", "bf16": "BF16Type", "f32": "F32Type", "f64": "F64Type"}


def ir() -> Any:
    """The ``dsl_mlir.ir`` module (upstream ``mlir.ir`` API), imported on first use."""
    global _IR
    if _IR is None:
        try:
            from dsl_mlir import ir as module  # type: ignore[import-not-found, import-untyped, unused-ignore]
        except ModuleNotFoundError as exc:
            if exc.name != "dsl_mlir":
                raise
            raise ImportError(
                "dsl_core IR hooks need the dsl-mlir package (pip install 'dsl-core[ir]')"
            ) from exc
        check_version(sys.modules["dsl_mlir"])
        _IR = module
    return _IR


#: The dsl-mlir versions this dsl-core works with (the ``ir`` extra declares the same range).
COMPATIBLE_MLIR = ">=0.1,<0.2"


def check_version(package: Any) -> None:
    """ImportError unless ``package.__version__`` is within :data:`COMPATIBLE_MLIR`."""
    from . import __version__
    from .versions import problem

    version = str(getattr(package, "__version__", "0"))
    message = problem(f"dsl-core {__version__}", "dsl-mlir", COMPATIBLE_MLIR, version)
    if message is not None:
        raise ImportError(message)


def is_value(x: object) -> bool:
    """True when ``x`` is an ``ir.Value``; never imports dsl_mlir to find out."""
    module = getattr(sys.modules.get("dsl_mlir"), "ir", None)
    return module is not None and isinstance(x, module.Value)


def element_type(mlir_name: str, ctx: Any = None) -> Any:
    """The MLIR type of a dtype's ``mlir_name``: ``iN`` (signless), ``index``, ``f16``,
    ``bf16``, ``f32``, ``f64`` (in ``ctx``, else the current context)."""
    m = ir()
    where = {} if ctx is None else {"context": ctx}
    if mlir_name == "index":
        return m.IndexType.get(**where)
    if mlir_name.startswith("i"):
        return m.IntegerType.get_signless(int(mlir_name[1:]), **where)
    return getattr(m, _FLOAT_TYPES[mlir_name]).get(**where)


def parse_type(text: str) -> Any:
    """``ir.Type.parse(text)`` in the current context (e.g. ``!llvm.ptr``)."""
    return ir().Type.parse(text)


def vector_type(shape: Sequence[int], element: Any) -> Any:
    return ir().VectorType.get(list(shape), element)


def check_values(owner: str, values: Sequence[Any], expected: Sequence[Any]) -> None:
    """Raise unless ``values`` match ``expected`` MLIR types in count and order."""
    if len(values) != len(expected):
        raise TypeError(
            f"construct_from_ir_values: {owner} expects {len(expected)} ir.Values, "
            f"got {len(values)}"
        )
    for i, (value, want) in enumerate(zip(values, expected, strict=True)):
        check_value(owner, value, want, i)


def check_value(owner: str, value: Any, want: Any | None, index: int = 0) -> None:
    """Raise unless ``value`` is an ``ir.Value`` (of type ``want`` when given)."""
    if not is_value(value):
        raise TypeError(
            f"construct_from_ir_values: {owner} value #{index} must be an ir.Value, "
            f"got {type(value).__name__}"
        )
    if want is not None and value.type != want:
        raise TypeError(
            f"construct_from_ir_values: {owner} value #{index} has type {value.type}, "
            f"expected {want}"
        )


def constant(ir_type: Any, attribute_text: str) -> Any:
    """Materialize ``arith.constant`` at the current insertion point; returns its result."""
    m = ir()
    attr = m.Attribute.parse(attribute_text)
    op = m.Operation.create("arith.constant", results=[ir_type], attributes={"value": attr})
    return op.result


def shaped_info(ir_type: Any) -> tuple[str, tuple[int | None, ...]] | None:
    """``(element kind, shape)`` of a vector/memref/tensor type (dynamic dims as None)."""
    m = ir()
    for cls_name in ("VectorType", "MemRefType", "RankedTensorType"):
        cls = getattr(m, cls_name)
        if _is_a(cls, ir_type):
            shaped = ir_type if isinstance(ir_type, cls) else cls(ir_type)
            dims = tuple(None if shaped.is_dynamic_dim(i) else d
                         for i, d in enumerate(shaped.shape))
            return str(shaped.element_type), dims
    return None


def _is_a(cls: Any, ir_type: Any) -> bool:
    check = getattr(cls, "isinstance", None)  # static method in older bindings
    return bool(check(ir_type)) if check is not None else isinstance(ir_type, cls)


def pointer_address_space(ir_type: Any) -> int | None:
    """The address space of an ``!llvm.ptr`` type, or None for any other type."""
    text = str(ir_type)
    if text == "!llvm.ptr":
        return 0
    if text.startswith("!llvm.ptr<") and text.endswith(">"):
        return int(text[len("!llvm.ptr<"):-1])
    return None
