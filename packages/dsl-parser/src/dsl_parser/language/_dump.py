"""``pl._dump``: serialization spellings used by the printer (not authoring APIs)."""

from __future__ import annotations

from ..floats import float64 as float64

__all__ = ["float64"]
