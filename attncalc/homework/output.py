"""Homework for the kinds after the model's output: decode (choosing the next token) and bleu."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import Drawer, only
from .options import Options

WORDS = ("the", "a", "cat", "dog", "sat", "lay", "on", "under", "mat", "rug", "today", "quietly")


def _check_bleu(o: Options) -> None:
    only(o, set(), "bleu")


def _draw_bleu(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    """Two references of about --tokens words, and a candidate made from the first by a few edits:
    a word replaced, one dropped, one repeated (the slips BLEU's clipping and brevity penalty catch)."""
    n = min(max(o.tokens, 4), len(WORDS))
    first = rng.sample(WORDS, n)
    second = list(first)
    second[rng.randrange(n)] = rng.choice(WORDS)
    if rng.random() < 0.5:
        second.append(rng.choice(WORDS))
    cand = list(first)
    for _ in range(rng.choice((1, 2))):
        edit = rng.choice(("replace", "drop", "repeat"))
        k = rng.randrange(len(cand))
        if edit == "replace":
            cand[k] = rng.choice(WORDS)
        elif edit == "drop" and len(cand) > 4:
            del cand[k]
        else:
            cand.insert(k, cand[k])
    return {
        "title": f"Variant {number}",
        "kind": "bleu",
        "settings": {"decimals": o.decimals},
        "given": {"candidate": cand, "references": [first, second], "max_n": min(4, len(cand))},
    }


def _degeneracy_bleu(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    score = float(np.asarray(d.step("bleu").value))
    if score == 0:
        return "BLEU 0 (an order with no match)"
    if score >= 1 - 1e-12:
        return "the candidate is a reference"
    return None


BLEU = Drawer("BLEU homework", _check_bleu, _draw_bleu, _degeneracy_bleu, min_tokens=2, max_tokens=len(WORDS))
