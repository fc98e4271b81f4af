"""A mypy plugin that reads DSL annotations as static types.

Enable it in the project's mypy configuration::

    [tool.mypy]
    plugins = ["dsl_parser.mypy_plugin"]

DSL annotations are values (``pl.Tensor[[N], pl.FP32]`` with ``N = pl.dynamic("N")``,
``pl.Tensor[[64, 128], pl.FP16]``, a bare ``pl.INT32``): without the plugin mypy reports
them as invalid types. With it, in annotations:

* ``pl.Tensor[...]`` (shaped or not) is ``numpy.ndarray[Any, numpy.dtype[Any]]``: what
  a jitted function takes and returns, and what a body's operations (``x + y``, ``x[i]``,
  ``x.shape[0]``) act on;
* ``pl.Scalar[dtype]`` and a bare dtype (``pl.FP32``, ``pl.INDEX``, ``dc.Float32`` inside
  ``pl.Scalar[...]``) are numbers of the dtype's kind: ``float | numpy.floating[Any] |
  numpy.integer[Any]`` for floats, ``int | numpy.integer[Any]`` for integers and
  ``INDEX``, ``bool | numpy.bool`` for ``BOOL`` (``Any`` when the dtype is not one it
  knows by name);
* ``dc.Constexpr[T]`` and ``dc.Align[T, A]`` are ``T``; ``dc.Array[E, N]``,
  ``dc.Vector[E, shape]`` and ``dc.Pointer[E]`` are instances of their class.

Shapes and dtypes of tensors are not checked statically (the parser and ``@jit``
check them, with errors at the user's line).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from mypy.nodes import CallExpr, ImportBase, MemberExpr, MypyFile, NameExpr
from mypy.plugin import AnalyzeTypeContext, MethodContext, Plugin
from mypy.types import AnyType, Instance, Type, TypeOfAny, UnboundType, UnionType, get_proper_type

_TENSOR = "dsl_parser.types.Tensor"
_SCALAR = "dsl_parser.types.Scalar"

#: dtype (or dsl-core scalar class) name -> the kind of number it holds.
_KINDS: dict[str, str] = {
    **dict.fromkeys(("FP16", "BF16", "FP32", "FP64", "Float", "Float16", "BFloat16", "Float32",
                     "Float64"), "float"),
    **dict.fromkeys(("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
                     "INDEX", "Integer", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16",
                     "UInt32", "UInt64"), "int"),
    **dict.fromkeys(("BOOL", "Boolean"), "bool"),
}

#: The numpy scalar types a parameter of each kind also takes (numpy 2 calls its boolean
#: scalar ``numpy.bool``, numpy 1 ``numpy.bool_``: the first one found is used).
_NUMPY_SCALARS: dict[str, list[tuple[str, ...]]] = {
    "float": [("numpy.floating",), ("numpy.integer",)],
    "int": [("numpy.integer",)],
    "bool": [("numpy.bool", "numpy.bool_")],
}

#: The dtype objects a bare annotation (``eps: pl.FP32``) may name.
_DTYPE_VARS = frozenset(f"{module}.{name}" for module in ("dsl_parser.types", "dsl_core.dtypes")
                        for name in _KINDS if name.isupper())

#: dsl-core classes whose subscript (``Constexpr[int]``) is a value, by what it means.
_FIRST_ARGUMENT = frozenset({"dsl_core.constexpr.Constexpr", "dsl_core.align.Align"})
_PLAIN_CLASS = frozenset({"dsl_core.arrays.Array", "dsl_core.vectors.Vector",
                          "dsl_core.pointers.Pointer"})

#: Modules whose users get numpy loaded (the types above name it).
_DSL_MODULES = ("dsl_parser", "dsl_runtime", "dsl_core")


def _any() -> AnyType:
    return AnyType(TypeOfAny.special_form)


def _named(ctx: AnalyzeTypeContext, fullname: str,
           args: list[Type] | None = None) -> Instance | None:
    """An instance of ``fullname`` (Any type arguments by default), None if not loaded."""
    api = getattr(ctx.api, "api", None)  # the semantic analyzer behind the type analyzer
    lookup = getattr(api, "lookup_fully_qualified_or_none", None)
    if lookup is None or lookup(fullname) is None:
        return None
    try:
        return ctx.api.named_type(fullname, args or [])
    except (AssertionError, KeyError):  # a module not in the build, or not a class
        return None


def _tensor(ctx: AnalyzeTypeContext) -> Type:
    array = _named(ctx, "numpy.ndarray")
    return array if array is not None else _any()


def _number(ctx: AnalyzeTypeContext, kind: str | None) -> Type:
    if kind is None:
        return _any()
    builtin = _named(ctx, f"builtins.{kind}")
    if builtin is None:
        return _any()
    extra = _NUMPY_SCALARS[kind]
    items: list[Type] = [builtin]
    for names in extra:
        for name in names:
            found = _named(ctx, name)
            if found is not None:
                items.append(found)
                break
    return UnionType.make_union(items) if len(items) > 1 else builtin


def _kind_of(ctx: AnalyzeTypeContext, arg: Type) -> str | None:
    """The kind of number a dtype argument (``pl.FP32``, ``dc.Float32``) names."""
    if not isinstance(arg, UnboundType):
        return None
    name = arg.name
    lookup = getattr(ctx.api, "lookup_qualified", None)
    if lookup is not None:
        try:
            sym = lookup(name, ctx.context, suppress_errors=True)
        except Exception:  # an internal API that changed: fall back to the written name
            sym = None
        node = getattr(sym, "node", None)
        fullname = getattr(node, "fullname", None)
        if isinstance(fullname, str) and fullname:
            name = fullname
    return _KINDS.get(name.rsplit(".", 1)[-1])


def _scalar(ctx: AnalyzeTypeContext) -> Type:
    args = ctx.type.args
    return _number(ctx, _kind_of(ctx, args[0]) if len(args) == 1 else None)


def _bare_dtype(ctx: AnalyzeTypeContext) -> Type:
    if ctx.type.args:
        return _any()
    return _number(ctx, _KINDS.get(ctx.type.name.rsplit(".", 1)[-1]))


def _first_argument(ctx: AnalyzeTypeContext) -> Type:
    if not ctx.type.args:
        return _any()
    return ctx.api.analyze_type(ctx.type.args[0])


#: Reductions: with an ``axis`` they give a tensor, without one (every axis) a value.
_REDUCTIONS = frozenset({"sum", "max", "min", "mean", "prod", "argmax", "argmin"})


def _op_call(ctx: MethodContext) -> Type:
    """``pl.<op>(...)``: a tensor (``numpy.ndarray``) when an argument is one (a reduction:
    when it is given an ``axis``), else what the marker declares (a DSL value)."""
    callee = ctx.context.callee if isinstance(ctx.context, CallExpr) else None
    name = callee.name if isinstance(callee, (MemberExpr, NameExpr)) else ""
    if name in _REDUCTIONS and not any("axis" in names for names in ctx.arg_names):
        return ctx.default_return_type
    for types in ctx.arg_types:
        for t in types:
            proper = get_proper_type(t)
            if isinstance(proper, Instance) and proper.type.fullname == "numpy.ndarray":
                return proper.copy_modified(args=[_any() for _ in proper.args])
    return ctx.default_return_type


def _plain_class(fullname: str) -> Callable[[AnalyzeTypeContext], Type]:
    def hook(ctx: AnalyzeTypeContext) -> Type:
        found = _named(ctx, fullname)
        return found if found is not None else _any()

    return hook


class DslPlugin(Plugin):
    """Reads ``pl.Tensor[...]``, ``pl.Scalar[...]``, bare dtypes and the subscripted
    dsl-core annotations as the static types the module docstring lists."""

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        if fullname == _TENSOR:
            return _tensor
        if fullname == _SCALAR:
            return _scalar
        if fullname in _DTYPE_VARS:
            return _bare_dtype
        if fullname in _FIRST_ARGUMENT:
            return _first_argument
        if fullname in _PLAIN_CLASS:
            return _plain_class(fullname)
        return None

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        if fullname == "dsl_parser.markers.OpBuiltin.__call__":
            return _op_call
        return None

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        """numpy, for modules that import a DSL package (tensors are numpy arrays)."""
        if file.fullname.startswith(("numpy", *_DSL_MODULES)):
            return []
        if not any(_imports_dsl(imp) for imp in file.imports):
            return []
        return [(10, "numpy", -1)] if _numpy_installed() else []


def _imports_dsl(imp: ImportBase) -> bool:
    ids = [name for name, _ in getattr(imp, "ids", [])] + [str(getattr(imp, "id", ""))]
    return any(i == m or i.startswith(m + ".") for i in ids for m in _DSL_MODULES)


def _numpy_installed() -> bool:
    return importlib.util.find_spec("numpy") is not None


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point: the plugin class for any mypy version."""
    return DslPlugin
