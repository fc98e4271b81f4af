"""dsl-vectorize's f32 exp (`avx512-exp`): vscalefps on AVX-512 hosts, exponent bits
elsewhere (AVX2), the same results.

Checked against float64 exp in ulp of the f32 result over the whole range (1.1 ulp at
most, subnormal results included, which MLIR's own approximation flushes to zero), on
special values, in a fused softmax against numpy, and that vscalefps is used exactly
when the host has AVX-512F and the option is on, the exponent-bits sequence otherwise.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from mlir_helpers import run_text

import dsl_mlir
from dsl_mlir import ir

RNG = np.random.default_rng(11)
#: 16-lane tiles, a masked remainder and a peeled one.
SIZE = 4096 + 37


def _host_has_avx512() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return "avx512f" in line.split()
    except OSError:
        pass
    return False


def _exp_text(n: int) -> str:
    return f"""func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
      %0 = dsl.exp %x : tensor<{n}xf32>
      return %0 : tensor<{n}xf32> }}"""


def _run_exp(x: np.ndarray, options: dict[str, bool | int | str] | None = None) -> np.ndarray:
    out = np.full_like(x, -1.0)
    run_text(_exp_text(x.size), [x], [out], options=options)
    return out


def _ulp_error(x: np.ndarray, got: np.ndarray) -> np.ndarray:
    """|got - exp(x)| in units of the last place of the f32 nearest exp(x)."""
    exact = np.exp(x.astype(np.float64))
    finite = exact < float(np.finfo(np.float32).max)
    spacing = np.spacing(exact[finite].astype(np.float32)).astype(np.float64)
    return np.abs(got[finite].astype(np.float64) - exact[finite]) / spacing


@pytest.mark.parametrize(("lo", "hi"), [(-1.0, 1.0), (-20.0, 20.0), (-87.3, 88.7),
                                        (-103.9, -87.4), (88.3, 88.72)])
def test_exp_is_within_about_one_ulp(ctx: ir.Context, lo: float, hi: float) -> None:
    x = RNG.uniform(lo, hi, SIZE).astype(np.float32)
    err = _ulp_error(x, _run_exp(x))
    assert err.max() <= 1.1, f"{err.max():.2f} ulp at x={x[np.argmax(err)]!r}"


def test_mlirs_exp_flushes_subnormal_results_and_ours_does_not(ctx: ir.Context) -> None:
    x = np.linspace(-103.0, -88.0, SIZE, dtype=np.float32)
    ours, upstream = _run_exp(x), _run_exp(x, {"avx512-exp": False})
    assert np.all(ours > 0) and np.all(ours < np.finfo(np.float32).tiny)
    assert np.count_nonzero(upstream == 0) > SIZE // 2  # why ours is the default


def test_exp_special_values(ctx: ir.Context) -> None:
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.72, 88.73, 1e30, -1e30, 1e-40,
                         -1e-40, -103.97, -103.98, -110.0, 100.0, -87.0], np.float32)
    x = np.zeros(64, np.float32)
    x[:specials.size] = specials
    got = _run_exp(x)
    with np.errstate(over="ignore"):
        ref = np.exp(x.astype(np.float64)).astype(np.float32)  # correctly rounded here
    edges = ~np.isfinite(ref) | (ref == 0) | (np.abs(ref) < np.finfo(np.float32).tiny)
    # inf, NaN, subnormals and 0 exactly; the rest within 1 ulp (on any host)
    np.testing.assert_array_equal(got[edges], ref[edges])
    np.testing.assert_allclose(got[~edges], ref[~edges], rtol=1.2e-7, atol=0)
    assert np.isnan(got[4]) and got[2] == np.inf and got[3] == 0.0 and got[7] == np.inf


def test_both_exp_sequences_agree_on_normal_results(ctx: ir.Context) -> None:
    x = RNG.uniform(-80.0, 80.0, SIZE).astype(np.float32)
    fast, upstream = _run_exp(x), _run_exp(x, {"avx512-exp": False})
    np.testing.assert_allclose(fast, upstream, rtol=5e-7)
    assert _ulp_error(x, upstream).max() <= 4.0


def test_softmax_with_the_fast_exp_matches_numpy(ctx: ir.Context) -> None:
    t, c = "tensor<33x1000xf32>", "tensor<33x1xf32>"
    text = f"""func.func @f(%x: {t}) -> {t} {{
      %m = dsl.max %x [1] keepdim : {t} -> {c}
      %d = dsl.sub %x, %m : ({t}, {c}) -> {t}
      %e = dsl.exp %d : {t}
      %s = dsl.sum %e [1] keepdim : {t} -> {c}
      %r = dsl.div %e, %s : ({t}, {c}) -> {t}
      return %r : {t} }}"""
    x = (RNG.standard_normal((33, 1000)) * 10).astype(np.float32)
    before = x.copy()
    out = np.zeros_like(x)
    run_text(text, [x], [out])
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=2e-5, atol=1e-9)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("enabled", [True, False])
def test_vscalefps_is_used_only_on_avx512_hosts_with_the_option(ctx: ir.Context, enabled: bool) -> None:
    module = dsl_mlir.parse_module(_exp_text(256))
    lowered = dsl_mlir.lower(module, options={"avx512-exp": enabled})
    assembly = dsl_mlir.to_assembly(lowered)
    assert ("vscalefps" in assembly) == (enabled and _host_has_avx512())
    assert "expf" not in assembly  # never a libm call per element


_VECTOR_EXPS = """func.func @f(%a: vector<16xf32>, %b: vector<5xf32>, %c: vector<40xf32>, %d: vector<8xf64>)
        -> (vector<16xf32>, vector<5xf32>, vector<40xf32>, vector<8xf64>) {
      %0 = math.exp %a : vector<16xf32>
      %1 = math.exp %b : vector<5xf32>
      %2 = math.exp %c : vector<40xf32>
      %3 = math.exp %d : vector<8xf64>
      return %0, %1, %2, %3 : vector<16xf32>, vector<5xf32>, vector<40xf32>, vector<8xf64> }"""


def test_the_pass_rewrites_1d_f32_vectors_16_lanes_at_a_time(ctx: ir.Context) -> None:
    if not _host_has_avx512():
        pytest.skip("vscalefps is used on AVX-512 hosts only")
    module = dsl_mlir.parse_module(_VECTOR_EXPS)
    out = str(dsl_mlir.lower(module, "func.func(dsl-vectorize)"))
    assert out.count("x86vector.avx512.mask.scalef") == 1 + 1 + 3  # 40 lanes: 16 + 16 + 8 padded
    assert not re.search(r"math\.exp .*xf32>", out)
    assert re.search(r"math\.exp .*vector<8xf64>", out)  # f64 is left alone
    off = str(dsl_mlir.lower(module, "func.func(dsl-vectorize{avx512-exp=false})"))
    assert "x86vector" not in off and not re.search(r"math\.exp .*xf32>", off)


def test_without_avx512_each_f32_vector_is_scaled_by_exponent_bits(ctx: ir.Context) -> None:
    if _host_has_avx512():
        pytest.skip("AVX-512 hosts use vscalefps")
    module = dsl_mlir.parse_module(_VECTOR_EXPS)
    out = str(dsl_mlir.lower(module, "func.func(dsl-vectorize)"))
    assert "x86vector" not in out and not re.search(r"math\.exp .*xf32>", out)
    # one vector per exp whatever its length: two powers of two (a shift each), a floor
    assert len(re.findall(r"arith\.shli", out)) == 2 * 3
    assert len(re.findall(r"math\.floor", out)) == 3
    assert re.search(r"math\.exp .*vector<8xf64>", out)  # f64 is left alone
    magic = "0x4B40007F"  # 1.5 * 2^23 + 127: the biased exponent in its low bits
    assert magic in out
    off = str(dsl_mlir.lower(module, "func.func(dsl-vectorize{avx512-exp=false})"))
    assert magic not in off and not re.search(r"math\.exp .*xf32>", off)
