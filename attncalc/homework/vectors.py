"""Homework for sequence (step probabilities to loss and perplexity) and similarity (dot products,
cosines and distances of word vectors)."""

from __future__ import annotations

import random
from typing import Any

from ..derivation import Derivation
from ..schema import catalog
from .base import TOKENS, Draw, Drawer, only, refuse
from .guards import zero_row
from .options import Options

# probabilities by --values: fractions whose logarithms are short exact forms (−ln(1/4) = 2 ln 2), or
# one or two decimals; none of them repeats a decimal, so the sheets' givens are exact
PROBABILITIES = {
    "int": ("1/2", "1/4", "3/4", "1/5", "2/5", "3/5", "4/5", "1/10", "9/10"),
    "decimal": (0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9),
}


def _check_sequence(o: Options) -> None:
    only(o, set(), "sequence")


def draw_sequence(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    T = o.tokens

    def one() -> str | float:
        style = o.values if o.values != "mixed" else rng.choice(("int", "decimal"))
        return rng.choice(PROBABILITIES[style])

    return {
        "title": f"Variant {number}",
        "kind": "sequence",
        "settings": {"decimals": o.decimals},
        "given": {"probabilities": [one() for _ in range(T)], "targets": list(TOKENS[:T])},
    }


def reject_sequence(o: Options, raw: dict[str, Any]) -> str | None:
    p = raw["given"]["probabilities"]
    return "all probabilities equal" if len({str(x) for x in p}) == 1 else None


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    return None


def measures(o: Options) -> list[str]:
    if o.measure is None:
        return list(catalog.MEASURES)
    names = [m.strip() for m in o.measure.split(",")]
    if not all(names):  # "dot,,cosine": a blank between commas names nothing
        raise refuse("--measure", f"{o.measure!r} has an empty name between commas; write dot, cosine or euclidean")
    for m in names:
        if m not in catalog.MEASURES:
            raise refuse(
                "--measure", f"unknown measure {m!r}; choose dot, cosine or euclidean (or several: dot,cosine)"
            )
    if len(set(names)) != len(names) or not names:
        raise refuse("--measure", "name each measure once: dot, cosine, euclidean (comma-separated)")
    return [m for m in catalog.MEASURES if m in names]


def _check_similarity(o: Options) -> None:
    measures(o)
    only(o, {"measure"}, "similarity")


def draw_similarity(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    """Rows of A (labelled by the first tokens) against as many rows of B (the next tokens)."""
    d = Draw(rng, o.values)
    n, k = o.tokens, o.dim
    ms = measures(o)
    return {
        "title": f"Variant {number}",
        "kind": "similarity",
        "measure": ms if len(ms) > 1 else ms[0],
        "tokens": list(TOKENS[:n]),
        "settings": {"decimals": o.decimals},
        "given": {"A": d.matrix(n, k), "B": d.matrix(n, k), "labels_B": list(TOKENS[n : 2 * n])},
    }


def reject_similarity(o: Options, raw: dict[str, Any]) -> str | None:
    g = raw["given"]
    why = zero_row(g["A"], g["B"])  # a zero vector has no direction (the cosine is undefined)
    if why:
        return why
    rows = [tuple(r) for r in g["A"]], [tuple(r) for r in g["B"]]
    if any(len(set(r)) < len(r) for r in rows):
        return "a repeated row"
    if set(rows[0]) & set(rows[1]):
        return "a row of A equals a row of B"
    return None


SEQUENCE = Drawer(
    "Sequence homework",
    _check_sequence,
    draw_sequence,
    _fine,
    reject_sequence,
    min_tokens=2,
    reads=frozenset({"tokens", "values", "decimals"}),
)
SIMILARITY = Drawer(
    "Similarity homework",
    _check_similarity,
    draw_similarity,
    _fine,
    reject_similarity,
    min_tokens=2,
    max_tokens=6,
    reads=frozenset({"tokens", "dim", "values", "decimals"}),
)
