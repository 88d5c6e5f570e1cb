"""Kind ``decode``: how a model chooses its next token.

greedy: the most probable token. sample: a draw u from the whole distribution. top-k: the k most
probable tokens kept. top-p (nucleus sampling, Holtzman et al. 2020): the smallest set of most
probable tokens whose probabilities add up to at least p kept, that is every token whose running sum
*before* it is below p. Kept probabilities are renormalised; a given uniform draw u in [0, 1) picks
the first token, in vocabulary order, whose running sum of the renormalised distribution exceeds u
(the inverse CDF). A temperature T divides the logits first.

beam: one step of beam search: every beam b and token v scores s_b + log p_b(v) (log-probabilities
add); with a length penalty (Wu et al. 2016) the candidates are ranked by score / ((5 + L)/6)^α;
the best ``beam_width`` are kept. Ties go to the earlier beam, then the earlier token.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivation import Add, Argmax, Arrange, Divide, Formula, Input, Pick, Step
from ..derivation.arith import Chain, is_exact, to_float
from ..derivation.fmt import fmt
from ..numbers import Node, to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.decode import Beam, Decode, Draw, TopK, TopP
from . import decide
from .common import softmax_inline, temperature_bits, temperature_step, whole_numbers
from .decode_beam import beam_steps
from .decode_top_p import Cut, top_p_cut, with_parts
from .memo import Memo
from .written import Written


def exact_entries(p: Problem) -> tuple[int, str]:
    """What the exact bound counts: a softmax of V logits writes V exponentials into each of its V
    probabilities (400 logits mixing e, π and fractions took 8 s inside one step); V² terms."""
    c = p.payload(Decode).choice
    given = sum(np.size(i.value) for i in inputs(p))
    if not isinstance(c, Draw) or not c.logits:
        return given, "input entries"
    v = int(np.size(c.distribution.floats))
    return max(given, v * v), "softmax terms (logits × logits)"


def inputs(p: Problem) -> list[Input]:
    d = p.payload(Decode)
    c = d.choice
    if isinstance(c, Beam):
        beams = tuple(f"beam {b}" for b in range(1, c.beams.shape[0] + 1))
        return [
            Input(
                "beams", "log p", c.beams.floats, None, rows=beams, cols=d.vocab, role="next-token log-probabilities"
            ),
            Input("beam_scores", "s", c.scores.floats, None, rows=beams, role="each beam's log-probability so far"),
        ]
    if c.logits:
        return [Input("logits", "z", c.distribution.floats, None, rows=d.vocab, role="the next token's logits")]
    return [
        Input("probabilities", "p", c.distribution.floats, None, rows=d.vocab, role="the next token's probabilities")
    ]


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(Decode)
    c = d.choice
    if isinstance(c, Beam):
        return beam_steps(c, d.vocab, chain)
    labels = d.vocab
    steps: list[Step] = []
    if c.logits:
        z = chain.given(c.distribution)
        T_node = p.settings.temperature
        if T_node is not None and node_float(T_node) != 1.0:
            T_float = node_float(T_node)
            T = chain.const(lambda: to_exact(T_node), T_float)
            scaled = temperature_step(
                chain,
                z,
                T,
                T_float,
                labels,
                "A temperature above 1 flattens the distribution (more varied picks); below 1 "
                "sharpens it towards greedy decoding.",
            )
            steps.append(scaled)
            z = np.asarray(scaled.value)
        soft = softmax_inline(chain, z, "probabilities", "Probabilities", "z", "p", p.settings.shift_max, labels)
        if steps:  # the logits were divided by the temperature: the formula says what is exponentiated
            soft = dataclasses.replace(
                soft,
                formula="p_i = exp(z_i / T) / Σ_j exp(z_j / T)",
                latex=r"p_i = \frac{\exp(z_i / T)}{\sum_j \exp(z_j / T)}",
            )
        steps.append(soft)
        probs = np.asarray(soft.value)
    else:
        probs = chain.given(c.distribution)
    if d.strategy == "greedy":
        best = _argmax(c, chain, probs)
        steps.append(
            Argmax(
                id="choice",
                title="Greedy choice",
                formula="ŷ = argmax_i p_i",
                latex=r"\hat y = \arg\max_i p_i",
                symbol="ŷ",
                value=labels[best],
                rows=labels,
                probs=to_float(probs),
                labels=labels,
                explain="Greedy decoding takes the most probable token, every time.",
            )
        )
        return steps
    # the exact values are worked out only when a float comparison is in doubt
    exact: Callable[[], list[Any] | None] = functools.cache(lambda: _exact_probabilities(c, chain))
    drawn, drawn_exact = probs, exact
    if c.filter is not None:
        drawn, flags = _filter(d, c.filter, c, chain, probs, steps, exact)

        def drawn_exact() -> list[Any] | None:
            given = exact()
            if given is None:
                return None
            masked = [x * f for x, f in zip(given, flags, strict=True)]
            total = decide.running(masked)[-1]
            return [x / total for x in masked] if decide.greater(0.0, 0.0, (total, 0)) else None

    if c.u is None:
        return steps
    return steps + _draw(labels, c.u, chain, drawn, d.strategy != "sample", drawn_exact)


def _exact_probabilities(c: Draw, chain: Chain) -> list[Any] | None:
    """In float arithmetic, the given probabilities' exact values (for deciding what a float running
    sum leaves in doubt); None otherwise (logits, hand mode, a slip)."""
    if chain.mode != "float" or chain.mistake is not None or c.logits:
        return None
    return decide.exact_values(c.distribution.nodes.ravel())


def _argmax(c: Draw, chain: Chain, probs: np.ndarray) -> int:
    """The most probable token: probabilities within decide.TIE of the largest as floats are compared
    exactly (the given probabilities, or the logits, whose order softmax keeps; in exact mode too, whose
    floats of 1/3 and 0.33333333333333331 are equal), and a tie goes to the earlier vocabulary entry."""
    pf = to_float(probs)
    if chain.mode == "hand" or chain.mistake is not None:
        return int(np.argmax(pf))
    top = float(np.max(pf))
    near = [i for i, x in enumerate(pf) if top - float(x) <= decide.TIE]
    if len(near) == 1:
        return near[0]
    nodes = c.distribution.nodes.ravel()
    exact = decide.exact_values([nodes[i] for i in near])
    best = 0
    for k in range(1, len(near)):
        if decide.greater(0.0, 0.0, (exact[k], exact[best])):
            best = k
    return near[best]


def _filter(
    d: Decode,
    f: TopK | TopP,
    c: Draw,
    chain: Chain,
    probs: np.ndarray,
    steps: list[Step],
    exact: Callable[[], list[Any] | None],
) -> tuple[np.ndarray, list[int]]:
    labels, V = d.vocab, len(d.vocab)
    order = _descending(c, chain, probs)
    sorted_ = _sorted_step(chain, probs, order, tuple(labels[i] for i in order), steps)
    if isinstance(f, TopK):
        k = f.k
        cut = Cut(k, lambda j: f"[rank {j + 1} ≤ {k}]", f"the k = {k} most probable tokens", "", probs)
    else:
        cut = top_p_cut(labels, f, chain, probs, order, sorted_, steps, exact)
    rank = {tok: j for j, tok in enumerate(order)}
    flags = [1 if rank[i] < cut.n_keep else 0 for i in range(V)]
    written = Written(lambda idx, dec: cut.why(rank[idx[0]]), 1, chain.decimals)
    steps.append(_kept_step(d, f, chain, flags, cut, written))
    kept = steps[-1].value
    steps.append(_renormalized_step(labels, chain, cut.source, kept, "q" if cut.source is not probs else "p"))
    renorm = steps[-1].value
    return renorm, flags


def _descending(c: Draw, chain: Chain, probs: np.ndarray) -> list[int]:
    """The vocabulary's order by probability: largest first, ties to the earlier vocabulary entry;
    values closer than decide.TIE by their exact values (the given probabilities, or the logits, whose
    order softmax keeps)."""
    pf = to_float(probs)
    if chain.mode == "hand" or chain.mistake is not None:
        return [int(i) for i in np.argsort(-np.round(pf, 12), kind="stable")]
    nodes = c.distribution.nodes
    order = ORDERS.get(nodes, pf.tobytes(), lambda: decide.descending([float(x) for x in pf], _exact_of(nodes)))
    return list(order)


def _exact_of(nodes: np.ndarray) -> Callable[[int], Any]:
    """The exact value of given number i, each found once for a problem's numbers."""
    flat = nodes.ravel()
    return EXACT.get(nodes, "exact", lambda: functools.cache(lambda i: decide.exact_values([flat[i]])[0]))


