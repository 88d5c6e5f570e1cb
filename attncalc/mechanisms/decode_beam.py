"""Kind ``decode``, strategy beam: one step of beam search. Every beam b and token v scores
s_b + log p_b(v) (log-probabilities add); with a length penalty (Wu et al. 2016) the candidates are
ranked by score / ((5 + L)/6)^α; the best ``beam_width`` are kept. Ties go to the earlier beam, then
the earlier token."""

from __future__ import annotations

import numpy as np

from ..derivation import Add, Arrange, Map, Pick, Step
from ..derivation.arith import Chain, to_float
from ..derivation.fmt import fmt
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse.decode import Beam

# how kept candidates tied in score are ordered (the stable sort below): every view that asks the new
# beams states it, since check accepts this order only
TIE_RULE = "Candidates tied in score are ranked by the earlier beam first, then by the earlier token."


def beam_steps(d: Beam, vocab: tuple[str, ...], chain: Chain) -> list[Step]:
    L = chain.given(d.beams)
    S = chain.given(d.scores)
    L, S = chain.coerce(L, S)
    B, V = L.shape
    beams = tuple(f"beam {b}" for b in range(1, B + 1))
    S_full = np.repeat(S[:, None], V, axis=1)
    value = S_full * L if chain.mistake == "beam_multiplied" else S_full + L
    steps: list[Step] = [
        chain.step(
            Add,
            "candidates",
            np.asarray(value, dtype=L.dtype),
            title="Candidate scores",
            formula="score(b, v) = s_b + log p_b(v)",
            latex=r"\mathrm{score}(b, v) = s_b + \log p_b(v)",
            symbol="score",
            rows=beams,
            cols=vocab,
            parts=(S_full, L),
            part_names=("s_b", "log p_b(v)"),
            explain="Probabilities multiply along a hypothesis, so their logarithms add: each beam's score plus "
            "the log-probability of each next token.",
        )
    ]
    cand = steps[0].value
    rank_by = cand
    penalty = d.penalty
    if penalty is not None:
        L_len = penalty.length
        a_f = node_float(penalty.alpha)
        lp_f = ((5 + L_len) / 6) ** a_f
        lp = chain.const(lambda: _lp_exact(penalty.alpha, L_len), lp_f)
        steps.append(
            chain.step(
                Map,
                "normalized",
                np.asarray(cand / lp, dtype=cand.dtype),
                title="Scores with the length penalty",
                formula=f"score / lp, lp = ((5 + L)/6)^α = ((5 + {L_len})/6)^{fmt(a_f, 6)}",
                latex=rf"\mathrm{{score}} / \left(\frac{{5 + {L_len}}}{{6}}\right)^{{{fmt(a_f, 6)}}}",
                symbol="score/lp",
                rows=beams,
                cols=vocab,
                fn="divide",
                arg=cand,
                param=np.asarray(lp),
                param_text=f"((5 + {L_len})/6)^{fmt(a_f, 6)}",
                explain="Summed log-probabilities only fall as a hypothesis grows; Wu et al. (2016) divide by "
                "((5 + L)/6)^α so that longer hypotheses are not unfairly beaten by shorter ones.",
            )
        )
        rank_by = steps[-1].value
    flat = to_float(rank_by).ravel()
    # ties (−0.4 − 0.5 and −0.7 − 0.2, apart only by float noise) go to the earlier beam, as exactly
    order = [int(i) for i in np.argsort(-np.round(flat, 12), kind="stable")][: d.width]
    kept_labels = tuple(f"beam {i // V + 1}: {vocab[i % V]}" for i in order)
    penalised = penalty is not None
    ranked = "by the length-penalised score" if penalised else "by score"
    # ranked by score/lp, but what is kept (and written) is the summed log-probability, not score/lp
    written = ", each written as its summed log-probability (the candidate score, not score/lp)" if penalised else ""
    steps.append(
        chain.step(
            Arrange,
            "kept_beams",
            np.asarray([cand.flat[i] for i in order], dtype=cand.dtype),
            title="Kept candidates (summed log-probabilities)" if penalised else "Kept candidates",
            formula=f"the best {d.width} candidates, {ranked}{written}",
            latex=rf"\text{{the best {d.width} candidates{', written as score (not score/lp)' if penalised else ''}}}",
            symbol="s'",
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
            # (named, so that an item cites score(b, v) = s_b + log p_b(v), and lp where it divides)
            formula=f"beam b: token, best first by {'score/lp' if penalised else 'score'}",
            latex=r"\text{beam } b\text{: token}",
            symbol="beams",
            value=", ".join(kept_labels),
            rows=kept_labels,
            probs=to_float(np.asarray([rank_by.flat[i] for i in order], dtype=rank_by.dtype)),
            labels=kept_labels,
            what="Kept",
            ties=TIE_RULE,
            explain="Each new beam is an old beam extended by one token; two new beams may share an old one.",
        )
    )
    return steps


def _lp_exact(alpha: object, length: int) -> object:
    import sympy as sp

    return sp.Rational(5 + length, 6) ** to_exact(alpha)  # type: ignore[arg-type]
