"""Numpy oracles for the multi-head and positional-encoding tests, written from the papers.

Nothing here imports attncalc. Each function is the paper's formula as plainly as numpy allows, in
the row convention of "Attention Is All You Need" (Q = X W_Q, head j takes the j-th block of d_k
columns), with positions, heads and rows counted from 0 in the code (the step ids count heads from 1).

- sinusoidal: Vaswani et al. 2017, §3.5: P[pos, 2i] = sin(pos / 10000^(2i/d)), P[pos, 2i+1] = cos(same).
- RoPE interleaved: Su et al. (RoFormer) eq. 34, pairs (2i, 2i+1) turned by pos·base^(−2i/d); written
  as a complex product, as Meta's LLaMA reference code does (``view_as_complex`` on interleaved pairs).
- RoPE half: pairs (i, i + d/2), written with ``rotate_half`` as the GPT-NeoX / Hugging Face code does.
- ALiBi: Press et al. 2022, slopes m_j = 2^(−8j/h) for heads j = 1 … h, bias −m_j·|i − k|.
- masks: "causal" lower-right (query i of n sees keys k ≤ m − n + i), "causal-top-left" (k ≤ i).
"""

from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray


def A(x: Any) -> Array:
    return np.array(x, dtype=float)


def softmax_rows(s: Array) -> Array:
    """Row softmax; −∞ entries (masked) get weight 0."""
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# --- positions -----------------------------------------------------------------------------------


