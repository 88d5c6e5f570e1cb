"""Homework for the kinds after the model's output: decode (choosing the next token) and bleu."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from ..schema import catalog
from .base import Drawer, choose, only, refuse
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


BLEU = Drawer(
    "BLEU homework",
    _check_bleu,
    _draw_bleu,
    _degeneracy_bleu,
    min_tokens=2,
    max_tokens=len(WORDS),
    reads=frozenset({"tokens", "decimals"}),
)


def _check_decode(o: Options) -> None:
    choose(o, "strategy", o.strategy or "top-p", tuple(catalog.STRATEGIES))
    if o.top_k is not None and (o.strategy or "top-p") != "top-p":
        raise refuse("--top-k", "--top-k keeps the top k before top-p: it applies with --strategy top-p")
    if o.top_k is not None and not 2 <= o.top_k < max(o.tokens, 3):
        raise refuse("--top-k", f"--top-k {o.top_k}: from 2 to one below the vocabulary (--tokens {max(o.tokens, 3)})")
    only(o, {"strategy", "top_k"}, "decode")


def _draw_decode(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    """Integer logits (their exponentials are short exact forms) over --tokens entries, k or p, and a
    draw u; beam: two beams of one-decimal log-probabilities."""
    strategy = o.strategy or "top-p"
    V = max(o.tokens, 3)
    vocab = list(VOCAB_WORDS[:V])
    raw: dict[str, Any] = {
        "title": f"Variant {number}",
        "kind": "decode",
        "strategy": strategy,
        "settings": {"decimals": o.decimals},
    }
    if strategy == "beam":
        g: dict[str, Any] = {
            "vocab": vocab,
            "beams": [[-rng.choice(LOGP) for _ in range(V)] for _ in range(2)],
            "beam_scores": sorted([-rng.choice(LOGP) for _ in range(2)], reverse=True),
            "beam_width": 2,
        }
        if rng.random() < 0.5:
            g["length_penalty"] = 0.6
            g["length"] = rng.choice((2, 3, 4))
    else:
        g = {
            "logits": rng.sample(range(-2, 4), V) if V <= 6 else [rng.randint(-2, 3) for _ in range(V)],
            "vocab": vocab,
        }
        if strategy == "top-k":
            g["k"] = rng.randint(2, V - 1)
        if strategy == "top-p":
            g["p"] = rng.choice((0.5, 0.6, 0.75, 0.8, 0.9))
            if o.top_k is not None:  # top-k first, in Hugging Face's order
                g["k"] = o.top_k
        if strategy != "greedy":
            g["u"] = rng.choice((0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9))
    raw["given"] = g
    return raw


def _degeneracy_decode(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    if "cumulative" in d.step_ids:  # a running sum within rounding of p makes the cut a matter of rounding
        p = float(raw["given"]["p"])
        if np.any(np.abs(np.asarray(d.step("cumulative").value, dtype=float) - p) < 10.0**-o.decimals):
            return "a running sum within rounding of p"
    if "draw_cumulative" in d.step_ids:
        u = float(raw["given"]["u"])
        if np.any(np.abs(np.asarray(d.step("draw_cumulative").value, dtype=float) - u) < 10.0**-o.decimals):
            return "a running sum within rounding of u"
    if "candidates" in d.step_ids:
        ranked = d.step("normalized" if "normalized" in d.step_ids else "candidates").value
        flat = np.sort(np.asarray(ranked, dtype=float).ravel())[::-1]
        w = int(raw["given"]["beam_width"])
        if w < flat.size and abs(flat[w - 1] - flat[w]) < 10.0**-o.decimals:
            return "candidates tie at the cut"
    return None


VOCAB_WORDS = ("cat", "dog", "mat", "sat", "the", "on", "a", "rug", "ran", "lay", "today", "and")
LOGP = (0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.2, 1.6, 2.0, 2.3)

DECODE = Drawer(
    "Decoding homework",
    _check_decode,
    _draw_decode,
    _degeneracy_decode,
    min_tokens=3,
    max_tokens=12,
    reads=frozenset({"tokens", "decimals"}),
)
