"""Oracle tests for kind "multi-head": attncalc agrees with PyTorch and with numpy formulas to 1e-9.

Where the expected numbers come from:
- torch.nn.MultiheadAttention (float64) with the row-convention weights mapped into torch's layout:
  in_proj_weight = [W_Qᵀ; W_Kᵀ; W_Vᵀ], in_proj_bias = [b_Q; b_K; b_V], out_proj.weight = W_Oᵀ;
  its per-head weights (average_attn_weights=False) against head.j.weights, its output against output;
- F.scaled_dot_product_attention with enable_gqa (grouped-query heads) and is_causal (top-left);
  torch.nn.attention.bias.causal_lower_right for the lower-right "causal" of a cache;
- tests/mh_reference.py (numpy, written from the paper) where torch has no switch for it;
- hand computations, written out in the test that uses them.
Random problems are solved with exact=False; one small example per feature also with exact=True,
checking that exact and numeric agree in every step. Positions (sinusoidal, rope, alibi) are in
tests/kinds/test_oracle_positions.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import attncalc

from .. import mh_reference as ref
from ..mh_support import close, draw, problem, rand, reference_args, solve, val

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for these tests (pip install torch)")
F = torch.nn.functional

SEEDS = range(5)


def t(x: Any) -> Any:
    return torch.tensor(np.asarray(x, dtype=float), dtype=torch.float64)


def torch_mha(g: dict[str, Any], attn_mask: Any = None, key_padding: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """nn.MultiheadAttention on the given table: (attn_output n × d_model, per-head weights h × n × m)."""
    d_model, heads = len(g["X"][0]), g["heads"]
    mha = torch.nn.MultiheadAttention(d_model, heads, bias=True, batch_first=True, dtype=torch.float64).eval()
    zeros = torch.zeros(d_model, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([t(g["W_Q"]).T, t(g["W_K"]).T, t(g["W_V"]).T]))
        mha.in_proj_bias.copy_(torch.cat([t(g[b]) if b in g else zeros for b in ("b_Q", "b_K", "b_V")]))
        mha.out_proj.weight.copy_(t(g["W_O"]).T)
        mha.out_proj.bias.copy_(t(g["b_O"]) if "b_O" in g else zeros)
    x = t(g["X"])[None]
    src = t(g["memory"])[None] if "memory" in g else x
    kpm = None if key_padding is None else torch.tensor(np.asarray(key_padding) == 0)[None]  # True = ignore
    out, w = mha(x, src, src, key_padding_mask=kpm, attn_mask=attn_mask, need_weights=True, average_attn_weights=False)
    return out[0].detach().numpy(), w[0].detach().numpy()


def sizes(rng: np.random.Generator) -> tuple[int, int, int]:
    """(n, d_model, heads) with heads dividing d_model: n 2..5, d_model 4..8, heads 1..4."""
    heads = int(rng.integers(1, 5))
    d_model = heads * int(rng.integers(max(1, -(-4 // heads)), 8 // heads + 1))
    return int(rng.integers(2, 6)), d_model, heads


def assert_matches_torch(d: Any, g: dict[str, Any], out: np.ndarray, w: np.ndarray) -> None:
    for j in range(g["heads"]):
        close(d, f"head.{j + 1}.weights", w[j])
    close(d, "output", out)


# --- the oracles agree with each other, and the hand example ------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_numpy_reference_agrees_with_torch_mha(seed: int) -> None:
    """The numpy oracle (tests/mh_reference.py), used below where torch has no switch, is itself torch's
    nn.MultiheadAttention on cross-attention with biases and a mask: a disagreement below is attncalc's."""
    rng = np.random.default_rng(900 + seed)
    n, d_model, heads = sizes(rng)
    m = int(rng.integers(2, 6))
    g = draw(rng, n, d_model, heads, biases=True) | {"memory": rand(rng, m, d_model)}
    allowed = rng.integers(0, 2, size=(n, m)).astype(bool)
    allowed[:, 0] = True
    want = ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], heads, **reference_args(g), allowed=allowed)
    out, w = torch_mha(g, attn_mask=torch.tensor(~allowed))
    np.testing.assert_allclose(want["output"], out, rtol=0, atol=1e-12)
    for j in range(heads):
        np.testing.assert_allclose(want[f"head.{j + 1}.weights"], w[j], rtol=0, atol=1e-12)


# --- the hand example ----------------------------------------------------------------------------


