"""Kind ``grpo``: Group Relative Policy Optimization's loss for one group of completions, step by step
(Shao et al. 2024, DeepSeekMath, eq. 3; the loss of TRL's ``GRPOTrainer._compute_loss``).

The group's rewards give their mean and standard deviation (unbiased, G − 1, as TRL's ``nanstd``, or the
population's), and each completion's advantage A_i = (r_i − mean) / (std + advantage_eps). Per token:
the ratio ρ = exp(log π_θ − log π_old), clipped to [1 − ε, 1 + ε], the surrogate min(ρ · A, clip(ρ) · A),
with a reference the k3 estimate of the KL divergence exp(ref − logprob) − (ref − logprob) − 1, and the
token's loss −(surrogate − β · kl). The loss is the mean over each completion's tokens, then over the
completions (sequence: the paper, TRL's loss_type "grpo"), or over all the tokens at once (token:
DAPO, TRL's "bnpo"/"dapo" on one group).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..derivation import Input, Step, hand_formula
from ..derivation.arith import Chain, MistakeNotApplicable, to_float
from ..derivation.fmt import fmt
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.grpo import Grpo
from .grpo_tokens import token_steps

MAX_WRITTEN = 8  # a longer sum is written by its count, not term by term


def _par(text: str) -> str:
    return f"({text})" if text.startswith(("-", "−")) else text


def _completions(d: Grpo) -> tuple[str, ...]:
    return tuple(f"o{i}" for i in range(1, d.group + 1))


def inputs(p: Problem) -> list[Input]:
    d = p.payload(Grpo)
    out = [Input("rewards", "r", d.rewards.floats, None, rows=_completions(d), role="one per completion")]
    what = {"logprobs": "log π", "old_logprobs": "log π_old", "ref_logprobs": "log π_ref"}  # π: the policy π_θ
    for name, rows in (("logprobs", d.logprobs), ("old_logprobs", d.old_logprobs), ("ref_logprobs", d.ref_logprobs)):
        for i, row in enumerate(rows or (), 1):
            labels = tuple(f"t{t}" for t in range(1, row.shape[0] + 1))
            out.append(Input(f"{name}[{i}]", f"{what[name]}, o{i}", row.floats, None, rows=labels,
                             role="token log-probabilities"))  # fmt: skip
    return out


def header(p: Problem) -> list[str]:
    d = p.payload(Grpo)
    words = [p.kind, f"G = {d.group}", f"{sum(d.lengths)} tokens", f"ε = {node_float(d.epsilon):g}"]
    if d.ref_logprobs is not None:
        words.append(f"β = {node_float(d.beta):g}")
    return [*words, f"{d.std} std", f"{d.normalize} mean"]


def scalar(x: Any) -> np.ndarray:
    """A 0-d array of one computed entry (exact, float or interval)."""
    if isinstance(x, np.ndarray):
        return x.reshape(())
    if isinstance(x, (float, int, np.floating)):
        return np.asarray(float(x))
    out = np.empty((), dtype=object)
    out[()] = x
    return out


def total(x: np.ndarray) -> Any:
    """The sum of a vector's entries, one by one (exact, float or interval alike)."""
    acc = x[0]
    for e in x[1:]:
        acc = acc + e
    return acc


def _sum_text(values: np.ndarray, dec: int) -> str:
    if len(values) > MAX_WRITTEN:
        return f"Σ of {len(values)} terms"
    return " + ".join(_par(fmt(v, dec)) for v in values)


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(Grpo)
    steps = _advantages(d, chain)
    steps += token_steps(d, chain, steps[-1].value)
    steps += _loss(d, chain, steps[-1].value)
    return steps


