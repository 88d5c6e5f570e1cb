"""Positions, as the papers define them, for every chain (exact, float, hand).

Sinusoidal (Vaswani et al. 2017): the angle of position pos and pair i is pos / base^(2i/d);
P[pos, 2i] = sin(angle), P[pos, 2i+1] = cos(angle). RoPE (Su et al., RoFormer): the pair of a head's
q and k at position pos turns by the angle pos · base^(−2i/d_k); "interleaved" pairs columns
(2i, 2i+1) as the paper does, "half" pairs (i, i + d_k/2) as GPT-NeoX and LLaMA code do. ALiBi
(Press et al.): head j of h gets the slope m_j = 2^(−8j/h) and the bias −m_j·|i − k|; the ALiBi code and
BLOOM interleave other slopes when h is not a power of two (``[settings] alibi = "official"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Combine, Formula, Map
from ..derivation.arith import Chain, round_array
from ..derivation.fmt import fmt
from ..numbers import Node, to_exact, to_float

# said where 1-based entry labels stand next to 0-based positions (the maths numbers entries from 1,
# the papers and PyTorch number positions from 0)
COUNTING = "Entries [r,c] count rows and columns from 1; positions and the pair index i count from 0."


def _base_text(base: Node) -> str:
    return fmt(to_float(base), 6)


def angles(chain: Chain, positions: list[int], d: int, base: Node) -> tuple[np.ndarray, np.ndarray]:
    """(values, written): positions × d/2 angles pos / base^(2i/d) (i/d under the slip freq_no_two)."""
    half = d // 2
    two = 1 if chain.mistake == "freq_no_two" else 2
    written = np.empty((len(positions), half), dtype=object)
    b = _base_text(base)
    for r, pos in enumerate(positions):
        for i in range(half):
            written[r, i] = f"{pos} / {b}^({two * i}/{d})"
    if chain.mode == "exact" and chain.degraded_at is None:
        import sympy as sp

        B = to_exact(base)
        out = np.empty((len(positions), half), dtype=object)
        for r, pos in enumerate(positions):
            for i in range(half):
                out[r, i] = sp.Integer(pos) / B ** sp.Rational(two * i, d)
        return out, written
    bf = to_float(base)
    vals = np.array([[pos / bf ** (two * i / d) for i in range(half)] for pos in positions], dtype=float)
    return vals, written


def angles_step(step_id: str, value: np.ndarray, written: np.ndarray, rows: tuple[str, ...] | None, d: int) -> Formula:
    return Formula(
        id=step_id,
        title="Angles",
        formula=f"θ_pos,i = pos / base^(2i/d), d = {d}",
        latex=rf"\theta_{{pos,i}} = \frac{{pos}}{{\text{{base}}^{{2i/d}}}},\ d = {d}",
        symbol="θ",
        value=value,
        rows=rows,
        cols=tuple(f"i={i}" for i in range(d // 2)),
        written=tuple(tuple(str(x) for x in row) for row in written),
        explain="Each pair of columns turns at its own frequency: the first pairs fast, the last ones slowly. "
        + COUNTING,
    )


def sinusoid(chain: Chain, theta: np.ndarray) -> np.ndarray:
    """P: sin of the angles in the even columns, cos in the odd ones (swapped under sin_cos_swapped)."""
    sin, cos = chain.sin(theta), chain.cos(theta)
    if chain.mistake == "sin_cos_swapped":
        sin, cos = cos, sin
    rows, half = theta.shape
    out = np.empty((rows, 2 * half), dtype=sin.dtype)
    out[:, 0::2] = sin
    out[:, 1::2] = cos
    return out


def positions_step(
    step_id: str, value: np.ndarray, theta: np.ndarray, rows: tuple[str, ...] | None, title: str = "Positions"
) -> Map:
    wide = np.repeat(np.asarray(theta), 2, axis=1)
    return Map(
        id=step_id,
        title=title,
        formula="P[pos, 2i] = sin(θ_pos,i), P[pos, 2i+1] = cos(θ_pos,i)",
        latex=r"P_{pos,2i} = \sin\theta_{pos,i},\quad P_{pos,2i+1} = \cos\theta_{pos,i}",
        symbol="P",
        value=value,
        rows=rows,
        fn="sinusoid",
        arg=wide,
        explain="Every position gets its own pattern of sines and cosines; nearby positions get similar ones. "
        + COUNTING,
    )


def rope_pairs(d: int, pairing: str) -> list[tuple[int, int]]:
    """The (first, second) columns of each rotated pair, pair i turning by pos·base^(−2i/d)."""
    if pairing == "half":
        return [(i, i + d // 2) for i in range(d // 2)]
    return [(2 * i, 2 * i + 1) for i in range(d // 2)]


def rope(
    chain: Chain, M: np.ndarray, positions: list[int], base: Node, pairing: str
) -> tuple[np.ndarray, tuple[tuple[np.ndarray, ...], ...]]:
    """The rows of M (one per position) rotated pair by pair, and the Combine terms that write it out:
    x'_a = x_a cos θ − x_b sin θ and x'_b = x_b cos θ + x_a sin θ for each pair (a, b)."""
    rows, d = M.shape
    theta, _ = angles(_plain(chain), positions, d, base)
    c, s = chain.cos(theta), chain.sin(theta)
    if chain.mode == "hand":  # by hand, cos θ and sin θ are written rounded and used as written
        c, s = round_array(c, chain.decimals), round_array(s, chain.decimals)
    if chain.mistake == "rope_reversed":
        s = -s
    cos_full = np.empty((rows, d), dtype=c.dtype)
    sin_signed = np.empty((rows, d), dtype=s.dtype)
    partner = np.empty((rows, d), dtype=M.dtype)
    for i, (a, b) in enumerate(rope_pairs(d, pairing)):
        cos_full[:, a] = cos_full[:, b] = c[:, i]
        sin_signed[:, a] = -s[:, i]
        sin_signed[:, b] = s[:, i]
        partner[:, a] = M[:, b]
        partner[:, b] = M[:, a]
    Mx, cf, pa, ss = chain.coerce(M, cos_full, partner, sin_signed)
    out = Mx * cf + pa * ss
    return out, ((Mx, cf), (pa, ss))


def _plain(chain: Chain) -> Chain:
    """The angles of RoPE never take the sinusoidal slip (freq_no_two): a chain without it."""
    if chain.mistake != "freq_no_two":
        return chain
    plain = Chain(chain.mode, chain.decimals)
    plain.degraded_at = chain.degraded_at
    return plain


def rope_step(
    step_id: str, title: str, symbol: str, value: np.ndarray, terms: Any, rows: tuple[str, ...] | None, pairing: str
) -> Combine:
    pair = "(2i, 2i+1)" if pairing == "interleaved" else "(i, i + d_k/2)"
    return Combine(
        id=step_id,
        title=title,
        formula=f"pairs {pair} turned by θ = pos·base^(−2i/d_k): x'_a = x_a cos θ − x_b sin θ, x'_b = x_b cos θ + x_a sin θ",
        latex=r"x'_a = x_a\cos\theta - x_b\sin\theta,\quad x'_b = x_b\cos\theta + x_a\sin\theta",
        symbol=symbol,
        value=value,
        rows=rows,
        terms=terms,
        complement=((False, False), (False, False)),
        explain="Rotating q and k by their positions makes q·k depend on how far apart the two tokens are. " + COUNTING,
    )


def alibi_exponent(j: int, h: int, slopes: str = "paper") -> tuple[int, int]:
    """(a, b) with m_j = 2^(−a/b) for head j (1-based) of h, unreduced as the formula writes it.

    paper: m_j = 2^(−8j/h). official (the ALiBi code's ``get_slopes``, BLOOM's ``build_alibi_tensor``):
    the same for h a power of two; otherwise, with c the largest power of two below h, heads 1 … c take
    2^(−8j/c) and heads c + k take every other slope of 2c heads, 2^(−8(2k − 1)/(2c))."""
    if slopes == "paper" or h & (h - 1) == 0:
        return 8 * j, h
    c = 1 << (h.bit_length() - 1)
    if j <= c:
        return 8 * j, c
    return 8 * (2 * (j - c) - 1), 2 * c


def alibi_note(h: int, slopes: str) -> str:
    """A sentence on where the official slopes come from, when they differ from the paper's ("" if not)."""
    if slopes == "paper" or h & (h - 1) == 0:
        return ""
    c = 1 << (h.bit_length() - 1)
    return (
        f"The ALiBi code's slopes for {h} heads (as BLOOM's): heads 1–{c} take 2^(−8j/{c}), "
        f"heads {c + 1}–{h} every other slope of {2 * c} heads, 2^(−8(2k − 1)/{2 * c}) for head {c} + k. "
    )