def sinusoidal_angles(positions: Any, d: int, base: float = 10000.0) -> Array:
    """angles[r, i] = pos_r / base^(2i/d), i = 0 … d/2 − 1."""
    pos = A(positions)
    i = np.arange(d // 2)
    return pos[:, None] / base ** (2 * i / d)[None, :]


def sinusoidal(positions: Any, d: int, base: float = 10000.0) -> Array:
    """P[r, 2i] = sin(pos_r / base^(2i/d)), P[r, 2i+1] = cos(pos_r / base^(2i/d)); one loop, entry by entry."""
    pos = [float(p) for p in positions]
    P = np.zeros((len(pos), d))
    for r, p in enumerate(pos):
        for c in range(d):
            two_i = c - c % 2
            angle = p / base ** (two_i / d)
            P[r, c] = np.sin(angle) if c % 2 == 0 else np.cos(angle)
    return P


def rope_interleaved(x: Any, positions: Any, base: float = 10000.0) -> Array:
    """Rows of x (width d) rotated pairwise (2i, 2i+1) by pos·θ_i, θ_i = base^(−2i/d): (x_2i + i·x_2i+1)·e^{i pos θ_i}."""
    x = A(x)
    d = x.shape[1]
    theta = base ** (-np.arange(0, d, 2) / d)  # (d/2,)
    z = (x[:, 0::2] + 1j * x[:, 1::2]) * np.exp(1j * np.outer(A(positions), theta))
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def rope_half(x: Any, positions: Any, base: float = 10000.0) -> Array:
    """GPT-NeoX: x·cos(emb) + rotate_half(x)·sin(emb), emb = [pos·θ, pos·θ], rotate_half(x) = [−x2, x1]."""
    x = A(x)
    d = x.shape[1]
    inv_freq = 1.0 / base ** (np.arange(0, d, 2) / d)
    freqs = np.outer(A(positions), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=1)
    rotated = np.concatenate([-x[:, d // 2 :], x[:, : d // 2]], axis=1)
    return x * np.cos(emb) + rotated * np.sin(emb)


def rope(x: Any, positions: Any, mode: str = "interleaved", base: float = 10000.0) -> Array:
    return rope_interleaved(x, positions, base) if mode == "interleaved" else rope_half(x, positions, base)


def rope_blocks(M: Any, d_k: int, positions: Any, mode: str = "interleaved", base: float = 10000.0) -> Array:
    """Each d_k-column block of M (one head's q or k) rotated on its own, as a cache stores rotated keys."""
    M = A(M)
    blocks = [rope(M[:, c : c + d_k], positions, mode, base) for c in range(0, M.shape[1], d_k)]
    return np.concatenate(blocks, axis=1)


def alibi_slopes(h: int) -> list[float]:
    """m_j = 2^(−8j/h), j = 1 … h (h = 8: 1/2, 1/4, …, 1/256)."""
    return [2.0 ** (-8 * j / h) for j in range(1, h + 1)]


def alibi_bias(slope: float, q_pos: Any, k_pos: Any) -> Array:
    return -slope * np.abs(A(q_pos)[:, None] - A(k_pos)[None, :])


# --- masks ---------------------------------------------------------------------------------------


def causal_lower_right(n: int, m: int) -> Array:
    """allowed[i, k] = k ≤ m − n + i (the last query sees every key; a cache's alignment)."""
    return np.arange(m)[None, :] <= (m - n + np.arange(n))[:, None]


def causal_top_left(n: int, m: int) -> Array:
    """allowed[i, k] = k ≤ i (torch's is_causal)."""
    return np.arange(m)[None, :] <= np.arange(n)[:, None]


# --- multi-head attention ------------------------------------------------------------------------


def multi_head(
    X: Any,
    W_Q: Any,
    W_K: Any,
    W_V: Any,
    heads: int,
    *,
    memory: Any = None,
    kv_heads: int | None = None,
    b_Q: Any = None,
    b_K: Any = None,
    b_V: Any = None,
    W_O: Any = None,
    b_O: Any = None,
    allowed: Any = None,
    score: str = "scaled-dot",
    rope_mode: str | None = None,
    alibi: bool = False,
    q_pos: Any = None,
    k_pos: Any = None,
    base: float = 10000.0,
) -> dict[str, Array]:
    """Every step of multi-head attention, keyed by the step ids of the interface (heads from 1).

    Keys and values come from ``memory`` when given (cross-attention), else from X. ``allowed`` is a
    boolean n × m matrix (True = may attend). Query head j uses kv head j // (heads / kv_heads).
    """
    X = A(X)
    src = X if memory is None else A(memory)
    kv = heads if kv_heads is None else kv_heads
    Q = X @ A(W_Q) + (0 if b_Q is None else A(b_Q))  # n × h·d_k
    K = src @ A(W_K) + (0 if b_K is None else A(b_K))  # m × kv·d_k
    V = src @ A(W_V) + (0 if b_V is None else A(b_V))  # m × kv·d_v
    n, m = Q.shape[0], K.shape[0]
    d_k, d_v = Q.shape[1] // heads, V.shape[1] // kv
    q_pos = np.arange(n) if q_pos is None else A(q_pos)
    k_pos = np.arange(m) if k_pos is None else A(k_pos)
    out: dict[str, Array] = {"Q": Q, "K": K, "V": V}
    outputs = []
    for j in range(heads):
        g = j // (heads // kv)
        q, k, v = Q[:, j * d_k : (j + 1) * d_k], K[:, g * d_k : (g + 1) * d_k], V[:, g * d_v : (g + 1) * d_v]
        h = f"head.{j + 1}."
        out[h + "Q"], out[h + "K"], out[h + "V"] = q, k, v
        if rope_mode is not None:
            q, k = rope(q, q_pos, rope_mode, base), rope(k, k_pos, rope_mode, base)
            out[h + "Q_rot"], out[h + "K_rot"] = q, k
        s = q @ k.T  # n × m
        out[h + "scores"] = s
        if score == "scaled-dot":
            s = s / np.sqrt(d_k)
            out[h + "scaled_scores"] = s
        if alibi:
            b = alibi_bias(alibi_slopes(heads)[j], q_pos, k_pos)
            out[h + "bias"] = b
            s = s + b
        if allowed is not None:
            s = np.where(np.asarray(allowed, dtype=bool), s, -np.inf)
            out[h + "masked_scores"] = s
        w = softmax_rows(s)
        out[h + "weights"] = w
        out[h + "output"] = w @ v
        outputs.append(w @ v)
    out["concat"] = np.concatenate(outputs, axis=1)
    if W_O is not None:
        out["output"] = out["concat"] @ A(W_O) + (0 if b_O is None else A(b_O))
    return out
