"""Kind ``contrastive``: the contrastive loss of N query-key pairs, key i being query i's positive and
every other key a negative (InfoNCE, van den Oord et al. 2018; CLIP, Radford et al. 2021, Figure 3).

With ``normalize`` every row is divided by its length first (CLIP's l2_normalize), so the similarities
S = Q Kᵀ are cosines. The logits are Z = S / τ. Row i's softmax P_i is query i's distribution over
the keys, and its loss −ln P_ii; the row loss is their mean (InfoNCE; cross_entropy(logits, labels) in
CLIP's pseudocode). With ``symmetric`` (CLIP) the same is done down each column of Z (key j's
distribution over the queries: row j of ``column_probabilities``), and the loss is the mean of the two.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Divide, Formula, Input, Map, Norm, Product, Step
from ..derivation.arith import Chain, MistakeNotApplicable, holds_objects, is_exact, to_float
from ..derivation.fmt import fmt
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.contrastive import Contrastive
from .common import finite_max, finite_min, simplify_log, simplify_radicals
from .written import Written

# the named slips of this kind (attncalc/kinds/mistakes.py): the wrong axis is the softmax's own slip
NO_TEMPERATURE = "contrastive_no_temperature"
TEMPERATURE_MULTIPLIED = "contrastive_temperature_multiplied"
NOT_NORMALISED = "contrastive_rows_not_normalised"
WRONG_AXIS = "softmax_wrong_axis"
SUM_FOR_MEAN = "contrastive_sum_for_mean"


def inputs(p: Problem) -> list[Input]:
    d = p.payload(Contrastive)
    return [
        Input("queries", "Q", d.queries.floats, None, role="the queries (images), one per row"),
        Input("keys", "K", d.keys.floats, None, role="the keys (texts): key i is query i's positive"),
        Input("temperature", "τ", np.asarray(node_float(d.temperature)), None, role="the temperature"),
    ]


def header(p: Problem) -> list[str]:
    d = p.payload(Contrastive)
    bits = [p.kind, f"{d.n} pair{'s' if d.n != 1 else ''}", f"τ = {node_float(d.temperature):g}"]
    bits.append("rows normalised" if d.normalize else "rows as given")
    bits.append("symmetric (CLIP)" if d.symmetric else "query → key only (InfoNCE)")
    return bits


def _num(x: Any, dec: int) -> str:
    return fmt(float(to_float(np.asarray(x))), dec)


def _paren(x: Any, dec: int) -> str:
    text = _num(x, dec)
    return f"({text})" if text.startswith("-") else text


def _normalise(chain: Chain, X: np.ndarray, who: str, sym: str, steps: list[Step]) -> np.ndarray:
    """‖x_i‖ and x_i / ‖x_i‖ for each row (the rows unchanged under the slip ``rows not normalised``);
    ``who`` is "queries" or "keys"."""
    ids = (("query" if who == "queries" else "key") + "_norms", f"normalized_{who}")
    total = np.asarray([sum((row * row).tolist()) for row in X], dtype=X.dtype)
    steps.append(
        chain.step(
            Norm, ids[0], chain.sqrt(total), title=f"Lengths of the {who}", formula=f"‖{sym}_i‖ = √(Σ_k {sym}_ik²)",
            latex="", symbol=f"‖{sym}‖", arg=X,
            explain="The length (Euclidean norm) of each row: the square root of the sum of its squared entries.",
        )
    )  # fmt: skip
    norms = steps[-1].value
    if chain.mistake == NOT_NORMALISED:
        if np.allclose(to_float(norms), 1.0):
            raise MistakeNotApplicable
        unit = X
    else:
        Xc, nc = chain.coerce(X, norms)
        unit = simplify_radicals(np.asarray(Xc / nc[:, None], dtype=Xc.dtype))
    steps.append(
        chain.step(
            Divide, ids[1], unit, title=f"Normalised {who}", formula=f"{sym}̃_i = {sym}_i / ‖{sym}_i‖", latex="",
            symbol=f"{sym}̃", num=X, den=norms,
            explain="Each row divided by its length: a unit vector, so that the dot products below are cosines.",
        )
    )  # fmt: skip
    normalised: np.ndarray = steps[-1].value
    return normalised


def _softmax_rows(chain: Chain, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The softmax of each row of Z, and the exponentials it is made of (relative to the row's
    smallest entry when exact, so that the forms read 1/(1 + e + e²); to its largest otherwise)."""
    if is_exact(Z):
        ref = finite_min(Z)
        e = chain.exp(chain.together(Z - ref[:, None]))
    else:
        ref = finite_max(Z, axis=-1)
        e = chain.exp(np.asarray(Z - ref[:, None], dtype=Z.dtype))
    den = np.asarray([sum(row.tolist()) for row in e], dtype=e.dtype)
    return np.asarray(e / den[:, None], dtype=e.dtype), e


