"""Kind ``sequence``: what a sequence model's step probabilities of the targets add up to.

Given p_t, the probability the model gave the target token at step t (teacher forcing): the step
losses L_t = −ln p_t, the probability of the whole target sequence P(y) = Π_t p_t, the total loss
L = Σ_t L_t = −ln P(y), the loss per token L / T and the perplexity exp(L / T), the geometric mean of the 1/p_t.
"""

from __future__ import annotations

import numpy as np

from ..derivation import Input, Loss, Map, Step
from ..derivation.arith import Chain, to_float
from ..parse import Problem
from ..parse.data import Sequence
from .common import simplify_log
from .output import totals


def _two() -> object:
    import sympy as sp

    return sp.Integer(2)


def _labels(p: Problem) -> tuple[str, ...]:
    d = p.payload(Sequence)
    return d.targets or tuple(f"y_{t}" for t in range(1, d.probabilities.shape[0] + 1))


def inputs(p: Problem) -> list[Input]:
    rows = tuple(f"{t}: {w}" for t, w in enumerate(_labels(p), 1))
    return [
        Input(
            "probabilities",
            "p_t",
            p.payload(Sequence).probabilities.floats,
            None,
            rows=rows,
            role="the probability of the target token at each step",
        )
    ]


def run(p: Problem, chain: Chain) -> list[Step]:
    probs = chain.given(p.payload(Sequence).probabilities)
    labels = _labels(p)
    T = probs.shape[0]
    steps: list[Step] = []
    losses = []
    for t in range(1, T + 1):
        p_t = probs[t - 1 : t]
        steps.append(
            chain.step(
                Loss,
                f"{t}.loss",
                simplify_log(-chain.log(p_t)).reshape(()),
                title=f"Cross-entropy at step {t}",
                formula=f"L_{t} = −ln p_{t}({labels[t - 1]})",
                latex="",
                symbol=f"L_{t}",
                prob=float(to_float(p_t)[0]),
                target=t - 1,  # written p_t: the given probability of step t
                label=labels[t - 1],
                explain="The loss at a step is −ln of the probability the model gave the right token."
                if t == 1
                else "",
            )
        )
        losses.append(steps[-1].value)
    chosen = [probs[t] for t in range(T)]
    steps.extend(totals(chain, chosen, losses, [f"p_{t}({w})" for t, w in enumerate(labels, 1)]))
    total = steps[-1].value
    steps.append(
        chain.step(
            Map,
            "mean_loss",
            np.asarray(total / T),
            title="Loss per token",
            formula=f"L/T = L / {T}",
            latex="",
            symbol="L/T",
            fn="divide",
            arg=np.asarray(total),
            param=np.asarray(T),
            param_text=str(T),
            explain="The mean cross-entropy per token, in nats.",
        )
    )
    mean = steps[-1].value
    if chain.mistake == "perplexity_base_2":  # 2^(mean loss): the nats read as bits
        two = chain.const(_two, 2.0)
        ppl = np.asarray(two ** mean.item(), dtype=mean.dtype)
    elif chain.mistake == "mean_of_perplexities":  # the mean of the per-step 1/p_t
        inverse = [1 / probs[t] for t in range(T)]
        ppl = np.asarray(sum(inverse[1:], start=inverse[0]) / T, dtype=probs.dtype)
    else:
        ppl = chain.exp(mean.reshape(1)).reshape(())
    steps.append(
        chain.step(
            Map,
            "perplexity",
            ppl,
            title="Perplexity",
            formula="PPL = exp(L / T)",
            latex="",
            symbol="PPL",
            fn="exp",
            arg=mean,
            explain="Perplexity is exp of the mean loss per token, 1 / P(y)^(1/T): the number of equally likely "
            "choices that would be as uncertain as the model was.",
        )
    )
    return steps


def header(p: Problem) -> list[str]:
    return [p.kind]
