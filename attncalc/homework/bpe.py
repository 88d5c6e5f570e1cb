"""Homework for kind ``bpe``: small corpora of words that share stems and endings (as CS336's worked
example), each with a tie that matters: learning with the other tie rule gives other merges."""

from __future__ import annotations

import random
from typing import Any

from ..derivation import Derivation
from ..mechanisms import bpe_algo as algo
from .base import Drawer, only
from .options import Options

# words that share stems (low, new, wid, old) and endings (er, est): pairs recur across words
WORDS = (
    "low", "lower", "lowest", "new", "newer", "newest", "wide", "wider", "widest",
    "old", "older", "oldest", "slow", "slower", "slowest", "tall", "taller", "tallest",
)  # fmt: skip
MERGES = 4


def _check(o: Options) -> None:
    only(o, set(), "bpe")


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    n = min(max(o.tokens, 3), 6)
    chosen = rng.sample(WORDS, n)
    counts = {w: rng.randint(1, 6) for w in chosen}
    tie = rng.choice(("greater", "first"))
    learned = learn(counts, MERGES, tie)
    unseen = [w for w in WORDS if w not in counts]
    # words to encode that some merge changes, when there are two
    changed = [w for w in unseen if algo.encode_trace(algo.symbols(w), learned)]
    unseen = changed if len(changed) >= 2 else unseen
    return {
        "title": f"Variant {number}",
        "kind": "bpe",
        "settings": {"decimals": 0},
        "given": {
            "corpus": " ".join(w for w, n in counts.items() for _ in range(n)),
            "merges": MERGES,
            "tie": tie,
            "encode": rng.sample(unseen, 2),
        },
    }


def learn(counts: dict[str, int], merges: int, tie: str) -> list[algo.Pair]:
    """The merges learned from word counts (for the drawer's checks; the mechanism shows its work)."""
    words = list(counts)
    segs = [algo.symbols(w) for w in words]
    weights = [float(counts[w]) for w in words]
    out: list[algo.Pair] = []
    for _ in range(merges):
        pick, _tied = algo.best(algo.pair_counts(segs, weights), tie)
        if pick is None:
            break
        out.append(pick)
        segs = [algo.apply(s, pick) for s in segs]
    return out


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    g = raw["given"]
    counts: dict[str, int] = {}
    for w in g["corpus"].split():
        counts[w] = counts.get(w, 0) + 1
    mine = learn(counts, g["merges"], g["tie"])
    if len(mine) < g["merges"]:
        return "fewer merges than asked for"
    other = learn(counts, g["merges"], "first" if g["tie"] == "greater" else "greater")
    if other == mine:
        return "no tie that matters (both tie rules learn the same merges)"
    if any(not algo.encode_trace(algo.symbols(w), mine) for w in g["encode"]):
        return "a word to encode that no merge changes"
    return None


# the draw reads --tokens (the corpus's distinct words) only: the counts are whole numbers, ties are
# what it draws for, and a count is asked with 0 decimals
DRAWER = Drawer("BPE homework", _check, _draw, _fine, min_tokens=3, max_tokens=6, reads=frozenset({"tokens"}))