@pytest.mark.parametrize("exact", [True, False])
def test_hand_example_two_heads_of_width_one(exact: bool) -> None:
    """Two heads of width 1 (scale 1/√1 = 1), worked by hand.

    X = [[1, 0], [0, 1], [1, 1]], W_Q = W_K = W_V = I, W_O = [[1, 1], [0, 1]].
    Head 1 sees column 1: q = k = v = (1, 0, 1), scores q_i k_k: rows (1, 0, 1), (0, 0, 0), (1, 0, 1);
    weights rows (e, 1, e)/(2e+1), (1/3, 1/3, 1/3), (e, 1, e)/(2e+1); outputs 2e/(2e+1), 2/3, 2e/(2e+1).
    Head 2 sees column 2: q = k = v = (0, 1, 1); outputs 2/3, 2e/(2e+1), 2e/(2e+1).
    output = concat W_O = (c1, c1 + c2) per row.
    """
    e = math.e
    a, third = 2 * e / (2 * e + 1), 2 / 3
    g = {"X": [[1, 0], [0, 1], [1, 1]], "heads": 2, "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]]}
    g |= {"W_V": [[1, 0], [0, 1]], "W_O": [[1, 1], [0, 1]]}
    d = solve({"tokens": ["je", "suis", "ici"], **problem(g)}, exact=exact)
    close(d, "head.1.scores", [[1, 0, 1], [0, 0, 0], [1, 0, 1]])
    close(d, "head.1.scaled_scores", [[1, 0, 1], [0, 0, 0], [1, 0, 1]])
    r1 = [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)]  # softmax(1, 0, 1)
    r2 = [1 / (2 * e + 1), e / (2 * e + 1), e / (2 * e + 1)]  # softmax(0, 1, 1)
    close(d, "head.1.weights", [r1, [1 / 3] * 3, r1])
    close(d, "head.2.weights", [[1 / 3] * 3, r2, r2])
    close(d, "head.1.output", [[a], [third], [a]])
    close(d, "head.2.output", [[third], [a], [a]])
    close(d, "concat", [[a, third], [third, a], [a, a]])
    close(d, "output", [[a, a + third], [third, third + a], [a, 2 * a]])
    w = val(d, "head.1.weights")
    np.testing.assert_allclose(w, val(d, "head.1.exponentials") / val(d, "head.1.exp_sum").reshape(-1, 1), atol=1e-12)


# --- nn.MultiheadAttention -----------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("biases", [False, True])
def test_self_attention_matches_torch_mha(seed: int, biases: bool) -> None:
    """Self-attention: Q, K, V side by side, the head blocks, per-head weights and the output match torch."""
    rng = np.random.default_rng(1000 + seed)
    n, d_model, heads = sizes(rng)
    g = draw(rng, n, d_model, heads, biases=biases)
    d = solve(problem(g))
    out, w = torch_mha(g)
    assert_matches_torch(d, g, out, w)
    want = ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], heads, **reference_args(g))
    for sid in ("Q", "K", "V", "concat"):
        close(d, sid, want[sid])
    dk = d_model // heads
    Q = g["X"] @ g["W_Q"] + g.get("b_Q", 0)
    for j in range(1, heads + 1):
        close(d, f"head.{j}.Q", Q[:, (j - 1) * dk : j * dk])  # head j = the j-th block of d_k columns
        for sid in ("K", "V", "scores", "scaled_scores", "output"):
            close(d, f"head.{j}.{sid}", want[f"head.{j}.{sid}"])


@pytest.mark.parametrize("seed", SEEDS)
def test_cross_attention_matches_torch_mha(seed: int) -> None:
    """Cross-attention: queries from X (n rows), keys and values from memory (m ≠ n rows)."""
    rng = np.random.default_rng(1100 + seed)
    n, d_model, heads = sizes(rng)
    g = draw(rng, n, d_model, heads, biases=seed % 2 == 1)
    m = n + 1 + seed % 3
    g["memory"] = rand(rng, m, d_model)
    d = solve(problem(g))
    out, w = torch_mha(g)
    assert w.shape == (heads, n, m)
    assert_matches_torch(d, g, out, w)
    close(d, "K", g["memory"] @ g["W_K"] + g.get("b_K", 0))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("causal", [False, True])
