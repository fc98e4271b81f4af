"""Compile options (part of every cache key)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from . import knobs

#: Where kernels launched by a function run: ``cpu`` (loops over grid and block,
#: everywhere) or ``nvptx`` (PTX launched through the CUDA driver).
Backend = Literal["cpu", "nvptx"]
_PIPELINES: dict[str, str] = {"cpu": "dsl-to-llvm-cpu", "nvptx": "dsl-to-llvm-nvptx"}


def _describe(error: Any) -> str:
    msg = str(error["msg"]).removeprefix("Value error, ")
    where = ".".join(str(p) for p in error["loc"])
    return f"{where}: {msg} (got {error.get('input')!r})" if where else msg


class CompileOptions(BaseModel):
    """How a function is compiled.

    ``pipeline_options`` are passed to the pipeline as ``{key=value}`` (see
    docs/mlir.md for those of ``dsl-to-llvm-cpu`` and docs/kernels.md for
    ``dsl-to-llvm-nvptx``, e.g. ``{"chip": "sm_90"}``). ``backend`` picks the
    pipeline unless ``pipeline`` is given.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    opt_level: int = Field(default=3, ge=0, le=3)
    backend: Backend = "cpu"
    pipeline: str = "dsl-to-llvm-cpu"
    pipeline_options: dict[str, bool | int | str] = Field(default_factory=dict)
    #: LLVM IR passes of the JIT: ``"fast"`` (dsl_mlir.FAST_LLVM_PASSES), ``"default"``
    #: (LLVM's O-level pipeline at ``opt_level``) or a new-pass-manager pipeline text.
    #: Code generation runs at ``opt_level`` either way.
    llvm_passes: str = "fast"
    strict_ssa: bool = True
    #: Check the indices of every element access of kernels (``x[i]`` in ``@pl.kernel``):
    #: an access out of range is an IndexError naming the kernel's line. Default: the
    #: environment variable ``DSL_BOUNDSCHECK`` (``1`` turns it on) on the cpu backend,
    #: else off. The cpu backend only (docs/kernels.md).
    boundscheck: bool = False

    def __init__(self, **fields: Any) -> None:
        try:
            super().__init__(**fields)
        except ValidationError as err:  # our message, without pydantic's web link
            raise ValueError("invalid compile option: " + "; ".join(
                _describe(e) for e in err.errors())) from None

    @model_validator(mode="before")
    @classmethod
    def _names_and_spellings(cls, data: Any) -> Any:
        """TypeError naming an unknown option and the valid ones; pipeline option names
        may be written Python-style (``vector_size`` is ``vector-size``)."""
        if not isinstance(data, dict):
            return data
        unknown = [k for k in data if k not in cls.model_fields]
        if unknown:
            raise TypeError(f"unknown compile option {unknown[0]!r}; the options are: "
                            f"{', '.join(sorted(cls.model_fields))}")
        given = data.get("pipeline_options")
        if isinstance(given, dict):
            data = {**data, "pipeline_options": {str(k).replace("_", "-"): v
                                                 for k, v in given.items()}}
        return data

    @model_validator(mode="before")
    @classmethod
    def _pipeline_of_backend(cls, data: Any) -> Any:
        if isinstance(data, dict) and "pipeline" not in data and data.get("backend") in _PIPELINES:
            data = {**data, "pipeline": _PIPELINES[data["backend"]]}
        if (isinstance(data, dict) and "boundscheck" not in data
                and data.get("backend", "cpu") == "cpu" and knobs.read_boundscheck()):
            data = {**data, "boundscheck": True}
        return data

    @model_validator(mode="after")
    def _boundscheck_backend(self) -> CompileOptions:
        if self.boundscheck and self.backend != "cpu":
            raise ValueError(f"boundscheck=True is supported by the cpu backend only, not "
                             f"{self.backend!r} (run the kernel with backend='cpu' to check "
                             "its accesses)")
        return self

    @property
    def parallel(self) -> bool:
        """Whether the pipeline emits multithreaded code (it then needs dsl-mlir's async runtime)."""
        return bool(self.pipeline_options.get("parallel", False))

    @property
    def llvm_pipeline(self) -> str | None:
        """The LLVM pass text for dsl_mlir.jit (None: LLVM's default pipeline)."""
        if self.llvm_passes == "default":
            return None
        if self.llvm_passes == "fast":
            import dsl_mlir

            return str(dsl_mlir.FAST_LLVM_PASSES)
        return self.llvm_passes

    @property
    def gpu(self) -> bool:
        """Whether the compiled host code launches kernels on a GPU (the NVPTX backend)."""
        return self.backend == "nvptx"

    def updated(self, **fields: Any) -> CompileOptions:
        """A copy with ``fields`` changed (a new ``backend`` brings its pipeline along)."""
        base = self.model_dump()
        if "backend" in fields and "pipeline" not in fields and base["pipeline"] == _PIPELINES[self.backend]:
            del base["pipeline"]
        if fields.get("backend", "cpu") != "cpu" and "boundscheck" not in fields:
            base["boundscheck"] = False  # kernel checks are a cpu-backend feature
        return CompileOptions(**{**base, **fields})

    def key(self) -> str:
        return self.model_dump_json()
