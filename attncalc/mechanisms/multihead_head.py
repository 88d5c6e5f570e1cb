"""Kind ``multi-head``: one head's attention once its Q, K and V blocks are cut (and rotated, with
RoPE): its scores, the scaling, ALiBi's bias, the mask, the row-wise softmax and the head's output."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..derivation import Add, Formula, Mask, Product, Step
from ..derivation.arith import Chain, MistakeNotApplicable, is_exact
from ..derivation.fmt import lower_first
from ..parse import Problem
from ..parse.types import MultiHead
from . import positions as pos
from . import sliding_window
from .common import SoftmaxNames, softmax_steps, sqrt_dk_step
from .self_attention import apply_mask


@dataclasses.dataclass
class HeadBlocks:
    """Head j's blocks and their symbols (Q̃_j, K̃_j once RoPE turned them)."""

    j: int
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    q_symbol: str
    k_symbol: str


def head_attention(
    p: Problem,
    chain: Chain,
    steps: list[Step],
    h: HeadBlocks,
    d_k: int,
    tok: tuple[str, ...],
    keys: tuple[str, ...],
    q_pos: list[int],
    k_pos: list[int],
) -> np.ndarray:
    """Head j's steps from its scores to its output O_j (returned)."""
    mh = p.payload(MultiHead)
    j = h.j
    S = _scores(p, chain, steps, h, d_k, tok, keys)
    sym = "S"
    if p.score == "scaled-dot":
        scale_d, d_name = (mh.X.shape[1], "d_model") if chain.mistake == "sqrt_d_model" else (d_k, "d_k")
        step, S = sqrt_dk_step(
            chain, S, scale_d, ("S'", "S", "S'"), tok, keys, step_id=f"head.{j}.scaled_scores", d_name=d_name
        )
        steps.append(_retitle(step, j))
        sym = "S'"
    if mh.positions == "alibi":
        S, sym = _alibi(p, chain, steps, j, S, sym, q_pos, k_pos, tok, keys)
    offset = 0 if mh.mask_text == "causal-top-left" else h.K.shape[0] - h.Q.shape[0]  # where the window is aligned
    allowed = sliding_window.allowed(chain, mh.allowed, mh.window, offset, mh.key_padding)
    late = chain.mistake == "mask_after_softmax"
    if allowed is not None and not late:
        S = _masked(p, chain, steps, j, S, sym, allowed, tok, keys)
    elif late and allowed is None:
        raise MistakeNotApplicable
    names = SoftmaxNames(
        exps_id=f"head.{j}.exponentials",
        sum_id=f"head.{j}.exp_sum",
        out_id=f"head.{j}.weights",
        arg=sym,
        out="A",
        out_title=f"Head {j}: attention weights (row-wise softmax)",
    )
    soft, A = softmax_steps(chain, S, names, p.settings.shift_max, tok, keys)
    if late and allowed is not None:  # (a late mask without one is not applicable: raised above)
        A = chain.finish(f"head.{j}.weights", np.where(allowed, A, 0.0 if not is_exact(A) else 0))
    for s in soft:
        steps.append(_retitle(s, j))
    steps.append(
        chain.step(
            Product,
            f"head.{j}.output",
            chain.matmul(A, h.V),
            title=f"Head {j}: output",
            formula=f"O_{j} = A_{j} V_{j}  (row i: Σ_k A_ik v_k)",
            latex=rf"O_{j} = A_{j} V_{j}",
            symbol=f"O_{j}",
            rows=tok,
            left=A,
            right=h.V,
            explain="Each row is the weighted average of the head's value rows, weighted by that row of A.",
        )
    )
    out_j: np.ndarray = steps[-1].value
    return out_j


def _scores(
    p: Problem, chain: Chain, steps: list[Step], h: HeadBlocks, d_k: int, tok: tuple[str, ...], keys: tuple[str, ...]
) -> np.ndarray:
    """Head j's scores, its queries times its keys."""
    rope = p.payload(MultiHead).positions == "rope"
    j, qs, ks = h.j, h.q_symbol, h.k_symbol
    steps.append(
        chain.step(
            Product,
            f"head.{j}.scores",
            chain.matmul(h.Q, h.K.T),
            title=f"Head {j}: scores",
            formula=f"S = {qs} {ks}ᵀ  (S_ik = q_i · k_k)",
            latex=rf"S = {_tex(qs)} {_tex(ks)}^\top",
            symbol="S",
            rows=tok,
            cols=keys,
            left=h.Q,
            right=h.K.T,
            explain=f"Entry (i, k) is the dot product of query i with key k, in head {j}'s {d_k} columns.",
            note="With RoPE, rotated q_i · rotated k_k = q_i · (k_k turned by the angle of position k − i): the "
            "positions enter only through their distance, so the same two tokens score the same wherever "
            "they stand."
            if rope
            else "",
        )
    )
    S: np.ndarray = steps[-1].value
    return S