def test_key_padding_matches_torch_mha(seed: int, causal: bool) -> None:
    """key_padding (0 = padding, torch's key_padding_mask True) masks those keys for every query."""
    rng = np.random.default_rng(1200 + seed)
    n, d_model, heads = sizes(rng)
    n = max(n, 3)
    g = draw(rng, n, d_model, heads, biases=True)
    pad = [1] * n
    pad[int(rng.integers(1, n))] = 0  # key 0 stays, so no query row loses every key
    g["key_padding"] = pad
    attn_mask = None
    if causal:
        g["mask"] = "causal"
        attn_mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)  # True = not allowed
    d = solve(problem(g))
    out, w = torch_mha(g, attn_mask=attn_mask, key_padding=pad)
    assert_matches_torch(d, g, out, w)
    k = pad.index(0)
    assert np.all(val(d, "head.1.masked_scores")[:, k] == -np.inf)
    assert np.all(val(d, "head.1.weights")[:, k] == 0)


@pytest.mark.parametrize("seed", SEEDS)
def test_causal_mask_matches_torch_mha(seed: int) -> None:
    """mask = "causal" in self-attention (n = m): torch's attn_mask triu(ones, 1), True = not allowed."""
    rng = np.random.default_rng(1300 + seed)
    n, d_model, heads = sizes(rng)
    g = draw(rng, n, d_model, heads, biases=seed % 2 == 0) | {"mask": "causal"}
    d = solve(problem(g))
    out, w = torch_mha(g, attn_mask=torch.triu(torch.ones(n, n, dtype=torch.bool), 1))
    assert_matches_torch(d, g, out, w)
    above = np.triu(np.ones((n, n), dtype=bool), 1)
    for j in range(1, heads + 1):
        ms = val(d, f"head.{j}.masked_scores")
        assert np.all(ms[above] == -np.inf)
        np.testing.assert_allclose(ms[~above], val(d, f"head.{j}.scaled_scores")[~above], rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_explicit_mask_matches_torch_mha(seed: int) -> None:
    """A 0/1 mask (1 = may attend) is torch's attn_mask == 0; masked scores are −inf exactly there."""
    rng = np.random.default_rng(1400 + seed)
    n, d_model, heads = sizes(rng)
    g = draw(rng, n, d_model, heads)
    allowed = rng.integers(0, 2, size=(n, n))
    allowed[np.arange(n), rng.integers(0, n, size=n)] = 1  # every row may attend somewhere
    g["mask"] = allowed.tolist()
    d = solve(problem(g))
    out, w = torch_mha(g, attn_mask=torch.tensor(allowed == 0))
    assert_matches_torch(d, g, out, w)
    assert np.array_equal(val(d, "head.1.masked_scores") == -np.inf, allowed == 0)


@pytest.mark.parametrize("seed", SEEDS)
def test_dot_score_is_unscaled(seed: int) -> None:
    """score = "dot": softmax(Q_j K_jᵀ) with no 1/√d_k (numpy formula, and SDPA with scale=1)."""
    rng = np.random.default_rng(1500 + seed)
    n, d_model, heads = sizes(rng)
    g = draw(rng, n, d_model, heads, d_k=2, d_v=3)
    d = solve(problem(g, score="dot"))
    want = ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], heads, W_O=g["W_O"], score="dot")
    for j in range(1, heads + 1):
        close(d, f"head.{j}.scores", want[f"head.{j}.scores"])
        close(d, f"head.{j}.weights", ref.softmax_rows(want[f"head.{j}.scores"]))
    close(d, "output", want["output"])
    Q = t(g["X"] @ g["W_Q"]).reshape(n, heads, 2).transpose(0, 1)
    K = t(g["X"] @ g["W_K"]).reshape(n, heads, 2).transpose(0, 1)
    V = t(g["X"] @ g["W_V"]).reshape(n, heads, 3).transpose(0, 1)
    o = F.scaled_dot_product_attention(Q[None], K[None], V[None], scale=1.0)[0]
    close(d, "concat", o.transpose(0, 1).reshape(n, heads * 3).numpy())


# --- scaled_dot_product_attention: grouped-query heads and the two causal alignments ------------


def sdpa_concat(g: dict[str, Any], src: Any, **kw: Any) -> np.ndarray:
    """SDPA over heads (enable_gqa repeats kv head g for query heads g·r … g·r + r − 1), heads side by side."""
    h, kv = g["heads"], g.get("kv_heads", g["heads"])
    Q, K, V = t(g["X"] @ g["W_Q"]), t(src @ g["W_K"]), t(src @ g["W_V"])
    d_k, d_v = Q.shape[1] // h, V.shape[1] // kv
    q = Q.reshape(len(Q), h, d_k).transpose(0, 1)[None]
    k = K.reshape(len(K), kv, d_k).transpose(0, 1)[None]
    v = V.reshape(len(V), kv, d_v).transpose(0, 1)[None]
    o = F.scaled_dot_product_attention(q, k, v, enable_gqa=True, **kw)[0]
    return o.transpose(0, 1).reshape(len(Q), h * d_v).numpy()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("heads", "kv_heads"), [(2, 1), (4, 2), (4, 1), (3, 1), (2, 2)])
