"""Generated `dsl` modules for the IR fuzz test (test_mlir_fuzz_ir.py).

Each module is one ``func.func`` over random tensors: a chain of random dsl ops
(every op of the dialect), mostly well typed, sometimes not (another result
type, an axis out of range, a wrong operand count), over element types that
include odd ones (``i0``, ``i2``, ``i128``, ``f80``, ``index``, ``ui8`` ...) and
shapes that include 0, dynamic and huge sizes (2^31 .. 2^63-1).

``python ir_fuzz.py SEED COUNT`` runs COUNT modules of the batch SEED through
parse -> verify -> lower -> JIT, printing ``CASE i`` before and ``DONE i
<outcome>`` after each one, so that a parent sees which module killed it.
Outcomes: ``ok`` (compiled), ``refused`` (MLIRDiagnosticError: the clean error
every bad module must give), ``unexpected <type>: <message>`` (any other
exception: a finding).
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field

GOOD_ELEMENTS = ("f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64")
FLOAT_ELEMENTS = ("f16", "bf16", "f32", "f64")
ODD_ELEMENTS = ("i0", "i2", "i3", "i7", "i17", "i65", "i128", "f80", "f128", "f8E4M3FN", "tf32",
                "index", "ui8", "si32", "complex<f32>")
SMALL_DIMS = (1, 1, 2, 3, 4, 5, 7, 8, 16, 17, 33)
HUGE_DIMS = (2**31, 2**32, 2**40, 2**62, 2**63 - 1)
UNARY = ("exp", "log", "sqrt", "rsqrt", "tanh", "abs", "neg", "relu")
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "pow")
REDUCE = ("sum", "max", "min", "mean")
PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")
#: Lowering options tried now and then (every option of dsl-to-llvm-cpu, in range).
OPTIONS = ({}, {}, {}, {"vectorize": False}, {"fuse-elementwise": False}, {"vector-size": 4},
           {"vector-size": 64}, {"matmul-tile-sizes": "4,8,2"}, {"matmul-k-block": 0},
           {"approximate-math": False}, {"parallel": True, "num-threads": 2})


@dataclass
class Tensor:
    """An SSA value of the function: its name, shape (None = dynamic) and element."""

    name: str
    shape: list[int | None]
    element: str

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.element)


def tensor_type(shape: list[int | None], element: str) -> str:
    dims = "".join(f"{'?' if d is None else d}x" for d in shape)
    return f"tensor<{dims}{element}>"


@dataclass
class Builder:
    """Emits one function's body; ``rng`` decides everything."""

    rng: random.Random
    lines: list[str] = field(default_factory=list)
    values: list[Tensor] = field(default_factory=list)
    counter: int = 0

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def element(self) -> str:
        return self.rng.choice(ODD_ELEMENTS) if self.chance(0.08) else self.rng.choice(GOOD_ELEMENTS)

    def dim(self) -> int | None:
        r = self.rng.random()
        if r < 0.04:
            return self.rng.choice(HUGE_DIMS)
        if r < 0.10:
            return 0
        if r < 0.18:
            return None
        return self.rng.choice(SMALL_DIMS)

    def shape(self, rank: int | None = None) -> list[int | None]:
        return [self.dim() for _ in range(self.rng.randint(0, 3) if rank is None else rank)]

    def scalar(self, element: str) -> str:
        name = self.fresh()
        if element in FLOAT_ELEMENTS or element.startswith("f") or element == "tf32":
            value = self.rng.choice(("1.5", "0.0", "-2.0", "3.0e+00"))
        elif element == "i1":
            value = self.rng.choice(("true", "false"))
        else:
            value = str(self.rng.choice((0, 1, -1, 3, 100)))
        self.lines.append(f"{name} = arith.constant {value} : {element}")
        return name

    def index(self, low: int = 0, high: int = 4) -> str:
        name = self.fresh()
        self.lines.append(f"{name} = arith.constant {self.rng.randint(low, high)} : index")
        return name

    def pick(self) -> Tensor:
        return self.rng.choice(self.values)

    def emit(self, text: str, shape: list[int | None], element: str) -> None:
        """Append ``%r = text : types``; now and then the result type is wrong."""
        if self.chance(0.07):
            shape, element = self.shape(), self.element()
        name = self.fresh()
        self.lines.append(f"{name} = {text}".replace("RESULT", tensor_type(shape, element)))
        self.values.append(Tensor(name, shape, element))


def _broadcast(a: list[int | None], b: list[int | None]) -> list[int | None]:
    rank = max(len(a), len(b))
    a = [1] * (rank - len(a)) + a
    b = [1] * (rank - len(b)) + b
    return [y if x == 1 else x for x, y in zip(a, b, strict=True)]


