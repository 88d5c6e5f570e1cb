"""Kind ``bpe``: byte-pair encoding learned from a small corpus (Sennrich et al. 2016, Algorithm 1).

The words of the corpus are counted; each word is split into its characters (and an end-of-word
marker, if one is set). Then, merge after merge: every adjacent pair of symbols inside a word is
counted, each occurrence weighted by its word's count (never across words); the pair with the largest
count, at least 2, is merged wherever it occurs, with a stated rule among pairs of equal counts; the
words are re-segmented. New words are encoded by applying the merges in the order they were learned.

Steps that hold tokens (the merge, the segmentations, the merge list, the vocabulary, the encodings)
are :class:`~attncalc.derivation.Tokens`; the chain sees them as one number each, the position of
the choice, so that ``check`` can tell what depends on them. The counts are whole numbers, exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Formula, Input, Stated, Step, Tokens
from ..derivation.arith import Chain, to_float
from ..parse import Problem
from ..parse.bpe import Bpe
from ..schema.bpe import STEP_IDS, TIE_RULE
from . import bpe_algo as algo
from .common import whole_numbers

__all__ = ["STEP_IDS", "exact_entries", "header", "headline", "inputs", "poison_gives_up", "run"]


TIE_SHORT = {"greater": "the lexicographically greatest pair (CS336)", "first": "the pair that occurs first (minbpe)"}


def inputs(p: Problem) -> list[Input]:
    d = p.payload(Bpe)
    words = tuple(w for w, _ in d.words)
    counts = np.asarray([float(n) for _, n in d.words])
    if d.from_corpus:  # the text, as words (its counts are the first step)
        n = len(d.corpus)
        role = f"{n} word{'s' if n != 1 else ''}, split on whitespace"
        return [Input("corpus", "corpus", np.arange(1.0, n + 1), None, rows=d.corpus, role=role, words=True)]
    return [Input("words", "count", counts, None, rows=words, role="the word counts, as given")]


def _label(chain: Chain, step_id: str, code: int) -> None:
    """Finish a step that holds tokens: the chain keeps the position of the choice. A value put in its
    place (``check`` tracing what depends on the step) cannot be read back as tokens: every later step
    depends on it."""
    got = chain.finish(step_id, np.asarray([float(code)]))
    if float(to_float(np.asarray(got))[0]) != float(code):
        raise ValueError(f"{step_id}: tokens replaced by a number")


def _whole(x: np.ndarray) -> list[float]:
    """Counts read back from the chain (a student's own, under ``check``)."""
    out = [float(v) for v in to_float(np.asarray(x)).ravel()]
    # not a whole number (check moving a count by an irregular amount to see what depends on it): the
    # merges, and so every later step, cannot be read from it
    if any(not v.is_integer() for v in out):
        raise ValueError("a count is not a whole number")
    return out


def _count_text(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else repr(n)


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(Bpe)
    words = tuple(w for w, _ in d.words)
    steps: list[Step] = []
    given = whole_numbers(chain, [n for _, n in d.words])
    if d.from_corpus:
        steps.append(
            chain.step(
                Formula,
                "words",
                given,
                title="Word counts",
                formula="n(w) = how often the word w occurs in the corpus (split on whitespace)",
                latex=r"n(w) = \#\{\text{occurrences of } w\}",
                symbol="n",
                rows=words,
                written=tuple(str(n) for _, n in d.words),
                explain="BPE never merges across words: the corpus is split on whitespace, and each distinct "
                "word is worked once, weighted by how often it occurs.",
            )
        )
    else:
        steps.append(
            chain.step(
                Stated,
                "words",
                given,
                title="Word counts",
                formula="n(w), as given",
                latex=r"n(w)",
                symbol="n",
                rows=words,
                explain="Each distinct word is worked once, weighted by how often it occurs.",
            )
        )
    counts = steps[-1].value
    weights = _whole(counts)
    segs = [algo.symbols(w, d.end_of_word) for w in words]
    learned: list[algo.Pair] = []
    for r in range(1, d.merges + 1):
        found = _one_merge(p, chain, r, words, segs, weights, steps)
        if found is None:
            done = r - 1
            chain.notes.append(
                f"Only {done} merge{'s' if done != 1 else ''} of the {d.merges} asked for: after "
                f"{'merge ' + str(done) if done else 'counting'} no pair occurs twice, and BPE merges only a pair "
                "with a count of at least 2."
            )
            break
        learned.append(found)
        segs = [algo.apply(s, found) if found[0] in s else s for s in segs]  # (a word without a is unchanged)
        steps.append(
            Tokens(
                id=f"{r}.words",
                title=f"Merge {r}: the words re-segmented",
                formula="the pair becomes one token wherever it occurs inside a word",
                latex=r"\text{the pair merged inside every word}",
                symbol="words",
                value=", ".join(algo.seg_text(s) for s in segs),
                labels=tuple(algo.seg_text(s) for s in segs),
                probs=np.zeros(len(segs)),
                table=tuple((w, algo.seg_text(s)) for w, s in zip(words, segs, strict=True)),
                heads=("word", "tokens"),
                what="Segmented",
                explain=f"Every {algo.pair_text(found)} inside a word becomes {''.join(found)}, left to right "
                "without overlap.",
            )
        )
        _label(chain, f"{r}.words", r)
    merge_texts = tuple(algo.pair_text(m) for m in learned)
    steps.append(
        Tokens(
            id="merges",
            title="The merges, in the order learned",
            formula="merge r = the pair chosen at merge r",
            latex=r"\text{merge } r = \text{the pair chosen at merge } r",
            symbol="merges",
            value=", ".join(merge_texts),
            labels=merge_texts,
            probs=np.zeros(len(learned)),
            table=tuple((str(r), t) for r, t in enumerate(merge_texts, 1)),
            heads=("r", "merge"),
            what="Merges",
            explain="The merge list is the tokenizer: encoding applies it in this order.",
        )
    )
    _label(chain, "merges", len(learned))
    new = tuple("".join(m) for m in learned)
    steps.append(
        Tokens(
            id="vocab",
            title="The new tokens",
            formula="token r = the pair a b of merge r written as one token (a b → ab)",
            latex=r"\text{token } r = ab",
            symbol="vocab",
            value=", ".join(new),
            labels=new,
            probs=np.zeros(len(new)),
            table=tuple((t, tok) for t, tok in zip(merge_texts, new, strict=True)),
            heads=("merge", "new token"),
            what="New tokens",
            explain="Each merge adds one token to the vocabulary of single characters"
            + (f" (and the marker {d.end_of_word})." if d.end_of_word else "."),
        )
    )
    _label(chain, "vocab", len(new))
    known = {sym for s in (algo.symbols(w, d.end_of_word) for w in words) for sym in s} | set(new)
    for i, word in enumerate(d.encode, 1):
        steps.append(_encode(p, chain, i, word, learned, known))
    return steps


def _one_merge(
    p: Problem,
    chain: Chain,
    r: int,
    words: tuple[str, ...],
    segs: list[algo.Seg],
    weights: list[float],
    steps: list[Step],
) -> algo.Pair | None:
    """Merge r's pair counts and choice (appended to ``steps``); None when no pair occurs twice."""
    d = p.payload(Bpe)
    unweighted = chain.mistake == "bpe_unweighted"
    w = [1.0] * len(words) if unweighted else weights
    # every pair, the words it occurs in and how often, in one pass over the words: the counts (as
    # algo.pair_counts gives them: whole numbers, so the sum's order is no matter) and their written terms
    within = algo.occurrences_by_pair(segs)
    table = {pair: float(sum(k * w[i] for i, k in where)) for pair, where in within.items()}
    if not table:
        return None
    rows = list(table)
    if chain.mistake == "bpe_across_words":
        _count_across_words(d, words, segs, table)
    terms = _count_terms(rows, within, table, words, w)
    steps.append(
        chain.step(
            Formula,
            f"{r}.pairs",
            whole_numbers(chain, [int(table[q]) for q in rows]),
            title=f"Merge {r}: pair counts",
            formula="count(a b) = Σ over words w of n(w) · (times a b occurs in w)",
            latex=r"\mathrm{count}(a\,b) = \sum_w n(w) \cdot \#_{a\,b}(w)",
            symbol="count",
            rows=tuple(algo.pair_text(q) for q in rows),
            written=tuple(terms),
            explain="Every adjacent pair of symbols inside a word, in the order the pairs first occur; each "
            "occurrence counts as often as its word occurs. Pairs are never counted across two words.",
        )
    )
    values = steps[-1].value
    counted = dict(zip(rows, _whole(values), strict=True))
    pick, tied = algo.best(counted, d.tie)
    if pick is None:
        return None
    rule = d.tie
    if len(tied) > 1 and chain.mistake == "bpe_tie_other":
        rule = "first" if d.tie == "greater" else "greater"
        pick, _ = algo.best(counted, rule)
        assert pick is not None
    theirs = chain.chosen(f"{r}.merge", [algo.pair_text(q) for q in rows])
    if theirs is not None and counted[rows[theirs]] >= 2:  # check following the answerer's own merge
        pick = rows[theirs]
    top = counted[tied[0]]
    note = _choice_note(tied, top, rule, pick)
    order = sorted(rows, key=lambda q: -counted[q])
    shown = [q for q in order if counted[q] >= top or q in order[:3]]
    steps.append(
        Tokens(
            id=f"{r}.merge",
            title=f"Merge {r}: the chosen pair",
            formula="the pair with the largest count, at least 2; ties: " + TIE_SHORT[d.tie],
            latex=r"\arg\max_{a\,b} \mathrm{count}(a\,b),\ \text{at least } 2",
            symbol=f"merge {r}",
            value=algo.pair_text(pick),
            labels=tuple(algo.pair_text(q) for q in shown),
            probs=np.asarray([counted[q] for q in shown], dtype=float),
            table=tuple((algo.pair_text(q), _count_text(counted[q])) for q in shown),
            heads=("pair", "count"),
            what="Merged",
            explain="BPE merges the most frequent pair; a pair seen only once is not worth a token. Ties: "
            + TIE_RULE[d.tie]
            + ".",
            note=note,
        )
    )
    _label(chain, f"{r}.merge", rows.index(pick))
    return pick


def _count_across_words(d: Bpe, words: tuple[str, ...], segs: list[algo.Seg], table: dict[algo.Pair, float]) -> None:
    """The slip bpe_across_words: a word's last symbol and the next word's first counted as a pair
    (as often as the two words stand side by side)."""
    last = {word: s[-1] for word, s in zip(words, segs, strict=True)}
    first = {word: s[0] for word, s in zip(words, segs, strict=True)}
    for a, b, n in d.adjacent:
        pair = (last[a], first[b])
        if pair in table:
            table[pair] += n


def _count_terms(
    rows: list[algo.Pair],
    within: dict[algo.Pair, list[tuple[int, int]]],
    table: dict[algo.Pair, float],
    words: tuple[str, ...],
    w: list[float],
) -> list[str]:
    """Each pair's count written out: its occurrences times its words' weights, summed."""
    terms = []
    weight_text = [_count_text(x) for x in w]
    for pair in rows:
        parts = [
            f"{k}·{weight_text[i]} ({words[i]})" if k > 1 else f"{weight_text[i]} ({words[i]})" for i, k in within[pair]
        ]
        several = len(parts) > 1 or (len(parts) == 1 and "·" in parts[0])
        terms.append(" + ".join(parts) if several else _count_text(table[pair]))
    return terms


def _choice_note(tied: list[algo.Pair], top: float, rule: str, pick: algo.Pair) -> str:
    """Why the pair was chosen: the largest count, or a tie and the rule that broke it."""
    if len(tied) > 1:
        names = ", ".join(algo.pair_text(q) for q in tied)
        both = "both have" if len(tied) == 2 else "all have"
        return f"A tie: {names} {both} {_count_text(top)}; {TIE_RULE[rule]}: {algo.pair_text(pick)}."
    return f"{algo.pair_text(pick)} has the largest count, {_count_text(top)}."


def _encode(p: Problem, chain: Chain, i: int, word: str, learned: list[algo.Pair], known: set[str]) -> Tokens:
    d = p.payload(Bpe)
    seg = algo.symbols(word, d.end_of_word)
    trace = algo.encode_trace(seg, learned)
    final = trace[-1][1] if trace else seg
    if chain.mistake == "bpe_greedy_longest" and learned:
        final = algo.longest_first(seg, known)
    rows = [("characters", algo.seg_text(seg))]
    rows += [(f"{r}: {algo.pair_text(learned[r - 1])}", algo.seg_text(s)) for r, s in trace]
    unknown = sorted({c for c in seg if c not in known})
    note = (
        f"{', '.join(unknown)} {'does' if len(unknown) == 1 else 'do'} not occur in the corpus: "
        "a token of its own here (a byte-level BPE would fall back to its bytes)."
        if unknown
        else ""
    )
    tok = Tokens(
        id=f"encode.{i}",
        title=f"Encoding {word}",
        formula="the merges applied one after the other, in the order learned",
        latex=r"\text{the merges applied in the order learned}",
        symbol=word,
        value=", ".join(final),
        labels=final,
        probs=np.zeros(len(final)),
        table=tuple(rows),
        heads=("merge", "tokens"),
        what="Encoded",
        explain="A new word starts as characters; each merge, in the order learned, is applied wherever it "
        "occurs. Not the longest known token first: that is WordPiece's greedy way, and can cut otherwise.",
        note=note,
    )
    _label(chain, f"encode.{i}", i)
    return tok


def poison_gives_up(step_id: str, values: list[np.ndarray]) -> bool:
    """Whether a run with ``step_id``'s value replaced by each of ``values`` gives up at that very step
    (``check`` tracing which steps depend on it: then, to be safe, every later step does). A step of
    tokens read back as another number does (:func:`_label`), and so do counts that are not all whole
    numbers (:func:`_whole`, read right after the word counts and after each pair table)."""
    if step_id != "words" and not step_id.endswith(".pairs"):
        return True
    return all(not bool(np.all(np.isfinite(v) & (v == np.round(v)))) for v in values)


def header(p: Problem) -> list[str]:
    d = p.payload(Bpe)
    bits = [p.kind, f"{d.merges} merge{'s' if d.merges != 1 else ''}", f"ties: {d.tie}"]
    if d.end_of_word:
        bits.append(f"end of word: {d.end_of_word}")
    return bits


def headline(steps: tuple[Step, ...]) -> str:
    merges = next((s for s in steps if s.id == "merges"), None)
    return f"Merges: {merges.value}" if merges is not None and merges.value else "No merge learned"


def exact_entries(p: Problem) -> tuple[int, str]:
    """What the exact bound counts: the distinct words (every exact value is a whole-number count), not
    the corpus's positions shown as its input."""
    d = p.payload(Bpe)
    return len(d.words), "distinct words"


def stops_early(d: Any) -> tuple[int, int] | None:
    """(merges made, merges asked for) when a bpe derivation's merges stop before the number asked for (no
    pair occurs twice): its question views show that by the steps they ask (merge r+1 asks only its pair
    counts), so a grader setting a question is told. None otherwise (and for other kinds)."""
    if getattr(d.problem, "kind", None) != "bpe":
        return None
    made = sum(1 for s in d.steps if s.id.endswith(".merge"))
    asked = d.problem.payload(Bpe).merges
    return (made, asked) if made < asked else None


def early_stop_note(made: int, asked: int) -> str:
    """What a question view of a bpe problem whose merges stop early gives away, and how to avoid it."""
    return (
        f"only {made} of the {asked} merges asked for happen (then no pair occurs twice); the questions show it "
        f"by the steps they ask (merge {made + 1} asks only its pair counts): set merges = {made} to ask for "
        "the merges alone, or keep it to ask when BPE stops"
    )
