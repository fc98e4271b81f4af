"""Compile options (part of every cache key)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from . import knobs
from .records import Record, RecordError

#: Where kernels launched by a function run: ``cpu`` (loops over grid and block,
#: everywhere) or ``nvptx`` (PTX launched through the CUDA driver).
Backend = Literal["cpu", "nvptx"]
_PIPELINES: dict[str, str] = {"cpu": "dsl-to-llvm-cpu", "nvptx": "dsl-to-llvm-nvptx"}


@dataclass(frozen=True, init=False)
class CompileOptions(Record):
    """How a function is compiled.

    ``pipeline_options`` are passed to the pipeline as ``{key=value}`` (see
    docs/mlir.md for those of ``dsl-to-llvm-cpu`` and docs/kernels.md for
    ``dsl-to-llvm-nvptx``, e.g. ``{"chip": "sm_90"}``); their names may be written
    Python-style (``vector_size`` is ``vector-size``). ``backend`` picks the pipeline
    unless ``pipeline`` is given. An unknown option is a TypeError naming the valid
    ones, a wrong value a ValueError naming the option.
    """

    opt_level: int = 3
    backend: Backend = "cpu"
    pipeline: str = "dsl-to-llvm-cpu"
    pipeline_options: dict[str, bool | int | str] = field(default_factory=dict)
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
        names = [f.name for f in dataclasses.fields(self)]
        unknown = [k for k in fields if k not in names]
        if unknown:
            raise TypeError(f"unknown compile option {unknown[0]!r}; the options are: "
                            f"{', '.join(sorted(names))}")
        given = fields.get("pipeline_options")
        if isinstance(given, dict):
            fields["pipeline_options"] = {str(k).replace("_", "-"): v for k, v in given.items()}
        if "pipeline" not in fields and fields.get("backend") in _PIPELINES:
            fields["pipeline"] = _PIPELINES[fields["backend"]]
        if ("boundscheck" not in fields and fields.get("backend", "cpu") == "cpu"
                and knobs.read_boundscheck()):
            fields["boundscheck"] = True
        for f in dataclasses.fields(self):
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            object.__setattr__(self, f.name, fields.get(f.name, default))
        try:
            self.__post_init__()
        except RecordError as err:  # "CompileOptions.opt_level: expected int, got ..."
            raise ValueError("invalid compile option: "
                             + str(err).removeprefix("CompileOptions.")) from None
        self._check_values()

    def _check_values(self) -> None:
        if not 0 <= self.opt_level <= 3:
            raise ValueError(f"invalid compile option: opt_level: must be 0, 1, 2 or 3 "
                             f"(got {self.opt_level!r})")
        if self.boundscheck and self.backend != "cpu":
            raise ValueError(f"invalid compile option: boundscheck=True is supported by the cpu "
                             f"backend only, not {self.backend!r} (run the kernel with "
                             "backend='cpu' to check its accesses)")

    @classmethod
    def from_dict(cls, data: Any, where: str | None = None) -> CompileOptions:
        if not isinstance(data, dict):
            raise RecordError(f"{where or cls.__name__}: expected an object, got "
                              f"{type(data).__name__}")
        return cls(**data)

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
        """The options as the cache key covers them (JSON, fields in declaration order)."""
        return self.model_dump_json()