def _axes(b: Builder, rank: int) -> list[int]:
    if b.chance(0.1) or rank == 0:
        return [b.rng.randint(-2, rank + 1)]
    return sorted(b.rng.sample(range(rank), b.rng.randint(1, rank)))


def _op(b: Builder) -> None:  # one branch per op family
    x = b.pick()
    kind = b.rng.choice(("unary", "binary", "binary", "cmp", "select", "broadcast", "reduce", "argmax",
                         "transpose", "reshape", "concat", "expand", "squeeze", "assemble", "slice",
                         "matmul", "cast", "create", "full", "arange"))
    if kind == "unary":
        op = b.rng.choice(UNARY)
        b.emit(f"dsl.{op} {x.name} : {x.type} -> RESULT", x.shape, x.element)
    elif kind in ("binary", "cmp"):
        y = b.pick() if b.chance(0.6) else x
        if b.chance(0.2):
            rhs, rtype, shape = b.scalar(x.element), x.element, x.shape
        else:
            rhs, rtype, shape = y.name, y.type, _broadcast(x.shape, y.shape)
        if kind == "cmp":
            pred = b.rng.choice(PREDICATES)
            b.emit(f"dsl.cmp {pred}, {x.name}, {rhs} : ({x.type}, {rtype}) -> RESULT", shape, "i1")
        else:
            op = b.rng.choice(BINARY)
            b.emit(f"dsl.{op} {x.name}, {rhs} : ({x.type}, {rtype}) -> RESULT", shape, x.element)
    elif kind == "select":
        cond = tensor_type(x.shape, "i1")
        c = b.fresh()
        b.lines.append(f"{c} = dsl.cmp lt, {x.name}, {x.name} : {x.type}")
        b.values.append(Tensor(c, x.shape, "i1"))
        b.emit(f"dsl.select {c}, {x.name}, {x.name} : ({cond}, {x.type}, {x.type}) -> RESULT", x.shape, x.element)
    elif kind == "broadcast":
        shape = [b.rng.choice((2, 3)) if d == 1 else d for d in x.shape]
        if b.chance(0.5):
            shape = [b.rng.choice(SMALL_DIMS), *shape]
        b.emit(f"dsl.broadcast {x.name} : {x.type} -> RESULT", shape, x.element)
    elif kind in ("reduce", "argmax"):
        rank = len(x.shape)
        keep = b.chance(0.5)
        if kind == "reduce":
            axes = _axes(b, rank)
            shape = [1 if i in axes else d for i, d in enumerate(x.shape)] if keep else \
                [d for i, d in enumerate(x.shape) if i not in axes]
            op = b.rng.choice(REDUCE)
            b.emit(f"dsl.{op} {x.name} {axes}{' keepdim' if keep else ''} : {x.type} -> RESULT", shape, x.element)
        else:
            axis = b.rng.randint(-1, rank) if b.chance(0.1) else b.rng.randint(0, max(rank - 1, 0))
            shape = [1 if i == axis else d for i, d in enumerate(x.shape)] if keep else \
                [d for i, d in enumerate(x.shape) if i != axis]
            b.emit(f"dsl.argmax {x.name} axis {axis}{' keepdim' if keep else ''} : {x.type} -> RESULT", shape, "i64")
    elif kind == "transpose":
        perm = list(range(len(x.shape)))
        b.rng.shuffle(perm)
        if b.chance(0.1):
            perm = [*perm, 0]
        b.emit(f"dsl.transpose {x.name} {perm} : {x.type} -> RESULT",
               [x.shape[p] for p in perm if p < len(x.shape)], x.element)
    elif kind == "reshape":
        total = 1
        for d in x.shape:
            total *= d if d is not None else 1
        shape: list[int | None] = [total] if b.chance(0.5) else [1, total]
        if b.chance(0.2):
            shape = [2**32, 2**32]
        b.emit(f"dsl.reshape {x.name} : {x.type} -> RESULT", shape, x.element)
    elif kind == "concat":
        rank = len(x.shape)
        axis = b.rng.randint(0, max(rank - 1, 0))
        shape = list(x.shape)
        if rank:
            d = x.shape[axis]
            shape[axis] = None if d is None else 2 * d
        b.emit(f"dsl.concat {x.name}, {x.name} axis {axis} : {x.type}, {x.type} -> RESULT", shape, x.element)
    elif kind == "expand":
        axis = b.rng.randint(0, len(x.shape))
        shape = list(x.shape)
        shape.insert(axis, 1)
        b.emit(f"dsl.expand_dims {x.name} axis {axis} : {x.type} -> RESULT", shape, x.element)
    elif kind == "squeeze":
        axis = b.rng.randint(0, max(len(x.shape) - 1, 0))
        shape = [d for i, d in enumerate(x.shape) if i != axis]
        b.emit(f"dsl.squeeze {x.name} axis {axis} : {x.type} -> RESULT", shape, x.element)
    elif kind in ("assemble", "slice"):
        window = [min(d, 2) if d is not None else 1 for d in x.shape]
        offsets = ", ".join(b.index(0, 2) for _ in x.shape)
        if kind == "slice":
            b.emit(f"dsl.slice {x.name}[{offsets}] : {x.type} -> RESULT", window, x.element)
        else:
            s = b.fresh()
            wtype = tensor_type(window, x.element)
            b.lines.append(f"{s} = dsl.create_tensor{_sizes(b, window)} : {wtype}")
            b.emit(f"dsl.assemble {x.name}, {s} [{offsets}] : {wtype} into {x.type} -> RESULT", x.shape, x.element)
    elif kind == "matmul":
        m, k, n = b.dim(), b.dim(), b.dim()
        ta, tb = tensor_type([m, k], x.element), tensor_type([k, n], x.element)
        a, c = b.fresh(), b.fresh()
        b.lines.append(f"{a} = dsl.create_tensor{_sizes(b, [m, k])} : {ta}")
        b.lines.append(f"{c} = dsl.create_tensor{_sizes(b, [k, n])} : {tb}")
        acc = "f32" if x.element in ("f16", "bf16") and b.chance(0.5) else x.element
        b.emit(f"dsl.matmul {a}, {c} : {ta}, {tb} -> RESULT", [m, n], acc)
    elif kind == "cast":
        b.emit(f"dsl.cast {x.name} : {x.type} to RESULT", x.shape, b.element())
    elif kind == "create":
        shape, element = b.shape(), b.element()
        b.emit(f"dsl.create_tensor{_sizes(b, shape)} : RESULT", shape, element)
    elif kind == "full":
        shape, element = b.shape(), b.element()
        value = b.scalar(element)
        b.emit(f"dsl.full {value}{_sizes(b, shape)} : {element} -> RESULT", shape, element)
    else:
        n, element = b.dim(), b.element()
        start, step = b.scalar(element), b.scalar(element)
        b.emit(f"dsl.arange {start}, {step}{_sizes(b, [n])} : {element} -> RESULT", [n], element)