# A check reruns the derivation once for each answer it weighs: over 99,000 logits in runs of equal
# values the order took a second of fractions each time. Each distribution's order (by the given
# numbers and the probabilities' bytes) and the given numbers' exact values are found once.
ORDERS = Memo(32)
EXACT = Memo(4)


def _sorted_step(
    chain: Chain, probs: np.ndarray, order: list[int], sorted_labels: tuple[str, ...], steps: list[Step]
) -> np.ndarray:
    """The probabilities, largest first: the step both filters start from."""
    steps.append(
        chain.step(
            Arrange,
            "sorted",
            np.asarray([probs[i] for i in order], dtype=probs.dtype),
            title="Probabilities, largest first",
            formula="p sorted in descending order",
            latex=r"p_{(1)} \ge p_{(2)} \ge \dots",
            symbol="p_sorted",
            rows=sorted_labels,
            source="the probabilities, largest first (ties: the earlier vocabulary entry first)",
            ranked=True,
            explain="Both filters keep the most probable tokens, so they start from the sorted distribution.",
        )
    )
    sorted_: np.ndarray = steps[-1].value
    return sorted_


def _kept_step(d: Decode, f: TopK | TopP, chain: Chain, flags: list[int], cut: Cut, written: Written) -> Step:
    """0/1 per token in vocabulary order: kept by the filter, with each token's reason."""
    both = isinstance(f, TopP) and f.k is not None
    rule = cut.rule
    return chain.step(
        Formula,
        "kept",
        whole_numbers(chain, flags),
        title="Kept tokens",
        formula=f"kept_i = [rank of i ≤ k]: {rule}"
        if d.strategy == "top-k"
        else f"kept_i = [the running sum before i < p]: {rule}"
        if not both
        else f"kept_i = [rank of i ≤ k]·[the running sum of the top k before i < p]: {rule}",
        latex=r"\mathrm{kept}_i \in \{0, 1\}",
        symbol="kept",
        rows=d.vocab,
        written=written,
        explain="A token is kept when its rank is within k (top-k) and the top k's tokens more probable than it, "
        "renormalised, hold less than p (top-p: the token that reaches p is kept too); it must pass both."
        if both
        else "A token is kept when its rank is within k."
        if d.strategy == "top-k"
        else "A token is kept when the tokens more probable than it hold less than p (the token that "
        "reaches p is kept too).",
        note=cut.note,
    )


