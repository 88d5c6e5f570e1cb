"""`[settings] alibi = "official"`: the ALiBi slopes of the official code and of BLOOM for a
head count that is not a power of two, checked against those two formulas written here from their
sources, against slopes worked out by hand, and, through a whole multi-head attention, against PyTorch.

The official code (ofirpress/attention_with_linear_biases, fairseq/models/transformer.py):

    def get_slopes(n):
        def get_slopes_power_of_2(n):
            start = 2 ** (-2 ** -(math.log2(n) - 3)); ratio = start
            return [start * ratio**i for i in range(n)]
        if math.log2(n).is_integer(): return get_slopes_power_of_2(n)
        closest = 2 ** math.floor(math.log2(n))
        return get_slopes_power_of_2(closest) + get_slopes(2 * closest)[0::2][: n - closest]

BLOOM (transformers' build_alibi_tensor): base = 2^(−2^−(log2(c) − 3)), slopes = base^(1 … c); when
c ≠ h, extra_base = 2^(−2^−(log2(2c) − 3)) and extra slopes extra_base^(1, 3, 5, …) for the h − c others.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import sympy as sp

from attncalc.errors import ProblemError
from attncalc.mechanisms.positions import alibi_exponent

from ..helpers import solve_raw

torch = pytest.importorskip("torch")


def official_slopes(n: int) -> list[float]:
    def power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + official_slopes(2 * closest)[0::2][: n - closest]


def bloom_slopes(num_heads: int) -> list[float]:
    closest = 2 ** math.floor(math.log2(num_heads))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest) - 3))), dtype=torch.float64)
    slopes = torch.pow(base, torch.arange(1, 1 + closest, dtype=torch.int32))
    if closest != num_heads:
        extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest) - 3))), dtype=torch.float64)
        remaining = min(closest, num_heads - closest)
        extra = torch.pow(extra_base, torch.arange(1, 1 + 2 * remaining, 2, dtype=torch.int32))
        slopes = torch.cat([slopes, extra], dim=0)
    return [float(x) for x in slopes]


def test_six_heads_by_hand() -> None:
    """h = 6: the 4 slopes of 4 heads (2^−2, 2^−4, 2^−6, 2^−8), then every other slope of 8 heads
    (2^−1, 2^−2, …, 2^−8 → 2^−1, 2^−3) for heads 5 and 6."""
    by_hand = [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8, 2.0**-1, 2.0**-3]
    assert official_slopes(6) == by_hand
    assert bloom_slopes(6) == by_hand
    assert [2.0 ** (-a / b) for a, b in (alibi_exponent(j, 6, "official") for j in range(1, 7))] == by_hand
    # the paper's for 6 heads: 2^(−8j/6)
    assert [alibi_exponent(j, 6, "paper") for j in range(1, 7)] == [(8 * j, 6) for j in range(1, 7)]


@pytest.mark.parametrize("h", range(1, 17))
def test_slopes_agree_with_the_official_code_and_bloom(h: int) -> None:
    ours = [2.0 ** (-a / b) for a, b in (alibi_exponent(j, h, "official") for j in range(1, h + 1))]
    np.testing.assert_allclose(ours, official_slopes(h), rtol=1e-14)
    np.testing.assert_allclose(ours, bloom_slopes(h), rtol=1e-14)
    if h & (h - 1) == 0:  # a power of two: the paper's slopes
        assert [alibi_exponent(j, h, "official") for j in range(1, h + 1)] == [(8 * j, h) for j in range(1, h + 1)]


def _problem(heads: int, alibi: str | None, seed: int = 0, n: int = 3, d_k: int = 2) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    dm = heads * d_k
    g = {
        "X": rng.integers(-2, 3, (n, dm)).tolist(),
        "heads": heads,
        "positions": "alibi",
        "W_Q": rng.integers(-1, 2, (dm, dm)).tolist(),
        "W_K": rng.integers(-1, 2, (dm, dm)).tolist(),
        "W_V": rng.integers(-1, 2, (dm, dm)).tolist(),
        "W_O": rng.integers(-1, 2, (dm, dm)).tolist(),
    }
    settings: dict[str, Any] = {"decimals": 3}
    if alibi is not None:
        settings["alibi"] = alibi
    return {"kind": "multi-head", "given": g, "settings": settings}


@pytest.mark.parametrize(("heads", "causal"), [(3, False), (6, True), (5, False)])
def test_official_slopes_through_multi_head_agree_with_torch(heads: int, causal: bool) -> None:
    """Each head: softmax(q kᵀ/√d_k − m_j |i − k|) v in PyTorch, m_j from BLOOM's formula; then W_O."""
    raw = _problem(heads, "official", seed=heads)
    if causal:
        raw["given"]["mask"] = "causal"
    d = solve_raw(raw, exact=False)
    g = raw["given"]
    X = torch.tensor(g["X"], dtype=torch.float64)
    Q, K, V = (X @ torch.tensor(g[w], dtype=torch.float64) for w in ("W_Q", "W_K", "W_V"))
    n, d_k = X.shape[0], X.shape[1] // heads
    dist = torch.abs(torch.arange(n)[:, None] - torch.arange(n)[None, :]).to(torch.float64)
    outs = []
    for j, m in enumerate(bloom_slopes(heads)):
        cols = slice(j * d_k, (j + 1) * d_k)
        bias = -m * dist
        if causal:
            bias = bias.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
        o = torch.nn.functional.scaled_dot_product_attention(Q[:, cols], K[:, cols], V[:, cols], attn_mask=bias)
        np.testing.assert_allclose(np.asarray(d[f"head.{j + 1}.bias"], dtype=float), (-m * dist).numpy(), atol=1e-12)
        np.testing.assert_allclose(np.asarray(d[f"head.{j + 1}.output"], dtype=float), o.numpy(), atol=1e-12)
        outs.append(o)
    want = torch.cat(outs, dim=1) @ torch.tensor(g["W_O"], dtype=torch.float64)
    np.testing.assert_allclose(np.asarray(d["output"], dtype=float), want.numpy(), atol=1e-12)


