"""Kind ``bleu``: the sentence BLEU of Papineni et al. 2002, with no smoothing.

For each order n = 1 … N: c_n, the candidate's n-grams (c − n + 1 of them); m_n, its n-grams each
counted at most as often as it occurs in any one reference (clipped), summed; the modified
precision p_n = m_n / c_n. The brevity penalty BP = 1 if c > r, else exp(1 − r/c), r the reference
length closest to the candidate's (ties to the shorter). BLEU = BP · exp(Σ_n w_n ln p_n): a
precision of 0 makes the sum −∞ and BLEU 0.
"""

from __future__ import annotations

import functools
import math
from collections import Counter

import numpy as np

from ..derivation import Formula, Input, Step
from ..derivation.arith import Chain, is_exact, to_float
from ..derivation.fmt import fmt
from ..parse import Problem
from ..parse.types import Bleu
from .common import whole_numbers
from .memo import Memo

TERMS = 10  # n-grams written out per order before the rest is summarised


def inputs(p: Problem) -> list[Input]:
    b = p.payload(Bleu)
    out = [
        Input(
            "candidate",
            "candidate",
            np.arange(1.0, len(b.candidate) + 1),
            None,
            rows=b.candidate,
            role=f"the translation scored (c = {len(b.candidate)} tokens)",
            words=True,
        )
    ]
    for i, ref in enumerate(b.references, 1):
        out.append(
            Input(
                f"references.{i}",
                f"reference {i}",
                np.arange(1.0, len(ref) + 1),
                None,
                rows=ref,
                role=f"{len(ref)} tokens",
                words=True,
            )
        )
    out.append(Input("weights", "w", b.weights.floats, None, rows=_orders(b.max_n), role="the weight of each order"))
    return out


def _orders(N: int) -> tuple[str, ...]:
    return tuple(f"{n}-grams" for n in range(1, N + 1))


