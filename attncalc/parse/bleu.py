"""Parsing of kind ``bleu``: the candidate, its references, N and the weights.

The declaration reads every key (the candidate a token list or a string, the references a list of
them, max_n a whole number from 1 to 9, the weights a vector); the rules here tie them together: N
defaults to the number of weights, each order has one positive weight, and the candidate is long
enough to have N-grams.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..numbers import parse_number
from ..schema.decoding import BLEU_GIVEN
from .declared import read_declared
from .types import Bleu, Given, Problem

if TYPE_CHECKING:
    from .reader import Reader

MAX_REFERENCES = 100  # references of one sentence (the paper has 3 or 4)
MAX_SENTENCE = 1_000  # tokens in the candidate or in one reference


def _sentence(r: Reader, value: tuple[str, ...] | str, key: str) -> tuple[str, ...]:
    """The candidate: a token list, or one string split at spaces."""
    words = tuple(value.split()) if isinstance(value, str) else value
    if not words:
        raise r.fail(key, "the sentence is empty")
    return words


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind bleu, past the top level."""
    if common["tokens"] is not None:
        raise r.fail("tokens", "a bleu problem's tokens are given.candidate and given.references")
    given = read_declared(r, raw["given"], BLEU_GIVEN, "given")
    candidate = _sentence(r, given["candidate"], "given.candidate")
    references: tuple[tuple[str, ...], ...] = given["references"]
    if len(references) > MAX_REFERENCES:
        raise r.fail(
            "given.references", f"{len(references)} references: at most {MAX_REFERENCES} (a sentence BLEU by hand)"
        )
    named = (("given.candidate", candidate), *((f"given.references[{i}]", x) for i, x in enumerate(references, 1)))
    for key, toks in named:
        if len(toks) > MAX_SENTENCE:
            raise r.fail(key, f"{len(toks)} tokens: at most {MAX_SENTENCE} in a sentence")
    weights: Given | None = given["weights"]
    stated = isinstance(raw["given"], dict) and raw["given"].get("max_n") is not None
    max_n: int = given["max_n"] if stated or weights is None else weights.shape[0]
    if max_n > 9:  # N taken from the weights: the bound the declaration puts on max_n
        raise r.fail("given.weights", f"has {max_n} entries, one per order: BLEU here counts n-grams up to N = 9")
    if max_n > len(candidate):
        raise r.fail(
            "given.max_n",
            f"is {max_n}, but the candidate has {len(candidate)} tokens and so no {max_n}-grams: "
            f"set max_n to at most {len(candidate)}",
        )
    if weights is None:
        nodes = np.empty(max_n, dtype=object)
        for i in range(max_n):
            nodes[i] = parse_number(f"1/{max_n}")
        weights = Given("weights", nodes, np.full(max_n, 1.0 / max_n))
    else:
        if weights.shape[0] != max_n:
            raise r.fail("given.weights", f"has {weights.shape[0]} entries but max_n = {max_n}: one weight per order")
        bad = [i + 1 for i, w in enumerate(weights.floats) if not w > 0]
        if bad:
            raise r.fail("given.weights", f"entry {bad[0]} is not above 0: every order needs a positive weight")
    b = Bleu(candidate=candidate, references=references, max_n=max_n, weights=weights)
    return Problem(given={"weights": weights}, data=b, **common)