def _advantages(d: Grpo, chain: Chain) -> list[Step]:
    G, dec = d.group, chain.decimals
    labels = _completions(d)
    r = chain.given(d.rewards)
    fr = d.rewards.floats
    steps: list[Step] = [
        chain.step(hand_formula, "mean_reward", scalar(total(r) / G), title="Mean reward", symbol="μ", latex="",
                   formula="μ = (1/G) Σ r_i", written=f"({_sum_text(fr, dec)}) / {G}",
                   defines=(f"G = {G}, the completions in the group",),
                   explain="The group's own baseline: the mean of the rewards of the completions of one prompt.")
    ]  # fmt: skip
    mean = steps[-1].value[()]
    unbiased = d.std == "unbiased"
    if chain.mistake == "grpo_std_divisor":
        if np.all(fr == fr[0]):
            raise MistakeNotApplicable  # a spread of 0 is 0 over either divisor
        unbiased = not unbiased
    divisor = G - 1 if unbiased else G
    dev = r - mean
    var = total(dev * dev) / divisor
    fm = float(to_float(scalar(mean)))
    squares = " + ".join(f"({fmt(x, dec)} − {_par(fmt(fm, dec))})²" for x in fr[:MAX_WRITTEN])
    if G > MAX_WRITTEN:
        squares = f"Σ of {G} squares"
    which = "G − 1: unbiased, as torch.std and TRL" if unbiased else "G: the population's"
    steps.append(
        chain.step(hand_formula, "std_reward", chain.sqrt(scalar(var)), title="Standard deviation of the rewards",
                   symbol="σ", latex="", formula=f"σ = √(Σ (r_i − μ)² / {'(G − 1)' if unbiased else 'G'})",
                   written=f"√(({squares}) / {divisor})", defines=(f"G = {G}, the completions in the group",),
                   explain=f"The spread of the group's rewards, divided by {which}.")
    )  # fmt: skip
    std = steps[-1].value[()]
    a_eps_f = node_float(d.advantage_eps)
    a_eps = chain.number(lambda: to_exact(d.advantage_eps), a_eps_f)
    fs = float(to_float(scalar(std)))
    dev = r - mean
    if chain.mistake == "grpo_advantages_not_normalised":
        if fs + a_eps_f == 1 or np.all(fr == fm):
            raise MistakeNotApplicable
        adv, formula = dev, "A_i = r_i − μ"
        written = tuple(f"{fmt(x, dec)} − {_par(fmt(fm, dec))}" for x in fr)
    else:
        adv, formula = dev / (std + a_eps), f"A_i = (r_i − μ) / (σ + {a_eps_f:g})"
        written = tuple(f"({fmt(x, dec)} − {_par(fmt(fm, dec))}) / ({fmt(fs, dec)} + {a_eps_f:g})" for x in fr)
    steps.append(
        chain.step(hand_formula, "advantages", adv, title="Advantages", symbol="A", rows=labels, latex="",
                   formula=formula, written=written,
                   explain="Each completion's reward against its group's, in units of the group's spread: "
                   "every token of the completion shares it.")
    )  # fmt: skip
    return steps


def _loss(d: Grpo, chain: Chain, token_losses: np.ndarray) -> list[Step]:
    dec = chain.decimals
    lengths = d.lengths
    sequence = d.normalize == "sequence"
    if chain.mistake == "grpo_normalization_swapped":
        if len(set(lengths)) == 1:
            raise MistakeNotApplicable  # completions of one length: both means are the same
        sequence = not sequence
    starts = np.cumsum((0, *lengths))
    fl = to_float(token_losses)
    if not sequence:
        n = int(starts[-1])
        return [
            chain.step(hand_formula, "loss", scalar(total(token_losses) / n), title="Loss", symbol="L", latex="",
                       formula="L = (1/Σ|o_i|) Σ_i Σ_t ℓ_i,t", written=f"({_sum_text(fl, dec)}) / {n}",
                       explain=f"The mean over all {n} tokens of the group at once (token normalisation, DAPO): "
                       "a long completion weighs more.")
        ]  # fmt: skip
    means = [total(token_losses[a:b]) / (b - a) for a, b in itertools.pairwise(starts)]
    each = chain.step(
        hand_formula, "completion_losses", _stack(means), title="Completion losses", symbol="L_o",
        rows=tuple(f"o{i}" for i in range(1, d.group + 1)), latex="", formula="L_i = (1/|o_i|) Σ_t ℓ_i,t",
        written=tuple(f"({_sum_text(fl[a:b], dec)}) / {b - a}" for a, b in itertools.pairwise(starts)),
        explain="Each completion's mean over its own tokens (sequence normalisation, as the paper and TRL's "
        "loss_type 'grpo').",
    )  # fmt: skip
    fc = to_float(each.value)
    loss = chain.step(
        hand_formula, "loss", scalar(total(each.value) / d.group), title="Loss", symbol="L", latex="",
        formula="L = (1/G) Σ_i L_i", written=f"({_sum_text(fc, dec)}) / {d.group}",
        explain=f"The mean over the {d.group} completions: every completion weighs the same, long or short.",
    )  # fmt: skip
    return [each, loss]


def _stack(values: list[Any]) -> np.ndarray:
    """A vector of entries computed one by one (exact, float or interval)."""
    if all(isinstance(v, (float, int, np.floating)) for v in values):
        return np.asarray(values, dtype=float)
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out
