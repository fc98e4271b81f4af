"""``@pl.kernel`` bodies -> ``gpu.func ... kernel`` in the module's ``gpu.module @dsl_kernels``.

``KernelParser`` is a ``FunctionParser`` in kernel mode (tensors are memrefs,
element loads/stores, thread intrinsics, no results) that builds a ``gpu.func``
instead of a ``func.func``. ``ModuleKernels`` is the module's kernel table: it
reads each kernel's source once, and parses one ``gpu.func`` per (kernel,
specialization) the first time a launch needs it; later launches with the same
types and Constexpr values reuse it.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from .._mlir import Block, Module, Operation, gpu, ir
from ..errors import ParserError
from ..kernel import GPU_MODULE, Kernel, KernelSpecialization
from ..types import TensorType
from ..values import TypedValue, ValueInfo
from .evaluator import Evaluator, closure_of
from .function_parser import CONTAINER_ATTR, FunctionParser, FunctionSource
from .kernel_params import KernelParam, read_params
from .source import SourceTracker, source_of


class KernelParser(FunctionParser):
    """One kernel specialization: a ``gpu.func`` with the ``kernel`` attribute."""

    def __init__(self, source: FunctionSource, module: Module, info: ValueInfo,
                 block: Block, symbol: str) -> None:
        super().__init__(source, module, info)
        self.block = block
        self.symbol = symbol

    def _create_op(self, ftype: object) -> Operation:
        op = gpu.GPUFuncOp(ftype, sym_name=self.symbol, kernel=True,
                           loc=self.state.src.loc(self.node), ip=ir.InsertionPoint(self.block))
        op.attributes["arg_attrs"] = ir.ArrayAttr.get([self._arg_attrs(t) for _, t in self.params])
        return op

    @staticmethod
    def _arg_attrs(t: object) -> object:
        """``llvm.align`` of a tensor parameter: its element's natural alignment (what every
        device array guarantees), so that the PTX pointer parameters say ``.align N``."""
        if isinstance(t, TensorType) and t.dtype.itemsize > 1:
            i64 = ir.IntegerType.get_signless(64)
            return ir.DictAttr.get({"llvm.align": ir.IntegerAttr.get(i64, t.dtype.itemsize)})
        return ir.DictAttr.get({})

    def _entry_block(self) -> Block:
        types = [self.state.builder.mlir_type(t) for _, t in self.params]
        return self.func_op.body.blocks.append(
            *types, arg_locs=[self.state.src.loc(a) for a, _ in self.params])

    def _terminate(self, values: list[TypedValue], where: ast.AST) -> None:
        gpu.ReturnOp([], loc=self.state.src.loc(where), ip=self.state.builder.ip)


class _KernelSource:
    """A kernel's ``def``, what its names resolve against, and its declared parameters."""

    __slots__ = ("annotations", "evaluator", "node", "params", "src")

    def __init__(self, node: ast.FunctionDef, src: SourceTracker, evaluator: Evaluator,
                 annotations: Mapping[str, object], params: list[KernelParam]) -> None:
        self.node = node
        self.src = src
        self.evaluator = evaluator
        self.annotations = annotations
        self.params = params


class ModuleKernels:
    """The kernels of one module (implements ``state.KernelTable``)."""

    def __init__(self, module: Module, info: ValueInfo, trackers: list[SourceTracker]) -> None:
        self.module = module
        self.info = info
        self.trackers = trackers
        self._sources: dict[int, _KernelSource] = {}
        self._instances: dict[tuple[int, tuple[str, ...]], KernelSpecialization] = {}
        self._symbols: dict[str, tuple[int, tuple[str, ...]]] = {}
        self._kernels: list[Kernel] = []  # keeps the ids above valid
        self._block: Block | None = None

    # -- sources -------------------------------------------------------------------------------
    def _source(self, kernel: Kernel) -> _KernelSource:
        found = self._sources.get(id(kernel))
        if found is not None:
            return found
        if kernel.text is not None:
            node, src = kernel.text.node, kernel.text.src
            evaluator = Evaluator(kernel.text.globals, {})
            annotations: Mapping[str, object] = {}
        else:
            assert kernel.fn is not None
            tree, src = source_of(kernel.fn, None)
            if not isinstance(tree, ast.FunctionDef):
                raise ValueError(f"{kernel!r} is not defined by a def statement")
            node = tree
            evaluator = Evaluator(getattr(kernel.fn, "__globals__", {}), closure_of(kernel.fn))
            annotations = dict(getattr(kernel.fn, "__annotations__", {}))
        if src not in self.trackers:
            self.trackers.append(src)
        params = read_params(kernel.name, node, src, evaluator, annotations)
        found = self._sources[id(kernel)] = _KernelSource(node, src, evaluator, annotations, params)
        self._kernels.append(kernel)
        return found

    def params(self, kernel: Kernel) -> list[KernelParam]:
        """The declared parameters of ``kernel``."""
        return self._source(kernel).params

    # -- specializations -----------------------------------------------------------------------
    def specialize(self, kernel: Kernel, overrides: dict[str, object], tokens: list[str],
                   where: ast.AST, caller: SourceTracker) -> KernelSpecialization:
        """The ``gpu.func`` of ``kernel`` for these overrides (``tokens`` name them)."""
        key = (id(kernel), tuple(tokens))
        found = self._instances.get(key)
        if found is not None:
            return found
        source = self._source(kernel)
        symbol = self._symbol(kernel.name, tokens, key)
        function_source = FunctionSource(source.node, source.src, source.evaluator,
                                         annotations=source.annotations, overrides=overrides,
                                         strict=kernel.strict_ssa, kernel=True)
        parser = KernelParser(function_source, self.module, self.info, self._gpu_block(), symbol)
        try:
            parser.declare()
            signature = parser.define()
        except ParserError as err:
            if err.span != caller.span(where):
                err.notes = (*err.notes, caller.note(
                    f"while parsing kernel '{kernel.name}' for this launch", where))
            raise
        found = KernelSpecialization(kernel.name, symbol, signature, dict(parser.constants),
                                     definition=kernel)
        self._instances[key] = found
        return found

    def _symbol(self, name: str, tokens: list[str], key: tuple[int, tuple[str, ...]]) -> str:
        base = name + ("__" + "_".join(tokens) if tokens else "")
        symbol, n = base, 1
        while symbol in self._symbols and self._symbols[symbol] != key:
            symbol, n = f"{base}_{n}", n + 1
        self._symbols[symbol] = key
        return symbol

    def _gpu_block(self) -> Block:
        """The body of ``gpu.module @dsl_kernels`` (created before the first function)."""
        if self._block is None:
            self.module.operation.attributes[CONTAINER_ATTR] = ir.UnitAttr.get()
            op = gpu.GPUModuleOp(GPU_MODULE, ip=ir.InsertionPoint.at_block_begin(self.module.body))
            self._block = op.regions[0].blocks.append()
        return self._block