def _probabilities(chain: Chain, Z: np.ndarray, step_id: str, columns: bool, **fields: Any) -> Formula:
    """The step ``step_id`` (its other ``fields`` as given): row i: the softmax of row i of Z (``columns``: row j the softmax of column j of Z). The slip of
    the wrong axis normalises each column of the row probabilities instead of each row (its words say
    columns for rows, so it is not tried at the column probabilities)."""
    if columns:
        P, _ = _softmax_rows(chain, Z.T)
    elif chain.mistake == WRONG_AXIS:
        if np.allclose(to_float(Z), to_float(Z).T):
            raise MistakeNotApplicable  # a symmetric Z: both axes give the same numbers
        P = _softmax_rows(chain, Z.T)[0].T
    else:
        P, _ = _softmax_rows(chain, Z)
    return chain.step(Formula, step_id, P, **fields)


def _prob_text(Z: np.ndarray, columns: bool) -> Any:
    def text(idx: tuple[int, ...], k: int) -> str:
        i, j = idx
        line = Z[:, i] if columns else Z[i]
        terms = " + ".join(f"exp({_num(z, k)})" for z in line)
        return f"exp({_num(line[j], k)}) / ({terms})"

    return text


def _mean_step(
    chain: Chain, losses: np.ndarray, step_id: str, title: str, symbol: str, of: str, explain: str
) -> tuple[Formula, np.ndarray]:
    """The mean of the losses (their sum under the slip ``a sum for the mean``)."""
    n = len(losses)
    total = sum(losses.tolist())
    if chain.mistake == SUM_FOR_MEAN:
        if n == 1:
            raise MistakeNotApplicable
        value = total
    else:
        value = total / n

    def written(idx: tuple[int, ...], k: int) -> str:
        return f"({' + '.join(_num(x, k) for x in losses)}) / {n}"

    step = chain.step(
        Formula, step_id, simplify_log(np.asarray(value, dtype=losses.dtype)), title=title,
        formula=f"{symbol} = (1/N) Σ_{of[-1]} {of}, N = {n}", latex="", symbol=symbol,
        written=written((), chain.decimals), explain=explain,
    )  # fmt: skip
    return step, step.value


