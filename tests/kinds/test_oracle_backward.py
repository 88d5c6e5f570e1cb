"""Oracle tests for kind "attention-backward": every gradient agrees with PyTorch autograd to 1e-9.

Where the expected numbers come from:
- PyTorch autograd in float64: X and the weights ``requires_grad``, the forward written here with
  torch ops (X W_Q + b_Q, each head's column block, Q_j K_jᵀ / √d_k, masked_fill(−inf), softmax,
  A V, the heads side by side, W_O), ``retain_grad`` on every intermediate, ``.backward(grad_output)``;
- torch.func.jacrev of the softmax of a query row for the Jacobians;
- F.scaled_dot_product_attention (is_causal, attn_mask, enable_gqa) and nn.MultiheadAttention, whose
  autograd gradients of X, W_Q, W_K, W_V, W_O and the biases must be attncalc's too;
- a small case worked by hand (one query, two keys), written out in its test.
The examples are solved exactly and numerically; every step agrees (exact and float agree).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc

from ..helpers import PROBLEMS
from ..mh_support import TOL, close, rand, solve

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for these tests (pip install torch)")
F = torch.nn.functional

SEEDS = range(4)


def t(x: Any, grad: bool = False) -> Any:
    out = torch.tensor(np.asarray(x, dtype=float), dtype=torch.float64)
    return out.requires_grad_() if grad else out


def draw(
    rng: np.random.Generator,
    n: int,
    d_model: int,
    heads: int,
    *,
    d_k: int = 2,
    kv_heads: int | None = None,
    W_O: bool = True,
    biases: bool = False,
) -> dict[str, Any]:
    kv = heads if kv_heads is None else kv_heads
    g: dict[str, Any] = {
        "X": rand(rng, n, d_model),
        "heads": heads,
        "W_Q": rand(rng, d_model, heads * d_k),
        "W_K": rand(rng, d_model, kv * d_k),
        "W_V": rand(rng, d_model, kv * d_k),
    }
    if kv_heads is not None:
        g["kv_heads"] = kv_heads
    out_width = heads * d_k
    if W_O:
        g["W_O"] = rand(rng, heads * d_k, d_model)
        out_width = d_model
    if biases:
        g["b_Q"], g["b_K"], g["b_V"] = rand(rng, heads * d_k), rand(rng, kv * d_k), rand(rng, kv * d_k)
        if W_O:
            g["b_O"] = rand(rng, d_model)
    g["grad_output"] = rand(rng, n, out_width)
    return g


def problem(g: dict[str, Any], score: str = "scaled-dot", jacobian: bool = False) -> dict[str, Any]:
    plain = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in g.items()}
    return {"kind": "attention-backward", "score": score, "given": plain, "settings": {"jacobian": jacobian}}


def allowed_of(g: dict[str, Any]) -> np.ndarray:
    n = len(g["X"])
    allowed = np.ones((n, n), dtype=bool)
    mask = g.get("mask")
    if mask == "causal" or mask == "causal-top-left":  # self-attention: the two causal masks coincide
        allowed &= np.tril(np.ones((n, n), dtype=bool))
    elif mask is not None:
        allowed &= np.asarray(mask) == 1
    if "key_padding" in g:
        allowed &= (np.asarray(g["key_padding"]) == 1)[None, :]
    return allowed


def torch_grads(g: dict[str, Any], score: str = "scaled-dot") -> dict[str, np.ndarray]:
    """Autograd through the forward written with torch ops: every step id's gradient (and value)."""
    H = g["heads"]
    G = g.get("kv_heads", H)
    allowed = torch.tensor(allowed_of(g))
    X = t(g["X"], True)
    W = {k: t(g[k], True) for k in ("W_Q", "W_K", "W_V", "W_O") if k in g}
    b = {k: t(g[k], True) for k in ("b_Q", "b_K", "b_V", "b_O") if k in g}
    Q = X @ W["W_Q"] + (b["b_Q"] if "b_Q" in b else 0)
    K = X @ W["W_K"] + (b["b_K"] if "b_K" in b else 0)
    V = X @ W["W_V"] + (b["b_V"] if "b_V" in b else 0)
    for x in (Q, K, V):
        x.retain_grad()
    d_k = Q.shape[1] // H
    d_v = V.shape[1] // G
    kept: dict[str, Any] = {}
    outs = []
    for j in range(1, H + 1):
        grp = (j - 1) // (H // G)
        Qj = Q[:, (j - 1) * d_k : j * d_k]
        Kj = K[:, grp * d_k : (grp + 1) * d_k]
        Vj = V[:, grp * d_v : (grp + 1) * d_v]
        S = Qj @ Kj.T
        Sp = S / math.sqrt(d_k) if score == "scaled-dot" else S * 1.0
        A = torch.softmax(Sp.masked_fill(~allowed, float("-inf")), dim=-1)
        out_j = A @ Vj
        for name, x in (("Q", Qj), ("K", Kj), ("V", Vj), ("scores", S), ("scaled_scores", Sp), ("weights", A)):
            x.retain_grad()
            kept[f"head.{j}.{name}"] = x
        out_j.retain_grad()
        kept[f"head.{j}.output"] = out_j
        outs.append(out_j)
    concat = torch.cat(outs, dim=1)
    concat.retain_grad()
    Y = concat @ W["W_O"] + (b["b_O"] if "b_O" in b else 0) if "W_O" in W else concat
    Y.backward(t(g["grad_output"]))
    out: dict[str, np.ndarray] = {}
    for name, x in (("X", X), ("Q", Q), ("K", K), ("V", V), ("concat", concat), *W.items(), *b.items()):
        out[f"grad_{name}"] = x.grad.numpy()
    for sid, x in kept.items():
        head, j, name = sid.split(".")
        grad = x.grad.numpy()
        out[sid] = x.detach().numpy()
        out[
            {"output": f"{head}.{j}.grad_output", "weights": f"{head}.{j}.grad_weights"}.get(
                name, f"{head}.{j}.grad_{name}"
            )
        ] = grad
    for j in range(1, H + 1):
        A = out[f"head.{j}.weights"]
        for i in range(A.shape[0]):
            row = torch.tensor(np.where(allowed_of(g)[i], out[f"head.{j}.scaled_scores"][i], -np.inf))
            out[f"head.{j}.jacobian.{i + 1}"] = torch.func.jacrev(lambda s: torch.softmax(s, -1))(row).numpy()
        out_j = out[f"head.{j}.output"]
        out[f"head.{j}.rowdot"] = np.sum(out[f"head.{j}.grad_output"] * out_j, axis=1)  # rowsum(dO ∘ O)
    return out


