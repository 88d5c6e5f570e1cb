"""Kind ``grpo``, the steps per token: the ratios exp(log π_θ − log π_old), their clip to [1 − ε, 1 + ε],
the surrogate min(ρ · A, clip(ρ) · A), the k3 KL estimate against the reference and the token losses
−(surrogate − β · kl). The tokens of all completions stand in one vector, completion by completion
(labelled "o2 t1": completion 2's first token)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Formula, Step, hand_formula
from ..derivation.arith import Chain, MistakeNotApplicable, holds_objects, to_float
from ..derivation.fmt import fmt
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse.grpo import Grpo


def _par(text: str) -> str:
    return f"({text})" if text.startswith(("-", "−")) else text


def _flat(d: Grpo, chain: Chain, rows: tuple[Any, ...]) -> np.ndarray:
    parts = [chain.given(row) for row in rows]
    if any(holds_objects(x) for x in parts):
        out = np.empty(sum(len(x) for x in parts), dtype=object)
        out[:] = [e for x in parts for e in x]
        return out
    return np.concatenate(parts)


def _pick(take_first: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Entry by entry a where ``take_first``, else b (exact, float or interval entries kept as they are)."""
    if not holds_objects(a) and not holds_objects(b):
        return np.where(take_first, np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    out = np.empty(len(take_first), dtype=object)
    for i, first in enumerate(take_first):
        out[i] = a[i] if first else b[i]
    return out


def _full(x: Any, n: int) -> np.ndarray:
    """A constant (exact or float) as a vector of n entries."""
    if isinstance(x, (float, int, np.floating)):
        return np.full(n, float(x))
    out = np.empty(n, dtype=object)
    out[:] = [x] * n
    return out


def token_steps(d: Grpo, chain: Chain, advantages: np.ndarray) -> list[Step]:
    labels, dec = d.labels, chain.decimals
    n = len(labels)
    owner = np.repeat(np.arange(d.group), d.lengths)
    lp = _flat(d, chain, d.logprobs)
    old = lp if d.old_logprobs is None else _flat(d, chain, d.old_logprobs)
    flp = np.concatenate([row.floats for row in d.logprobs])
    fold = flp if d.old_logprobs is None else np.concatenate([row.floats for row in d.old_logprobs])
    steps: list[Step] = [
        chain.step(hand_formula, "ratios", chain.exp(lp - old), title="Ratios", symbol="ρ", rows=labels, latex="",
                   formula="ρ_i,t = exp(log π − log π_old)",
                   written=tuple(f"exp({fmt(a, dec)} − {_par(fmt(b, dec))})" for a, b in zip(flp, fold, strict=True)),
                   explain="How much more likely the policy makes each token than the policy that sampled it did"
                   + ("" if d.old_logprobs is not None else " (no old log-probabilities: the same policy, 1)") + ".")
    ]  # fmt: skip
    ratios = steps[-1].value
    eps_f = node_float(d.epsilon)
    lo = chain.number(lambda: 1 - to_exact(d.epsilon), 1 - eps_f)
    hi = chain.number(lambda: 1 + to_exact(d.epsilon), 1 + eps_f)
    clipped = _clip(ratios, lo, hi)
    fr = to_float(ratios)
    steps.append(
        chain.step(hand_formula, "clipped_ratios", clipped, title="Clipped ratios", symbol="ρ_c", rows=labels, latex="",
                   formula="ρ_c = clip(ρ, 1 − ε, 1 + ε)",
                   written=tuple(f"clip({fmt(x, dec)}, {1 - eps_f:g}, {1 + eps_f:g})" for x in fr),
                   explain="The ratio held within 1 ± ε, so one update cannot move the policy far from the old one.")
    )  # fmt: skip
    clipped = steps[-1].value
    A = advantages[owner]
    steps.append(_surrogate(chain, ratios, clipped, A, lo, hi, labels))
    surrogate = steps[-1].value
    beta_f = node_float(d.beta)
    if d.ref_logprobs is None:
        if chain.mistake == "grpo_kl_sign":
            raise MistakeNotApplicable
        losses, formula = -surrogate, "ℓ_i,t = −s_i,t"
        written: tuple[str, ...] = tuple(f"−{_par(fmt(x, dec))}" for x in to_float(surrogate))
    else:
        ref = _flat(d, chain, d.ref_logprobs)
        fref = np.concatenate([row.floats for row in d.ref_logprobs])
        x = ref - lp
        steps.append(
            chain.step(hand_formula, "kl", chain.exp(x) - x - 1, title="KL estimates", symbol="KL", rows=labels, latex="",
                       formula="KL_i,t = exp(log π_ref − log π) − (log π_ref − log π) − 1",
                       written=tuple(f"exp({fmt(a - b, dec)}) − {_par(fmt(a - b, dec))} − 1"
                                     for a, b in zip(fref, flp, strict=True)),
                       explain="Schulman's k3 estimator of KL(π ‖ π_ref) at each token: never negative, 0 where "
                       "the two agree.")
        )  # fmt: skip
        kl = steps[-1].value
        beta = chain.number(lambda: to_exact(d.beta), beta_f)
        sign = "−"
        if chain.mistake == "grpo_kl_sign":
            if beta_f == 0 or not np.any(to_float(kl) != 0):
                raise MistakeNotApplicable
            sign = "+"
            losses = -(surrogate + beta * kl)
        else:
            losses = -(surrogate - beta * kl)
        formula = f"ℓ_i,t = −(s_i,t {sign} β · KL_i,t)"
        written = tuple(f"−({fmt(s, dec)} {sign} {beta_f:g} · {fmt(k, dec)})"
                        for s, k in zip(to_float(surrogate), to_float(kl), strict=True))  # fmt: skip
    steps.append(
        chain.step(hand_formula, "token_losses", losses, title="Token losses", symbol="ℓ", rows=labels, latex="",
                   formula=formula, written=written,
                   explain="The objective's term at each token, negated to a loss to minimise.",
                   note="" if d.ref_logprobs is not None or beta_f == 0 else
                   f"No ref_logprobs: there is no KL term, and β = {beta_f:g} is ignored.")
    )  # fmt: skip
    assert len(steps[-1].value) == n
    return steps


def _clip(x: np.ndarray, lo: Any, hi: Any) -> np.ndarray:
    fx = to_float(x)
    n = len(fx)
    return _pick(fx < float(lo), _full(lo, n), _pick(fx > float(hi), _full(hi, n), x))


def _surrogate(chain: Chain, ratios: np.ndarray, clipped: np.ndarray, A: np.ndarray, lo: Any, hi: Any,
               labels: tuple[str, ...]) -> Step:  # fmt: skip
    dec = chain.decimals
    ratios, clipped, A = chain.coerce(ratios, clipped, A)
    first, second = ratios * A, clipped * A
    ff, fs = to_float(first), to_float(second)
    words = "clip(ρ) · A"
    truth = np.minimum(ff, fs)
    if chain.mistake == "grpo_clip_on_advantage":
        second = ratios * _clip(A, lo, hi)
        fs, words = to_float(second), "ρ · clip(A)"
    pick, name = (ff >= fs, "max") if chain.mistake == "grpo_max_for_min" else (ff <= fs, "min")
    if (words != "clip(ρ) · A" or name == "max") and np.array_equal(np.where(pick, ff, fs), truth):
        raise MistakeNotApplicable  # the slip changes no surrogate (no clip binds)
    fa, fr, fc = to_float(A), to_float(ratios), to_float(clipped)
    if words == "clip(ρ) · A":
        written = tuple(f"{name}({fmt(r, dec)} · {_par(fmt(a, dec))}, {fmt(c, dec)} · {_par(fmt(a, dec))})"
                        for r, c, a in zip(fr, fc, fa, strict=True))  # fmt: skip
    else:
        written = tuple(f"{name}({fmt(r, dec)} · {_par(fmt(a, dec))}, {fmt(r, dec)} · clip({fmt(a, dec)}))"
                        for r, a in zip(fr, fa, strict=True))  # fmt: skip
    return chain.step(
        Formula,
        "surrogate",
        _pick(pick, first, second),
        title="Surrogate",
        symbol="s",
        rows=labels,
        latex="",
        formula=f"s_i,t = {name}(ρ · A, {words})",
        written=written,
        explain="The pessimistic of the two: past the clip the ratio earns nothing more, in either direction of A.",
    )