def _diagonal_losses(
    chain: Chain, P: np.ndarray, Z: np.ndarray, step_id: str, sym: str, what: str, Psym: str = "P"
) -> tuple[Formula, np.ndarray]:
    """−ln P_ii; ``Z``: the logits whose rows P is the softmax of (Z for the rows, Zᵀ for the columns)."""
    n = P.shape[0]
    diag = np.asarray([P[i, i] for i in range(n)], dtype=P.dtype)
    losses = np.asarray(-chain.log(diag), dtype=diag.dtype)
    if not holds_objects(losses) and not np.all(np.isfinite(losses)):
        # P_ii underflowed to 0 in floats (logits far apart): −ln P_ii = logsumexp(z_i) − z_ii, finite
        z = to_float(Z)
        top = z.max(axis=1)
        lse = top + np.log(np.exp(z - top[:, None]).sum(axis=1))
        losses = np.where(np.isfinite(losses), losses, lse - np.diag(z))
    step = chain.step(
        Formula, step_id, simplify_log(losses), title=f"Losses of the {what}",
        formula=f"{sym}_i = −ln {Psym}_ii (the positive pair's probability)", latex="", symbol=sym,
        written=tuple(f"−ln({_num(diag[i], chain.decimals)})" for i in range(n)),
        explain="Cross-entropy with the right key as the target: −ln of the probability the softmax gives it.",
    )  # fmt: skip
    return step, step.value


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(Contrastive)
    steps: list[Step] = []
    Q, K = chain.coerce(chain.given(d.queries), chain.given(d.keys))
    if d.normalize:
        Q = _normalise(chain, Q, "queries", "q", steps)
        K = _normalise(chain, K, "keys", "k", steps)
        Q, K = chain.coerce(Q, K)
    elif chain.mistake == NOT_NORMALISED:
        raise MistakeNotApplicable
    steps.append(
        chain.step(
            Product, "similarities", simplify_radicals(chain.matmul(Q, K.T)),
            title="Similarities" + (" (cosines)" if d.normalize else ""),
            formula="S = Q̃ K̃ᵀ  (S_ij = q̃_i · k̃_j)" if d.normalize else "S = Q Kᵀ  (S_ij = q_i · k_j)",
            latex=r"S = \tilde{Q} \tilde{K}^\top" if d.normalize else r"S = Q K^\top", symbol="S", left=Q,
            right=K.T,
            explain="Entry (i, j): query i's dot product with key j; the diagonal holds the positive pairs.",
        )
    )  # fmt: skip
    S = steps[-1].value
    tau_f = node_float(d.temperature)
    tau = chain.number(lambda: to_exact(d.temperature), tau_f)
    if chain.mistake in (NO_TEMPERATURE, TEMPERATURE_MULTIPLIED) and tau_f == 1:
        raise MistakeNotApplicable
    if chain.mistake == NO_TEMPERATURE:
        fn, param, Z = "divide", 1, S
    elif chain.mistake == TEMPERATURE_MULTIPLIED:
        fn, param, Z = "scale", tau, S * tau
    else:
        fn, param, Z = "divide", tau, S / tau
    steps.append(
        chain.step(
            Map, "logits", simplify_radicals(np.asarray(Z, dtype=S.dtype)), title="Logits",
            formula=f"Z_ij = S_ij / τ, τ = {tau_f:g}", latex="", symbol="Z", fn=fn, arg=S, param=np.asarray(param), param_text=f"{to_float(np.asarray(param)):g}",
            explain="The similarities divided by the temperature: a small τ sharpens the softmax below.",
        )
    )  # fmt: skip
    Z = steps[-1].value
    steps.append(
        _probabilities(
            chain, Z, "row_probabilities", False, title="Softmax of each row",
            formula="P_ij = exp(Z_ij) / Σ_k exp(Z_ik)", latex="", symbol="P",
            written=Written(_prob_text(Z, False), 2, chain.decimals),
            explain="Query i's probability of each key: the softmax of row i of the logits.",
        )
    )  # fmt: skip
    P = steps[-1].value
    step, rows = _diagonal_losses(chain, P, Z, "row_losses", "l", "rows")
    steps.append(step)
    step, row_loss = _mean_step(
        chain, rows, "row_loss", "The row loss (query → key)", "L_rows", "l_i",
        "InfoNCE: the mean over the queries, cross_entropy(logits, labels) in CLIP's pseudocode.",
    )  # fmt: skip
    steps.append(step)
    if not d.symmetric:
        steps.append(
            chain.step(
                Formula, "loss", np.asarray(row_loss, dtype=row_loss.dtype), title="The loss", formula="L = L_rows",
                latex="", symbol="L",
                written=_num(row_loss, chain.decimals), explain="One direction only (InfoNCE): the row loss.",
            )
        )  # fmt: skip
        return steps
    steps.append(
        _probabilities(
            chain, Z, "column_probabilities", True, title="Softmax of each column", latex="", symbol="P′",
            formula="P′_ji = exp(Z_ij) / Σ_k exp(Z_kj)  (row j: column j of Z)",
            written=Written(_prob_text(Z, True), 2, chain.decimals),
            explain="Key j's probability of each query: the softmax of column j of the logits, written as row j.",
        )
    )  # fmt: skip
    C = steps[-1].value
    step, cols = _diagonal_losses(chain, C, Z.T, "column_losses", "l′", "columns", "P′")
    steps.append(step)
    step, col_loss = _mean_step(
        chain, cols, "column_loss", "The column loss (key → query)", "L_columns", "l′_j",
        "The mean over the keys, cross_entropy(logits.T, labels) in CLIP's pseudocode.",
    )  # fmt: skip
    steps.append(step)
    a, b = chain.coerce(np.asarray(row_loss), np.asarray(col_loss))
    both = a + b
    value = both if chain.mistake == SUM_FOR_MEAN else both / 2
    steps.append(
        chain.step(
            Formula, "loss", simplify_log(np.asarray(value, dtype=a.dtype)), title="The symmetric loss",
            formula="L = (L_rows + L_columns) / 2", latex="", symbol="L", written=f"({_num(a, chain.decimals)} + {_num(b, chain.decimals)}) / 2",
            explain="CLIP's loss: the mean of the two directions, (loss_i + loss_t) / 2.",
        )
    )  # fmt: skip
    return steps
