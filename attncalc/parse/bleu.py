"""Parsing of kind ``bleu``: the candidate, its references, N and the weights."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..numbers import parse_number
from .reader import describe_raw, require
from .types import Bleu, Given, Problem

if TYPE_CHECKING:
    from .reader import Reader

MAX_REFERENCES = 100  # references of one sentence (the paper has 3 or 4)
MAX_SENTENCE = 1_000  # tokens in the candidate or in one reference


def _tokens(r: Reader, raw: Any, key: str) -> tuple[str, ...]:
    """A list of tokens, or one string split at spaces."""
    if isinstance(raw, str):
        words = tuple(raw.split())
        if not words:
            raise r.fail(key, "the sentence is empty")
        return words
    if not isinstance(raw, list):
        raise r.fail(key, f"expected a list of tokens or a string, got {describe_raw(raw)}")
    return r.labels(raw, key)


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind bleu, past the top level."""
    t = raw["given"]
    candidate = _tokens(r, require(r, t, "candidate", "the translation scored, a list of tokens"), "given.candidate")
    refs_raw = require(r, t, "references", "the reference translations, a list of token lists")
    if not isinstance(refs_raw, list) or not refs_raw:
        raise r.fail("given.references", f"expected a non-empty list of token lists, got {describe_raw(refs_raw)}")
    if all(not isinstance(x, (list, str)) for x in refs_raw):
        raise r.fail("given.references", 'expected a list of token lists; write one reference as [[...]] or ["..."]')
    if len(refs_raw) > MAX_REFERENCES:
        raise r.fail(
            "given.references", f"{len(refs_raw)} references: at most {MAX_REFERENCES} (a sentence BLEU by hand)"
        )
    references = tuple(_tokens(r, ref, f"given.references, reference {i}") for i, ref in enumerate(refs_raw, 1))
    for key, toks in (
        ("given.candidate", candidate),
        *((f"given.references, reference {i}", x) for i, x in enumerate(references, 1)),
    ):
        if len(toks) > MAX_SENTENCE:
            raise r.fail(key, f"{len(toks)} tokens: at most {MAX_SENTENCE} in a sentence")
    weights_raw = t.get("weights")
    n_default = len(weights_raw) if isinstance(weights_raw, list) and weights_raw else 4
    max_n = t.get("max_n", n_default)
    if isinstance(max_n, bool) or not isinstance(max_n, int) or not 1 <= max_n <= 9:
        raise r.fail("given.max_n", f"expected a whole number from 1 to 9, got {describe_raw(max_n)}")
    if max_n > len(candidate):
        raise r.fail(
            "given.max_n",
            f"is {max_n}, but the candidate has {len(candidate)} tokens and so no {max_n}-grams: "
            f"set max_n to at most {len(candidate)}",
        )
    if weights_raw is None:
        nodes = np.empty(max_n, dtype=object)
        for i in range(max_n):
            nodes[i] = parse_number(f"1/{max_n}")
        weights = Given("weights", nodes, np.full(max_n, 1.0 / max_n))
    else:
        weights = r.vector(weights_raw, "given.weights")
        if weights.shape[0] != max_n:
            raise r.fail("given.weights", f"has {weights.shape[0]} entries but max_n = {max_n}: one weight per order")
        bad = [i + 1 for i, w in enumerate(weights.floats) if not w > 0]
        if bad:
            raise r.fail("given.weights", f"entry {bad[0]} is not above 0: every order needs a positive weight")
    if common["tokens"] is not None:
        raise r.fail("tokens", "a bleu problem's tokens are given.candidate and given.references")
    b = Bleu(candidate=candidate, references=references, max_n=max_n, weights=weights)
    return Problem(given={"weights": weights}, head=None, bleu=b, **common)
