"""Oracle tests: attncalc's numbers agree with PyTorch's functions (float64) to 1e-9.

The oracle is torch: F.scaled_dot_product_attention for dot and scaled-dot attention (with and
without masks), and the general, additive and concat scores written as torch formulas in both
conventions. Skipped, with the reason, where torch is not installed; CI installs it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for these tests (pip install torch==2.13.0)")
F = torch.nn.functional

from ..helpers import solve_raw  # noqa: E402

TOL = 1e-9


def t(x: Any) -> Any:
    return torch.tensor(np.asarray(x, dtype=float), dtype=torch.float64)


def val(d: Any, step: str) -> np.ndarray:
    return np.asarray(d.step(step).value, dtype=float)


def rand(rng: np.random.Generator, *shape: int) -> list[Any]:
    return np.round(rng.uniform(-2, 2, size=shape), 2).tolist()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("exact", [True, False])
def test_dot_and_scaled_dot_match_sdpa(seed: int, exact: bool) -> None:
    """Dot (scale 1) and scaled-dot attention match F.scaled_dot_product_attention, values ≠ keys."""
    rng = np.random.default_rng(seed)
    n, d, dv = int(rng.integers(1, 6)), int(rng.integers(1, 5)), int(rng.integers(1, 4))
    q, K, V = rand(rng, d), rand(rng, n, d), rand(rng, n, dv)
    for score, scale in (("dot", 1.0), ("scaled-dot", None)):
        dd = solve_raw(
            {
                "kind": "attention",
                "score": score,
                "given": {"query": q, "keys": K, "values": V},
                "settings": {"exact": exact},
            }
        )
        ctx = F.scaled_dot_product_attention(t(q)[None, None], t(K)[None], t(V)[None], scale=scale)[0, 0]
        assert np.allclose(val(dd, "context"), ctx.numpy(), rtol=0, atol=TOL)
        s = scale if scale is not None else 1 / np.sqrt(d)
        w = torch.softmax(t(K) @ t(q) * s, dim=0)
        assert np.allclose(val(dd, "weights"), w.numpy(), rtol=0, atol=TOL)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("row", [False, True])
def test_general_score_matches_torch_formula(seed: int, row: bool) -> None:
    """General: q·(W k_i) in the column convention, (k_i W)·q in the row convention."""
    rng = np.random.default_rng(100 + seed)
    n, dq, dk = int(rng.integers(2, 5)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    q, K = rand(rng, dq), rand(rng, n, dk)
    W = rand(rng, dk, dq) if row else rand(rng, dq, dk)
    dd = solve_raw(
        {
            "kind": "attention",
            "score": "general",
            "given": {"query": q, "keys": K, "W": W},
            "settings": {"convention": "row" if row else "column"},
        }
    )
    e = (t(K) @ t(W)) @ t(q) if row else t(q) @ (t(W) @ t(K).T)
    assert np.allclose(val(dd, "scores"), e.numpy(), rtol=0, atol=TOL)
    a = torch.softmax(e, 0)
    assert np.allclose(val(dd, "context"), (a @ t(K)).numpy(), rtol=0, atol=TOL)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("row", [False, True])
def test_additive_score_matches_torch_formula(seed: int, row: bool) -> None:
    """Additive: v · tanh(W_q q + W_k k_i + b), both conventions."""
    rng = np.random.default_rng(200 + seed)
    n, dq, dk, a = (int(x) for x in rng.integers(1, 5, size=4))
    q, K, v, b = rand(rng, dq), rand(rng, n, dk), rand(rng, a), rand(rng, a)
    W_q = rand(rng, dq, a) if row else rand(rng, a, dq)
    W_k = rand(rng, dk, a) if row else rand(rng, a, dk)
    dd = solve_raw(
        {
            "kind": "attention",
            "score": "additive",
            "given": {"query": q, "keys": K, "W_q": W_q, "W_k": W_k, "v": v, "b": b},
            "settings": {"convention": "row" if row else "column"},
        }
    )
    if row:
        hidden = torch.tanh(t(q) @ t(W_q) + t(K) @ t(W_k) + t(b))
    else:
        hidden = torch.tanh(t(W_q) @ t(q) + t(K) @ t(W_k).T + t(b))
    e = hidden @ t(v)
    assert np.allclose(val(dd, "hidden"), hidden.numpy(), rtol=0, atol=TOL)
    assert np.allclose(val(dd, "scores"), e.numpy(), rtol=0, atol=TOL)
    assert np.allclose(val(dd, "context"), (torch.softmax(e, 0) @ t(K)).numpy(), rtol=0, atol=TOL)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("row", [False, True])
def test_concat_score_and_luong_head_match_torch(seed: int, row: bool) -> None:
    """Concat: v · tanh(W [q; k_i]); head: tanh(W_c [c; s]) then W_out, softmax and argmax."""
    rng = np.random.default_rng(300 + seed)
    n, d, a, h, V = (int(x) for x in rng.integers(1, 5, size=5))
    q, K, v = rand(rng, d), rand(rng, n, d), rand(rng, a)
    W = rand(rng, 2 * d, a) if row else rand(rng, a, 2 * d)
    W_c = rand(rng, 2 * d, h) if row else rand(rng, h, 2 * d)
    W_out = rand(rng, h, V) if row else rand(rng, V, h)
    b_out = rand(rng, V)
    dd = solve_raw(
        {
            "kind": "attention",
            "score": "concat",
            "given": {"query": q, "keys": K, "W": W, "v": v},
            "head": {"combine": "concat", "W_c": W_c, "W_out": W_out, "b_out": b_out},
            "settings": {"convention": "row" if row else "column"},
        }
    )
    stacked = torch.cat([t(q).expand(n, -1), t(K)], dim=1)
    e = torch.tanh(stacked @ (t(W) if row else t(W).T)) @ t(v)
    c = torch.softmax(e, 0) @ t(K)
    u = torch.cat([c, t(q)])
    att = torch.tanh(u @ t(W_c)) if row else torch.tanh(t(W_c) @ u)
    z = (att @ t(W_out) if row else t(W_out) @ att) + t(b_out)
    p = torch.softmax(z, 0)
    assert np.allclose(val(dd, "scores"), e.numpy(), rtol=0, atol=TOL)
    assert np.allclose(val(dd, "attentional"), att.numpy(), rtol=0, atol=TOL)
    assert np.allclose(val(dd, "logits"), z.numpy(), rtol=0, atol=TOL)
    assert np.allclose(val(dd, "probabilities"), p.numpy(), rtol=0, atol=TOL)
    assert dd.step("prediction").value == str(int(torch.argmax(p)) + 1)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("mask", [None, "causal", "explicit"])
def test_self_attention_matches_sdpa(seed: int, mask: str | None) -> None:
    """Self-attention with rectangular projections matches SDPA without a mask, causal, and explicit."""
    rng = np.random.default_rng(400 + seed)
    n, d, dk, dv = (int(x) for x in rng.integers(1, 5, size=4))
    X, WQ, WK, WV = rand(rng, n, d), rand(rng, d, dk), rand(rng, d, dk), rand(rng, d, dv)
    given: dict[str, Any] = {"X": X, "W_Q": WQ, "W_K": WK, "W_V": WV}
    allowed = None
    if mask == "causal":
        given["mask"] = "causal"
    elif mask == "explicit":
        allowed = rng.integers(0, 2, size=(n, n))
        allowed[np.arange(n), rng.integers(0, n, size=n)] = 1  # every row may attend somewhere
        given["mask"] = allowed.tolist()
    dd = solve_raw({"kind": "self-attention", "given": given})
    Q, K, Vv = t(X) @ t(WQ), t(X) @ t(WK), t(X) @ t(WV)
    if mask == "causal":
        out = F.scaled_dot_product_attention(Q[None], K[None], Vv[None], is_causal=True)[0]
    elif mask == "explicit":
        out = F.scaled_dot_product_attention(Q[None], K[None], Vv[None], attn_mask=torch.tensor(allowed == 1))[0]
    else:
        out = F.scaled_dot_product_attention(Q[None], K[None], Vv[None])[0]
    assert np.allclose(val(dd, "output"), out.numpy(), rtol=0, atol=TOL)


def test_self_attention_column_convention_uses_transposed_weights() -> None:
    """In the column convention q_i = W_Q x_i, so the same output comes from passing W_Qᵀ."""
    rng = np.random.default_rng(7)
    X, WQ, WK, WV = rand(rng, 3, 2), rand(rng, 3, 2), rand(rng, 3, 2), rand(rng, 2, 2)  # (k × d) each
    dd = solve_raw(
        {
            "kind": "self-attention",
            "given": {"X": X, "W_Q": WQ, "W_K": WK, "W_V": WV},
            "settings": {"convention": "column"},
        }
    )
    Q, K, Vv = t(X) @ t(WQ).T, t(X) @ t(WK).T, t(X) @ t(WV).T
    out = F.scaled_dot_product_attention(Q[None], K[None], Vv[None])[0]
    assert np.allclose(val(dd, "output"), out.numpy(), rtol=0, atol=TOL)


@pytest.mark.parametrize("temperature", [1, 2, 0.5])
def test_cross_entropy_loss_and_gradient_match_autograd(temperature: float) -> None:
    """loss = F.cross_entropy(z / T, y); the gradient is autograd's ∂loss/∂z."""
    z = [1.5, -0.3, 0.8, 2.2]
    dd = solve_raw({"kind": "softmax", "given": {"logits": z, "target": 2}, "settings": {"temperature": temperature}})
    zt = t(z).requires_grad_(True)
    loss = F.cross_entropy((zt / temperature)[None], torch.tensor([2]))
    loss.backward()
    assert abs(float(val(dd, "loss")) - loss.item()) < TOL
    assert np.allclose(val(dd, "gradient"), zt.grad.numpy(), rtol=0, atol=TOL)
    assert np.allclose(val(dd, "probabilities"), torch.softmax(t(z) / temperature, 0).numpy(), rtol=0, atol=TOL)


def test_cli_json_agrees_with_torch(cli: Any, tmp_path: Path) -> None:
    """`attncalc solve --format json` on the Luong file agrees with torch to 1e-9 in every step it checks."""
    root = Path(__file__).resolve().parents[2]
    out = json.loads(cli("solve", str(root / "problems" / "luong-general.toml"), "--format", "json").stdout)
    steps = {s["id"]: s for s in out["steps"]}
    H = t([[0.3, 0.7, -0.2], [0.5, 0.4, 0.6], [0.2, -0.3, 0.8]])
    W = t([[0.8, -0.2, 0.3], [0.5, 0.6, -0.1], [-0.3, 0.4, 0.7]])
    q = t([0.6, -0.4, 0.5])
    e = (H @ W) @ q
    a = torch.softmax(e, 0)
    assert np.allclose(steps["scores"]["value"], e.numpy(), rtol=0, atol=TOL)
    assert np.allclose(steps["weights"]["value"], a.numpy(), rtol=0, atol=TOL)
    assert np.allclose(steps["context"]["value"], (a @ H).numpy(), rtol=0, atol=TOL)
