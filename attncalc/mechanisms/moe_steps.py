"""Kind ``moe``, after the gates: the capacity and the kept assignments (served in token order), the
chosen experts' outputs and their gated sum, and the load-balancing loss (Hugging Face's
load_balancing_loss_func: E · Σ_i f_i · P_i, times aux_coef)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Formula, Step, hand_formula
from ..derivation.arith import Chain, MistakeNotApplicable, to_float
from ..derivation.fmt import fmt
from ..numbers import to_float as node_float
from ..parse.moe import Moe
from .common import whole_numbers
from .written import Written

WITHOUT_E = "moe_loss_without_e"
FRACTION_FROM_PROBABILITIES = "moe_fraction_from_probabilities"


def _num(x: Any, dec: int) -> str:
    text = fmt(float(to_float(np.asarray(x))), dec)
    return f"({text})" if text.startswith("-") else text


def _whole(answer: np.ndarray, computed: Any, ok: Any) -> Any:
    """An answer of whole numbers that ``ok`` accepts (what later steps follow through from), else the
    computed value."""
    a = np.asarray(to_float(answer), dtype=float)
    if np.shape(a) == np.shape(computed) and np.all(np.isfinite(a)) and np.all(a == np.round(a)) and ok(a):
        return a.astype(int)
    return computed


def _serve(top: list[list[int]], cap: int, E: int) -> tuple[list[list[int]], list[list[int]]]:
    """Kept flags (1 kept, 0 dropped) in token order, and each assignment's number among its expert's."""
    served = [0] * E
    seen = [0] * E
    flags, nth = [], []
    for row in top:
        f, m = [], []
        for e in row:
            seen[e] += 1
            m.append(seen[e])
            keep = served[e] < cap
            served[e] += keep
            f.append(int(keep))
        flags.append(f)
        nth.append(m)
    return flags, nth


def capacity_steps(chain: Chain, d: Moe, top: list[list[int]], rows: Any, steps: list[Step]) -> np.ndarray:
    """With a capacity factor, the steps ``capacity`` and ``kept``; the kept flags (n × top_k, all 1
    without a capacity factor)."""
    n, k, E = d.n, d.top_k, d.E
    cap = d.capacity
    if cap is None:
        return np.ones((n, k), dtype=int)
    cf = node_float(d.capacity_factor)
    steps.append(
        chain.step(
            Formula, "capacity", whole_numbers(chain, [cap]), shape=(), title="The experts' capacity",
            formula="C = ⌈capacity_factor · n · top_k / E⌉", latex="", symbol="C",
            defines=(f"n = {n}, the tokens", f"E = {E}, the experts"),
            written=f"⌈{cf:g} · {n} · {k} / {E}⌉",
            explain="The most assignments one expert takes; the ones past it are dropped (Switch's expert capacity).",
        )
    )  # fmt: skip
    used = int(_whole(steps[-1].value, np.asarray(cap), lambda a: a >= 1))
    flags, nth = _serve(top, used, E)
    written = tuple(
        tuple(f"expert {top[i][r] + 1}'s assignment {nth[i][r]} {'≤' if flags[i][r] else '>'} {used}" for r in range(k))
        for i in range(n)
    )
    steps.append(
        chain.step(
            Formula, "kept", whole_numbers(chain, [f for row in flags for f in row]).reshape(n, k),
            title="The assignments kept", formula="kept_ir = 1 while expert k_ir has taken fewer than C, else 0",
            latex="", symbol="kept", rows=rows, written=written,
            defines=("assignments served in token order: token 1's choices first, then token 2's, ...",),
            explain="Assignments are served in token order (token 1's choices, then token 2's, ...); an expert "
            "full to its capacity drops the rest.",
        )
    )  # fmt: skip
    return np.asarray(_whole(steps[-1].value, np.asarray(flags), lambda a: bool(np.all((a == 0) | (a == 1)))))


def expert_output_steps(
    chain: Chain, d: Moe, X: np.ndarray, G: np.ndarray, top: list[list[int]], kept: np.ndarray, rows: Any,
    steps: list[Step],
) -> None:  # fmt: skip
    """The steps ``expert_outputs`` (x_i · W_e for each chosen expert) and ``output`` (their gated sum,
    dropped assignments left out)."""
    n, k = d.n, d.top_k
    We = chain.given(d.experts)
    X, We = chain.coerce(X, We)
    Y = np.asarray([[chain.matmul(X[i : i + 1], We[e])[0] for e in top[i]] for i in range(n)], dtype=X.dtype)

    def text(idx: tuple[int, ...], dec: int) -> str:
        i, r, j = idx
        W = We[top[i][r]]
        return " + ".join(f"{_num(X[i, m], dec)}·{_num(W[m, j], dec)}" for m in range(X.shape[1]))

    steps.append(
        chain.step(
            hand_formula, "expert_outputs", Y, title="The chosen experts' outputs", formula="y_ir = x_i · W_(k_ir)",
            latex="", symbol="y", rows=rows, written=Written(text, 3, chain.decimals),
            mid=tuple(f"choice {r + 1}" for r in range(k)),
            cells=tuple(tuple(f"expert {e + 1}" for e in top[i]) for i in range(n)),
            explain="Each chosen expert applied to the token's row: its row times the expert's weights.",
        )
    )  # fmt: skip
    Y = steps[-1].value
    G, Y = chain.coerce(G, Y)
    zero = 0 * Y[0, 0, 0]
    out = np.asarray(
        [
            [sum((G[i, r] * Y[i, r, j] for r in range(k) if kept[i][r]), zero) for j in range(Y.shape[2])]
            for i in range(n)
        ],
        dtype=Y.dtype,
    )

    def sum_text(idx: tuple[int, ...], dec: int) -> str:
        i, j = idx
        terms = [f"{_num(G[i, r], dec)}·{_num(Y[i, r, j], dec)}" for r in range(k) if kept[i][r]]
        return " + ".join(terms) if terms else "0 (every assignment dropped)"

    steps.append(
        chain.step(
            hand_formula, "output", out, title="The layer's output",
            formula="o_i = Σ_r g_ir · y_ir (kept assignments)", latex="", symbol="o", rows=rows,
            written=Written(sum_text, 2, chain.decimals),
            explain="The chosen experts' outputs weighted by their gates; a dropped assignment adds nothing.",
        )
    )  # fmt: skip


def load_balancing_steps(
    chain: Chain, d: Moe, P: np.ndarray, top: list[list[int]], steps: list[Step], aux: Any
) -> None:
    """The steps ``fraction``, ``mean_probability`` and ``load_balancing_loss``."""
    n, E = d.n, d.E
    labels = tuple(f"expert {e}" for e in range(1, E + 1))
    counts = [sum(row.count(e) for row in top) for e in range(E)]
    mean = np.asarray([sum(P[:, e].tolist()) / n for e in range(E)], dtype=P.dtype)
    if chain.mistake == FRACTION_FROM_PROBABILITIES:
        if np.allclose(to_float(mean), np.asarray(counts, dtype=float) / n):
            raise MistakeNotApplicable
        f = mean
    else:
        f = whole_numbers(chain, counts) / n
        f = np.asarray(f, dtype=f.dtype)
    steps.append(
        chain.step(
            Formula, "fraction", f, title="The fraction routed to each expert", formula="f_e = (top-k choices of expert e, kept or dropped by capacity) / n",
            latex="", symbol="f", cols=labels, written=tuple(f"{c}/{n}" for c in counts),
            defines=(f"n = {n}, the tokens",),
            explain="How many of the n · top_k choices pick each expert, over the number of tokens (as Hugging "
            "Face's load-balancing loss function counts them: the fractions add up to top_k).",
        )
    )  # fmt: skip
    f = steps[-1].value
    dec = chain.decimals

    def mean_text(e: int) -> str:
        return f"({' + '.join(_num(x, dec) for x in P[:, e])}) / {n}"

    steps.append(
        chain.step(
            hand_formula, "mean_probability", mean, title="The mean probability of each expert",
            formula="P_e = (1/n) Σ_i p_ie", latex="", symbol="P", cols=labels,
            defines=(f"n = {n}, the tokens",),
            written=tuple(mean_text(e) for e in range(E)),
            explain="Each expert's probability averaged over the tokens (the router's share, before top-k).",
        )
    )  # fmt: skip
    Pm = steps[-1].value
    f, Pm = chain.coerce(f, Pm)
    total = sum((f[e] * Pm[e] for e in range(E)), 0 * f[0])
    factor = 1 if chain.mistake == WITHOUT_E else E
    loss = aux * factor * total
    a = node_float(d.aux_coef)
    terms = " + ".join(f"{_num(f[e], dec)}·{_num(Pm[e], dec)}" for e in range(E))
    steps.append(
        chain.step(
            hand_formula, "load_balancing_loss", np.asarray(loss, dtype=f.dtype),
            title="The load-balancing loss", formula=f"L_aux = aux_coef · E · Σ_e f_e · P_e, E = {E}", latex="",
            symbol="L_aux", written=f"{a:g} · {factor} · ({terms})", significant=3,
            explain="Switch's auxiliary loss: aux_coef · top_k when the choices and the probabilities are spread "
            "evenly over the experts; it grows as they gather on the same experts (it is not bounded below by "
            "that value: choices gathered where the mean probabilities are small give less).",
        )
    )  # fmt: skip
