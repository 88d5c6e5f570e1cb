"""The choices of a bpe step that is a list of tokens, for the LMS items (:mod:`attncalc.reports.lms`).

A list is asked item by item ("words, rank 2": the second word's tokens). Offered only the true items,
every choice would give its answer away (the one option that starts with that word); so each item is
chosen among what the word becomes with each pair merge r chose from (its candidates, the true one
among them), as it was before the merge and with its own first pair merged, and what merge r - 1's
question offered (else the one option of that question that comes back, the word as merge r - 1 left
it, is its key); a merge or a new token among merge r's candidates, and where the key is the greatest of
them (what a tie to the greater pair picks without counting), a greater pair merge r counted (the
question of merge r itself, ``r.merge``, the same).
An encoded word is one choice among its encoding and wrong cuts of it (:mod:`attncalc.reports.bpe_cuts`):
at least one as merged as the encoding or more, so that the fewest tokens is not the key's tell, then
its characters, the longest known token first (WordPiece's way), the merges applied in the reverse order.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from typing import Any

from ..derivation import Derivation, Step
from ..mechanisms import bpe_algo as algo
from ..render.json_forms import TOKEN_STEPS
from .bpe_cuts import wrong_cuts


def _candidates(d: Derivation, r: int) -> list[algo.Pair]:
    step = d.step(f"{r}.merge")
    return [(a, b) for a, b in (tuple(label.split(" ", 1)) for label in getattr(step, "labels", ()))]


def _counted(d: Derivation, r: int) -> list[algo.Pair]:
    """Every pair merge r counted (its pair table's rows, the most frequent first)."""
    step = d.step(f"{r}.pairs") if f"{r}.pairs" in d else None
    if step is None or not step.rows:
        return []
    import numpy as np

    counts = np.ravel(np.asarray(step.value, dtype=float))
    rows = [(a, b) for a, b in (tuple(x.split(" ", 1)) for x in step.rows)]
    return [p for _, p in sorted(zip(-counts, rows, strict=True), key=lambda t: t[0])]


def _made(seg: algo.Seg, pairs: list[algo.Pair]) -> list[algo.Seg]:
    """The word as it was, as each pair makes it, and with its own first pair merged (a word no
    candidate touches still has a wrong option)."""
    own = [algo.apply(seg, (seg[0], seg[1]))] if len(seg) > 1 else []
    return [seg, *(algo.apply(seg, p) for p in pairs), *own]


def rank_options(d: Derivation, step: Step) -> list[tuple[str, ...]] | None:
    """Per item of a bpe list step (``r.words``, ``merges``, ``vocab``), the options it is chosen
    among (the true item one of them), or None for any other step."""
    from ..parse.bpe import Bpe

    if step.id in TOKEN_STEPS and step.rows:  # a list of tokens drawn from a vocabulary (speculative's output)
        return [tuple(step.rows)] * len(getattr(step, "labels", ()))
    if not isinstance(d.problem.data, Bpe):  # (the lists of a byte-pair encoding only)
        return None

    items = list(getattr(step, "labels", ()))
    m = re.fullmatch(r"([0-9]+)\.words", step.id)
    if m:
        r = int(m.group(1))
        data = d.problem.payload(Bpe)
        if r == 1:
            before = [algo.symbols(w, data.end_of_word) for w, _ in data.words]
        else:
            before = [tuple(x.split(" ")) for x in getattr(d.step(f"{r - 1}.words"), "labels", ())]
        pairs = _candidates(d, r)
        # the word as each earlier merge left it (a word merged whole, "low", still has wrong options:
        # "l ow", "l o w", a merge not applied)
        earlier = [[algo.seg_text(algo.symbols(w, data.end_of_word)) for w, _ in data.words]]
        earlier += [list(getattr(d.step(f"{k}.words"), "labels", ())) for k in range(1, r)]
        last = _candidates(d, r - 1) if r > 1 else []
        learned = [tuple(x.split(" ", 1)) for x in getattr(d.step("merges"), "labels", ())] if "merges" in d else []
        out = []
        for i, (seg, item) in enumerate(zip(before, items, strict=True)):
            # as merged as the key or more: the next learned merge made too (a merge too many), or made
            # first instead (the merges out of order), so the least merged option is not the key's tell
            # (in a seeded half of the questions: always offered, the key would be the second most merged)
            draw = hashlib.sha256(repr((r, i, item)).encode("utf-8")).digest()
            key = tuple(item.split(" "))
            ahead = [algo.apply(key, p) for p in learned[r : r + 1]] if draw[0] % 2 else []
            ahead += [algo.apply(seg, p) for p in learned[r : r + 1]] if draw[0] % 2 else []
            if draw[0] % 2 and all(a == key for a in ahead[:1]) and len(key) > 1 and draw[1] % 4 < 3:
                # the next merge leaves this word as it is: a merge too many of its own longest pair (else
                # the option holding the longest token was the key in 0.38 where one did, chance 0.28)
                ahead.append(_joined_longest(key))
            seen = [e[i] for e in earlier if i < len(e)]
            # and what merge r - 1's question offered: else the one option of that question that comes
            # back here (the word as merge r - 1 left it) would be its key
            again = _made(tuple(earlier[r - 2][i].split(" ")), last) if r > 1 and i < len(earlier[r - 2]) else []
            out.append(_sorted([algo.seg_text(x) for x in [*_made(seg, pairs), *again, *ahead]] + seen, item))
        return out
    if step.id in ("merges", "vocab"):
        out = []
        for r, item in enumerate(items, 1):
            pairs = _candidates(d, r)
            shown = _greater_too(d, r, pairs, item, step.id == "merges")
            other = [algo.pair_text(p) if step.id == "merges" else "".join(p) for p in _as_if_other(d, r - 1)]
            out.append(_sorted(shown + other, item))
        return out
    return None


def _joined_longest(seg: algo.Seg) -> algo.Seg:
    """The word with the neighbouring tokens that make its longest token joined (the first such pair)."""
    k = max(range(len(seg) - 1), key=lambda j: len(seg[j]) + len(seg[j + 1]))
    return (*seg[:k], seg[k] + seg[k + 1], *seg[k + 2 :])


def rank_names(d: Derivation, step: Step) -> list[str]:
    """What each rank of a bpe words step asks about, as the question says it (' (the word "lowest")'): the
    corpus's words in their order; empty for any other step."""
    from ..parse.bpe import Bpe

    if not isinstance(d.problem.data, Bpe) or not re.fullmatch(r"[0-9]+\.words", step.id):
        return []
    return [f' (the word "{w}")' for w, _ in d.problem.payload(Bpe).words]


def merge_options(d: Derivation, step: Step) -> tuple[str, ...] | None:
    """The options of a bpe merge (``r.merge``): the pairs it chose among, and a greater pair it counted
    where the key is the greatest of them; None for any other step."""
    from ..parse.bpe import Bpe

    m = re.fullmatch(r"([0-9]+)\.merge", step.id)
    if not isinstance(d.problem.data, Bpe) or not m:
        return None
    r = int(m.group(1))
    shown = _greater_too(d, r, _candidates(d, r), str(step.value), True)
    return _sorted(shown + [algo.pair_text(p) for p in _as_if_other(d, r - 1)], str(step.value))


def _as_if_other(d: Derivation, r: int) -> list[algo.Pair]:
    """Per candidate merge r did not choose, the most frequent pair holding its token in the corpus as
    that merge would have left it ("es t" had merge 1 been "e s"): merge r + 1's options then hold a
    token of more than merge r's key, so they do not tell which candidate merge r chose."""
    from ..parse.bpe import Bpe

    if r < 1 or f"{r}.merge" not in d:
        return []
    data = d.problem.payload(Bpe)
    if r == 1:
        segs = [algo.symbols(w, data.end_of_word) for w, _ in data.words]
    else:
        segs = [tuple(x.split(" ")) for x in getattr(d.step(f"{r - 1}.words"), "labels", ())]
    weights = [float(n) for _, n in data.words][: len(segs)]
    chosen = str(d.step(f"{r}.merge").value)
    out = []
    for pair in _candidates(d, r):
        if algo.pair_text(pair) == chosen:
            continue
        token = "".join(pair)
        counts = algo.pair_counts([algo.apply(s, pair) for s in segs[: len(weights)]], weights)
        holding = sorted((p for p in counts if token in p), key=lambda p: (-counts[p], p))
        out += holding[:1]
    return out


def _greater_too(d: Derivation, r: int, pairs: list[algo.Pair], item: str, as_pairs: bool) -> list[str]:
    """Merge r's candidates as shown (pairs, or the tokens they make); where the key is the greatest of
    them (what ties going to the greater pair pick without counting anything) also the least greater pair
    of the corpus, and where it is the least (what ties going to the first pair often pick: its symbols
    come early) the greatest lesser one, so that neither end of the options is the key's tell. The pairs
    offered are those merge r counted, then those the corpus would hold had merge r - 1 gone another way,
    then any two tokens of the words before merge r - 1 or made by one of its candidates (wrong: never
    chosen by merge r)."""

    def shown(p: algo.Pair) -> str:
        return algo.pair_text(p) if as_pairs else "".join(p)

    out = [shown(p) for p in pairs]
    pool = [t for t in (shown(p) for p in _present(d, r)) if t not in out]
    # how many are added is seeded, from none to three, so the key sits at its end, or one, two or three
    # places from it, about as often (a key never at an end would be a tell too)
    draw = int(hashlib.sha256(repr((r, item, tuple(out))).encode("utf-8")).hexdigest()[:8], 16)
    if item == max(out, default=item):
        more = sorted(t for t in pool[:_FIRST_POOL] if t > item) or sorted(t for t in pool if t > item)
        out += more[: draw % (min(3, len(more)) + 1)]
    elif item == min(out, default=item):
        less = sorted(t for t in pool[:_FIRST_POOL] if t < item) or sorted(t for t in pool if t < item)
        k = draw % (min(3, len(less)) + 1)
        out += less[len(less) - k :] if k else []
    return out


_FIRST_POOL = 8  # of the pool, the pairs nearest to merge r's counts are tried first


def _present(d: Derivation, r: int) -> list[algo.Pair]:
    """Pairs a student may take for merge r's: those merge r counted (the most frequent first), then the
    pairs of the words as each other candidate of merge r - 1 would have left them (a pair of the corpus
    had merge r - 1 gone another way, as :func:`_as_if_other` offers), then any two tokens of the words
    before merge r - 1 or of merge r - 1's candidates."""
    from ..parse.bpe import Bpe

    data = d.problem.payload(Bpe)
    out = list(_counted(d, r))
    if r <= 2:
        segs = [algo.symbols(w, data.end_of_word) for w, _ in data.words]
    else:
        segs = [tuple(x.split(" ")) for x in getattr(d.step(f"{r - 2}.words"), "labels", ())]
    if r > 1:
        for pair in _candidates(d, r - 1):
            out += [p for seg in segs for p in itertools.pairwise(algo.apply(seg, pair))]
    # last, any two tokens the words held before merge r - 1 (or merge 1) or that a candidate of merge r - 1
    # makes, each candidate alike: a pair of greater (or lesser) symbols than the key's, which tells nothing
    # of what merge r - 1 chose
    known = sorted({t for seg in segs for t in seg} | {"".join(p) for p in (_candidates(d, r - 1) if r > 1 else [])})
    out += [(a, b) for a in known for b in known if a != b]
    return list(dict.fromkeys(out))  # each once, in this order


def encode_options(d: Derivation, step: Step) -> tuple[str, ...] | None:
    """The options of an encoded word (``encode.i``): one choice among ways it could be cut."""
    from ..parse.bpe import Bpe

    if not isinstance(d.problem.data, Bpe) or not re.fullmatch(r"encode\.[0-9]+", step.id) or "merges" not in d:
        return None

    data = d.problem.payload(Bpe)
    word = step.symbol
    seg = algo.symbols(word, data.end_of_word)
    learned = [(a, b) for a, b in (tuple(x.split(" ", 1)) for x in getattr(d.step("merges"), "labels", ()))]
    known = {s for w, _ in data.words for s in algo.symbols(w, data.end_of_word)} | {"".join(p) for p in learned}
    ways = wrong_cuts(seg, learned, known, _next_pairs(d, data, len(learned)))
    return _sorted([", ".join(w) for w in ways], str(step.value))


def _next_pairs(d: Derivation, data: Any, learned: int) -> list[algo.Pair]:
    """The pairs of the words as the last merge left them, the most frequent first (the merges training
    would learn next: a student who merges once too often)."""
    segs = [algo.symbols(w, data.end_of_word) for w, _ in data.words]
    if learned and f"{learned}.words" in d:
        segs = [tuple(x.split(" ")) for x in getattr(d.step(f"{learned}.words"), "labels", ())]
    weights = [float(n) for _, n in data.words]
    n = min(len(segs), len(weights))
    counts = algo.pair_counts(segs[:n], weights[:n])
    return sorted(counts, key=lambda p: -counts[p])


def _sorted(options: list[str], true: str) -> tuple[str, ...]:
    return tuple(sorted(set(options) | {true}))
