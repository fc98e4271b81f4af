"""DSL programs used by the round-trip, lowering and property tests."""

from __future__ import annotations

FLASH_ATTN = '''
import dsl_parser.language as pl


@pl.function
def flash_attn_simplified(
    q: pl.Tensor[[64, 128], pl.FP16],
    k: pl.Tensor[[1024, 128], pl.FP16],
) -> pl.Tensor[[64, 64], pl.FP32]:
    attn_init: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)

    for i, (attn,) in pl.range(16, init_values=(attn_init,)):
        k_block: pl.Tensor[[64, 128], pl.FP16] = pl.slice(k, [64, 128], [i * 64, 0])
        scores: pl.Tensor[[64, 64], pl.FP16] = pl.matmul(q, k_block, b_trans=True)

        if i == 0:
            new_attn: pl.Tensor[[64, 64], pl.FP32] = pl.cast(scores, target_type=pl.FP32)
            result = pl.yield_(new_attn)
        else:
            wide: pl.Tensor[[64, 64], pl.FP32] = pl.cast(scores, target_type=pl.FP32)
            updated: pl.Tensor[[64, 64], pl.FP32] = pl.add(attn, wide)
            result = pl.yield_(updated)

        final = pl.yield_(result)

    return final
'''

MATH_OPS = '''
@pl.program
class MathOps:
    @pl.function
    def square(self, x: pl.Tensor[[1], pl.INT32]) -> pl.Tensor[[1], pl.INT32]:
        result: pl.Tensor[[1], pl.INT32] = pl.mul(x, x)
        return result

    @pl.function
    def sum_of_squares(self, a: pl.Tensor[[1], pl.INT32],
                       b: pl.Tensor[[1], pl.INT32]) -> pl.Tensor[[1], pl.INT32]:
        a_squared: pl.Tensor[[1], pl.INT32] = self.square(a)
        b_squared: pl.Tensor[[1], pl.INT32] = self.square(b)
        result: pl.Tensor[[1], pl.INT32] = pl.add(a_squared, b_squared)
        return result
'''

FORWARD_CALLS = '''
@pl.program
class Pairs:
    def main(self, a: pl.Tensor[[8], pl.FP32], b: pl.Tensor[[8], pl.FP32]):
        hi, lo = self.order(a, b)
        return self.scale(hi, 2), lo

    def order(self, a: pl.Tensor[[8], pl.FP32], b: pl.Tensor[[8], pl.FP32]):
        return b, a

    def scale(self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
        for i, (acc,) in pl.range(n, init_values=(x,)):
            twice = pl.add(acc, acc)
            out = pl.yield_(twice)
        return out
'''

NESTED = '''
@pl.function
def nested(x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 16], pl.FP32]:
    for i, (outer,) in pl.range(0, n, 2, init_values=(x,)):
        for j, (inner,) in pl.unroll(4, init_values=(outer,)):
            if i + j < 3:
                bumped = inner + x
                step = pl.yield_(bumped)
            elif j == 1:
                step = pl.yield_(pl.mul(inner, 0.5))
            else:
                step = pl.yield_(inner)
            nxt = pl.yield_(step)
        res = pl.yield_(nxt)
    return res
'''

SCALARS = '''
@pl.function
def scalars(a: pl.Scalar[pl.INT32], u: pl.Scalar[pl.UINT8], f: pl.Scalar[pl.FP64],
            flag: pl.Scalar[pl.BOOL]) -> tuple[pl.Scalar[pl.INT32], pl.Scalar[pl.FP64]]:
    b = a * 3 + pl.const(2, pl.INT32)
    c = (b // 2) % 5 - a
    d = -f * 0.25 / f
    big = u // pl.const(200, pl.UINT8)
    test = (c < 4 and f >= 1.0) or not flag
    masked = (c & 7) | (b ^ 1)
    picked = pl.const(-7, pl.INT64)
    return masked, d
'''

CONSTANTS = '''
@pl.function
def constants(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    inf = pl.const(pl._dump.float64("7ff0000000000000"), pl.FP32)
    ninf = pl.const(pl._dump.float64("fff0000000000000"), pl.FP64)
    nan = pl.const(pl._dump.float64("7ff8000000000001"), pl.FP64)
    snan = pl.const(pl._dump.float64("7ff4000020000000"), pl.FP32)
    tiny = pl.const(5e-324, pl.FP64)
    third = pl.const(0.1, pl.FP16)
    bf = pl.const(3.140625, pl.BF16)
    negzero = pl.full([4], -0.0, dtype=pl.FP32)
    filled = pl.full([4], inf, dtype=pl.FP32)
    return pl.add(pl.add(filled, negzero), x)
'''

DYNAMIC = '''
import dsl_parser.language as pl

M = pl.dynamic("M")
K = 32


@pl.function
def dyn(x: pl.Tensor[[M, K], pl.FP32], y: pl.Tensor[[M, K], pl.FP32]) -> pl.Tensor[[M, K], pl.FP32]:
    z = pl.create_tensor([M, K], dtype=pl.FP32)
    for i, (acc,) in pl.range(M, init_values=(z,)):
        nxt = acc + x * 2.0 - y
        out = pl.yield_(nxt)
    return out
'''

NON_STRICT = '''
@pl.function(strict_ssa=False)
def accumulate(x: pl.Tensor[[8, 8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8, 8], pl.FP32]:
    acc = pl.full([8, 8], 0.0, dtype=pl.FP32)
    count = 0
    for i in pl.range(n):
        acc = acc + x
        count = count + 1
        if count > 3:
            acc = acc * 0.5
    acc += x
    return acc
'''

ALL = {
    "flash_attn": FLASH_ATTN, "math_ops": MATH_OPS, "forward_calls": FORWARD_CALLS,
    "nested": NESTED, "scalars": SCALARS, "constants": CONSTANTS, "dynamic": DYNAMIC,
    "non_strict": NON_STRICT,
}
