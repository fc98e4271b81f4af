"""The DSL namespace: ``import dsl_parser.language as pl``.

Types (``pl.Tensor``, ``pl.Scalar``, dtypes, ``pl.dynamic``), the decorators
(``@pl.function``, ``@pl.program``), text parsing (``pl.parse``, ``pl.loads``),
``pl.parse_function`` for the runtime, and the operations of the op table
(``pl.add``, ``pl.matmul``, ...), plus the control-flow syntax ``pl.range``,
``pl.unroll`` and ``pl.yield_``. Kernels: ``@pl.kernel``, the thread-position
intrinsics ``pl.block_id``/``pl.thread_id``/``pl.block_dim``/``pl.grid_dim`` and
``pl.ceil_div``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ..function import Function as Function
from ..function import Param as Param
from ..function import Program as Program
from ..function import Signature as Signature
from ..kernel import Kernel as Kernel
from ..kernel import KernelSpecialization as KernelSpecialization
from ..markers import AtomicBuiltin as _AtomicBuiltin
from ..markers import BlockBuiltin as _BlockBuiltin
from ..markers import ControlBuiltin as _ControlBuiltin
from ..markers import KernelBuiltin as _KernelBuiltin
from ..markers import OpBuiltin as _OpBuiltin
from ..markers import ScalarBuiltin as _ScalarBuiltin
from ..markers import VectorBuiltin as _VectorBuiltin
from ..markers import WarpBuiltin as _WarpBuiltin
from ..ops import OPS as _OPS
from ..types import BF16 as BF16
from ..types import BOOL as BOOL
from ..types import FP16 as FP16
from ..types import FP32 as FP32
from ..types import FP64 as FP64
from ..types import INDEX as INDEX
from ..types import INT8 as INT8
from ..types import INT16 as INT16
from ..types import INT32 as INT32
from ..types import INT64 as INT64
from ..types import UINT8 as UINT8
from ..types import UINT16 as UINT16
from ..types import UINT32 as UINT32
from ..types import UINT64 as UINT64
from ..types import ConstValue as ConstValue
from ..types import DType as DType
from ..types import Dynamic as Dynamic
from ..types import ProtocolArgument as ProtocolArgument
from ..types import Scalar as Scalar
from ..types import ScalarType as ScalarType
from ..types import Tensor as Tensor
from ..types import TensorType as TensorType
from ..types import dynamic as dynamic
from . import _dump as _dump

if TYPE_CHECKING:
    from ..parser.entry import function as function
    from ..parser.entry import kernel as kernel
    from ..parser.entry import loads as loads
    from ..parser.entry import loads_program as loads_program
    from ..parser.entry import parse as parse
    from ..parser.entry import parse_class as parse_class
    from ..parser.entry import parse_function as parse_function
    from ..parser.entry import parse_program as parse_program
    from ..parser.entry import program as program

#: The parser's entry points, imported on first use: ``import dsl_parser.language as pl``
#: (the types, the op markers) loads neither the parser nor MLIR.
_ENTRY = frozenset({"function", "kernel", "loads", "loads_program", "parse", "parse_class",
                    "parse_function", "parse_program", "program"})

range = _ControlBuiltin("range", "for i in pl.range(start, stop, step, init_values=(...))")
unroll = _ControlBuiltin("unroll", "like pl.range; the loop keeps the 'unroll' kind")
yield_ = _ControlBuiltin("yield_",
                         "x = pl.yield_(value): the value a loop body or branch passes out")

block_id = _KernelBuiltin("block_id", "pl.block_id(d): the block's index in dimension d (0, 1, 2)")
thread_id = _KernelBuiltin("thread_id",
                           "pl.thread_id(d): the thread's index in its block, dimension d")
block_dim = _KernelBuiltin("block_dim", "pl.block_dim(d): threads per block in dimension d")
grid_dim = _KernelBuiltin("grid_dim", "pl.grid_dim(d): blocks in the grid in dimension d")
ceil_div = _ScalarBuiltin("ceil_div", "pl.ceil_div(a, b): the smallest integer >= a / b")

shared = _BlockBuiltin("shared", "pl.shared([64, 64], pl.FP32): a tile of the block's shared "
                       "(workgroup) memory, one per block, uninitialized")
barrier = _BlockBuiltin("barrier", "pl.barrier(): wait until every thread of the block gets "
                        "here; shared-memory writes before it are visible after it")

load = _VectorBuiltin("load", "a, b, c, d = pl.load(x, (i, j), width=4): x[i, j], ..., "
                       "x[i, j + 3] in one vector load")
store = _VectorBuiltin("store", "pl.store(x, (i, j), (a, b, c, d)): x[i, j..j + 3] = a, ..., d "
                        "in one vector store")
lane_id = _WarpBuiltin("lane_id", "pl.lane_id(): the thread's lane in its warp, 0 to 31 (INDEX)")
warp_size = _WarpBuiltin("warp_size", "pl.warp_size(): 32, the threads of a warp")
shuffle_xor = _WarpBuiltin("shuffle_xor", "pl.shuffle_xor(v, mask): v of lane (lane ^ mask)")
shuffle_down = _WarpBuiltin("shuffle_down", "pl.shuffle_down(v, delta): v of lane + delta "
                            "(the own v past the warp's end)")
shuffle_up = _WarpBuiltin("shuffle_up", "pl.shuffle_up(v, delta): v of lane - delta (the own "
                          "v before lane 0)")
shuffle_idx = _WarpBuiltin("shuffle_idx", "pl.shuffle_idx(v, lane): v of the given lane")
warp_sum = _WarpBuiltin("warp_sum", "pl.warp_sum(v): the sum of v over the warp, in every lane")
warp_max = _WarpBuiltin("warp_max", "pl.warp_max(v): the maximum of v over the warp")
warp_min = _WarpBuiltin("warp_min", "pl.warp_min(v): the minimum of v over the warp")

atomic_add = _AtomicBuiltin("atomic_add", "pl.atomic_add(x, i, v): x[i] += v atomically; "
                            "the old x[i]")
atomic_min = _AtomicBuiltin("atomic_min", "pl.atomic_min(x, i, v): x[i] = min(x[i], v) "
                            "atomically; the old x[i]")
atomic_max = _AtomicBuiltin("atomic_max", "pl.atomic_max(x, i, v): x[i] = max(x[i], v) "
                            "atomically; the old x[i]")
atomic_xchg = _AtomicBuiltin("atomic_xchg", "pl.atomic_xchg(x, i, v): x[i] = v atomically; "
                             "the old x[i]")
atomic_and = _AtomicBuiltin("atomic_and", "pl.atomic_and(x, i, v): x[i] &= v atomically")
atomic_or = _AtomicBuiltin("atomic_or", "pl.atomic_or(x, i, v): x[i] |= v atomically")
atomic_xor = _AtomicBuiltin("atomic_xor", "pl.atomic_xor(x, i, v): x[i] ^= v atomically")
atomic_cas = _AtomicBuiltin("atomic_cas", "pl.atomic_cas(x, i, expected, v): x[i] = v if "
                            "x[i] == expected, atomically; the old x[i]")

# One marker per op of the table: pl.add, pl.matmul, ... (adding an op adds its name here;
# the ops of an extension live in its own namespace module, see dsl_parser.extensions).
globals().update({_name: _OpBuiltin(_name, _rule.doc) for _name, _rule in _OPS.items()})


def __getattr__(name: str) -> _OpBuiltin:
    """``pl.<op>``: the marker of an op of the table (the parser's entry points, imported
    on first use, come here too; type checkers see them declared above)."""
    if name in _ENTRY:
        value = getattr(importlib.import_module("dsl_parser.parser.entry"), name)
        globals()[name] = value
        return value  # type: ignore[no-any-return]
    if name in _OPS:  # an op registered after import (dsl_parser.ops.register)
        return _OpBuiltin(name, _OPS[name].doc)
    raise AttributeError(f"module 'dsl_parser.language' has no operation or attribute {name!r}")
