"""Kind ``dpo``: Direct Preference Optimization's loss over a batch of preference pairs, step by step
(Rafailov et al. 2023, eq. 7; the losses of TRL's ``DPOTrainer.dpo_loss``).

For each pair, the policy's and the reference's log-probabilities of the chosen response y_w and the
rejected one y_l (summed over their tokens when given per token) give the logratios
log π(y) − log π_ref(y), and h = chosen logratio − rejected logratio. The loss of a pair is
−(1 − ε) log σ(β h) − ε log σ(−β h) (sigmoid, DPO; ε is cDPO's label smoothing), (h − 1/(2β))² (ipo,
Azar et al. 2023) or max(0, 1 − β h) (hinge, SLiC); the loss is their mean. The implicit rewards are
β · logratio; the reward accuracy is the share of pairs whose chosen reward is the greater; the sigmoid
loss's gradient weighs each pair by β · ((1 − ε) σ(−β h) − ε σ(β h)).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivation import Add, Formula, Input, Step
from ..derivation.arith import Chain, MistakeNotApplicable, to_float
from ..derivation.elementwise import Elementwise
from ..derivation.fmt import fmt
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.dpo import Dpo
from ..schema.dpo import SEQUENCES
from .written import Written

MAX_WRITTEN = 8  # a longer token list is written as its count, not term by term

# π is the policy π_θ (a Greek subscript is not typeset); a sum's entry symbol is indexed by the sheets: π_w_1
_SUM = {"policy_chosen": "π_w", "policy_rejected": "π_l", "reference_chosen": "ref_w", "reference_rejected": "ref_l"}
_SYMBOL = {
    "policy_chosen": "log π(y_w)",
    "policy_rejected": "log π(y_l)",
    "reference_chosen": "log π_ref(y_w)",
    "reference_rejected": "log π_ref(y_l)",
}


# ---------------------------------------------------------------- log σ, the kind's element-wise function
def _log_sigmoid(x: float) -> float:
    return -(max(-x, 0.0) + math.log1p(math.exp(-abs(x))))  # −ln(1 + e^(−x)), without overflow


def _exact_log_sigmoid(e: Any) -> Any:
    import sympy as sp

    return -sp.log(1 + sp.exp(-e))


ELEMENTWISE = {
    "log_sigmoid": Elementwise(
        lambda x, p, j: f"log σ({x})",
        lambda x, p, j: _log_sigmoid(x),
        exact=_exact_log_sigmoid,
        numeric=lambda x: -np.logaddexp(0.0, -np.asarray(x, dtype=float)),
        critical=(),  # increasing
    )
}


def _par(text: str) -> str:
    return f"({text})" if text.startswith(("-", "−")) else text


def _each(values: np.ndarray, line: Callable[[str], str], dec: int) -> Written:
    """A per-pair step's written entries, each ``line`` of the pair's number written to ``dec`` decimals,
    made when a view asks (a check reruns the problem dozens of times: 24,000 pairs wrote 120,000
    numbers a run)."""
    return Written(lambda idx, _: line(fmt(values[idx[0]], dec)), 1, dec)


def _labels(d: Dpo) -> tuple[str, ...]:
    return tuple(f"pair {i + 1}" for i in range(d.pairs))


def inputs(p: Problem) -> list[Input]:
    d = p.payload(Dpo)
    out = []
    for name in SEQUENCES:
        seq = d.sequence(name)
        if isinstance(seq, tuple):
            for i, row in enumerate(seq, 1):
                out.append(Input(f"{name}[{i}]", f"{_SYMBOL[name]}, pair {i}", row.floats, None,
                                 role="token log-probabilities"))  # fmt: skip
        else:
            out.append(Input(name, _SYMBOL[name], seq.floats, None, rows=_labels(d), role="one per pair"))
    return out


def header(p: Problem) -> list[str]:
    d = p.payload(Dpo)
    words = [p.kind, f"{d.pairs} pair{'s' if d.pairs != 1 else ''}", f"β = {node_float(d.beta):g}", d.loss]
    return words + ([f"ε = {d.epsilon:g}"] if d.epsilon else [])


def _sequences(d: Dpo, chain: Chain, labels: tuple[str, ...]) -> tuple[dict[str, np.ndarray], list[Step]]:
    values: dict[str, np.ndarray] = {}
    steps: list[Step] = []
    for name in SEQUENCES:
        seq = d.sequence(name)
        if not isinstance(seq, tuple):
            values[name] = chain.given(seq)
            continue
        sums = []
        for row in seq:
            v = chain.given(row)
            total = v[0]
            for e in v[1:]:
                total = total + e
            sums.append(total)
        value = _stack(sums, chain)
        texts = tuple(
            " + ".join(_par(f"{x:g}") for x in row.floats)
            if row.shape[0] <= MAX_WRITTEN
            else f"Σ of {row.shape[0]} tokens"
            for row in seq
        )
        steps.append(
            chain.step(
                Formula, f"{name}_sum", value, title=f"{_SYMBOL[name]}, summed over the tokens", symbol=_SUM[name],
                rows=labels, latex="", formula=f"{_SUM[name]} = {_SYMBOL[name]} = Σ_t {_SYMBOL[name]}_t",
                written=texts, explain="A sequence's log-probability is the sum of its tokens' log-probabilities.",
            )
        )  # fmt: skip
        values[name] = steps[-1].value
    return values, steps


def _stack(values: list[Any], chain: Chain) -> np.ndarray:
    """A vector of entries computed one by one (exact, float or interval)."""
    if all(isinstance(v, (float, int, np.floating)) for v in values):
        return np.asarray(values, dtype=float)
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(Dpo)
    labels = _labels(d)
    sigmoid = d.loss == "sigmoid"
    if chain.mistake == "dpo_sigma_for_log_sigma" and not sigmoid:
        raise MistakeNotApplicable
    if chain.mistake == "dpo_beta_left_out" and node_float(d.beta) == 1:
        raise MistakeNotApplicable
    values, steps = _sequences(d, chain, labels)
    pc, pr = values["policy_chosen"], values["policy_rejected"]
    rc, rr = values["reference_chosen"], values["reference_rejected"]
    if chain.mistake == "dpo_reference_not_subtracted":
        if not (np.any(to_float(rc) != 0) or np.any(to_float(rr) != 0)):
            raise MistakeNotApplicable
        rc, rr = rc * 0, rr * 0
    pc, rc, pr, rr = chain.coerce(pc, rc, pr, rr)
    steps.append(
        chain.step(Add, "chosen_logratios", pc - rc, title="Chosen logratios", symbol="r_w", rows=labels, latex="",
            formula="log π(y_w | x) − log π_ref(y_w | x)", parts=(pc, rc), part_names=("log π", "log π_ref"),
            signs=(1, -1), explain="How much more likely the policy makes the chosen response than the reference does.")
    )  # fmt: skip
    chosen = steps[-1].value
    steps.append(
        chain.step(Add, "rejected_logratios", pr - rr, title="Rejected logratios", symbol="r_l", rows=labels,
            latex="", formula="log π(y_l | x) − log π_ref(y_l | x)", parts=(pr, rr),
            part_names=("log π", "log π_ref"), signs=(1, -1), explain="The same for the rejected response.")
    )  # fmt: skip
    rejected = steps[-1].value
    first, second = (rejected, chosen) if chain.mistake == "dpo_chosen_rejected_swapped" else (chosen, rejected)
    steps.append(
        chain.step(Add, "logits", first - second, title="Logits", symbol="h", rows=labels, latex="",
            formula="h = r_w − r_l", parts=(first, second), part_names=("r_w", "r_l"), signs=(1, -1),
            explain="How far the policy has moved toward the chosen response and away from the rejected one.")
    )  # fmt: skip
    h = steps[-1].value
    beta_f = 1.0 if chain.mistake == "dpo_beta_left_out" else node_float(d.beta)
    beta = chain.number(lambda: 1 if chain.mistake == "dpo_beta_left_out" else to_exact(d.beta), beta_f)
    steps += _losses(d, chain, h, beta, beta_f, labels)
    steps += _rewards(d, chain, chosen, rejected, h, beta, beta_f, labels)
    return steps


def _losses(d: Dpo, chain: Chain, h: np.ndarray, beta: Any, beta_f: float, labels: tuple[str, ...]) -> list[Step]:
    fh = to_float(h)
    dec = chain.decimals
    b = f"{beta_f:g}"
    eps_f = d.epsilon
    note = ""
    if d.loss == "sigmoid":
        bh = h * beta
        fn = "sigmoid" if chain.mistake == "dpo_sigma_for_log_sigma" else "log_sigmoid"
        term = chain.apply(fn, bh)
        if eps_f:
            eps = chain.number(lambda: to_exact(d.label_smoothing), eps_f)
            losses = -(1 - eps) * term - eps * chain.apply(fn, -bh)
        else:
            losses = -term
        if eps_f:
            formula = f"l = −(1 − ε) log σ(β h) − ε log σ(−β h), ε = {eps_f:g}"
            written: Any = _each(
                fh, lambda x: f"−{1 - eps_f:g} · log σ({b} · {_par(x)}) − {eps_f:g} · log σ(−{b} · {_par(x)})", dec
            )
        else:
            formula = "l = −log σ(β h)"
            written = _each(fh, lambda x: f"−log σ({b} · {_par(x)})", dec)
        explain = "The negative log-likelihood that the chosen response is preferred (Bradley–Terry)."
    elif d.loss == "ipo":
        target = chain.number(lambda: 1 / (2 * beta), 1 / (2 * beta_f))
        gap = h - target
        losses = gap * gap
        formula = "l = (h − 1/(2β))²"
        written = _each(fh, lambda x: f"({x} − 1/(2 · {b}))²", dec)
        explain = "IPO pulls h toward 1/(2β) instead of pushing it to infinity."
        if any(isinstance(d.sequence(name), tuple) for name in SEQUENCES):
            note = (
                "h is from the summed token log-probabilities, as Azar et al. write IPO; TRL's DPOTrainer "
                "divides each logratio by its response's token count first."
            )
    else:
        losses = chain.apply("relu", 1 - h * beta)
        formula = "l = max(0, 1 − β h)"
        written = _each(fh, lambda x: f"max(0, 1 − {b} · {_par(x)})", dec)
        explain = "The hinge: no loss once β h reaches 1."
    each = chain.step(Formula, "losses", losses, title="Losses", symbol="l", rows=labels, latex="",
                      formula=formula, written=written, explain=explain, note=note)  # fmt: skip
    losses = each.value
    total = losses[0]
    for v in losses[1:]:
        total = total + v
    fl = to_float(losses)
    mean = chain.step(
        Formula, "loss", np.asarray(total / d.pairs) if not isinstance(total, np.ndarray) else total / d.pairs,
        title="Loss", symbol="L", latex="", formula="L = (1/n) Σ l",
        written=f"({' + '.join(_par(fmt(x, dec)) for x in fl)}) / {d.pairs}",
        explain=f"The mean over the {d.pairs} pair{'s' if d.pairs != 1 else ''}, as TRL's loss.mean().",
    )  # fmt: skip
    return [each, mean]


def _rewards(d: Dpo, chain: Chain, chosen: np.ndarray, rejected: np.ndarray, h: np.ndarray, beta: Any,
             beta_f: float, labels: tuple[str, ...]) -> list[Step]:  # fmt: skip
    dec = chain.decimals
    b = f"{beta_f:g}"
    fc, fr = to_float(chosen), to_float(rejected)
    steps: list[Step] = [
        chain.step(Formula, "chosen_rewards", chosen * beta, title="Chosen rewards", symbol="β r_w", rows=labels,
                   latex="", formula="β · r_w", written=_each(fc, lambda x: f"{b} · {_par(x)}", dec),
                   explain="The implicit reward DPO's policy assigns the chosen response."),
        chain.step(Formula, "rejected_rewards", rejected * beta, title="Rejected rewards", symbol="β r_l",
                   rows=labels, latex="", formula="β · r_l", written=_each(fr, lambda x: f"{b} · {_par(x)}", dec),
                   explain="The implicit reward of the rejected response."),
    ]  # fmt: skip
    cr, rr = steps[0].value, steps[1].value
    steps.append(
        chain.step(Add, "reward_margins", cr - rr, title="Reward margins", symbol="m", rows=labels, latex="",
                   formula="m = β r_w − β r_l", parts=(cr, rr), part_names=("β r_w", "β r_l"), signs=(1, -1),
                   explain="How far the chosen reward leads the rejected one.")
    )  # fmt: skip
    wins = int(np.sum(to_float(cr) > to_float(rr)))
    share = chain.number(lambda: _rational(wins, d.pairs), wins / d.pairs)
    steps.append(
        chain.step(Formula, "reward_accuracy", np.asarray(share, dtype=object if not isinstance(share, float) else float),
                   title="Reward accuracy", symbol="acc", latex="",
                   formula="acc = (1/n) #{pairs with β r_w > β r_l}", written=f"{wins} / {d.pairs}",
                   explain="The share of pairs the implicit reward ranks as the data does (a tie counts as wrong).")
    )  # fmt: skip
    if d.loss == "sigmoid":
        bh = h * beta
        eps_f = d.epsilon
        fh = to_float(h)
        if eps_f:
            eps = chain.number(lambda: to_exact(d.label_smoothing), eps_f)
            weights = beta * ((1 - eps) * chain.apply("sigmoid", -bh) - eps * chain.apply("sigmoid", bh))
            formula = "w = β · ((1 − ε) σ(−β h) − ε σ(β h))"
            written: Any = _each(
                fh, lambda x: f"{b} · ({1 - eps_f:g} · σ(−{b} · {_par(x)}) − {eps_f:g} · σ({b} · {_par(x)}))", dec
            )
        else:
            weights = beta * chain.apply("sigmoid", -bh)
            formula = "w = β · σ(−β h)"
            written = _each(fh, lambda x: f"{b} · σ(−{b} · {_par(x)})", dec)
        steps.append(
            chain.step(Formula, "gradient_weights", weights, title="Gradient weights", symbol="w", latex="", rows=labels,
                    formula=formula, written=written,
                    explain="The weight each pair's gradient carries: largest where the implicit reward "
                    "ranks the pair wrongly.")
        )  # fmt: skip
    return steps


def _rational(k: int, n: int) -> Any:
    import sympy as sp

    return sp.Rational(k, n)