GRAD_STEPS = ("grad_Q", "grad_K", "grad_V", "grad_W_Q", "grad_W_K", "grad_W_V", "grad_X")


def assert_matches(d: Any, want: dict[str, np.ndarray], g: dict[str, Any], score: str = "scaled-dot") -> None:
    H = g["heads"]
    for sid in GRAD_STEPS:
        close(d, sid, want[sid])
    if "W_O" in g:
        close(d, "grad_W_O", want["grad_W_O"])
        close(d, "grad_concat", want["grad_concat"])
    for name in ("b_Q", "b_K", "b_V", "b_O"):
        if name in g:
            close(d, f"grad_{name}", want[f"grad_{name}"])
    for j in range(1, H + 1):
        h = f"head.{j}"
        for name in ("grad_output", "grad_weights", "grad_V", "rowdot", "grad_Q", "grad_K"):
            close(d, f"{h}.{name}", want[f"{h}.{name}"])
        # the gradient of the scores before the scale is the softmax's backward (the masked_fill passes
        # 0 to a masked entry): torch's gradient of S' (scaled-dot) or of S (dot)
        close(d, f"{h}.grad_scaled_scores", want[f"{h}.grad_scaled_scores"])
        close(d, f"{h}.grad_scores", want[f"{h}.grad_scores"])
        if f"{h}.jacobian.1" in d:
            for i in range(len(g["X"])):
                close(d, f"{h}.jacobian.{i + 1}", want[f"{h}.jacobian.{i + 1}"])
    # dX is the sum of its three paths, each through its own weights transposed
    np.testing.assert_allclose(sum(np.asarray(d[f"grad_X_{k}"]) for k in "QKV"), want["grad_X"], rtol=0, atol=TOL)
    np.testing.assert_allclose(np.asarray(d["grad_X_Q"]), want["grad_Q"] @ np.asarray(g["W_Q"]).T, atol=TOL)


# --- the examples ---------------------------------------------------------------------------------


def _raw(name: str) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(Path(PROBLEMS, name).read_text())


