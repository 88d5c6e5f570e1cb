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

import numpy as np

from ..arith import Chain, MistakeNotApplicable, is_exact, to_float
from ..derivation import Add, Argmax, Arrange, Divide, Formula, Input, Map, Pick, Step
from ..fmt import fmt
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from .common import softmax_inline, temperature_step, whole_numbers


def exact_entries(p: Problem) -> tuple[int, str]:
    """What the exact bound counts: a softmax of V logits writes V exponentials into each of its V
    probabilities (400 logits mixing e, π and fractions took 8 s inside one step); V² terms."""
    d = p.decode
    assert d is not None
    given = sum(np.size(i.value) for i in inputs(p))
    if d.logits is None:
        return given, "input entries"
    v = int(np.size(d.logits.floats))
    return max(given, v * v), "softmax terms (logits × logits)"


def inputs(p: Problem) -> list[Input]:
    d = p.decode
    assert d is not None
    if d.beams is not None and d.beam_scores is not None:
        beams = tuple(f"beam {b}" for b in range(1, d.beams.shape[0] + 1))
        return [
            Input(
                "beams", "log p", d.beams.floats, None, rows=beams, cols=d.vocab, role="next-token log-probabilities"
            ),
            Input(
                "beam_scores", "s", d.beam_scores.floats, None, rows=beams, role="each beam's log-probability so far"
            ),
        ]
    if d.logits is not None:
        return [Input("logits", "z", d.logits.floats, None, rows=d.vocab, role="the next token's logits")]
    assert d.probabilities is not None
    return [
        Input("probabilities", "p", d.probabilities.floats, None, rows=d.vocab, role="the next token's probabilities")
    ]


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.decode
    assert d is not None
    if d.strategy == "beam":
        return _beam(p, chain)
    labels = d.vocab
    steps: list[Step] = []
    if d.logits is not None:
        z = chain.given(d.logits)
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
        assert d.probabilities is not None
        probs = chain.given(d.probabilities)
    if d.strategy == "greedy":
        best = int(np.argmax(to_float(probs)))
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
    drawn = probs
    if d.strategy in ("top-k", "top-p"):
        drawn = _filter(p, chain, probs, steps)
    if d.u is None:
        return steps
    return steps + _draw(p, chain, drawn, d.strategy != "sample")