def test_exact_official_slopes_are_powers_of_two() -> None:
    d = solve_raw(_problem(6, "official", n=2))
    for j, (e, f) in enumerate([(2, 1), (4, 1), (6, 1), (8, 1), (1, 1), (3, 1)], 1):
        assert sp.simplify(d.step(f"head.{j}.bias").value[0][1] + sp.Integer(2) ** sp.Rational(-e, f)) == 0
    assert (
        "2^(−8/8)" in d.step("head.5.bias").formula
        and "The ALiBi code's slopes for 6 heads" in d.step("head.5.bias").explain
    )


def test_paper_is_the_default_and_differs_for_six_heads() -> None:
    plain, paper, official = (solve_raw(_problem(6, a, n=2), exact=False) for a in (None, "paper", "official"))
    m1 = 2.0 ** (-8 / 6)
    assert np.asarray(plain["head.1.bias"], dtype=float)[0, 1] == pytest.approx(-m1, rel=1e-14)
    np.testing.assert_array_equal(np.asarray(plain["output"]), np.asarray(paper["output"]))
    assert np.asarray(official["head.1.bias"], dtype=float)[0, 1] == pytest.approx(-0.25, rel=1e-14)


def test_alibi_setting_is_refused_where_it_does_not_apply() -> None:
    raw = _problem(2, "official")
    raw["given"]["positions"] = "rope"
    with pytest.raises(ProblemError, match=r"settings\.alibi.*alibi"):
        solve_raw(raw)
    with pytest.raises(ProblemError, match=r"settings\.alibi"):
        solve_raw({**_problem(2, "cubic")})
    pe = {"kind": "positional-encoding", "given": {"positions": 2, "d_model": 2}, "settings": {"alibi": "official"}}
    with pytest.raises(ProblemError, match=r"settings\.alibi"):
        solve_raw(pe)