@pytest.mark.parametrize("name", ["backward-one-head-causal.toml", "backward-two-heads.toml"])
def test_the_examples_match_autograd_exactly_and_in_floats(name: str) -> None:
    raw = _raw(name)
    g = raw["given"]
    d = solve(raw, exact=True)
    # exact forms reach the weights' gradients (two heads' dX outgrows the exact budget: a note says so)
    assert all(d.step(s).exact is not None for s in GRAD_STEPS[:-1]), d.notes
    assert d.step("grad_X").exact is not None or any("stop at 'grad_X'" in n for n in d.notes), d.notes
    assert_matches(d, torch_grads(g, raw.get("score", "scaled-dot")), g)


def test_the_one_head_example_writes_each_rows_jacobian() -> None:
    raw = _raw("backward-one-head-causal.toml")
    d = attncalc.solve(raw, exact=False)
    assert [s for s in d.step_ids if ".jacobian." in s] == [f"head.1.jacobian.{i}" for i in (1, 2, 3)]
    assert np.all(np.asarray(d["head.1.jacobian.1"]) == 0)  # the first token attends to itself only: a = (1, 0, 0)


def test_a_hand_case_one_query_two_keys() -> None:
    """One head of width 1, dot score, two tokens, no mask, X = [[1], [0]], W_Q = W_K = W_V = [[1]]:
    q = k = v = (1, 0). Row 1 scores (1, 0): a = (e, 1)/(e + 1); row 2 scores (0, 0): a = (1/2, 1/2).
    grad_output = [[1], [0]]: dO_1 = 1, dO_2 = 0. dA row 1 = dO_1 v = (1, 0), row 2 = (0, 0).
    D_1 = a_1 · 1 = e/(e + 1); dS_11 = a_1 (1 − a_1) = e/(e + 1)², dS_12 = a_2 (0 − a_1) = −e/(e + 1)².
    dV = Aᵀ dO = (a_1, a_2) = (e, 1)/(e + 1). dQ_1 = dS_11 k_1 + dS_12 k_2 = e/(e + 1)², dQ_2 = 0.
    dK = dSᵀ Q: dK_1 = dS_11 q_1 + dS_21 q_2 = e/(e + 1)², dK_2 = dS_12 · 1 = −e/(e + 1)².
    dX = dQ + dK + dV (all the weights are 1): row 1 = 2e/(e + 1)² + e/(e + 1), row 2 = −e/(e + 1)² + 1/(e + 1).
    """
    e = math.e
    s = e / (e + 1) ** 2
    g = {"X": [[1], [0]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "grad_output": [[1], [0]]}
    for exact in (True, False):
        d = solve(problem(g, score="dot"), exact=exact)
        close(d, "head.1.rowdot", [e / (e + 1), 0])
        close(d, "head.1.grad_scaled_scores", [[s, -s], [0, 0]])
        close(d, "head.1.grad_scores", [[s, -s], [0, 0]])
        close(d, "grad_V", [[e / (e + 1)], [1 / (e + 1)]])
        close(d, "grad_Q", [[s], [0]])
        close(d, "grad_K", [[s], [-s]])
        close(d, "grad_X", [[2 * s + e / (e + 1)], [-s + 1 / (e + 1)]])


# --- autograd on random problems ------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    "case",
    ["one head", "one head without W_O", "two heads with W_O", "causal", "padding", "0/1 mask", "GQA", "MQA", "dot"],
)
def test_random_problems_match_autograd(seed: int, case: str) -> None:
    rng = np.random.default_rng(2900 + seed)
    n = int(rng.integers(2, 5))
    score = "dot" if case == "dot" else "scaled-dot"
    heads, kv = {"GQA": (4, 2), "MQA": (2, 1)}.get(case, (1 if case.startswith("one") else 2, None))
    g = draw(rng, n, 4, heads, kv_heads=kv, W_O=case != "one head without W_O", biases=seed % 2 == 1)
    if case == "causal":
        g["mask"] = "causal"
    elif case == "padding":
        g["key_padding"] = [1] * (n - 1) + [0]
    elif case == "0/1 mask":
        m = rng.integers(0, 2, size=(n, n))
        m[:, 0] = 1
        g["mask"] = m.tolist()
    d = solve(problem(g, score, jacobian=seed == 0), exact=False)
    assert_matches(d, torch_grads(g, score), g, score)