def _filter(p: Problem, chain: Chain, probs: np.ndarray, steps: list[Step]) -> np.ndarray:
    d = p.decode
    assert d is not None
    labels, V = d.vocab, len(d.vocab)
    pf = to_float(probs)
    order = [int(i) for i in np.argsort(-np.round(pf, 12), kind="stable")]  # ties: the earlier vocabulary entry first
    sorted_ = chain.finish("sorted", np.asarray([probs[i] for i in order], dtype=probs.dtype))
    sorted_labels = tuple(labels[i] for i in order)
    steps.append(
        Arrange(
            id="sorted",
            title="Probabilities, largest first",
            formula="p sorted in descending order",
            latex=r"p_{(1)} \ge p_{(2)} \ge \dots",
            symbol="p_sorted",
            value=sorted_,
            rows=sorted_labels,
            source="the probabilities, largest first (ties: the earlier vocabulary entry first)",
            ranked=True,
            explain="Both filters keep the most probable tokens, so they start from the sorted distribution.",
        )
    )
    if d.strategy == "top-k":
        assert d.k is not None
        n_keep = d.k
        why = [f"[rank {r} ≤ {n_keep}]" for r in range(1, V + 1)]
        rule = f"the k = {n_keep} most probable tokens"
    else:
        cum = chain.finish("cumulative", np.asarray(np.cumsum(sorted_), dtype=sorted_.dtype))
        steps.append(
            Add(
                id="cumulative",
                title="Running sum of the sorted probabilities",
                formula="P_(j) = P_(j−1) + p_(j)",
                latex=r"P_{(j)} = P_{(j-1)} + p_{(j)}",
                symbol="P",
                value=cum,
                rows=sorted_labels,
                parts=(np.concatenate([np.zeros(1, dtype=cum.dtype), cum[:-1]]).astype(cum.dtype), sorted_),
                part_names=("P_(j−1)", "p_(j)"),
                explain="How much probability the j most probable tokens hold together.",
            )
        )
        assert d.p is not None
        p_val = to_exact(d.p) if is_exact(cum) else node_float(d.p)
        prior = [0 * cum[0], *list(cum[:-1])]  # the running sum before each sorted token
        # exact forms compare exactly; floats with a margin, so that 0.7 + 0.2 (0.8999999999999999) reaches
        # p = 0.9 as it does by hand and in exact mode
        n_keep = sum(1 for x in prior if bool(x < p_val) and (is_exact(cum) or float(x) < float(p_val) - 1e-12))
        p_text = fmt(node_float(d.p), 6)
        why = [f"[{fmt(float(x), chain.decimals)} < {p_text}]" for x in prior]
        rule = f"the smallest set of most probable tokens whose probabilities reach p = {p_text}"
        if chain.mistake == "top_p_early":
            if n_keep < 2:
                raise MistakeNotApplicable
            n_keep -= 1
        elif chain.mistake == "top_p_late":
            if n_keep >= V:
                raise MistakeNotApplicable
            n_keep += 1
    rank = {tok: j for j, tok in enumerate(order)}
    flags = [1 if rank[i] < n_keep else 0 for i in range(V)]
    kept = chain.finish("kept", whole_numbers(chain, flags))
    steps.append(
        Formula(
            id="kept",
            title="Kept tokens",
            formula=(
                f"kept_i = [rank of i ≤ k]: {rule}"
                if d.strategy == "top-k"
                else f"kept_i = [the running sum before i < p]: {rule}"
            ),
            latex=r"\mathrm{kept}_i \in \{0, 1\}",
            symbol="kept",
            value=kept,
            rows=labels,
            written=tuple(why[rank[i]] for i in range(V)),
            explain="A token is kept when its rank is within k (top-k), or when the tokens more probable than "
            "it hold less than p (top-p: the token that reaches p is kept too).",
        )
    )
    probs_c, kept_c = chain.coerce(probs, kept)
    masked = np.asarray(probs_c * kept_c, dtype=probs_c.dtype)
    total = np.asarray(sum(masked.tolist()), dtype=masked.dtype)
    renorm = chain.finish("renormalized", np.asarray(masked / total, dtype=masked.dtype))
    steps.append(
        Divide(
            id="renormalized",
            title="Kept probabilities, renormalised",
            formula="p'_i = kept_i p_i / Σ_j kept_j p_j",
            latex=r"p'_i = \frac{\mathrm{kept}_i\, p_i}{\sum_j \mathrm{kept}_j\, p_j}",
            symbol="p'",
            value=renorm,
            rows=labels,
            num=masked,
            den=total,
            explain="The dropped tokens get 0; the kept ones share the whole probability in their old proportions.",
        )
    )
    return renorm


def _draw(p: Problem, chain: Chain, dist: np.ndarray, filtered: bool) -> list[Step]:
    d = p.decode
    assert d is not None and d.u is not None
    labels = d.vocab
    cum = chain.finish("draw_cumulative", np.asarray(np.cumsum(dist), dtype=dist.dtype))
    name = "p'" if filtered else "p"
    step = Add(
        id="draw_cumulative",
        title="Running sum in vocabulary order (the CDF)",
        formula=f"F_i = F_(i−1) + {name}_i",
        latex=rf"F_i = F_{{i-1}} + {name}_i",
        symbol="F",
        value=cum,
        rows=labels,
        parts=(np.concatenate([np.zeros(1, dtype=cum.dtype), cum[:-1]]).astype(cum.dtype), dist),
        part_names=("F_(i−1)", f"{name}_i"),
        explain="Token i owns the stretch from F_(i−1) to F_i of [0, 1): a uniform u lands in it with probability "
        f"{name}_i.",
    )
    u = to_exact(d.u) if is_exact(cum) else node_float(d.u)
    hit = next((i for i, x in enumerate(cum) if bool(x > u)), len(labels) - 1)
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
        u=node_float(d.u),
        what="Sampled",
        explain="Inverse-CDF sampling: the draw u picks the token whose stretch of [0, 1) contains it.",
    )
    return [step, pick]