def ngrams(tokens: tuple[str, ...], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def clip_table(cand: tuple[str, ...], refs: tuple[tuple[str, ...], ...], n: int) -> list[tuple[str, int, int]]:
    """Each distinct n-gram of the candidate, in the order it first uses them: the n-gram written out,
    its count in the candidate and its largest count in one reference."""
    most = Counter[tuple[str, ...]]()
    for ref in refs:
        for g, k in ngrams(ref, n).items():
            most[g] = max(most[g], k)
    return [(" ".join(g), k, most[g]) for g, k in ngrams(cand, n).items()]


# A problem's tables are the same in every run a check makes (one for each answer it weighs): 100
# references of 1,000 tokens and N = 9 took 0.9 s a run to count again.
COUNTS = Memo(64)


def closest_length(c: int, lengths: list[int]) -> int:
    """The reference length closest to c; of two as close, the shorter (Papineni et al.; NLTK, sacrebleu)."""
    return min(lengths, key=lambda r: (abs(r - c), r))


def _num(x: object, decimals: int) -> str:
    """A value as a written-out line shows it: an exact fraction as a fraction, else rounded."""
    if isinstance(x, np.ndarray):
        x = x.item() if x.ndim == 0 else x
    if not isinstance(x, (float, int, np.floating)):
        import sympy as sp

        e = sp.sympify(x)
        if e.is_Rational:
            return str(e)
        x = float(e)
    return fmt(float(x), decimals)


def run(p: Problem, chain: Chain) -> list[Step]:
    b = p.payload(Bleu)
    N, cand, refs = b.max_n, b.candidate, b.references
    c = len(cand)
    orders = _orders(N)
    dec = chain.decimals
    steps: list[Step] = []

    totals = [c - n + 1 for n in range(1, N + 1)]
    steps.append(
        chain.step(
            Formula,
            "ngram_counts",
            whole_numbers(chain, totals),
            title="n-grams of the candidate",
            formula="c_n = c − n + 1  (c = the candidate's length)",
            latex=r"c_n = c - n + 1",
            symbol="c",
            rows=orders,
            written=tuple(f"{c} − {n} + 1" for n in range(1, N + 1)),
            explain="A sentence of c tokens has c − n + 1 n-grams, each starting at one of its first c − n + 1 tokens.",
        )
    )
    counts = steps[-1].value

    clipped_ints, written = [], []
    for n in range(1, N + 1):
        table = COUNTS.get(b, n, functools.partial(clip_table, cand, refs, n))
        terms = [(g, k, k if chain.mistake == "bleu_no_clip" and most else most) for g, k, most in table]
        clipped_ints.append(sum(min(k, allowed) for _, k, allowed in terms))
        written.append(_clip_terms(terms))
    steps.append(
        chain.step(
            Formula,
            "clipped_counts",
            whole_numbers(chain, clipped_ints),
            title="Clipped n-gram matches",
            formula="m_n = Σ_g min(count of g in the candidate, its largest count in one reference)",
            latex=r"m_n = \sum_g \min(\mathrm{count}(g), \max_{\mathrm{ref}} \mathrm{count}_{\mathrm{ref}}(g))",
            symbol="m",
            rows=orders,
            written=tuple(written),
            explain="Each distinct n-gram g of the candidate scores as often as it occurs, but at most as often "
            "as it occurs in a single reference: repeating a right word earns nothing more.",
        )
    )
    clipped = steps[-1].value

    counts_c, clipped_c = chain.coerce(counts, clipped)
    with np.errstate(divide="ignore", invalid="ignore"):
        steps.append(
            chain.step(
                Formula,
                "precisions",
                np.asarray(clipped_c / counts_c, dtype=counts_c.dtype),
                title="Modified n-gram precisions",
                formula="p_n = m_n / c_n",
                latex=r"p_n = m_n / c_n",
                symbol="p",
                rows=orders,
                written=tuple(f"{_num(clipped_c[n], dec)} / {_num(counts_c[n], dec)}" for n in range(N)),
                explain="The share of the candidate's n-grams that the references vouch for.",
            )
        )
    prec = steps[-1].value

    lengths = [len(ref) for ref in refs]
    r = closest_length(c, lengths)
    if c > r:
        bp: np.ndarray = np.asarray(chain.const(lambda: _one(), 1.0), dtype=_dtype(chain))
        bp_text = "1 (c > r)"
    else:
        bp = np.asarray(chain.const(lambda: _exp_ratio(r, c), math.exp(1 - r / c)), dtype=_dtype(chain))
        bp_text = f"exp(1 − {r}/{c})"
    tie = sorted({n for n in lengths if abs(n - c) == abs(r - c)})
    closest = f"c = {c} tokens; r = {r}, " + (
        f"the reference length closest to c (the lengths are {', '.join(map(str, lengths))}"
        + (f"; {tie[0]} and {tie[1]} are as close, and the shorter is taken)" if len(tie) > 1 else ")")
        if len(refs) > 1
        else "the reference's length"
    )
    closest += ": c > r, no penalty." if c > r else ": c is not above r, so BP = exp(1 − r/c)."
    steps.append(
        chain.step(
            Formula,
            "brevity_penalty",
            bp,
            title="Brevity penalty",
            formula="BP = 1 if c > r, else exp(1 − r/c)",
            latex=r"BP = \begin{cases} 1 & c > r \\ e^{1 - r/c} & c \le r \end{cases}",
            symbol="BP",
            written=bp_text,
            explain="Precision alone rewards short candidates; BP penalises a candidate shorter than its reference.",
            note=closest,
        )
    )
    bp = steps[-1].value

    w = chain.given(b.weights)
    prec_w, w = chain.coerce(prec, w)
    pf = to_float(prec_w)
    zero = [n + 1 for n in range(N) if pf[n] <= 0]
    log_terms = " + ".join(f"{_num(w[n], dec)}·ln({_num(prec_w[n], dec)})" for n in range(N))
    if zero:
        log_mean = np.asarray(_neg_inf(chain, prec_w), dtype=prec_w.dtype)
        why = (
            f"p_{zero[0]} = 0, and ln 0 = −∞: without smoothing one order with no match makes BLEU 0 "
            "(Papineni et al. 2002; smoothing methods exist for sentence BLEU, but are not applied here)."
        )
    else:
        acc: object = _zero(prec_w)
        for n in range(N):
            acc = acc + w[n] * chain.log(prec_w[n : n + 1])[0]  # type: ignore[operator]
        log_mean = np.asarray(acc, dtype=prec_w.dtype)
        why = ""
    steps.append(
        chain.step(
            Formula,
            "log_mean",
            log_mean,
            title="Weighted mean of the log precisions",
            formula="S = Σ_n w_n ln p_n",
            latex=r"S = \sum_n w_n \ln p_n",
            symbol="S",
            written=log_terms,
            explain="The geometric mean of the precisions, in logarithms: with w_n = 1/N, (1/N) Σ ln p_n.",
            note=why,
        )
    )
    log_mean = steps[-1].value

    bp_v, lm = chain.coerce(np.asarray(bp).reshape(1), np.asarray(log_mean).reshape(1))
    if chain.mistake == "bleu_no_bp":
        bp_v = np.asarray([chain.const(_one, 1.0)], dtype=bp_v.dtype)
    if np.isneginf(to_float(lm)[0]):
        score = np.asarray(chain.const(lambda: _zero(lm), 0.0), dtype=lm.dtype)
        text = f"{_num(bp_v[0], dec)}·exp(−∞)"
    else:
        score = np.asarray((bp_v * chain.exp(lm))[0], dtype=lm.dtype)
        text = f"{_num(bp_v[0], dec)}·exp({_num(lm[0], dec)})"
    steps.append(
        chain.step(
            Formula,
            "bleu",
            score,
            title="BLEU",
            formula="BLEU = BP · exp(S)",
            latex=r"\mathrm{BLEU} = BP \cdot \exp(S)",
            symbol="BLEU",
            written=text,
            explain="The brevity penalty times the geometric mean of the modified precisions, from 0 to 1.",
        )
    )
    return steps


def _dtype(chain: Chain) -> type:
    return object if chain.mode == "exact" and chain.degraded_at is None else float


def _one() -> object:
    import sympy as sp

    return sp.Integer(1)


def _zero(like: np.ndarray) -> object:
    if is_exact(like):
        import sympy as sp

        return sp.Integer(0)
    return 0.0


def _exp_ratio(r: int, c: int) -> object:
    import sympy as sp

    return sp.exp(1 - sp.Rational(r, c))


def _neg_inf(chain: Chain, like: np.ndarray) -> object:
    if is_exact(like):
        import sympy as sp

        return sp.S.NegativeInfinity
    return -math.inf


def _clip_terms(terms: list[tuple[str, int, int]]) -> str:
    """Σ_g min(count, largest count in a reference) written out. Past TERMS n-grams the clipped ones
    (counted less often than they occur: what clipping is about) are all shown, then those with no
    match, then those matched in full, in the candidate's order; the rest are summed by kind."""
    if len(terms) <= TERMS:
        return " + ".join(f"{g}: min({k},{a})" for g, k, a in terms)
    clipped = [i for i, (_, k, a) in enumerate(terms) if 0 < min(k, a) < k]
    unmatched = [i for i, (_, k, a) in enumerate(terms) if min(k, a) == 0]
    full = [i for i, (_, k, a) in enumerate(terms) if min(k, a) == k]
    keep = set(clipped)
    for i in unmatched + full:
        if len(keep) >= TERMS - 1:
            break
        keep.add(i)
    shown = [f"{g}: min({k},{a})" for i, (g, k, a) in enumerate(terms) if i in keep]
    rest_full = [terms[i][1] for i in full if i not in keep]
    rest_none = [i for i in unmatched if i not in keep]
    if rest_full:
        shown.append(f"({len(rest_full)} more matched in full: {sum(rest_full)})")
    if rest_none:
        shown.append(f"({len(rest_none)} more with no match: 0)")
    return " + ".join(shown)


def header(p: Problem) -> list[str]:
    b = p.payload(Bleu)
    refs = f"{len(b.references)} reference{'s' if len(b.references) > 1 else ''}"
    return [p.kind, f"N = {b.max_n}", refs, "sentence BLEU, no smoothing"]
