"""Kind ``moe``: a mixture-of-experts router (Switch Transformer, Fedus et al. 2021; Mixtral, Jiang et
al. 2024), worked token by token.

The logits are X · W_router; each token's probabilities are the softmax of its row. Each token goes to
its ``top_k`` most probable experts (ties to the lower number); its gates are their probabilities over
their sum (``renormalize``, Mixtral) or the probabilities themselves (Switch). With a capacity factor an
expert takes at most ceil(capacity_factor · n · top_k / E) assignments, served in token order; a dropped
assignment's output is shown but not summed. The output is Σ gate · x · W_e. The load-balancing loss is
Hugging Face's load_balancing_loss_func times ``aux_coef``: E · Σ_i f_i · P_i, f_i the number of the
n · top_k choices that pick expert i over n, P_i the mean probability of expert i. The capacity, the
kept flags and the remaining steps are in :mod:`attncalc.mechanisms.moe_steps`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Formula, Input, Product, Step, hand_formula
from ..derivation.arith import Chain, MistakeNotApplicable, is_exact, to_float
from ..derivation.fmt import fmt
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.moe import Moe
from .common import finite_max, finite_min, whole_numbers
from .moe_steps import capacity_steps, expert_output_steps, load_balancing_steps
from .written import Written

OVER_TOKENS = "moe_softmax_over_tokens"
NOT_RENORMALISED = "moe_gates_not_renormalised"
RENORMALISED = "moe_gates_renormalised"


def experts(d: Moe) -> tuple[str, ...]:
    return tuple(f"expert {e}" for e in range(1, d.E + 1))


def inputs(p: Problem) -> list[Input]:
    d = p.payload(Moe)
    out = [
        Input("X", "X", d.X.floats, None, rows=p.tokens, role="the token rows"),
        Input(
            "W_router", "W_router", d.W_router.floats, None, cols=experts(d), role="the router: logits = X · W_router"
        ),
    ]
    for e in range(d.E):  # one table per expert, each under the file's key
        out.append(Input("experts", f"W_{e + 1}", d.experts.floats[e], None, role=f"expert {e + 1}: y = x · W_{e + 1}"))
    out.append(Input("top_k", "top_k", np.asarray(float(d.top_k)), None, role="how many experts each token is sent to"))
    out.append(
        Input(
            "renormalize", "renormalize", np.asarray(float(d.renormalize)), None, flag=True,
            role="true: gates over their sum (Mixtral); false: p itself (Switch)",
        )
    )  # fmt: skip
    if d.capacity_factor is not None:
        out.append(
            Input(
                "capacity_factor", "capacity_factor", np.asarray(node_float(d.capacity_factor)), None,
                role="capacity ⌈capacity_factor · n · top_k / E⌉",
            )
        )  # fmt: skip
    out.append(Input("aux_coef", "aux_coef", np.asarray(node_float(d.aux_coef)), None, role="the loss's coefficient"))
    return out


def header(p: Problem) -> list[str]:
    d = p.payload(Moe)
    bits = [p.kind, f"{d.n} token{'s' if d.n != 1 else ''}", f"{d.E} experts", f"top-{d.top_k}"]
    bits.append("gates renormalised" if d.renormalize else "gates = p")
    if d.capacity_factor is not None:
        bits.append(f"capacity factor {node_float(d.capacity_factor):g}")
    return bits


def plain(x: Any, dec: int) -> str:
    return fmt(float(to_float(np.asarray(x))), dec)


def num(x: Any, dec: int) -> str:
    """A factor or a term: a negative number in parentheses."""
    text = plain(x, dec)
    return f"({text})" if text.startswith("-") else text


def _softmax(chain: Chain, Z: np.ndarray) -> np.ndarray:
    """The softmax of each row of Z (relative to the row's smallest entry when exact, so that the forms
    read e/(1 + e + e²); to its largest otherwise)."""
    if is_exact(Z):
        e = chain.exp(chain.together(Z - finite_min(Z)[:, None]))
    else:
        e = chain.exp(np.asarray(Z - finite_max(Z, axis=-1)[:, None], dtype=Z.dtype))
    den = np.asarray([sum(row.tolist()) for row in e], dtype=e.dtype)
    return np.asarray(e / den[:, None], dtype=e.dtype)


def _probabilities(chain: Chain, d: Moe, Z: np.ndarray, rows: Any) -> Formula:
    """The softmax of each row of the logits (down each column, over the tokens, under the slip)."""
    if chain.mistake == OVER_TOKENS:
        P = _softmax(chain, Z.T).T
        if np.allclose(to_float(P), to_float(_softmax(chain, Z))):
            raise MistakeNotApplicable
    else:
        P = _softmax(chain, Z)

    def text(idx: tuple[int, ...], k: int) -> str:
        i, j = idx
        terms = " + ".join(f"exp({plain(z, k)})" for z in Z[i])
        return f"exp({plain(Z[i, j], k)}) / ({terms})"

    return chain.step(
        hand_formula, "probabilities", P, title="The router's probabilities", formula="p_ie = exp(z_ie) / Σ_j exp(z_ij)",
        latex="", symbol="p", rows=rows, cols=experts(d), written=Written(text, 2, chain.decimals),
        explain="The softmax of each token's row of logits: its probability of each expert.",
    )  # fmt: skip


def _order(chain: Chain, P: np.ndarray) -> list[list[int]]:
    """Each row's experts (0-based), largest probability first, ties to the lower number."""
    pf = np.round(to_float(P), 12)
    return [[int(j) for j in np.argsort(-row, kind="stable")] for row in pf]


