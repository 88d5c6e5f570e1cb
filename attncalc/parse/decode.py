"""Kind ``decode``: the next token's distribution (or the beams) and what the strategy needs.

The declaration (:mod:`attncalc.schema.decoding`) reads the keys and their types (whole numbers of at
least 1 for k, beam_width and length). The rules here are the ones it cannot say: which keys each
strategy takes and needs, logits or probabilities (one of the two; probabilities add up to 1, and a
temperature needs logits), beams of log-probabilities with one score per beam, labels that match the
vocabulary, k and the beam width within what there is to keep, the bounds of p, u and the length
penalty, and the penalty's α and L given together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numbers import Node, to_float
from ..schema.decoding import DECODE, DECODE_GIVEN
from .declared import read_declared
from .reader import Reader, shape_text
from .types import Given, Problem

BEAM_KEYS = ("beams", "beam_scores", "beam_width", "length_penalty", "length", "vocab")
NEEDS = {"greedy": (), "sample": (), "top-k": ("k",), "top-p": ("p",), "beam": ("beams", "beam_scores", "beam_width")}
TAKES = {
    "greedy": ("logits", "probabilities", "vocab"),
    "sample": ("logits", "probabilities", "vocab", "u"),
    "top-k": ("logits", "probabilities", "vocab", "k", "u"),
    "top-p": ("logits", "probabilities", "vocab", "p", "u", "k"),  # k: top-k first (Hugging Face's order)
    "beam": BEAM_KEYS,
}


# ------------------------------------------------------------------ the payload (Problem.data)


@dataclass(frozen=True)
class TopK:
    """Strategy top-k: the k most probable tokens are kept."""

    k: int


@dataclass(frozen=True)
class TopP:
    """Strategy top-p: the smallest set of most probable tokens whose probabilities reach p is kept."""

    p: Node
    k: int | None  # top-k first, then top-p over the top k renormalised (Hugging Face's order); None: no top-k


@dataclass(frozen=True)
class Draw:
    """Strategies greedy, sample, top-k and top-p: one distribution over the next token."""

    distribution: Given  # V logits (then the softmax first) or V probabilities
    logits: bool  # True: ``distribution`` holds logits
    filter: TopK | TopP | None  # None: greedy, sample
    u: Node | None  # the uniform draw that picks a token (sample, top-k, top-p), or None: no draw


@dataclass(frozen=True)
class LengthPenalty:
    """Wu et al. 2016: candidates ranked by score / ((5 + L)/6)^α."""

    alpha: Node
    length: int  # L, the hypothesis length after this step


@dataclass(frozen=True)
class Beam:
    """Strategy beam: one step of beam search."""

    beams: Given  # B × V next-token log-probabilities
    scores: Given  # B: each beam's log-probability so far
    width: int  # how many candidates are kept
    penalty: LengthPenalty | None


@dataclass(frozen=True)
class Decode:
    """Kind decode: a distribution over the next token (or B beams) and the strategy that picks from it."""

    strategy: str  # greedy | sample | top-k | top-p | beam
    vocab: tuple[str, ...]
    choice: Draw | Beam

    def numbers(self) -> list[tuple[str, int | Node]]:
        """k, p, u and the beam width, those the strategy has, in that order (the header and setup lines)."""
        c = self.choice
        if isinstance(c, Beam):
            return [("beam_width", c.width)]
        f = c.filter
        k = f.k if f is not None else None
        out: list[tuple[str, int | Node]] = [] if k is None else [("k", k)]
        if isinstance(f, TopP):
            out.append(("p", f.p))
        return out if c.u is None else [*out, ("u", c.u)]

    @property
    def penalty(self) -> LengthPenalty | None:
        return self.choice.penalty if isinstance(self.choice, Beam) else None


# ------------------------------------------------------------------ the parser


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind decode, past the top level."""
    strategy: str = read_declared(r, raw, DECODE.top, "", only=("strategy",))["strategy"]
    _strategy_keys(r, raw["given"], strategy)
    g = read_declared(r, raw["given"], DECODE_GIVEN, "given")
    temperature = common["settings"].temperature
    choice: Draw | Beam
    if strategy == "beam":
        if temperature is not None:
            raise r.fail("settings.temperature", "applies to the sampling strategies: the beams are log-probabilities")
        beams, scores = _beams(r, g)
        V = beams.shape[1]
        labels = _vocab(r, g["vocab"], common["tokens"], V)
        choice = Beam(beams, scores, _width(r, g["beam_width"], beams), _penalty(r, g["length_penalty"], g["length"]))
        given = {"beams": beams}
    else:
        dist, logits = _distribution(r, g, temperature is not None)
        V = dist.shape[0]
        labels = _vocab(r, g["vocab"], common["tokens"], V)
        choice = Draw(dist, logits, _filter(r, strategy, g["k"], g["p"], V), _u(r, g["u"]))
        given = {"logits" if logits else "probabilities": dist}
    d = Decode(strategy, labels, choice)
    common = {**common, "tokens": None}
    return Problem(given=given, data=d, **common)


