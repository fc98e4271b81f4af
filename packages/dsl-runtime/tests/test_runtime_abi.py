"""The KernelABI, the adapters' hooks and the packed C interface agree."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import pytest
import runtime_kernels as k

import dsl_core as dc
from dsl_runtime import KernelABI
from dsl_runtime.adapters import NdarrayArgument, adapt


def test_abi_slots_in_call_order() -> None:
    x = np.ones(4, np.float32)
    abi = k.scale_add.compile(x, x).abi
    assert abi.function == "scale_add"
    assert abi.c_symbol == "_mlir_ciface_scale_add"
    assert abi.packed_symbol == "_mlir__mlir_ciface_scale_add"
    assert [(p.name, p.role, p.shape, p.dtype) for p in abi.params] == [
        ("x", "input", ("N",), "float32"), ("y", "input", ("N",), "float32")]
    assert [(r.name, r.role, r.shape) for r in abi.results] == [("result", "output", ("N",))]
    assert [s.kind for s in abi.slots()] == ["memref", "memref", "memref"]
    assert abi.symbols == ("N",)
    assert abi.params[0].mlir_type == "tensor<?xf32>"


def test_constexpr_and_scalar_slots() -> None:
    abi = k.repeat_add.compile(np.ones(2, np.float32), 3).abi
    assert [(p.name, p.role, len(p.slots)) for p in abi.params] == [("x", "input", 1),
                                                                    ("times", "constexpr", 0)]
    assert abi.params[1].value == "3"
    scalar_abi = k.fill_scaled.compile(np.ones(2), 1.0).abi
    assert [s.kind for s in scalar_abi.slots()] == ["memref", "f64", "memref"]
    assert scalar_abi.params[1].slots[0].ctype == "double"


def test_abi_is_json_serializable() -> None:
    abi = k.static_add.compile(np.ones((4, 8), np.float32), np.ones((4, 8), np.float32)).abi
    again = KernelABI.model_validate_json(abi.model_dump_json())
    assert again == abi
    assert again.params[0].shape == (4, 8)


def test_adapter_hooks_match_the_abi() -> None:
    x = np.ones((4, 8), np.float32)
    adapter = adapt(x)
    assert isinstance(adapter, NdarrayArgument)
    abi = k.static_add.compile(x, x).abi
    import dsl_mlir

    with dsl_mlir.context():
        (ir_type,) = dc.get_ir_types(adapter)
        assert str(ir_type) == abi.params[0].mlir_type == "tensor<4x8xf32>"
    (slot,) = dc.c_abi_spec(adapter)
    assert slot[0]._type_.__name__ == "Memref2D"
    assert dc.cache_signature(adapter) == ("ndarray", "<f4", (4, 8))
    assert dc.cache_signature(adapt(np.ones((4, 8), np.float64))) != dc.cache_signature(adapter)


def test_generic_ctypes_path_equals_native_dispatch() -> None:
    """Fill the packed slots through the adapters' c_abi_spec and call with ctypes."""
    x = np.arange(5, dtype=np.float32)
    y = np.full(5, 2, np.float32)
    cf = k.scale_add.compile(x, y)
    expected = cf(x, y)
    out = np.zeros(5, np.float32)
    storages, keep = [], []
    for value in (x, y, out):
        ((ctype, fill),) = adapt(value).__c_abi_spec__()
        storage = ctype()
        fill(value, storage)
        storages.append(storage)
        keep.append(value)
    packed = (ctypes.c_void_p * len(storages))(*[ctypes.addressof(s) for s in storages])
    engine = cf.keepalive[-1]
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.raw_lookup(cf.abi.c_symbol))
    fn(packed)
    np.testing.assert_array_equal(out, expected)


def test_the_builtin_adapters_entries_are_the_slots_the_abi_describes() -> None:
    """One description of the built-in slots: the NativeSlot entries of dsl-core's scalars,
    Stream and the ndarray adapter name the slot kinds the runtime's ABI gives the same
    parameters (scalar_slot / memref_slot / stream_slot), for every dtype."""
    import dsl_core as dc
    from dsl_core import dtypes
    from dsl_core.abi import abi_spec_of_type
    from dsl_runtime.abi import NATIVE_KINDS, memref_slot, scalar_slot, stream_slot

    scalars = {c.dtype: c for c in vars(dc).values()
               if isinstance(c, type) and isinstance(getattr(c, "dtype", None), dtypes.DType)}
    checked = 0
    for d in dtypes.ALL:
        if d in scalars:
            entry, = abi_spec_of_type(scalars[d])
            assert (entry.kind, entry.dtype) == (scalar_slot(d.abi_name).kind, d)
            assert entry.kind in NATIVE_KINDS
            checked += 1
        if d.kind != "index":
            array = np.zeros((2, 3), d.storage)
            entry, = NdarrayArgument(array).__c_abi_spec__()
            assert (entry.kind, entry.rank) == (memref_slot(d.abi_name, 2).kind, 2)
            assert entry.dtype.storage == d.storage and entry.value_of(array) is array
    assert checked >= 12
    entry, = abi_spec_of_type(dc.Stream)
    assert entry.kind == stream_slot().kind == "ptr" and entry.value_of(None) == 0


def test_duck_typed_arrays_are_registry_adapters() -> None:
    """A device array (``__cuda_array_interface__``) and a CPU DLPack tensor go through
    the registry's attribute registrations: one memref NativeSlot each, the device one
    passing the object itself to the dispatcher's device mode (its Python fill refuses,
    there is no host memory), the DLPack one its numpy view."""

    class FakeDevice:
        @property
        def __cuda_array_interface__(self) -> dict[str, Any]:
            return {"shape": (3, 4), "typestr": "<f2", "data": (0, False), "version": 3}

    class OnlyDlpack:
        def __init__(self, array: np.ndarray) -> None:
            self._a = array

        def __dlpack__(self, **kwargs: Any) -> Any:
            return self._a.__dlpack__(**kwargs)

        def __dlpack_device__(self) -> Any:
            return self._a.__dlpack_device__()

    device = FakeDevice()
    argument, dsl_type = dc.JitArgumentRegistry.adapt(device)
    assert dsl_type is dc.Tensor and dc.cache_signature(argument) == ("device", "<f2", (3, 4))
    (entry,) = dc.c_abi_spec(argument)
    assert (entry.kind, entry.rank, entry.dtype.name) == ("memref", 2, "FP16")
    assert entry.value_of(argument) is device
    with pytest.raises(TypeError, match="device mode only"):
        entry[1](argument, entry[0]())
    array = np.arange(6, dtype=np.int16)
    argument, _ = dc.JitArgumentRegistry.adapt(OnlyDlpack(array))
    (entry,) = dc.c_abi_spec(argument)
    view = entry.value_of(argument)
    assert entry.kind == "memref" and view.dtype == np.int16
    assert np.shares_memory(view, array)
