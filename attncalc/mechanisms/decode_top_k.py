"""Kind ``decode``: top-k and top-p together, in Hugging Face's order (temperature, top-k, top-p).

transformers' TopKLogitsWarper sets every logit outside the k largest to −∞; TopPLogitsWarper then takes
the softmax of what is left, so the nucleus is found in the top k's *renormalised* probabilities: a token
is kept when it is among the top k and the renormalised probabilities of the tokens ranked above it add
up to less than p. The steps: ``kept_top_k`` (0/1 in vocabulary order), ``top_k_renormalized`` (the
kept probabilities over their sum), then top-p's ``cumulative`` over them, sorted, and ``kept``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Divide, Formula, Step
from ..derivation.arith import Chain
from .common import whole_numbers


def top_k_first(
    labels: tuple[str, ...], k: int, chain: Chain, probs: np.ndarray, order: list[int], steps: list[Step]
) -> np.ndarray:
    """The top-k filter before top-p: its two steps, and the renormalised probabilities in sorted order
    (what top-p's running sum adds up)."""
    V = len(labels)
    rank = {tok: j for j, tok in enumerate(order)}
    flags = [1 if rank[i] < k else 0 for i in range(V)]
    steps.append(
        chain.step(
            Formula,
            "kept_top_k",
            whole_numbers(chain, flags),
            title="Top-k first: the k most probable tokens",
            formula=f"κ_i = [rank of i ≤ k], k = {k}",
            latex=r"\mathrm{kept}^{(k)}_i = [\mathrm{rank}(i) \le k]",
            symbol="κ",
            rows=labels,
            written=tuple(f"[rank {rank[i] + 1} ≤ {k}]" for i in range(V)),
            explain="Hugging Face filters in the order temperature, top-k, top-p: the top k come first.",
        )
    )
    kept = steps[-1].value
    probs_c, kept_c = chain.coerce(probs, kept)
    masked = np.asarray(probs_c * kept_c, dtype=probs_c.dtype)
    total = np.asarray(sum(masked.tolist()), dtype=masked.dtype)
    steps.append(
        chain.step(
            Divide,
            "top_k_renormalized",
            np.asarray(masked / total, dtype=masked.dtype),
            title="The top k, renormalised",
            formula="q_i = κ_i p_i / Σ_j κ_j p_j",
            latex=r"p^{(k)}_i = \frac{\mathrm{kept}^{(k)}_i\, p_i}{\sum_j \mathrm{kept}^{(k)}_j\, p_j}",
            symbol="q",
            rows=labels,
            num=masked,
            den=total,
            explain="Top-p then works on the softmax of what top-k left (the dropped logits are −∞): the top k's "
            "probabilities divided by their sum.",
        )
    )
    renorm = steps[-1].value
    if chain.mistake == "top_p_before_top_k":  # the slip: top-p's running sum over the whole distribution
        return np.asarray([probs[i] for i in order], dtype=probs.dtype)
    return np.asarray([renorm[i] for i in order], dtype=renorm.dtype)


def exact_renormalized(given: list[Any], order: list[int], k: int) -> list[Any]:
    """The given probabilities' exact values, renormalised over the top k (0 for the others), in vocabulary order."""
    top = set(order[:k])
    total = sum(given[i] for i in top)
    return [given[i] / total if i in top else 0 * given[i] for i in range(len(given))]