def _renormalized_step(labels: tuple[str, ...], chain: Chain, source: np.ndarray, kept: np.ndarray, p_sym: str) -> Step:
    """The kept probabilities over their sum (the dropped ones 0)."""
    probs_c, kept_c = chain.coerce(source, kept)
    masked = np.asarray(probs_c * kept_c, dtype=probs_c.dtype)
    total = np.asarray(sum(masked.tolist()), dtype=masked.dtype)
    return chain.step(
        Divide,
        "renormalized",
        np.asarray(masked / total, dtype=masked.dtype),
        title="Kept probabilities, renormalised",
        formula=f"p'_i = kept_i {p_sym}_i / Σ_j kept_j {p_sym}_j",
        latex=rf"p'_i = \frac{{\mathrm{{kept}}_i\, {p_sym}_i}}{{\sum_j \mathrm{{kept}}_j\, {p_sym}_j}}",
        symbol="p'",
        rows=labels,
        num=masked,
        den=total,
        explain="The dropped tokens get 0; the kept ones share the whole probability in their old proportions.",
    )


def _draw(
    labels: tuple[str, ...],
    u_node: Node,
    chain: Chain,
    dist: np.ndarray,
    filtered: bool,
    exact: Callable[[], list[Any] | None],
) -> list[Step]:
    name = "p'" if filtered else "p"
    step = chain.step(
        Add,
        "draw_cumulative",
        np.asarray(np.cumsum(dist), dtype=dist.dtype),
        title="Running sum in vocabulary order (the CDF)",
        formula=f"F_i = F_(i−1) + {name}_i",
        latex=rf"F_i = F_{{i-1}} + {name}_i",
        symbol="F",
        rows=labels,
        part_names=("F_(i−1)", f"{name}_i"),
        explain="Token i owns the stretch from F_(i−1) to F_i of [0, 1): a uniform u lands in it with probability "
        f"{name}_i.",
    )
    cum = step.value
    step = with_parts(step, cum, dist)
    note = ""
    if is_exact(cum):
        u = to_exact(u_node)
        hit = next((i for i, x in enumerate(cum) if bool(x > u)), len(labels) - 1)
        if hit and bool(cum[hit - 1] == u):
            note = decide.boundary_note(node_float(u_node), hit, "exactly")
    else:
        floats = [float(x) for x in to_float(cum)]
        u_f = node_float(u_node)
        given = exact() if any(abs(x - u_f) <= decide.TIE for x in floats) else None
        hit, note = decide.first_above(
            floats,
            u_f,
            decide.running(given) if given is not None else None,
            decide.exact_values([u_node])[0] if given is not None else None,
        )
    if note:
        note += f": {labels[hit]}."
    pick = Pick(
        id="choice",
        title="The draw",
        formula="the first token (vocabulary order) with F_i > u",
        latex=r"\text{the first } i \text{ with } F_i > u",
        symbol="ŷ",
        value=labels[hit],
        rows=labels,
        probs=to_float(dist),
        labels=labels,
        cumulative=to_float(cum),
        u=node_float(u_node),
        what="Sampled",
        explain="Inverse-CDF sampling: the draw u picks the token whose stretch of [0, 1) contains it.",
        note=note,
    )
    return [step, pick]


def header(p: Problem) -> list[str]:
    dc = p.payload(Decode)
    bits = [p.kind, dc.strategy, *temperature_bits(p)]
    for key, v in dc.numbers():
        bits.append(f"{key.replace('_', ' ')} = {v if isinstance(v, int) else fmt(node_float(v), 6)}")
    if dc.penalty is not None:
        bits.append(f"length penalty α = {fmt(node_float(dc.penalty.alpha), 6)}, L = {dc.penalty.length}")
    return bits
