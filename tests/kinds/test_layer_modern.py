"""RMSNorm, SwiGLU and SiLU, RoPE and grouped queries inside a layer, and the
sliding window, against PyTorch in float64 (to 1e-9).

The oracle is written here with torch ops, independent of attncalc: torch.nn.RMSNorm (its weight γ, its
eps), RoPE as Hugging Face's LLaMA writes it (rotate_half, or the interleaved pairs of the paper),
F.scaled_dot_product_attention with a boolean mask built here from the window's definition
(query i at position p attends key k when p − w < k ≤ p) and enable_gqa, and the SwiGLU network both as
torch ops and as a LLaMA-style module (three bias-free nn.Linear, w2(silu(w1(x)) * w3(x))), the two
checked against each other first."""

from __future__ import annotations

import copy
import tomllib
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc.errors import ProblemError

from ..helpers import PROBLEMS, solve_raw

torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch==2.13.0)")
F = torch.nn.functional


def raw(name: str = "layer-llama") -> dict[str, Any]:
    return tomllib.loads((PROBLEMS / f"{name}.toml").read_text(encoding="utf-8"))


def t(x: Any) -> Any:
    return torch.tensor(x, dtype=torch.float64)


def val(d: Any, sid: str) -> np.ndarray:
    return np.asarray(d.step(sid).value, dtype=float)


# ------------------------------------------------------------------ the oracle


def rms_norm(x: Any, gamma: Any, eps: float) -> Any:
    norm = torch.nn.RMSNorm(x.shape[-1], eps=eps, dtype=torch.float64)
    with torch.no_grad():
        norm.weight.copy_(gamma)
        return norm(x)


def rope(x: Any, positions: Any, base: float, pairing: str) -> Any:
    """x: (heads, n, d_k) rotated by position, as HF LLaMA (half) or the RoFormer paper (interleaved)."""
    d = x.shape[-1]
    inv = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = positions[:, None].to(torch.float64) * inv[None, :]  # n × d/2
    if pairing == "half":
        cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
        x1, x2 = x[..., : d // 2], x[..., d // 2 :]
        return x * cos + torch.cat([-x2, x1], -1) * sin
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = x1 * ang.cos() - x2 * ang.sin()
    out[..., 1::2] = x1 * ang.sin() + x2 * ang.cos()
    return out


def window_mask(n: int, m: int, w: int | None, offset: int = 0) -> Any:
    """True = may attend: query i stands at position offset + i; causal, and with w its last w keys."""
    allowed = torch.zeros(n, m, dtype=torch.bool)
    for i in range(n):
        for k in range(m):
            pos = offset + i
            allowed[i, k] = k <= pos and (w is None or pos - k < w)
    return allowed


def attention(h: Any, a: dict[str, Any], heads: int, mask: Any, settings: dict[str, Any]) -> Any:
    """Multi-head (grouped-query) attention of the rows h, weights in the row convention."""
    n = h.shape[0]
    kv = a.get("kv_heads", heads)
    Q, K, V = h @ t(a["W_Q"]), h @ t(a["W_K"]), h @ t(a["W_V"])
    d_k, d_v = Q.shape[1] // heads, V.shape[1] // kv
    q = Q.reshape(n, heads, d_k).transpose(0, 1)
    k = K.reshape(n, kv, d_k).transpose(0, 1)
    v = V.reshape(n, kv, d_v).transpose(0, 1)
    if a.get("positions") == "rope":
        pos = torch.arange(n)
        base, pairing = float(settings.get("position_base", 10000)), settings.get("rope", "interleaved")
        q, k = rope(q, pos, base, pairing), rope(k, pos, base, pairing)
    if a.get("positions") == "alibi":  # Press et al.: head j's bias −m_j |i − k|, m_j = 2^(−8j/h)
        dist = (torch.arange(n)[:, None] - torch.arange(n)[None, :]).abs().to(torch.float64)
        slopes = torch.tensor([2.0 ** (-8 * j / heads) for j in range(1, heads + 1)], dtype=torch.float64)
        bias = -slopes[:, None, None] * dist[None]
        if mask is not None:
            bias = bias.masked_fill(~mask, float("-inf"))
        mask = bias
    o = F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=mask, enable_gqa=kv != heads)[0]
    return o.transpose(0, 1).reshape(n, heads * d_v) @ t(a["W_O"])


def swiglu_ops(x: Any, f: dict[str, Any]) -> Any:
    return (F.silu(x @ t(f["W_1"])) * (x @ t(f["W_3"]))) @ t(f["W_2"])