def _chosen(answer: np.ndarray, computed: list[list[int]], E: int) -> list[list[int]]:
    """The experts (0-based) the top-k step gives on: an answer's when every row names distinct experts
    1..E (what later steps follow through from), else the computed ones."""
    a = np.asarray(to_float(answer), dtype=float)
    if a.shape == (len(computed), len(computed[0])) and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
        rows = [[int(x) - 1 for x in row] for row in a]
        if all(len(set(r)) == len(r) and all(0 <= x < E for x in r) for r in rows):
            return rows
    return computed


def _tie_note(d: Moe, P: np.ndarray, order: list[list[int]], rows: Any) -> str:
    """When two probabilities of a token tie at the top-k boundary (the k-th and the (k + 1)-th largest
    are equal), which experts tied and which was taken: the lower number, as documented; torch.topk
    does not promise that (its choice among equal values is unspecified). "" when no tie decided."""
    if d.top_k >= d.E:
        return ""
    pf = np.round(to_float(P), 12)
    parts = []
    for i, o in enumerate(order):
        at = pf[i, o[d.top_k - 1]]
        if pf[i, o[d.top_k]] != at:
            continue
        tied = sorted(e + 1 for e in o if pf[i, e] == at)
        taken = sorted(e + 1 for e in o[: d.top_k] if pf[i, e] == at)
        name = f"token {i + 1}" + (f" ({rows[i]})" if rows is not None and rows[i] != str(i + 1) else "")
        parts.append(
            f"{name}: experts {', '.join(map(str, tied))} tie at p = {fmt(float(at), 6)}, "
            f"expert{'s' if len(taken) > 1 else ''} {', '.join(map(str, taken))} taken"
        )
    if not parts:
        return ""
    return (
        "A tie decided the choice: " + "; ".join(parts) + ". A tie goes to the lower expert number "
        "(attncalc's rule); torch.topk may take another of the tied experts, and either is a top-k choice."
    )