def _strategy_keys(r: Reader, t: dict[str, Any], strategy: str) -> None:
    """Each key of [given] belongs to the strategies that use it; the strategy's own keys are there."""
    for key in t:
        if key not in TAKES[strategy]:
            users = [s for s, keys in TAKES.items() if key in keys]
            raise r.fail(f"given.{key}", f"does not apply to strategy {strategy!r} (it belongs to {', '.join(users)})")
    for key in NEEDS[strategy]:
        if t.get(key) is None:
            raise r.fail(f"given.{key}", f"missing: strategy {strategy!r} needs it")


def _beams(r: Reader, g: dict[str, Any]) -> tuple[Given, Given]:
    """The beams' log-probabilities (at most 0) and one score per beam."""
    beams: Given = g["beams"]
    if np.any(beams.floats > 0):
        raise r.fail("given.beams", "holds log-probabilities, which are at most 0")
    scores: Given = g["beam_scores"]
    if scores.shape[0] != beams.shape[0]:
        raise r.fail("given.beam_scores", f"has {scores.shape[0]} entries but given.beams has {beams.shape[0]} rows")
    return beams, scores


def _distribution(r: Reader, g: dict[str, Any], temperature: bool) -> tuple[Given, bool]:
    """The logits, or probabilities that add up to 1 (and then no temperature); True for logits."""
    if (g["logits"] is None) == (g["probabilities"] is None):
        raise r.fail("given.logits", "give either logits or probabilities (one of the two)")
    if g["logits"] is not None:
        return g["logits"], True
    probs: Given = g["probabilities"]
    if np.any(probs.floats < 0) or abs(float(probs.floats.sum()) - 1) > 1e-9:
        raise r.fail(
            "given.probabilities", f"must be at least 0 and add up to 1 (they add up to {probs.floats.sum():g})"
        )
    if temperature:
        raise r.fail("settings.temperature", "divides logits: give given.logits instead of probabilities")
    return probs, False


def _vocab(r: Reader, vocab: tuple[str, ...] | None, tokens: tuple[str, ...] | None, V: int) -> tuple[str, ...]:
    """given.vocab, else the tokens, else w1, w2, …: one distinct label per vocabulary entry."""
    where = "given.vocab" if vocab is not None else "tokens"
    labels = vocab if vocab is not None else tokens
    if labels is None:
        return tuple(f"w{i + 1}" for i in range(V))
    if len(labels) != V:
        raise r.fail(where, f"has {len(labels)} labels but there are {V} vocabulary entries")
    if len(set(labels)) != len(labels):
        raise r.fail(where, "a label is repeated: each vocabulary entry needs its own")
    return tuple(labels)


def _filter(r: Reader, strategy: str, k: int | None, p: Node | None, V: int) -> TopK | TopP | None:
    """top-k's k (at most V); top-p's p in (0, 1] and its optional k."""
    if k is not None and k > V:
        raise r.fail("given.k", f"is {k}, but the vocabulary has {V} entries")
    if p is not None and not 0 < to_float(p) <= 1:
        raise r.fail("given.p", "must be above 0 and at most 1")
    if strategy == "top-k" and k is not None:
        return TopK(k)
    if strategy == "top-p" and p is not None:
        return TopP(p, k)
    return None


def _u(r: Reader, u: Node | None) -> Node | None:
    if u is not None and not 0 <= to_float(u) < 1:
        raise r.fail("given.u", "is a uniform draw: at least 0 and below 1")
    return u


def _width(r: Reader, width: int, beams: Given) -> int:
    if width > beams.floats.size:
        raise r.fail(
            "given.beam_width", f"is {width}, but there are only {beams.floats.size} candidates ({shape_text(beams)})"
        )
    return width


def _penalty(r: Reader, alpha: Node | None, length: int | None) -> LengthPenalty | None:
    """α in [0, 10] and L in [1, 10,000] (((5 + L)/6)^α must stay a number), both or neither."""
    if alpha is not None and not 0 <= to_float(alpha) <= 10:  # Wu et al. use α in [0.6, 1]
        raise r.fail("given.length_penalty", "α is at least 0 (0: no penalty) and at most 10")
    if length is not None and not 1 <= length <= 10_000:
        raise r.fail("given.length", "the hypothesis length is 1 to 10,000 tokens")
    if alpha is None and length is None:
        return None
    if alpha is None or length is None:
        key = "given.length" if alpha is not None else "given.length_penalty"
        raise r.fail(key, "the length penalty needs both length_penalty (α) and length (L)")
    return LengthPenalty(alpha, length)