class LlamaFeedForward(torch.nn.Module):  # type: ignore[misc]
    """LLaMA's FeedForward (facebookresearch/llama model.py): w2(silu(w1(x)) * w3(x)), no biases."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.w1 = torch.nn.Linear(dim, hidden, bias=False, dtype=torch.float64)
        self.w2 = torch.nn.Linear(hidden, dim, bias=False, dtype=torch.float64)
        self.w3 = torch.nn.Linear(dim, hidden, bias=False, dtype=torch.float64)

    def forward(self, x: Any) -> Any:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


def llama_module(f: dict[str, Any]) -> LlamaFeedForward:
    W1 = t(f["W_1"])
    m = LlamaFeedForward(W1.shape[0], W1.shape[1])
    with torch.no_grad():  # nn.Linear holds the column-convention weight: W^T
        m.w1.weight.copy_(W1.T)
        m.w2.weight.copy_(t(f["W_2"]).T)
        m.w3.weight.copy_(t(f["W_3"]).T)
    return m


def ffn(x: Any, f: dict[str, Any]) -> Any:
    act = f.get("activation", "relu")
    if act == "swiglu":
        return swiglu_ops(x, f)
    a = x @ t(f["W_1"]) + (t(f["b_1"]) if "b_1" in f else 0)
    h = {"silu": F.silu, "relu": F.relu}[act](a)
    return h @ t(f["W_2"]) + (t(f["b_2"]) if "b_2" in f else 0)


def torch_block(r: dict[str, Any]) -> dict[str, Any]:
    """An encoder-shaped block (self-attention, then the FFN) with RMSNorm, as PyTorch computes it."""
    g, s, a = r["given"], r.get("settings", {}), r["self_attention"]
    X = t(g["X"])
    n, d = X.shape
    eps = float(s.get("eps", 1e-5))
    gammas = [t(r.get(f"norm{k}", {}).get("gamma", [1.0] * d)) for k in (1, 2)]
    causal = a.get("mask") == "causal" or "window" in g
    mask = window_mask(n, n, g.get("window")) if causal else None
    out: dict[str, Any] = {"mask": mask}
    if s.get("norm", "post") == "pre":
        h = rms_norm(X, gammas[0], eps)
        out["norm1.output"] = h
        r1 = X + attention(h, a, g["heads"], mask, s)
        h2 = rms_norm(r1, gammas[1], eps)
        out["ffn.output"] = ffn(h2, r["ffn"])
        out["output"] = r1 + out["ffn.output"]
    else:
        r1 = X + attention(X, a, g["heads"], mask, s)
        out["norm1.output"] = x1 = rms_norm(r1, gammas[0], eps)
        out["ffn.output"] = ffn(x1, r["ffn"])
        out["output"] = rms_norm(x1 + out["ffn.output"], gammas[1], eps)
    out["residual1"] = r1
    return {k: (v.detach().numpy() if v is not None else None) for k, v in out.items()}


# ------------------------------------------------------------------ the example and its variants


def test_the_swiglu_written_with_torch_ops_is_llamas_module() -> None:
    f = raw()["ffn"]
    x = torch.linspace(-2, 2, 12, dtype=torch.float64).reshape(3, 4)
    np.testing.assert_allclose(swiglu_ops(x, f).numpy(), llama_module(f)(x).detach().numpy(), rtol=0, atol=1e-12)


def test_the_window_mask_of_the_oracle_agrees_with_the_definition() -> None:
    # 4 tokens, w = 2: each token sees itself and the one before it; with a 3-token cache the query of
    # row 0 stands at position 3 (lower-right), and sees keys 2 and 3
    assert window_mask(4, 4, 2).int().tolist() == [[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]
    assert window_mask(2, 5, 2, offset=3).int().tolist() == [[0, 0, 1, 1, 0], [0, 0, 0, 1, 1]]


@pytest.mark.parametrize("exact", [False, True])
def test_the_llama_block_agrees_with_torch(exact: bool) -> None:
    r = raw()
    want = torch_block(r)
    d = solve_raw(r, exact=exact)
    for sid in ("norm1.output", "residual1", "ffn.output", "output"):
        np.testing.assert_allclose(val(d, sid), want[sid], rtol=0, atol=1e-9, err_msg=sid)
    for j in (1, 2):  # the window's mask in the masked scores: −∞ exactly where torch's mask is False
        masked = val(d, f"self.head.{j}.masked_scores")
        assert (np.isneginf(masked) == ~want["mask"]).all()
    # the SwiGLU's steps, from attncalc's own input to the network
    h = t(val(d, "norm2.output"))
    f = r["ffn"]
    np.testing.assert_allclose(val(d, "ffn.gate_pre"), (h @ t(f["W_1"])).numpy(), atol=1e-9)
    np.testing.assert_allclose(val(d, "ffn.gate"), F.silu(h @ t(f["W_1"])).numpy(), atol=1e-9)
    np.testing.assert_allclose(val(d, "ffn.up"), (h @ t(f["W_3"])).numpy(), atol=1e-9)
    hidden = (F.silu(h @ t(f["W_1"])) * (h @ t(f["W_3"]))).numpy()
    np.testing.assert_allclose(val(d, "ffn.hidden"), hidden, atol=1e-9)
    np.testing.assert_allclose(val(d, "ffn.output"), llama_module(f)(h).detach().numpy(), atol=1e-9)


@pytest.mark.parametrize(
    "variant", ["post-norm", "no window", "interleaved rope", "silu ffn", "no rope, gqa off", "alibi"]
)
def test_variants_agree_with_torch(variant: str) -> None:
    r = raw()
    if variant == "post-norm":
        r["settings"]["norm"] = "post"
    elif variant == "no window":
        del r["given"]["window"]
    elif variant == "interleaved rope":
        r["settings"]["rope"] = "interleaved"
        r["given"]["window"] = 3
    elif variant == "silu ffn":
        f = r["ffn"]
        f["activation"] = "silu"
        del f["W_3"]
        f["b_1"] = [0.5, 0, -0.5]
        f["b_2"] = [0, 0.25, 0, -0.25]
    elif variant == "alibi":
        r["self_attention"]["positions"] = "alibi"
        del r["settings"]["rope"]
    else:
        a = r["self_attention"]
        del a["positions"], a["kv_heads"], r["settings"]["rope"]
        a["W_K"] = [[1, 0, 0, 1], [0, 1, 1, 0], [0, 1, 0, 0], [1, 0, 1, 1]]
        a["W_V"] = [[1, 0, 0.5, 0], [0, 1, 0, 0], [1, 1, 0, 1], [0, 0, 1, 0]]
    want = torch_block(r)
    for exact in (False, True):
        d = solve_raw(r, exact=exact)
        np.testing.assert_allclose(val(d, "output"), want["output"], rtol=0, atol=1e-9, err_msg=f"{variant} {exact}")


@pytest.mark.parametrize("norm", ["pre", "post"])
def test_generated_llama_blocks_agree_with_torch(norm: str) -> None:
    """`generate --normalization rms --activation swiglu --window 2 --norm pre|post`: every variant's
    output is PyTorch's block on the variant's own numbers."""
    for v in attncalc.generate(
        kind="transformer-layer", tokens=3, normalization="rms", activation="swiglu", window=2, norm=norm, count=3
    ):
        want = torch_block(v.problem)
        for sid in ("norm1.output", "residual1", "ffn.output", "output"):
            np.testing.assert_allclose(val(v.derivation, sid), want[sid], rtol=0, atol=1e-9, err_msg=f"{norm} {sid}")


def test_rms_norm_with_eps_agrees_with_torch_and_exact_is_the_float_evaluated() -> None:
    import sympy as sp

    r = raw()
    r["settings"]["eps"] = "0.5"  # a large ε, so that a slip of it shows
    d = solve_raw(r, exact=True)
    X = t(r["given"]["X"])
    want = rms_norm(X, t(r["norm1"]["gamma"]), 0.5).detach().numpy()
    np.testing.assert_allclose(val(d, "norm1.output"), want, rtol=0, atol=1e-12)
    ms = (X**2).mean(-1).numpy()  # the mean square, written from the paper
    np.testing.assert_allclose(val(d, "norm1.mean_square"), ms, atol=1e-12)
    np.testing.assert_allclose(val(d, "norm1.normalized"), (X / torch.sqrt(t(ms) + 0.5)[:, None]).numpy(), atol=1e-12)
    for sid in ("norm1.mean_square", "norm1.normalized", "norm1.output", "ffn.gate"):
        step = d.step(sid)
        if step.exact is None:
            continue
        ev = np.vectorize(lambda e: float(sp.N(e, 30)), otypes=[float])(step.exact)
        np.testing.assert_allclose(ev, val(d, sid), rtol=0, atol=1e-12, err_msg=sid)
    assert d.step("norm1.mean_square").exact is not None
    assert d.step("norm1.mean_square").exact[0] == sp.Rational(1, 2)  # (1² + 0² + 1² + 0²) / 4


def test_the_views_name_rmsnorm_swiglu_and_the_window() -> None:
    d = attncalc.solve(PROBLEMS / "layer-llama.toml", exact=False)
    text = d.to_text(width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "RMSNorm 1 before it" in text and "[norm1.mean_square]" in text and "[norm1.mean]" not in text
    assert "sliding window of 2 keys" in text
    assert "g[1,1] = silu(" in text
    md, tex, html = d.to_markdown(), d.to_latex(), d.to_html()
    for out in (md, tex, html):
        assert "RMSNorm 1: mean of the squares of each row" in out and "SwiGLU: the gate, through SiLU" in out
    assert r"\text{silu}(a)" in tex
    ids = [s["id"] for s in d.to_json()["steps"]]
    want = ["norm2.mean_square", "norm2.normalized", "norm2.output", "ffn.gate_pre", "ffn.gate", "ffn.up"]
    assert ids[ids.index("norm2.mean_square") : ids.index("ffn.up") + 1] == want
    assert ids[-4:] == ["ffn.hidden", "ffn.output", "residual2", "output"]


# ------------------------------------------------------------------ sliding windows in multi-head and self-attention


def _mh(window: int | None, cache: bool = False, padding: list[int] | None = None) -> dict[str, Any]:
    r = raw()
    g: dict[str, Any] = {"X": r["given"]["X"], "heads": 2, **r["self_attention"]}
    del g["positions"]
    if window is not None:
        g["window"] = window
    if padding is not None:
        g["key_padding"] = padding
    out: dict[str, Any] = {"kind": "multi-head", "given": g}
    if cache:
        out["cache"] = {"K": [[1, 0], [0, 1], [1, 1]], "V": [[0.5, 0], [0, 0.5], [1, -1]]}
    return out


def _sdpa_mh(r: dict[str, Any], mask: Any) -> np.ndarray:
    g = r["given"]
    X = t(g["X"])
    n, heads, kv = X.shape[0], g["heads"], g.get("kv_heads", g["heads"])
    Q, K, V = X @ t(g["W_Q"]), X @ t(g["W_K"]), X @ t(g["W_V"])
    if "cache" in r:
        K, V = torch.cat([t(r["cache"]["K"]), K]), torch.cat([t(r["cache"]["V"]), V])
    m, d_k, d_v = K.shape[0], Q.shape[1] // heads, V.shape[1] // kv
    q = Q.reshape(n, heads, d_k).transpose(0, 1)
    k = K.reshape(m, kv, d_k).transpose(0, 1)
    v = V.reshape(m, kv, d_v).transpose(0, 1)
    o = F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=mask, enable_gqa=kv != heads)[0]
    return (o.transpose(0, 1).reshape(n, heads * d_v) @ t(g["W_O"])).numpy()


@pytest.mark.parametrize(
    ("window", "cache", "padding"),
    [(1, False, None), (2, False, None), (3, False, [1, 0, 1, 1]), (2, True, None), (4, True, None)],
)
def test_multi_head_windows_agree_with_sdpa(window: int, cache: bool, padding: list[int] | None) -> None:
    r = _mh(window, cache, padding)
    n, t_cached = 4, 3 if cache else 0
    mask = window_mask(n, n + t_cached, window, offset=t_cached)
    if padding is not None:
        mask &= torch.tensor(padding, dtype=torch.bool)[None, :]
    for exact in (False, True):
        d = solve_raw(r, exact=exact)
        np.testing.assert_allclose(val(d, "output"), _sdpa_mh(r, mask), rtol=0, atol=1e-9)
        assert (np.isneginf(val(d, "head.1.masked_scores")) == ~mask.numpy()).all()


@pytest.mark.parametrize("window", [1, 2, 3])
def test_self_attention_windows_agree_with_sdpa(window: int) -> None:
    X = [[1, 0, 1], [0, 2, 1], [1, -1, 0], [2, 1, -1]]
    WQ = [[1, 0], [0, 1], [1, 1]]
    WK = [[0, 1], [1, 0], [1, -1]]
    WV = [[1, 0], [0.5, 1], [0, 2]]
    r = {"kind": "self-attention", "given": {"X": X, "W_Q": WQ, "W_K": WK, "W_V": WV, "window": window}}
    mask = window_mask(4, 4, window)
    Xt = t(X)
    want = F.scaled_dot_product_attention(Xt @ t(WQ), Xt @ t(WK), Xt @ t(WV), attn_mask=mask).numpy()
    for exact in (False, True):
        d = solve_raw(r, exact=exact)
        np.testing.assert_allclose(val(d, "output"), want, rtol=0, atol=1e-9)
        assert (np.isneginf(val(d, "masked_scores")) == ~mask.numpy()).all()
    assert f"sliding window of {window} keys" in d.to_text(width=80)
    from attncalc.render.setup import setup_lines  # the sentence QTI and Moodle questions state

    assert ("window", f"Mask: causal, a sliding window of {window}") == (
        setup_lines(d.problem)[0][0],
        setup_lines(d.problem)[0][1].split(" (")[0],
    )


# ------------------------------------------------------------------ bad input


def _refused(r: dict[str, Any]) -> str:
    with pytest.raises(ProblemError) as e:
        solve_raw(r, exact=False)
    return str(e.value)


def test_bad_input_names_its_key() -> None:
    r = raw()
    r["norm1"]["beta"] = [0, 0, 0, 0]
    assert "norm1.beta" in _refused(r) and "RMSNorm has no shift" in _refused(r)
    r = raw()
    r["ffn"]["activation"] = "silu"
    assert "ffn.W_3" in _refused(r) and "swiglu" in _refused(r)
    r = raw()
    del r["ffn"]["W_3"]
    assert "ffn.W_3: missing" in _refused(r)
    r = raw()
    r["ffn"]["W_3"] = [[1, 0], [0, 1], [1, 1], [0, 0]]
    assert "ffn.W_3: is 4×2" in _refused(r)
    r = raw()
    r["settings"]["normalization"] = "batch"
    assert "settings.normalization" in _refused(r)
    r = raw()
    r["given"]["window"] = 0
    assert "given.window" in _refused(r)
    r = raw()
    r["self_attention"]["mask"] = [[1, 1, 1, 1]] * 4
    assert "given.window" in _refused(r) and "causal" in _refused(r)
    r = raw()
    r["self_attention"]["positions"] = "sinusoidal"
    assert "self_attention.positions" in _refused(r)
    r = raw()
    del r["self_attention"]["positions"]
    assert "settings.rope" in _refused(r)
    d = raw("layer-decoder")
    d["cross_attention"]["positions"] = "rope"
    assert "cross_attention.positions" in _refused(d)
    mh = _mh(2)
    mh["given"]["window"] = True
    assert "given.window" in _refused(mh)
    sa = {"kind": "self-attention", "given": {"X": [[1, 0], [0, 1]], "window": 1, "mask": [[1, 1], [1, 1]]}}
    assert "given.window" in _refused(sa)
    sa = {"kind": "softmax", "given": {"logits": [1, 2]}, "settings": {"normalization": "rms"}}
    assert "settings.normalization" in _refused(sa) and "transformer-layer" in _refused(sa)


def test_the_layer_without_the_new_keys_is_unchanged() -> None:
    """The defaults (LayerNorm, no window) give what they gave: the encoder example's steps are LayerNorm's."""
    d = attncalc.solve(PROBLEMS / "layer-encoder.toml", exact=False)
    ids = [s.id for s in d.steps]
    assert "norm1.mean" in ids and "norm1.variance" in ids and "norm1.mean_square" not in ids
    assert copy.deepcopy(raw("layer-encoder"))["ffn"].get("activation", "relu") == "relu"


def test_a_window_wider_than_the_sequence_is_the_causal_mask() -> None:
    """A window of 10^100 keys (past any int64) sees every earlier key: the plain causal mask."""
    wide, causal = _mh(10**100), _mh(None)
    causal["given"]["mask"] = "causal"
    a, b = solve_raw(wide, exact=False), solve_raw(causal, exact=False)
    np.testing.assert_array_equal(val(a, "head.1.masked_scores"), val(b, "head.1.masked_scores"))
    sa = {"kind": "self-attention", "given": {"X": [[1, 0], [0, 1], [1, 1]], "window": 10**100}}
    masked = val(solve_raw(sa, exact=False), "masked_scores")
    assert (np.isneginf(masked) == ~np.tril(np.ones((3, 3), dtype=bool))).all()


def test_the_questions_state_the_window() -> None:
    """QTI and Moodle questions state the whole numbers no table shows: the window among them."""
    from attncalc.render.setup import setup_lines

    for d in (attncalc.solve(PROBLEMS / "layer-llama.toml", exact=False), solve_raw(_mh(3), exact=False)):
        lines = dict(setup_lines(d.problem))
        w = 2 if d.problem.kind == "transformer-layer" else 3
        assert lines["window"] == f"sliding window w = {w}: query i sees keys i − {w} < k ≤ i"
