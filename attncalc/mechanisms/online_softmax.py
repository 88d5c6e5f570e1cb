"""Kind ``online-softmax``: the softmax of each row of scores taken block by block, as FlashAttention
does (Milakov & Gimelshein 2018, "Online normalizer calculation for softmax"; Dao et al. 2022).

Per block b of keys: the block's row maxima M_b, the running maximum m_b = max(m_(b−1), M_b) (m_0 = −∞),
the rescale r_b = exp(m_(b−1) − m_b) (0 at b = 1: there is nothing before), the exponentials
P_b = exp(S_b − m_b), the running sum l_b = l_(b−1) r_b + Σ_j P_b and, with values, the running output
O_b = O_(b−1) r_b + P_b V_b. Then L = m + ln l and softmax(S) = exp(S − L), and O = O_last / l: the same
numbers as the one-shot softmax, which the last step's note shows (0 difference in exact forms).

Everything is computed on rows (n × m scores); scores given as one vector make every running value a
single number (the rows' axis is dropped where a step's value is recorded).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Arrange, Combine, Formula, Input, Map, Product, Step, interval
from ..derivation.arith import Chain, holds_objects, is_exact, to_float
from ..derivation.fmt import fmt
from ..derivation.interval import is_interval
from ..parse import Given, Problem
from ..parse.online_softmax import OnlineSoftmax, QueryKeys
from .online_softmax_check import closing_note
from .written import Written


def inputs(p: Problem) -> list[Input]:
    d = p.payload(OnlineSoftmax)
    out: list[Input] = []
    if isinstance(d.scores, Given):
        value = d.scores.floats[0] if d.one_row else d.scores.floats
        out.append(Input("scores", "S", value, None, role="the scores, as the softmax sees them"))
    else:
        out.append(Input("Q", "Q", d.scores.Q.floats, None, role="queries, one per row"))
        out.append(Input("K", "K", d.scores.K.floats, None, role="keys, one per row"))
    if d.V is not None:
        out.append(Input("V", "V", d.V.floats, None, role="values, one per key"))
    return out


def header(p: Problem) -> list[str]:
    d = p.payload(OnlineSoftmax)
    blocks = d.blocks
    split = f"{len(blocks)} blocks of {d.block} key{'s' if d.block > 1 else ''}"
    last = blocks[-1][1] - blocks[-1][0]
    if last < d.block:  # 5 keys in blocks of 2: the last block holds 1
        split += f", the last of {last}"
    bits = [p.kind, split if len(blocks) > 1 else "one block"]
    if d.score is not None:
        bits.append(f"{d.score} score")
    if d.V is not None:
        bits.append("with values V")
    return bits


def _num(x: Any, dec: int) -> str:
    return fmt(float(x), dec)


def _sub(x: Any, dec: int) -> str:
    """A number subtracted: a negative one in parentheses, 3 − (−1)."""
    text = _num(x, dec)
    return f"({text})" if text.startswith("-") else text


def _rowmax(x: np.ndarray) -> np.ndarray:
    """The largest entry of each row, taken from ``x`` itself (an exact entry stays exact)."""
    j = np.argmax(to_float(x), axis=1)
    return np.asarray(x[np.arange(x.shape[0]), j], dtype=x.dtype)


def _expand(x: np.ndarray) -> np.ndarray:
    """Exact entries multiplied out: (e⁻² + 1)·e⁻² is written e⁻⁴ + e⁻² (a sum of exponentials)."""
    if not is_exact(x):
        return x
    import sympy as sp

    out = np.empty(x.shape, dtype=object)
    for idx, e in np.ndenumerate(x):
        out[idx] = sp.expand(e)
    return out


def _zeros(like: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Zeros, exact (sympy's 0) when ``like`` is exact, intervals when it holds intervals (check)."""
    if is_interval(like):
        return interval.point(np.zeros(shape))
    if not is_exact(like):
        return np.zeros(shape)
    import sympy as sp

    out = np.empty(shape, dtype=object)
    out.fill(sp.Integer(0))
    return out