def _alibi(
    p: Problem,
    chain: Chain,
    steps: list[Step],
    j: int,
    S: np.ndarray,
    sym: str,
    q_pos: list[int],
    k_pos: list[int],
    tok: tuple[str, ...],
    keys: tuple[str, ...],
) -> tuple[np.ndarray, str]:
    """ALiBi's bias for head j and the scores with it added; the new scores and their symbol."""
    mh = p.payload(MultiHead)
    B, written = pos.alibi_bias(chain, j, mh.heads, q_pos, k_pos, mh.alibi)
    a_exp, b_exp = pos.alibi_exponent(j, mh.heads, mh.alibi)
    steps.append(
        chain.step(
            Formula,
            f"head.{j}.bias",
            B,
            title=f"Head {j}: ALiBi bias",
            formula=f"b_ik = −m_{j}·|i − k|, m_{j} = {pos.alibi_slope_text(j, mh.heads, mh.alibi)} (positions from 0)",
            latex=rf"b_{{ik}} = -m_{j} |i - k|,\ m_{j} = 2^{{-{a_exp}/{b_exp}}}",
            symbol="b",
            rows=tok,
            cols=keys,
            written=tuple(tuple(str(x) for x in row) for row in written),
            explain="ALiBi penalises a key by its distance from the query; each head has its own slope. "
            + pos.alibi_note(mh.heads, mh.alibi)
            + "Positions i, k count from 0; entries [r,c] count rows and columns from 1.",
        )
    )
    B = steps[-1].value
    S0, B0 = chain.coerce(S, B)
    new_sym = "S''" if sym == "S'" else "S'"
    steps.append(
        chain.step(
            Add,
            f"head.{j}.biased_scores",
            S0 + B0,
            title=f"Head {j}: scores with the bias",
            formula=f"{new_sym}_ik = {sym}_ik + b_ik",
            latex=rf"{new_sym}_{{ik}} = {sym}_{{ik}} + b_{{ik}}",
            symbol=new_sym,
            rows=tok,
            cols=keys,
            parts=(S0, B0),
            part_names=(sym, "b"),
            explain="The bias is added after the scaling, before the mask and the softmax.",
        )
    )
    return steps[-1].value, new_sym


def _masked(
    p: Problem,
    chain: Chain,
    steps: list[Step],
    j: int,
    S: np.ndarray,
    sym: str,
    allowed: np.ndarray,
    tok: tuple[str, ...],
    keys: tuple[str, ...],
) -> np.ndarray:
    """Head j's scores with −∞ where a query may not attend a key."""
    steps.append(
        chain.step(
            Mask,
            f"head.{j}.masked_scores",
            apply_mask(S, allowed),
            title=f"Head {j}: masked scores",
            formula=f"−∞ where query i may not attend key k ({_mask_words(p)})",
            latex=r"S_{ik} = -\infty \text{ where } M_{ik} = 0",
            symbol=sym,
            rows=tok,
            cols=keys,
            arg=S,
            allowed=allowed,
            explain="A masked score becomes −∞: its exponential is 0, so the key gets no weight.",
        )
    )
    masked: np.ndarray = steps[-1].value
    return masked


def _retitle(s: Step, j: int) -> Step:
    if s.title.startswith("Head "):
        return s
    return dataclasses.replace(s, title=f"Head {j}: {lower_first(s.title)}")


def _mask_words(p: Problem) -> str:
    mh = p.payload(MultiHead)
    bits = []
    if mh.mask_text == "causal":
        bits.append("causal: query i sees keys up to its own position")
    elif mh.mask_text == "causal-top-left":
        bits.append("causal, top-left: query i sees keys 1..i")
    elif mh.mask is not None:
        bits.append("the given mask, 1 = may attend")
    if mh.window is not None:
        bits.append(sliding_window.words(mh.window))
    if mh.key_padding is not None:
        bits.append("key padding: 0 = a padding position")
    return "; ".join(bits)


def _tex(symbol: str) -> str:
    return symbol.replace("Q̃", r"\tilde Q").replace("K̃", r"\tilde K")