@pytest.mark.parametrize("case", ["causal", "GQA with padding"])
def test_exact_and_float_agree(case: str) -> None:
    rng = np.random.default_rng(77)
    g = draw(rng, 3, 4, 2, kv_heads=1 if case != "causal" else None, biases=True)
    g["mask" if case == "causal" else "key_padding"] = "causal" if case == "causal" else [1, 1, 0]
    d = solve(problem(g, jacobian=True), exact=True)  # also checks every step against the float pass
    assert_matches(d, torch_grads(g), g)


# --- against torch's own attention ----------------------------------------------------------------


def _leaf_grads(g: dict[str, Any], forward: Any) -> dict[str, np.ndarray]:
    X = t(g["X"], True)
    W = {k: t(g[k], True) for k in ("W_Q", "W_K", "W_V", "W_O") if k in g}
    b = {k: t(g[k], True) for k in ("b_Q", "b_K", "b_V", "b_O") if k in g}
    Y = forward(X, W, b)
    Y.backward(t(g["grad_output"]))
    return {f"grad_{k}": v.grad.numpy() for k, v in (("X", X), *W.items(), *b.items())}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", ["causal", "attn_mask", "gqa"])
def test_scaled_dot_product_attention_gives_the_same_gradients(seed: int, case: str) -> None:
    rng = np.random.default_rng(3100 + seed)
    n = int(rng.integers(2, 5))
    heads, kv = (4, 2) if case == "gqa" else (2, None)
    g = draw(rng, n, 4, heads, kv_heads=kv, biases=True)
    allowed = None
    if case == "causal":
        g["mask"] = "causal"
    elif case == "attn_mask":
        m = rng.integers(0, 2, size=(n, n))
        m[:, 0] = 1
        g["mask"] = m.tolist()
        allowed = torch.tensor(m == 1)

    def forward(X: Any, W: dict[str, Any], b: dict[str, Any]) -> Any:
        G = kv or heads
        Q = (X @ W["W_Q"] + b["b_Q"]).reshape(n, heads, -1).transpose(0, 1)
        K = (X @ W["W_K"] + b["b_K"]).reshape(n, G, -1).transpose(0, 1)
        V = (X @ W["W_V"] + b["b_V"]).reshape(n, G, -1).transpose(0, 1)
        att = F.scaled_dot_product_attention(
            Q[None], K[None], V[None], attn_mask=allowed, is_causal=case == "causal", enable_gqa=case == "gqa"
        )[0]
        return att.transpose(0, 1).reshape(n, -1) @ W["W_O"] + b["b_O"]

    want = _leaf_grads(g, forward)
    d = attncalc.solve(problem(g), exact=False)
    for sid, value in want.items():
        close(d, sid, value)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("padding", [False, True])
def test_nn_multihead_attention_gives_the_same_gradients(seed: int, padding: bool) -> None:
    """nn.MultiheadAttention's parameters in torch's layout: in_proj_weight = [W_Qᵀ; W_Kᵀ; W_Vᵀ],
    out_proj.weight = W_Oᵀ; their autograd gradients, mapped back, are attncalc's."""
    rng = np.random.default_rng(3200 + seed)
    n, heads = int(rng.integers(2, 5)), 2
    g = draw(rng, n, 4, heads, biases=True)
    if padding:
        g["key_padding"] = [1] * (n - 1) + [0]
    mha = torch.nn.MultiheadAttention(4, heads, bias=True, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([t(g["W_Q"]).T, t(g["W_K"]).T, t(g["W_V"]).T]))
        mha.in_proj_bias.copy_(torch.cat([t(g[k]) for k in ("b_Q", "b_K", "b_V")]))
        mha.out_proj.weight.copy_(t(g["W_O"]).T)
        mha.out_proj.bias.copy_(t(g["b_O"]))
    X = t(g["X"], True)
    kpm = torch.tensor(np.asarray(g["key_padding"]) == 0)[None] if padding else None
    out, _ = mha(X[None], X[None], X[None], key_padding_mask=kpm, need_weights=False)
    out[0].backward(t(g["grad_output"]))
    gw, gb = mha.in_proj_weight.grad.numpy(), mha.in_proj_bias.grad.numpy()
    d = attncalc.solve(problem(g), exact=False)
    close(d, "grad_X", X.grad.numpy())
    for k, name in enumerate("QKV"):
        close(d, f"grad_W_{name}", gw[4 * k : 4 * (k + 1)].T)
        close(d, f"grad_b_{name}", gb[4 * k : 4 * (k + 1)])
    close(d, "grad_W_O", mha.out_proj.weight.grad.numpy().T)
    close(d, "grad_b_O", mha.out_proj.bias.grad.numpy())
