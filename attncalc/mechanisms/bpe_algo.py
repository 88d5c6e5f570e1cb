"""Byte-pair encoding by hand (Sennrich et al. 2016, Algorithm 1), in plain Python: the pair counts of
a segmented vocabulary, the choice of a merge with a stated tie rule, a merge applied to a word, and
new words encoded with the merges in the order learned. Kind ``bpe``'s mechanism calls these, and
switches the slips of ``check`` on and off around them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise

Seg = tuple[str, ...]
Pair = tuple[str, str]


def symbols(word: str, end_of_word: str = "") -> Seg:
    """A word split into Unicode characters, with the end-of-word marker (if any) as one more symbol."""
    return (*word, end_of_word) if end_of_word else tuple(word)


def pair_counts(segs: Sequence[Seg], weights: Sequence[float]) -> dict[Pair, float]:
    """Every adjacent pair inside a word and its count, each occurrence weighted by its word's weight, in
    the order the pairs first occur (reading the words in order, each from left to right)."""
    out: dict[Pair, float] = {}
    for seg, w in zip(segs, weights, strict=True):
        for pair in pairwise(seg):
            out[pair] = out.get(pair, 0) + w
    return out


def occurrences(seg: Seg, pair: Pair) -> int:
    return sum(1 for p in pairwise(seg) if p == pair)


def occurrences_by_pair(segs: Sequence[Seg]) -> dict[Pair, list[tuple[int, int]]]:
    """For every adjacent pair, the words it occurs in (their positions in ``segs``, in order) and how
    many times in each: :func:`occurrences` of every pair in every word, in one pass over the words
    (a merge's written-out counts, which looking each pair up in each word made pairs × words work)."""
    out: dict[Pair, list[tuple[int, int]]] = {}
    for i, seg in enumerate(segs):
        times: dict[Pair, int] = {}
        for pair in pairwise(seg):
            times[pair] = times.get(pair, 0) + 1
        for pair, k in times.items():
            out.setdefault(pair, []).append((i, k))
    return out


def best(pairs: dict[Pair, float], tie: str) -> tuple[Pair | None, list[Pair]]:
    """The pair to merge (None when no pair occurs twice) and every pair with the largest count.

    ``tie``: "greater" takes the lexicographically greatest of the tied pairs, comparing (a, b) as
    tuples of strings by code point (CS336's ``max`` over byte tuples: UTF-8 keeps code point order);
    "first" the one that occurs first (minbpe's ``max`` over a dict in insertion order)."""
    if not pairs:
        return None, []
    top = max(pairs.values())
    tied = [p for p, c in pairs.items() if c == top]
    if top < 2:
        return None, tied
    return (max(tied) if tie == "greater" else tied[0]), tied


def apply(seg: Seg, pair: Pair) -> Seg:
    """The pair merged wherever it occurs, left to right without overlap ("a a a" → "aa a")."""
    out: list[str] = []
    i = 0
    while i < len(seg):
        if i + 1 < len(seg) and (seg[i], seg[i + 1]) == pair:
            out.append(seg[i] + seg[i + 1])
            i += 2
        else:
            out.append(seg[i])
            i += 1
    return tuple(out)


def encode_trace(seg: Seg, merges: Iterable[Pair]) -> list[tuple[int, Seg]]:
    """The merges applied in the order learned: (merge number, the segmentation after it) for each merge
    that changes the word."""
    out: list[tuple[int, Seg]] = []
    for r, pair in enumerate(merges, 1):
        nxt = apply(seg, pair)
        if nxt != seg:
            out.append((r, nxt))
            seg = nxt
    return out


def longest_first(seg: Seg, vocab: set[str]) -> Seg:
    """The word cut greedily from the left, the longest known token first (WordPiece's way): not BPE's."""
    out: list[str] = []
    i = 0
    while i < len(seg):
        j = len(seg)
        while j > i + 1 and "".join(seg[i:j]) not in vocab:
            j -= 1
        out.append("".join(seg[i:j]))
        i = j
    return tuple(out)


def pair_text(pair: Pair) -> str:
    return f"{pair[0]} {pair[1]}"


def seg_text(seg: Seg) -> str:
    return " ".join(seg)
