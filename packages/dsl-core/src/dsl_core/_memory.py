"""Raw memory access by address; ``ctypes`` is imported on first use, not at import time."""

from __future__ import annotations

from typing import Any

_CT: Any = None


def ctypes_module() -> Any:
    """The ``ctypes`` module, imported lazily (it costs milliseconds at import)."""
    global _CT
    if _CT is None:
        import ctypes

        _CT = ctypes
    return _CT


def address_of(obj: object) -> int:
    """Address of ``obj``: an int, a ctypes object, an array interface (numpy) or a writable
    buffer (``bytearray``, writable ``memoryview``). The object must outlive its use."""
    if type(obj) is int:
        return obj
    ct = ctypes_module()
    if isinstance(obj, (ct._SimpleCData, ct.Array, ct.Structure, ct.Union)):
        return int(ct.addressof(obj))
    interface = getattr(obj, "__array_interface__", None)
    if interface is not None:
        return int(interface["data"][0])
    try:
        view = memoryview(obj)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"expected an address (int), a ctypes object or a writable buffer, "
            f"got {type(obj).__name__}"
        ) from None
    if view.readonly:
        raise TypeError(f"the buffer of {type(obj).__name__} is read-only")
    return int(ct.addressof(ct.c_char.from_buffer(view)))


def check_address(where: str, ptr: object) -> int:
    addr = address_of(ptr)
    if addr <= 0:
        raise ValueError(f"{where}: address {addr:#x} is not a valid pointer")
    return addr


def read(addr: int, size: int) -> bytes:
    """``size`` bytes starting at ``addr``."""
    return bytes(ctypes_module().string_at(addr, size))


def write(addr: int, data: bytes | bytearray) -> None:
    """Copy ``data`` to ``addr``."""
    ctypes_module().memmove(addr, bytes(data), len(data))


def buffer(size: int) -> Any:
    """A zeroed, owned ctypes byte buffer of ``size`` bytes."""
    ct = ctypes_module()
    return (ct.c_char * max(size, 1))()
