"""Kind ``speculative``: the acceptance rates α_i = Σ_x min(p_i(x), q_i(x)) and the expected number of
tokens one target pass yields, 1 + Σ_(j=1..γ) Π_(i≤j) α_i (Leviathan et al. 2023, section 3: the
acceptance rate, and the expected number of tokens, (1 − α^(γ+1)) / (1 − α) for a constant α)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivation import Formula, Step
from ..derivation.arith import Chain, to_float
from ..derivation.fmt import fmt
from ..parse.speculative import Speculative
from .common import whole_numbers


def _n(x: Any, dec: int) -> str:
    return fmt(float(to_float(np.asarray(x))), dec)


def rate_steps(
    d: Speculative, chain: Chain, le: Callable[[Any, Any], bool], q: np.ndarray, P: np.ndarray
) -> list[Step]:
    k = chain.decimals
    rates, written = [], []
    for i in range(d.gamma):
        mins = [a if le(a, b) else b for a, b in zip(P[i], q[i], strict=True)]
        rates.append(sum(mins[1:], mins[0]))
        written.append(" + ".join(f"min({_n(a, k)}, {_n(b, k)})" for a, b in zip(P[i], q[i], strict=True)))
    steps: list[Step] = [
        chain.step(
            Formula, "acceptance_rates", np.asarray(rates, dtype=q.dtype), title="Acceptance rates",
            formula="α_i = Σ_x min(p_i(x), q_i(x))", latex="", symbol="α", written=tuple(written),
            explain="The chance that the i-th drafted token is accepted, averaged over what the draft model "
            "might propose: the overlap of q_i and p_i (1 − α_i is their total variation distance).",
        )
    ]  # fmt: skip
    alpha = steps[-1].value
    total: Any = whole_numbers(chain, [1])[0]
    prod: Any = None
    terms = ["1"]
    for j in range(d.gamma):
        prod = alpha[j] if prod is None else prod * alpha[j]
        total = total + prod
        terms.append(" · ".join(_n(alpha[i], k) for i in range(j + 1)))
    steps.append(
        chain.step(
            Formula, "expected_tokens", np.asarray(total, dtype=alpha.dtype), title="Expected tokens per target pass",
            formula="E = 1 + Σ_j α_1 · … · α_j, j = 1 … γ", latex="", symbol="E", written=" + ".join(terms),
            defines=(f"γ = {d.gamma}, the drafted tokens",),
            explain="Drafted token j counts when it and every token before it are accepted (probability "
            "α_1 · … · α_j), and every pass yields one token of its own; for a constant α this is "
            "(1 − α^(γ+1)) / (1 − α).",
        )
    )  # fmt: skip
    return steps
