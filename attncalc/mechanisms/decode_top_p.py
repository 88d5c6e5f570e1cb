"""Kind ``decode``: the top-p (nucleus) cut on the sorted probabilities.

The running sum of the sorted probabilities (of the top k's renormalised ones after top-k), how many
tokens it keeps (every token whose running sum *before* it is below p; values within decide.TIE of p
decided by their exact values), each token's reason, a note when the cut falls on a sum equal to p,
and the top-p mistakes (one token too few or too many).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivation import Add, Step
from ..derivation.arith import Chain, MistakeNotApplicable, is_exact
from ..derivation.fmt import fmt
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse.decode import TopP
from . import decide
from .decode_top_k import exact_renormalized, top_k_first


@dataclasses.dataclass
class Cut:
    """What a filter keeps: the n_keep most probable tokens, each token's reason (in sorted order),
    the rule in words, a note on a cut at a sum equal to p, and what the kept probabilities are
    renormalised from."""

    n_keep: int
    why: Callable[[int], str]  # the reason of the token at a rank (0: the most probable)
    rule: str
    note: str
    source: np.ndarray


def with_parts(step: Add, cum: np.ndarray, added: np.ndarray) -> Add:
    """A running sum's step with its two parts: the sum before each entry (from the sum as finished,
    an answer in its place under check) and the entry added."""
    before = np.concatenate([np.zeros(1, dtype=cum.dtype), cum[:-1]]).astype(cum.dtype)
    return dataclasses.replace(step, parts=(before, added))


def top_p_cut(
    labels: tuple[str, ...],
    f: TopP,
    chain: Chain,
    probs: np.ndarray,
    order: list[int],
    sorted_: np.ndarray,
    steps: list[Step],
    exact: Callable[[], list[Any] | None],
) -> Cut:
    """Top-p's steps (top-k's first when it has a k) and the tokens it keeps."""
    k_first = f.k  # top-p after top-k (Hugging Face's order)
    source = probs  # what the kept tokens' probabilities are renormalised from
    # top-k first, then top-p over the top k renormalised
    base = top_k_first(labels, k_first, chain, probs, order, steps) if k_first is not None else sorted_
    if k_first is not None:  # top-p renormalises what top-k left, q (the answerer's own q, under check)
        source = np.empty(base.shape, dtype=base.dtype)
        source[np.asarray(order)] = base
    sorted_labels = tuple(labels[i] for i in order)
    cum = _running_sum(chain, base, sorted_labels, k_first is not None, steps)
    p_val = to_exact(f.p) if is_exact(cum) else node_float(f.p)
    prior = [0 * cum[0], *list(cum[:-1])]  # the running sum before each sorted token
    n_keep, exact_prior, exact_p = _count_below(f, k_first, order, cum, prior, p_val, exact)
    p_text = fmt(node_float(f.p), 6)
    dec = chain.decimals

    def why(j: int) -> str:  # (written when a view asks: a check's reruns over 99,000 tokens write none)
        w = f"[{fmt(float(prior[j]), dec)} < {p_text}]"
        return w if k_first is None else f"[rank {j + 1} ≤ {k_first}]·{w}"

    note = ""
    if n_keep < len(labels) and chain.mistake is None and (k_first is None or n_keep < k_first):
        note = _cut_note(prior[n_keep], sorted_labels[n_keep], cum, p_val, p_text, exact_prior, n_keep, exact_p)
    rule = f"the smallest set of most probable tokens whose probabilities reach p = {p_text}"
    if k_first is not None:
        rule += f", among the top k = {k_first} renormalised"
        n_keep = min(n_keep, k_first)
    n_keep = _mistaken(chain, n_keep, k_first if k_first is not None else len(labels))
    return Cut(n_keep, why, rule, note, source)


def _running_sum(
    chain: Chain, base: np.ndarray, sorted_labels: tuple[str, ...], both: bool, steps: list[Step]
) -> np.ndarray:
    """The running sum of the sorted probabilities (the top k's, renormalised, when both filters run)."""
    running = chain.step(
        Add,
        "cumulative",
        np.asarray(np.cumsum(base), dtype=base.dtype),
        title="Running sum of the sorted probabilities" + (" of the top k" if both else ""),
        formula="P_(j) = P_(j−1) + q_(j)" if both else "P_(j) = P_(j−1) + p_(j)",
        latex=r"P_{(j)} = P_{(j-1)} + q_{(j)}" if both else r"P_{(j)} = P_{(j-1)} + p_{(j)}",
        symbol="P",
        rows=sorted_labels,
        part_names=("P_(j−1)", "q_(j)" if both else "p_(j)"),
        explain="How much probability the j most probable tokens hold together"
        + (" (of the top k, renormalised: the tokens after the k-th add 0)." if both else "."),
    )
    cum: np.ndarray = running.value  # its parts: the running sum before each token (as carried), and the token's own
    steps.append(with_parts(running, cum, base))
    return cum


def _count_below(
    f: TopP,
    k_first: int | None,
    order: list[int],
    cum: np.ndarray,
    prior: list[Any],
    p_val: Any,
    exact: Callable[[], list[Any] | None],
) -> tuple[int, list[Any] | None, Any]:
    """How many sorted tokens have a running sum before them below p, with the exact running sums and
    p used to decide values within decide.TIE of it (None when none was needed)."""
    # exact forms compare exactly; floats as decide says, so that 0.7 + 0.2 (0.8999999999999999) reaches
    # p = 0.9 as it does by hand and in exact mode
    if is_exact(cum):
        return sum(1 for x in prior if bool(x < p_val)), None, None
    doubt = any(abs(float(x) - float(p_val)) <= decide.TIE for x in prior)
    given = exact() if doubt else None
    if given and k_first is not None:
        given = exact_renormalized(given, order, k_first)
    exact_prior = decide.running([0, *(given[i] for i in order[:-1])]) if given else None
    exact_p = decide.exact_values([f.p])[0] if exact_prior is not None else None
    n_keep = sum(
        1
        for j, x in enumerate(prior)
        if decide.greater(float(p_val), float(x), None if exact_prior is None else (exact_p, exact_prior[j]))
    )
    return n_keep, exact_prior, exact_p


def _cut_note(
    x: Any,
    after: str,
    cum: np.ndarray,
    p_val: Any,
    p_text: str,
    exact_prior: list[Any] | None,
    n_keep: int,
    exact_p: Any,
) -> str:
    """The cut on a running sum equal to p: said, and how decided ("" when it is not)."""
    if is_exact(cum):
        on, how = bool(x == p_val), "exactly"
    else:
        near = abs(float(x) - float(p_val)) <= decide.TIE
        on = near and (exact_prior is None or bool(exact_prior[n_keep] == exact_p))
        how = "exactly" if exact_prior is not None else f"to within {decide.TIE_TEXT}"
    if not on:
        return ""
    return (
        f"The running sum before {after} equals p = {p_text} {how}: it is not below p, so {after} "
        "and the tokens after it are dropped."
    )


def _mistaken(chain: Chain, n_keep: int, most: int) -> int:
    """The count a top-p mistake keeps: one token too few or one too many (when there is one to move)."""
    if chain.mistake == "top_p_early":
        if n_keep < 2:
            raise MistakeNotApplicable
        return n_keep - 1
    if chain.mistake == "top_p_late":
        if n_keep >= most:
            raise MistakeNotApplicable
        return n_keep + 1
    return n_keep