def test_grouped_query_heads_match_sdpa(seed: int, heads: int, kv_heads: int) -> None:
    """kv_heads: query head j uses kv head (j−1)//(heads/kv_heads)+1; causal self-attention (n = m)."""
    rng = np.random.default_rng(1600 + 10 * seed + heads + kv_heads)
    n = int(rng.integers(2, 6))
    g = draw(rng, n, int(rng.integers(4, 9)), heads, d_k=2, d_v=int(rng.integers(1, 4)), kv_heads=kv_heads)
    g["mask"] = "causal"
    d = solve(problem(g))
    close(d, "concat", sdpa_concat(g, g["X"], is_causal=True))
    K = g["X"] @ g["W_K"]
    for j in range(1, heads + 1):
        grp = (j - 1) // (heads // kv_heads)  # 0-based kv head
        close(d, f"head.{j}.K", K[:, 2 * grp : 2 * grp + 2])


@pytest.mark.parametrize("seed", SEEDS)
def test_causal_top_left_in_cross_attention_matches_sdpa_is_causal(seed: int) -> None:
    """n < m: "causal-top-left" lets query i see keys 0 … i, which is torch's is_causal."""
    rng = np.random.default_rng(1700 + seed)
    n, d_model, heads = sizes(rng)
    m = n + 1 + seed % 3
    g = draw(rng, n, d_model, heads, kv_heads=1 if seed % 2 else None) | {"memory": rand(rng, m, d_model)}
    g["mask"] = "causal-top-left"
    d = solve(problem(g))
    close(d, "concat", sdpa_concat(g, g["memory"], is_causal=True))
    assert np.array_equal(val(d, "head.1.masked_scores") != -np.inf, ref.causal_top_left(n, m))


@pytest.mark.parametrize("seed", SEEDS)
def test_causal_in_cross_attention_is_lower_right(seed: int) -> None:
    """n < m: "causal" lets query i see keys 0 … m − n + i (numpy mask; torch's causal_lower_right bias)."""
    from torch.nn.attention.bias import causal_lower_right

    rng = np.random.default_rng(1800 + seed)
    n, d_model, heads = sizes(rng)
    m = n + 1 + seed % 3
    g = draw(rng, n, d_model, heads) | {"memory": rand(rng, m, d_model), "mask": "causal"}
    d = solve(problem(g))
    allowed = ref.causal_lower_right(n, m)
    want = ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], heads, **reference_args(g), allowed=allowed)
    for j in range(1, heads + 1):
        close(d, f"head.{j}.masked_scores", want[f"head.{j}.masked_scores"])
        close(d, f"head.{j}.weights", want[f"head.{j}.weights"])
    close(d, "output", want["output"])
    close(d, "concat", sdpa_concat(g, g["memory"], attn_mask=causal_lower_right(n, m)._materialize()))


# --- the KV cache --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kv_heads", [None, 1])
def test_kv_cache_rows_equal_the_full_causal_computation(seed: int, kv_heads: int | None) -> None:
    """X = the last n rows, [cache] K, V = the earlier rows' projections: every new row's head weights,
    head outputs and output equal those rows of causal self-attention over all the tokens."""
    rng = np.random.default_rng(1900 + seed)
    n_new, d_model, heads = sizes(rng)
    t_cached = int(rng.integers(1, 4))
    g = draw(rng, n_new + t_cached, d_model, heads, biases=True, kv_heads=kv_heads)
    X_full, early = g["X"], slice(0, t_cached)
    full = ref.multi_head(
        X_full,
        g["W_Q"],
        g["W_K"],
        g["W_V"],
        heads,
        **reference_args(g),
        allowed=ref.causal_lower_right(len(X_full), len(X_full)),
    )
    cache = {"K": X_full[early] @ g["W_K"] + g["b_K"], "V": X_full[early] @ g["W_V"] + g["b_V"]}
    g["X"] = X_full[t_cached:]
    d = solve(problem(g, cache=cache) | {"tokens": [f"w{i}" for i in range(n_new)]})  # mask: causal by default
    close(d, "K", full["K"])  # the cached rows first
    close(d, "V", full["V"])
    for j in range(1, heads + 1):
        close(d, f"head.{j}.weights", full[f"head.{j}.weights"][t_cached:])
        close(d, f"head.{j}.output", full[f"head.{j}.output"][t_cached:])
    close(d, "output", full["output"][t_cached:])