def alibi_slope_text(j: int, h: int, slopes: str = "paper") -> str:
    a, b = alibi_exponent(j, h, slopes)
    return f"2^(−{a}/{b})"


def alibi_bias(
    chain: Chain, j: int, h: int, q_pos: list[int], k_pos: list[int], slopes: str = "paper"
) -> tuple[np.ndarray, np.ndarray]:
    """(values, written): the bias −m_j·|i − k| of head j (1-based) of h, m_j from :func:`alibi_exponent`."""
    written = np.empty((len(q_pos), len(k_pos)), dtype=object)
    slope = alibi_slope_text(j, h, slopes)
    a_exp, b_exp = alibi_exponent(j, h, slopes)
    for a, i in enumerate(q_pos):
        for b, k in enumerate(k_pos):
            written[a, b] = f"−{slope}·|{i} − {k}|" if i != k else "0"
    if chain.mode == "exact" and chain.degraded_at is None:
        import sympy as sp

        m = sp.Integer(2) ** sp.Rational(-a_exp, b_exp)
        out = np.empty(written.shape, dtype=object)
        for a, i in enumerate(q_pos):
            for b, k in enumerate(k_pos):
                out[a, b] = -m * abs(i - k)
        return out, written
    m_f = 2.0 ** (-a_exp / b_exp)
    return np.array([[-m_f * abs(i - k) for k in k_pos] for i in q_pos], dtype=float), written
