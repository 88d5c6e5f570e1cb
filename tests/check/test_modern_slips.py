"""`check` names the modern layer's slips, each tested both ways.
The slipped answers are built here from formulas written from the papers (numpy and torch, not the
mechanism): RMSNorm computed as LayerNorm (the mean subtracted), ε added outside the root, SwiGLU with
W_1 and W_3 swapped or SiLU on the up branch, the sliding window one key too wide or too narrow, and
top-p applied before top-k. Each is named; the true numbers with a typo, and the slip's numbers with a
typo, are not."""

from __future__ import annotations

import math
import tomllib
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.derivation.arith import round_half_up
from attncalc.parse import parse_problem

from ..helpers import PROBLEMS

torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch==2.13.0)")
F = torch.nn.functional


def llama(**settings: Any) -> dict[str, Any]:
    r = tomllib.loads((PROBLEMS / "layer-llama.toml").read_text(encoding="utf-8"))
    r["settings"].update(settings)
    return r


def written(x: Any) -> Any:
    a = np.asarray(x, dtype=float)
    if a.ndim:
        return [written(v) for v in a]
    v = float(a)
    if math.isinf(v):
        return "-inf"
    return f"{round_half_up(v, 3):.3f}"


def typo(x: Any) -> np.ndarray:
    out = np.array(x, dtype=float)
    flat = out.reshape(-1)
    i = int(np.argmax(np.isfinite(flat) & (flat != 0)))
    flat[i] = round(flat[i] + 0.271, 3)
    return out


def grade(raw: dict[str, Any], answers: dict[str, Any], step: str) -> Any:
    rep = check(parse_problem(raw, "slips.toml"), answers, "a.toml")
    return next(r for r in rep.results if r.id == step)


def both_ways(
    raw: dict[str, Any], step: str, slipped: Any, truth: Any, slip: str, earlier: dict[str, Any] | None = None
) -> None:
    """The slipped answer is named ``slip``; it and the truth, each with a typo, are not named."""
    answers = dict(earlier or {})
    r = grade(raw, {**answers, step: written(slipped)}, step)
    assert r.verdict == "wrong" and r.mistake == slip, (step, r.verdict, r.mistake, r.note)
    for wrong in (typo(slipped), typo(truth)):
        r = grade(raw, {**answers, step: written(wrong)}, step)
        assert r.verdict == "wrong" and r.mistake is None, (step, r.mistake, r.note)


def test_the_true_answers_are_correct_so_the_slip_tests_mean_something() -> None:
    r = llama()
    X = np.asarray(r["given"]["X"], dtype=float)
    ms = (X**2).mean(axis=1)
    assert grade(r, {"norm1.mean_square": written(ms)}, "norm1.mean_square").verdict == "correct"


# ------------------------------------------------------------------ RMSNorm


def test_rmsnorm_computed_as_layernorm_is_named() -> None:
    r = llama()
    X = np.asarray(r["given"]["X"], dtype=float)
    ms = (X**2).mean(axis=1)  # RMSNorm's mean of the squares
    var = X.var(axis=1)  # LayerNorm's biased variance: the mean subtracted first
    both_ways(r, "norm1.mean_square", var, ms, "rms_mean_subtracted")
    eps = 1e-6
    centred = (X - X.mean(axis=1, keepdims=True)) / np.sqrt(var + eps)[:, None]
    both_ways(r, "norm1.normalized", centred, X / np.sqrt(ms + eps)[:, None], "rms_mean_subtracted")


def test_eps_outside_the_root_is_named() -> None:
    r = llama(eps=0.5)  # an ε large enough to show at 3 decimals
    X = np.asarray(r["given"]["X"], dtype=float)
    ms = (X**2).mean(axis=1)
    outside = X / (np.sqrt(ms) + 0.5)[:, None]
    both_ways(r, "norm1.normalized", outside, X / np.sqrt(ms + 0.5)[:, None], "rms_eps_outside")


def test_a_tiny_eps_outside_the_root_is_not_a_slip_that_shows() -> None:
    """With LLaMA's ε = 1e-6 the slip changes no third decimal: the right answer is correct."""
    r = llama()
    X = np.asarray(r["given"]["X"], dtype=float)
    ms = (X**2).mean(axis=1)
    outside = X / (np.sqrt(ms) + 1e-6)[:, None]
    assert grade(r, {"norm1.normalized": written(outside)}, "norm1.normalized").verdict == "correct"


# ------------------------------------------------------------------ SwiGLU


def _ffn_input(r: dict[str, Any]) -> Any:
    """RMSNorm 2's output (the network's input), from the torch oracle of test_layer_modern."""
    from ..kinds.test_layer_modern import attention, rms_norm, t

    g, s = r["given"], r["settings"]
    X = t(g["X"])
    mask = torch.tensor([[k <= i and i - k < g["window"] for k in range(4)] for i in range(4)])
    eps = float(s["eps"])
    r1 = X + attention(rms_norm(X, t(r["norm1"]["gamma"]), eps), r["self_attention"], g["heads"], mask, s)
    return rms_norm(r1, t(r["norm2"]["gamma"]), eps)


