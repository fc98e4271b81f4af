"""dsl-parser example: the seed's ``flash_attn_simplified``, its MLIR and its round trip.

The seed's text (seeds/002) is not well typed: ``pl.matmul(q, k_block,
b_trans=True)`` of two 64x128 tensors is 64x64 (it is annotated 64x128), and
``pl.add(attn, scores)`` adds an FP32 tensor to an FP16 one. The parser reports
the first problem at its line; the corrected kernel below parses, verifies,
prints back to Python and round-trips exactly.

    python examples/parser_flash_attn.py
"""

# The loop result `final` is bound by pl.yield_ inside pl.range (strict SSA: it cannot be
# bound before the loop); pyright calls it "possibly unbound" (docs/runtime.md).
# pyright: reportPossiblyUnboundVariable=false

from __future__ import annotations

import dsl_parser
import dsl_parser.language as pl

SEED = '''
@pl.function
def flash_attn_simplified(
    q: pl.Tensor[[64, 128], pl.FP16],
    k: pl.Tensor[[1024, 128], pl.FP16],
) -> pl.Tensor[[64, 128], pl.FP32]:
    attn_init: pl.Tensor[[64, 128], pl.FP32] = pl.create_tensor([64, 128], dtype=pl.FP32)

    for i, (attn,) in pl.range(16, init_values=(attn_init,)):
        k_block: pl.Tensor[[64, 128], pl.FP16] = pl.slice(k, [64, 128], [i * 64, 0])
        scores: pl.Tensor[[64, 128], pl.FP16] = pl.matmul(q, k_block, b_trans=True)

        if i == 0:
            new_attn: pl.Tensor[[64, 128], pl.FP32] = pl.cast(scores, target_type=pl.FP32)
            result = pl.yield_(new_attn)
        else:
            updated: pl.Tensor[[64, 128], pl.FP32] = pl.add(attn, scores)
            result = pl.yield_(updated)

        final = pl.yield_(result)

    return final
'''


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


def main() -> None:
    # 1. The seed's text, verbatim: a type error at the `scores` annotation.
    try:
        pl.parse(SEED, filename="seed_002.py")
    except dsl_parser.ParserTypeError as err:
        print(err, end="\n\n")
        assert err.span is not None and (err.span.begin_line, err.span.begin_column) == (11, 17)
        assert "inferred pl.Tensor[[64, 64], pl.FP16]" in err.message
    else:
        raise AssertionError("the seed's kernel is ill-typed and must not parse")

    # 2. The corrected kernel: verified MLIR in the dsl dialect.
    fn = flash_attn_simplified
    mlir = str(fn)
    print(mlir)
    assert "scf.for" in mlir and "scf.if" in mlir and "dsl.matmul" in mlir
    assert "dsl.slice %arg1" in mlir and "{b_trans}" in mlir
    assert [str(p.type) for p in fn.signature.params] == [
        "pl.Tensor[[64, 128], pl.FP16]", "pl.Tensor[[1024, 128], pl.FP16]"]

    # 3. Back to Python, and the round trip: same module, and a fixed point.
    source = fn.as_python()
    print(source)
    again = pl.parse(source)
    assert dsl_parser.structural_equal(fn, again)
    assert again.as_python() == source
    concise = fn.as_python(concise=True)
    assert "    scores = pl.matmul(q, k_block, b_trans=True)" in concise
    assert dsl_parser.structural_equal(pl.parse(concise), fn)
    print("round trip: OK")


if __name__ == "__main__":
    main()