def _beam(p: Problem, chain: Chain) -> list[Step]:
    d = p.decode
    assert d is not None and d.beams is not None and d.beam_scores is not None and d.beam_width is not None
    L = chain.given(d.beams)
    S = chain.given(d.beam_scores)
    L, S = chain.coerce(L, S)
    B, V = L.shape
    beams = tuple(f"beam {b}" for b in range(1, B + 1))
    S_full = np.repeat(S[:, None], V, axis=1)
    value = S_full * L if chain.mistake == "beam_multiplied" else S_full + L
    cand = chain.finish("candidates", np.asarray(value, dtype=L.dtype))
    steps: list[Step] = [
        Add(
            id="candidates",
            title="Candidate scores",
            formula="score(b, v) = s_b + log p_b(v)",
            latex=r"\mathrm{score}(b, v) = s_b + \log p_b(v)",
            symbol="score",
            value=cand,
            rows=beams,
            cols=d.vocab,
            parts=(S_full, L),
            part_names=("s_b", "log p_b(v)"),
            explain="Probabilities multiply along a hypothesis, so their logarithms add: each beam's score plus "
            "the log-probability of each next token.",
        )
    ]
    rank_by = cand
    L_len = d.length
    if d.length_penalty is not None and L_len is not None:
        a_f = node_float(d.length_penalty)
        lp_f = ((5 + L_len) / 6) ** a_f
        lp = chain.const(lambda: _lp_exact(d.length_penalty, L_len), lp_f)
        rank_by = chain.finish("normalized", np.asarray(cand / lp, dtype=cand.dtype))
        steps.append(
            Map(
                id="normalized",
                title="Scores with the length penalty",
                formula=f"score / lp, lp = ((5 + L)/6)^α = ((5 + {d.length})/6)^{fmt(a_f, 6)}",
                latex=rf"\mathrm{{score}} / \left(\frac{{5 + {d.length}}}{{6}}\right)^{{{fmt(a_f, 6)}}}",
                symbol="score/lp",
                value=rank_by,
                rows=beams,
                cols=d.vocab,
                fn="divide",
                arg=cand,
                param=np.asarray(lp),
                param_text=f"((5 + {d.length})/6)^{fmt(a_f, 6)}",
                explain="Summed log-probabilities only fall as a hypothesis grows; Wu et al. (2016) divide by "
                "((5 + L)/6)^α so that longer hypotheses are not unfairly beaten by shorter ones.",
            )
        )
    flat = to_float(rank_by).ravel()
    # ties (−0.4 − 0.5 and −0.7 − 0.2, apart only by float noise) go to the earlier beam, as exactly
    order = [int(i) for i in np.argsort(-np.round(flat, 12), kind="stable")][: d.beam_width]
    kept_labels = tuple(f"beam {i // V + 1}: {d.vocab[i % V]}" for i in order)
    kept = chain.finish("kept_beams", np.asarray([cand.flat[i] for i in order], dtype=cand.dtype))
    ranked = "by the length-penalised score" if d.length_penalty is not None else "by score"
    steps.append(
        Arrange(
            id="kept_beams",
            title="Kept candidates",
            formula=f"the best {d.beam_width} candidates, {ranked}",
            latex=rf"\text{{the best {d.beam_width} candidates}}",
            symbol="s'",
            value=kept,
            rows=kept_labels,
            source=f"ranked {ranked}; ties: the earlier beam, then the earlier token",
            ranked=True,
            explain="Beam search keeps only the best few hypotheses and extends each again; a kept candidate "
            "carries its summed log-probability on as its beam score.",
        )
    )
    steps.append(
        Pick(
            id="kept_labels",
            title="The new beams",
            formula="beam b: token, best first",
            latex=r"\text{beam } b\text{: token}",
            symbol="beams",
            value=", ".join(kept_labels),
            rows=kept_labels,
            probs=to_float(np.asarray([rank_by.flat[i] for i in order], dtype=rank_by.dtype)),
            labels=kept_labels,
            what="Kept",
            explain="Each new beam is an old beam extended by one token; two new beams may share an old one.",
        )
    )
    return steps


def _lp_exact(alpha: object, length: int) -> object:
    import sympy as sp

    return sp.Rational(5 + length, 6) ** to_exact(alpha)  # type: ignore[arg-type]
