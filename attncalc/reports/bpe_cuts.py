"""Wrong ways to cut a word into tokens, for the choices of an encoded word (:mod:`attncalc.reports.lms_tokens`).

Offered only less merged cuts than the true encoding (the characters, a merge skipped), the key of an
"encode" question is the option with the fewest tokens, picked without computing anything. These are
slips that merge as much as BPE or more: a known token BPE never forms because an earlier merge took
one of its halves, one merge too many (the pair training would merge next), the fewest known tokens,
the longest known token first from the right, each merge applied once only (at its leftmost place),
a later merge applied before the earlier ones, a cut moved by one symbol, two tokens joined.

Every cut is a tuple of tokens that join to the word (its symbols, the end-of-word marker one of them).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from ..mechanisms import bpe_algo as algo

Seg = algo.Seg
Pair = algo.Pair


def longest_from_right(seg: Seg, known: set[str]) -> Seg:
    """The word cut greedily from the right, the longest known token ending there first."""
    out: list[str] = []
    j = len(seg)
    while j > 0:
        i = 0
        while i < j - 1 and "".join(seg[i:j]) not in known:
            i += 1
        out.append("".join(seg[i:j]))
        j = i
    return tuple(reversed(out))


def fewest_known(seg: Seg, known: set[str]) -> Seg:
    """The cut into the fewest tokens each known or one symbol (of equal counts, the one with the longest
    first token, reading from the left): "BPE gives the shortest encoding", which it need not."""
    n = len(seg)
    best: list[tuple[int, Seg] | None] = [None] * (n + 1)
    best[n] = (0, ())
    for i in range(n - 1, -1, -1):
        for j in range(n, i, -1):  # the longest token first: on equal counts it stays
            tok = "".join(seg[i:j])
            rest = best[j]
            if rest is None or (j > i + 1 and tok not in known):
                continue
            cur = best[i]
            if cur is None or rest[0] + 1 < cur[0]:
                best[i] = (rest[0] + 1, (tok, *rest[1]))
    got = best[0]
    return got[1] if got else seg


def once_each(seg: Seg, merges: Sequence[Pair]) -> Seg:
    """The merges in the learned order, each applied at its leftmost occurrence only."""
    for a, b in merges:
        for k in range(len(seg) - 1):
            if (seg[k], seg[k + 1]) == (a, b):
                seg = (*seg[:k], a + b, *seg[k + 2 :])
                break
    return seg


def encoded(seg: Seg, merges: Sequence[Pair]) -> Seg:
    trace = algo.encode_trace(seg, merges)
    return trace[-1][1] if trace else seg


def joined(cut: Seg, k: int) -> Seg:
    """The cut with its tokens k and k + 1 joined."""
    return (*cut[:k], cut[k] + cut[k + 1], *cut[k + 2 :])


def one_merge_more(cut: Seg, known: set[str]) -> list[Seg]:
    """The cut with two neighbouring tokens joined where they make a known token (a token learned whose
    merge was blocked: an earlier merge took one of its halves)."""
    return [joined(cut, k) for k in range(len(cut) - 1) if cut[k] + cut[k + 1] in known]


def shifted(seg: Seg, cut: Seg) -> list[Seg]:
    """The cut with one boundary moved one symbol left or right (as many tokens)."""
    bounds = [0]
    for tok in cut:  # the boundaries, counted in symbols
        k, got = bounds[-1], ""
        while got != tok:
            got += seg[k]
            k += 1
        bounds.append(k)
    out = []
    for m in range(1, len(bounds) - 1):
        for step in (-1, 1):
            b = [*bounds]
            b[m] += step
            if b[m - 1] < b[m] < b[m + 1]:
                out.append(tuple("".join(seg[b[i] : b[i + 1]]) for i in range(len(b) - 1)))
    return out


def wrong_cuts(
    seg: Seg, merges: Sequence[Pair], known: set[str], after: Sequence[Pair] = (), limit: int = 5
) -> list[Seg]:
    """Up to ``limit`` cuts of the word, none of them its encoding with ``merges`` (the key): where the
    word has them, one with fewer tokens than the key, two with as many and one more with fewer still,
    then the characters, the longest known token first from the left and the rest. ``after``: the pairs
    training would merge next, the most frequent first (one merge too many)."""
    key = encoded(seg, merges)
    slips = [
        *one_merge_more(key, known),
        *(algo.apply(key, p) for p in after),
        fewest_known(seg, known),
        longest_from_right(seg, known),
        once_each(seg, merges),
        *(encoded(seg, [p, *(q for q in merges if q != p)]) for p in merges),
        *shifted(seg, key),
    ]
    loose = [seg, algo.longest_first(seg, known), encoded(seg, merges[::-1])]
    fewer = [c for c in [*slips, *(joined(key, k) for k in range(len(key) - 1))] if len(c) < len(key)]
    # fewer still: another of them, or the first with one more merge too many or two tokens joined
    first = fewer[0] if fewer else key
    more = [*(algo.apply(first, p) for p in after), *(joined(first, k) for k in range(len(first) - 1))]
    fewer2 = [c for c in [*fewer, *more] if fewer and len(c) < len(first)]
    same = [c for c in slips if len(c) == len(key) and c != key]
    out: list[Seg] = []
    # the key's count of tokens then neither the fewest nor alone among the counts offered
    # how many more merged (none, one or two, as the word and its merges say: a fixed number would make
    # the key's place in the counts the tell)
    n = int(hashlib.sha256(repr((seg, tuple(merges))).encode("utf-8")).hexdigest()[:8], 16) % 3
    more_merged = [*fewer[:1], *fewer2[:1]][:n]
    for cut in [*more_merged, *same[:1], *loose[:2], *same[1:2], *slips, *loose[2:]]:
        if cut != key and cut not in out and "".join(cut) == "".join(seg) and len(out) < limit:
            out.append(cut)
    return out