def _sizes(b: Builder, shape: list[int | None]) -> str:
    """The ``[%n, ...]`` index operands of a constructor's dynamic dimensions."""
    dynamic = [b.index(1, 5) for d in shape if d is None]
    return f" [{', '.join(dynamic)}]" if dynamic else ""


def generate(seed: int) -> tuple[str, dict[str, object]]:
    """(module text, lowering options) of case ``seed``."""
    rng = random.Random(seed)
    b = Builder(rng)
    params = []
    for i in range(rng.randint(1, 3)):
        t = Tensor(f"%arg{i}", b.shape(), b.element())
        params.append(t)
        b.values.append(t)
    for _ in range(rng.randint(1, 6)):
        _op(b)
    result = b.values[-1]
    body = "\n    ".join(b.lines)
    args = ", ".join(f"{p.name}: {p.type}" for p in params)
    text = (f"func.func @f({args}) -> {result.type} {{\n    {body}\n"
            f"    return {result.name} : {result.type}\n}}\n")
    return text, dict(rng.choice(OPTIONS))


def run_case(text: str, options: dict[str, object]) -> str:
    """parse -> verify -> lower -> JIT; the outcome (see the module docstring)."""
    import dsl_mlir

    with dsl_mlir.context():
        try:
            module = dsl_mlir.parse_module(text)
            dsl_mlir.verify(module)
            lowered = dsl_mlir.lower(module, options={"internalize-entries": True, **options})
            dsl_mlir.jit(lowered, opt_level=2, parallel=bool(options.get("parallel")),
                         llvm_passes=dsl_mlir.FAST_LLVM_PASSES)
        except dsl_mlir.MLIRDiagnosticError:
            return "refused"
        except Exception as err:  # any other exception is a finding
            message = str(err).replace("\n", " ")[:300]
            return f"unexpected {type(err).__name__}: {message}"
    return "ok"


def main(argv: list[str]) -> int:
    first, count = int(argv[1]), int(argv[2])
    for i in range(first, first + count):
        print(f"CASE {i}", flush=True)
        text, options = generate(i)
        print(f"DONE {i} {run_case(text, options)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