def _top_k_step(chain: Chain, d: Moe, P: np.ndarray, rows: Any) -> tuple[Step, list[list[int]]]:
    order = _order(chain, P)
    top = [r[: d.top_k] for r in order]
    flat = [e + 1 for r in top for e in r]
    value = whole_numbers(chain, flat).reshape(d.n, d.top_k)
    ranks = ("largest", "2nd largest", "3rd largest")

    def said(r: int) -> str:
        return ranks[r] if r < 3 else f"{r + 1}th largest"

    written = tuple(tuple(f"the {said(r)} of p_{i + 1}" for r in range(d.top_k)) for i in range(d.n))
    step = chain.step(
        Formula, "top_k", value, title=f"The top {d.top_k} expert{'s' if d.top_k > 1 else ''} of each token",
        formula="k_ir = the expert with the r-th largest p_ie (1-based)", latex="", symbol="k", rows=rows,
        written=written, note=_tie_note(d, P, order, rows),
        layout=(f"one row per token: its {d.top_k} expert numbers (1 to {d.E}), the largest probability first"
                if d.top_k > 1 else f"one expert number (1 to {d.E}) per token, a list"),
        explain="Each token goes to the experts of its largest probabilities, largest first (a tie goes to the lower number).",
    )  # fmt: skip
    return step, _chosen(step.value, top, d.E)


def _gates_step(chain: Chain, d: Moe, P: np.ndarray, top: list[list[int]], rows: Any) -> Formula:
    """The chosen probabilities, over their sum when renormalised (the slips: the other way round)."""
    renorm = d.renormalize
    if chain.mistake in (NOT_RENORMALISED, RENORMALISED):
        if renorm != (chain.mistake == NOT_RENORMALISED):
            raise MistakeNotApplicable
        renorm = not renorm
    chosen = np.asarray([[P[i, e] for e in top[i]] for i in range(d.n)], dtype=P.dtype)
    if renorm:
        den = np.asarray([sum(row.tolist()) for row in chosen], dtype=chosen.dtype)
        G = chain.together(np.asarray(chosen / den[:, None], dtype=chosen.dtype))
    else:
        G = chosen
    if chain.mistake in (NOT_RENORMALISED, RENORMALISED):
        c = to_float(chosen)
        if np.allclose(to_float(G), c / c.sum(axis=1, keepdims=True)) and np.allclose(to_float(G), c):
            raise MistakeNotApplicable  # (the chosen probabilities already add up to 1)

    def text(idx: tuple[int, ...], k: int) -> str:
        i, r = idx
        own = num(chosen[i, r], k)
        if not renorm:
            return f"p_{i + 1},{top[i][r] + 1}"
        return f"{own} / ({' + '.join(num(x, k) for x in chosen[i])})"

    # p_(i, k_ir): token i's probability of its r-th expert k_ir (p_i,k_ir typeset as p_{i,k,ir})
    formula = "g_ir = p_(i, k_ir) / Σ_s p_(i, k_is)" if d.renormalize else "g_ir = p_(i, k_ir)"
    return chain.step(
        hand_formula, "gates", G, title="The gates", formula=formula, latex="", symbol="g", rows=rows,
        written=Written(text, 2, chain.decimals),
        explain="Mixtral renormalises the chosen probabilities to add up to 1; Switch (top-1) keeps the probability itself."
        if d.renormalize else "The chosen experts' probabilities themselves (Switch: the gate is the router's probability).",
    )  # fmt: skip


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(Moe)
    rows = p.tokens
    steps: list[Step] = []
    X, W = chain.coerce(chain.given(d.X), chain.given(d.W_router))
    steps.append(
        chain.step(
            Product, "logits", chain.matmul(X, W), title="The router's logits", formula="z_i = x_i · W_router",
            latex=r"Z = X W_{\mathrm{router}}", symbol="z", rows=rows, cols=experts(d), left=X, right=W,
            explain="One logit per expert for each token: the token's row times the router's weights.",
        )
    )  # fmt: skip
    Z = steps[-1].value
    steps.append(_probabilities(chain, d, Z, rows))
    P = steps[-1].value
    step, top = _top_k_step(chain, d, P, rows)
    steps.append(step)
    steps.append(_gates_step(chain, d, P, top, rows))
    G = steps[-1].value
    kept = capacity_steps(chain, d, top, rows, steps)
    expert_output_steps(chain, d, X, G, top, kept, rows, steps)
    load_balancing_steps(
        chain, d, P, top, steps, aux=chain.number(lambda: to_exact(d.aux_coef), node_float(d.aux_coef))
    )
    return steps
