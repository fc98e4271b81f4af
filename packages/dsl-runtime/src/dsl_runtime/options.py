"""Compile options (part of every cache key)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CompileOptions(BaseModel):
    """How a function is compiled.

    ``pipeline_options`` are passed to the pipeline as ``{key=value}`` (see
    docs/mlir.md for those of ``dsl-to-llvm-cpu``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    opt_level: int = Field(default=3, ge=0, le=3)
    pipeline: str = "dsl-to-llvm-cpu"
    pipeline_options: dict[str, bool | int | str] = Field(default_factory=dict)
    strict_ssa: bool = True

    @property
    def parallel(self) -> bool:
        """Whether the pipeline emits multithreaded code (it then needs dsl-mlir's async runtime)."""
        return bool(self.pipeline_options.get("parallel", False))

    def key(self) -> str:
        return self.model_dump_json()