def _larger(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Entry by entry the larger of a and b (a's on a tie), as given (exact stays exact)."""
    if is_exact(a) != is_exact(b):
        a, b = to_float(a), to_float(b)
    keep = to_float(a) >= to_float(b)
    dtype = object if holds_objects(a) or holds_objects(b) else a.dtype
    return np.asarray([x if k else y for x, y, k in zip(a, b, keep, strict=True)], dtype=dtype)


class _Rows:
    """Records each step's value with the rows' axis dropped when the scores are one vector."""

    def __init__(self, chain: Chain, one_row: bool) -> None:
        self.chain, self.one = chain, one_row

    def sq(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x[0], dtype=x.dtype) if self.one else x

    def finish(self, step_id: str, x: np.ndarray) -> np.ndarray:
        out = self.chain.finish(step_id, self.sq(x))
        return out.reshape((1, *out.shape)) if self.one else out

    def step(self, steps: list[Step], cls: Any, step_id: str, x: np.ndarray, **fields: Any) -> np.ndarray:
        """``x`` finished under ``step_id`` and its step appended, showing it with the rows' axis dropped
        for one row (the id written once); the value with its rows, as the later steps use it."""
        out = self.finish(step_id, x)
        steps.append(cls(id=step_id, value=self.sq(out), **fields))
        return out


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(OnlineSoftmax)
    rows = _Rows(chain, d.one_row)
    sq, dec = rows.sq, chain.decimals
    steps: list[Step] = []
    S = chain.given(d.scores) if isinstance(d.scores, Given) else _scores(d.scores, chain, steps)
    n = S.shape[0]
    V = None if d.V is None else chain.given(d.V)
    zero = _zeros(S, (n,))
    m_prev: np.ndarray | None = None  # m_0 = −∞
    l_prev = zero
    O_prev = None if V is None else _zeros(S, (n, V.shape[1]))
    for b, (start, stop) in enumerate(d.blocks, 1):
        cols = f"column {start + 1}" if stop - start == 1 else f"columns {start + 1}–{stop}"
        Sb = rows.step(
            steps, Arrange, f"{b}.scores", S[:, start:stop],
            title=f"Block {b}: its scores", formula=f"S_{b} = {cols} of S", latex="",
            symbol=f"S_{b}", source=f"{cols} of S",
            intro=f"Block {b} of {len(d.blocks)}: keys {start + 1} to {stop}." if stop - start > 1
            else f"Block {b} of {len(d.blocks)}: key {start + 1}.",
            explain="The keys are taken a block at a time, as a GPU tile holds them.",
        )  # fmt: skip

        def max_text(idx: tuple[int, ...], k: int, blk: np.ndarray = Sb) -> str:
            return f"max({', '.join(_num(x, k) for x in blk[idx[0] if idx else 0])})"

        M = rows.step(
            steps, Formula, f"{b}.block_max", _rowmax(Sb),
            title=f"Block {b}: its maximum", formula=f"M_{b} = max_j S_{b},j (per row)",
            latex="", symbol=f"M_{b}", written=_lazy(max_text, d.one_row, n, dec),
            explain="The largest score of the block, row by row.",
        )  # fmt: skip
        prev_m = m_prev

        def run_max_text(idx: tuple[int, ...], k: int, old: Any = prev_m, new: np.ndarray = M) -> str:
            i = idx[0] if idx else 0
            return f"max({'−∞' if old is None else _num(old[i], k)}, {_num(new[i], k)})"

        m = rows.step(
            steps, Formula, f"{b}.max", M if m_prev is None else _larger(m_prev, M),
            title=f"Block {b}: the running maximum", formula=f"m_{b} = max(m_{b - 1}, M_{b})"
            + (", m_0 = −∞" if b == 1 else ""), latex="", symbol=f"m_{b}",
            written=_lazy(run_max_text, d.one_row, n, dec),
            explain="The largest score seen so far: the exponentials are taken relative to it, so none exceeds 1.",
        )  # fmt: skip

        def rescale_text(idx: tuple[int, ...], k: int, old: Any = prev_m, new: np.ndarray = m) -> str:
            i = idx[0] if idx else 0
            return f"exp(−∞ − {_sub(new[i], k)})" if old is None else f"exp({_num(old[i], k)} − {_sub(new[i], k)})"

        r = rows.step(
            steps, Formula, f"{b}.rescale", _rescale(chain, m_prev, m, zero),
            title=f"Block {b}: the rescale factor", formula=f"r_{b} = exp(m_{b - 1} − m_{b})",
            latex="", symbol=f"r_{b}", written=_lazy(rescale_text, d.one_row, n, dec),
            explain="The old sum and output were taken relative to the old maximum: this factor puts them "
            "relative to the new one (1 when the maximum did not change; 0 at the first block).",
        )  # fmt: skip
        P = rows.step(
            steps, Map, f"{b}.exponentials", chain.exp(Sb - m[:, None]),
            title=f"Block {b}: exponentials", formula=f"P_{b} = exp(S_{b} − m_{b})",
            latex="", symbol=f"P_{b}", fn="shift_exp", arg=sq(Sb), param=sq(m),
            explain="Each score of the block, exponentiated after subtracting the running maximum.",
        )  # fmt: skip
        lp, rc = chain.coerce(l_prev, r)
        lp, Pc = chain.coerce(lp, P)
        keep = lp if chain.mistake == "online_sum_not_rescaled" else lp * rc
        total = np.asarray([keep[i] + sum(Pc[i].tolist()) for i in range(n)], dtype=Pc.dtype)
        total = rows.step(
            steps, Combine, f"{b}.sum", _expand(total),
            title=f"Block {b}: the running sum", formula=f"l_{b} = l_{b - 1} · r_{b} + Σ_j P_{b},j",
            latex="", symbol=f"l_{b}",
            terms=((sq(l_prev), sq(r)), *((sq(P[:, j]),) for j in range(P.shape[1]))),
            complement=((False, False), *((False,) for _ in range(P.shape[1]))),
            explain="The old sum, rescaled to the new maximum, plus the block's exponentials.",
        )  # fmt: skip
        if V is not None and O_prev is not None:
            O_prev = _running_output(chain, rows, b, O_prev, r, P, V[start:stop], steps)
        m_prev, l_prev = m, total
    assert m_prev is not None  # there is at least one block
    B = len(d.blocks)
    m, l_last = (
        rows.step(
            steps, Arrange, sid, value, title=title, formula=f"{sym} = {sym}_{B}", latex="", symbol=sym,
            source=f"the running {what} after the last block (block {B})",
            intro="After the last block:" if sid == "max" else "",
        )
        for sid, sym, value, what, title in (
            ("max", "m", m_prev, "maximum", "The maximum of every score"),
            ("sum", "l", l_prev, "sum", "The sum of every exponential"),
        )
    )  # fmt: skip
    log_l = chain.log(l_last)
    L = log_l if chain.mistake == "logsumexp_no_max" else m + log_l

    def lse_text(idx: tuple[int, ...], k: int) -> str:
        i = idx[0] if idx else 0
        return f"{_num(m[i], k)} + ln({_num(l_last[i], k)})"

    L = rows.step(
        steps, Formula, "logsumexp", np.asarray(L, dtype=log_l.dtype),
        title="The logsumexp", formula="L = m + ln l", latex="", symbol="L",
        written=_lazy(lse_text, d.one_row, n, dec),
        explain="ln Σ_j exp(S_j) = m + ln Σ_j exp(S_j − m): all FlashAttention keeps for the backward pass.",
    )  # fmt: skip
    if is_exact(L) and is_exact(S) and is_exact(l_last):  # the same number written exp(S_j − m) / l (L − ln l is m)
        A = np.asarray(chain.exp(S - (L - log_l)[:, None]) / l_last[:, None], dtype=object)
    else:
        A = chain.exp(S - L[:, None])
    A = rows.step(
        steps, Map, "weights", A, title="The weights", formula="a_j = exp(S_j − L) = softmax(S)_j", latex="",
        symbol="a", fn="shift_exp", arg=sq(S), param=sq(L),
        explain="exp(S_j − L) = exp(S_j) / Σ_k exp(S_k): the softmax, from L alone.",
    )  # fmt: skip
    out = None
    if V is not None and O_prev is not None:
        O_prev, l_c = chain.coerce(O_prev, l_last)
        out = O_prev if chain.mistake == "online_output_not_divided" else O_prev / l_c[:, None]
        O_last, l_div = O_prev, l_c

        def out_text(idx: tuple[int, ...], k: int) -> str:
            i, j = (0, idx[0]) if d.one_row else idx
            return f"{_num(O_last[i, j], k)} / {_num(l_div[i], k)}"

        out = rows.step(
            steps, Formula, "output", np.asarray(out, dtype=O_prev.dtype),
            title="The output", formula="O = O_last / l", latex="", symbol="O",
            written=Written(out_text, 1 if d.one_row else 2, dec),
            explain="The running output divided by the running sum: softmax(S) V.",
        )  # fmt: skip
    if not chain.overrides and chain.mistake is None:
        steps[-1] = _with_note(steps[-1], closing_note(chain, S, A, V, out))
    return steps


def _lazy(fn: Any, one_row: bool, n: int, dec: int) -> Any:
    """A per-row Formula's written entries: one string for a single row, else made per row on demand."""
    if one_row:
        return fn((), dec)
    return Written(fn, 1, dec)


def _with_note(step: Step, note: str) -> Step:
    import dataclasses

    return dataclasses.replace(step, note=note)


def _rescale(chain: Chain, m_prev: np.ndarray | None, m: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """exp(m_(b−1) − m_b); 0 at the first block (m_0 = −∞), and the slip's exp(m_b − m_(b−1)) after it."""
    if m_prev is None:
        return zero.copy()
    diff = m - m_prev if chain.mistake == "online_rescale_flipped" else m_prev - m
    return chain.exp(np.asarray(diff, dtype=m.dtype))


def _running_output(
    chain: Chain,
    rows: _Rows,
    b: int,
    O_prev: np.ndarray,
    r: np.ndarray,
    P: np.ndarray,
    Vb: np.ndarray,
    steps: list[Step],
) -> np.ndarray:
    """O_b = O_(b−1) r_b + P_b V_b (the old output not rescaled under the slip)."""
    sq = rows.sq
    Pc, Vc = chain.coerce(P, Vb)
    fresh = chain.matmul(Pc, Vc)
    O_prev, fresh = chain.coerce(O_prev, fresh)
    rc, _ = chain.coerce(r, fresh)
    keep = O_prev if chain.mistake == "online_output_not_rescaled" else O_prev * rc[:, None]
    running = _expand(np.asarray(keep + fresh, dtype=fresh.dtype))
    shape = running.shape  # the finished value's (an answer takes the step's shape)

    def full(x: np.ndarray) -> np.ndarray:
        return sq(np.asarray(np.broadcast_to(x, shape), dtype=x.dtype))

    terms = (
        (sq(O_prev), full(rc[:, None])),
        *((full(Pc[:, j : j + 1]), full(Vc[j][None, :])) for j in range(Pc.shape[1])),
    )
    return rows.step(
        steps, Combine, f"{b}.output", running, title=f"Block {b}: the running output", latex="",
        formula=f"O_{b} = O_{b - 1} · r_{b} + Σ_j P_{b},j v_j (v_j: the block's rows of V)", symbol=f"O_{b}",
        terms=terms, complement=tuple((False, False) for _ in terms),
        explain="The old output, rescaled to the new maximum, plus the block's exponentials times its values.",
    )  # fmt: skip


def _scores(d: QueryKeys, chain: Chain, steps: list[Step]) -> np.ndarray:
    """S = Q Kᵀ / √d_k (scaled-dot) or Q Kᵀ (dot), before the blocks."""
    Q, K = chain.coerce(chain.given(d.Q), chain.given(d.K))
    d_k = Q.shape[1]
    dots = chain.matmul(Q, K.T)
    if d.score == "dot":
        steps.append(
            chain.step(
                Product,
                "scores",
                dots,
                title="Scores",
                formula="S = Q Kᵀ  (S_ij = q_i · k_j)",
                latex=r"S = Q K^\top",
                symbol="S",
                left=Q,
                right=K.T,
                explain="Entry (i, j): query i's dot product with key j.",
            )
        )
        scores: np.ndarray = steps[-1].value
        return scores
    root = chain.sqrt_dk(d_k)
    q, k = to_float(Q), to_float(K)

    def text(idx: tuple[int, ...], dec: int) -> str:
        i, j = idx
        terms = " + ".join(f"{_paren(q[i, t], dec)}·{_paren(k[j, t], dec)}" for t in range(d_k))
        return f"({terms}) / √{d_k}"

    steps.append(
        chain.step(
            Formula, "scores", np.asarray(dots / root, dtype=dots.dtype), title="Scaled scores",
            formula=f"S = Q Kᵀ / √d_k, d_k = {d_k}", latex="", symbol="S",
            written=Written(text, 2, chain.decimals),
            explain="Entry (i, j): query i's dot product with key j, divided by √d_k.",
        )
    )  # fmt: skip
    S: np.ndarray = steps[-1].value
    return S


def _paren(x: Any, dec: int) -> str:
    text = _num(x, dec)
    return f"({text})" if text.startswith("-") else text