def test_w1_and_w3_swapped_is_named() -> None:
    r = llama()
    h = _ffn_input(r)
    f = {k: torch.tensor(r["ffn"][k], dtype=torch.float64) for k in ("W_1", "W_3")}
    both_ways(r, "ffn.gate_pre", (h @ f["W_3"]).numpy(), (h @ f["W_1"]).numpy(), "swiglu_swapped")
    both_ways(r, "ffn.gate", F.silu(h @ f["W_3"]).numpy(), F.silu(h @ f["W_1"]).numpy(), "swiglu_swapped")


def test_silu_on_the_wrong_branch_is_named() -> None:
    r = llama()
    h = _ffn_input(r)
    W1, W3 = (torch.tensor(r["ffn"][k], dtype=torch.float64) for k in ("W_1", "W_3"))
    gate_pre = written((h @ W1).numpy())
    # the gate left without SiLU, which the up projection gets instead
    both_ways(r, "ffn.gate", (h @ W1).numpy(), F.silu(h @ W1).numpy(), "silu_wrong_branch", {"ffn.gate_pre": gate_pre})
    both_ways(
        r,
        "ffn.up",
        F.silu(h @ W3).numpy(),
        (h @ W3).numpy(),
        "silu_wrong_branch",
        {"ffn.gate_pre": gate_pre, "ffn.gate": written(F.silu(h @ W1).numpy())},
    )
    # made at both branches, the one misconception is charged once: where it first shows
    answers = {"ffn.gate_pre": gate_pre, "ffn.gate": written((h @ W1).numpy())}
    res = grade(r, {**answers, "ffn.up": written(F.silu(h @ W3).numpy())}, "ffn.up")
    assert res.verdict == "carried" and res.mistake == "silu_wrong_branch" and "ffn.gate" in res.note, res.note


def test_the_product_of_the_two_slips_is_named_as_one_of_them() -> None:
    """silu(x W_3) ⊙ x W_1 is what both slips give at ffn.hidden: one of the two is named."""
    r = llama()
    h = _ffn_input(r)
    W1, W3 = (torch.tensor(r["ffn"][k], dtype=torch.float64) for k in ("W_1", "W_3"))
    hidden = (F.silu(h @ W3) * (h @ W1)).numpy()
    res = grade(r, {"ffn.hidden": written(hidden)}, "ffn.hidden")
    assert res.verdict == "wrong" and res.mistake in ("swiglu_swapped", "silu_wrong_branch"), res.note
    truth = (F.silu(h @ W1) * (h @ W3)).numpy()
    assert grade(r, {"ffn.hidden": written(typo(truth))}, "ffn.hidden").mistake is None


# ------------------------------------------------------------------ the sliding window


def _head_weights(r: dict[str, Any], w: int, j: int = 1) -> np.ndarray:
    """Head j's attention weights with a window of w keys, from torch ops (RoPE half, d_k = 2)."""
    from ..kinds.test_layer_modern import rms_norm, rope, t

    g, a, s = r["given"], r["self_attention"], r["settings"]
    h = rms_norm(t(g["X"]), t(r["norm1"]["gamma"]), float(s["eps"]))
    q = (h @ t(a["W_Q"]))[:, 2 * (j - 1) : 2 * j]
    k = h @ t(a["W_K"])  # one key/value head shared by both query heads
    pos = torch.arange(4)
    q, k = rope(q[None], pos, 10000.0, "half")[0], rope(k[None], pos, 10000.0, "half")[0]
    allowed = torch.tensor([[kk <= i and i - kk < w for kk in range(4)] for i in range(4)])
    s_ = (q @ k.T / math.sqrt(2)).masked_fill(~allowed, float("-inf"))
    return s_.softmax(-1).numpy()


@pytest.mark.parametrize(("slip", "w"), [("window_too_wide", 3), ("window_too_narrow", 1)])
def test_the_window_one_key_off_is_named(slip: str, w: int) -> None:
    r = llama()
    both_ways(r, "self.head.1.weights", _head_weights(r, w), _head_weights(r, 2), slip)


def test_a_causal_mask_without_the_window_is_not_taken_for_one_key_too_wide() -> None:
    """A window of 2 over 4 tokens: the plain causal mask is two keys too wide for the last query, not one."""
    r = llama()
    res = grade(r, {"self.head.1.weights": written(_head_weights(r, 4))}, "self.head.1.weights")
    assert res.verdict == "wrong" and res.mistake is None, res.note


# ------------------------------------------------------------------ top-k with top-p


def test_top_p_before_top_k_is_named() -> None:
    raw = tomllib.loads((PROBLEMS / "decode-top-k-top-p.toml").read_text(encoding="utf-8"))
    z = np.asarray(raw["given"]["logits"], dtype=float)
    p = np.exp(z) / np.exp(z).sum()
    order = np.argsort(-p)
    whole = np.cumsum(p[order])  # top-p first: the running sum of the whole distribution
    top = np.where(np.arange(5) < 3, p[order], 0.0)
    renorm = np.cumsum(top / top.sum())  # Hugging Face's order: of the top 3, renormalised
    both_ways(raw, "cumulative", whole, renorm, "top_p_before_top_k")