@pytest.mark.parametrize("exact", [True, False])
def test_kv_cache_hand_example(exact: bool) -> None:
    """One head, d = 1, W's = 1: the cache holds k = v = 0 for token 0; the new token x = 1 has q = k = v = 1.
    Scores (0, 1) scaled by 1/√1, weights (1, e)/(1+e), output e/(1+e)."""
    e = math.e
    g = {"X": [[1]], "heads": 1, "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "W_O": [[1]]}
    d = solve(problem(g, cache={"K": [[0]], "V": [[0]]}), exact=exact)
    close(d, "K", [[0], [1]])
    close(d, "head.1.scores", [[0, 1]])
    close(d, "head.1.weights", [[1 / (1 + e), e / (1 + e)]])
    close(d, "output", [[e / (1 + e)]])


# --- step ids and bad input ----------------------------------------------------------------------


@pytest.mark.parametrize("positions", [None, "sinusoidal", "rope", "alibi"])
def test_step_ids_follow_the_interface_order(positions: str | None) -> None:
    """positions, X_pos (sinusoidal); Q, K, V; per head j, grouped by head: Q, K, V, Q_rot, K_rot (rope),
    scores, scaled_scores, bias (alibi), masked_scores, exponentials, exp_sum, weights, output; then concat
    and output. Other ids may come in between."""
    rng = np.random.default_rng(7)
    g = draw(rng, 3, 4, 2) | {"mask": "causal"} | ({"positions": positions} if positions else {})
    ids = solve(problem(g)).step_ids
    rot = ["Q_rot", "K_rot"] if positions == "rope" else []
    bias = ["bias"] if positions == "alibi" else []
    per_head = ["Q", "K", "V", *rot, "scores", "scaled_scores", *bias, "masked_scores"]
    per_head += ["exponentials", "exp_sum", "weights", "output"]
    first = ["positions", "X_pos"] if positions == "sinusoidal" else []
    want = [*first, "Q", "K", "V", *[f"head.{j}.{s}" for j in (1, 2) for s in per_head], "concat", "output"]
    missing = [s for s in want if s not in ids]
    assert not missing, (missing, ids)
    order = [ids.index(s) for s in want]
    assert order == sorted(order), ids


def test_without_W_O_the_derivation_ends_at_concat() -> None:
    """W_O is optional: without it the last step is concat (the heads side by side), with no output."""
    rng = np.random.default_rng(8)
    g = draw(rng, 3, 4, 2, W_O=False)
    d = solve(problem(g))
    assert d.step_ids[-1] == "concat"
    close(d, "concat", ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], 2)["concat"])


def fully_masked_problems() -> dict[str, dict[str, Any]]:
    g = {"X": [[1, 0], [0, 1]], "heads": 1, "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]]}
    return {
        "key_padding all 0": problem(g | {"key_padding": [0, 0]}),
        "mask row all 0": problem(g | {"mask": [[1, 0], [0, 0]]}),
        "causal, more queries than keys": problem(g | {"memory": [[1, 1]], "mask": "causal"}),
    }


@pytest.mark.parametrize("case", list(fully_masked_problems()))
def test_a_query_row_with_every_key_masked_is_bad_input(case: str) -> None:
    """Softmax over no keys is undefined: a ProblemError (one line) naming the row, not NaN."""
    with pytest.raises(attncalc.ProblemError) as info:
        attncalc.solve(fully_masked_problems()[case], exact=False)
    msg = str(info.value)
    assert "row" in msg and "\n" not in msg, msg
    assert "mask" in msg or "key_padding" in msg, msg  # the key that masked it


@pytest.mark.parametrize("key", ["heads", "kv_heads"])
def test_heads_that_do_not_divide_are_bad_input(key: str) -> None:
    """W_Q's 4 columns do not split into 3 heads; kv_heads = 3 does not divide heads = 4 (W_K, W_V
    have the 3·d_k columns it asks for): a ProblemError naming the key."""
    rng = np.random.default_rng(9)
    g = draw(rng, 2, 4, 2) | {"heads": 3} if key == "heads" else draw(rng, 2, 4, 4, kv_heads=3)
    with pytest.raises(attncalc.ProblemError) as info:
        attncalc.solve(problem(g), exact=False)
    assert key in str(info.value)
