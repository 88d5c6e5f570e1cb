"""Parsing of kind ``decode``: the next token's distribution (or the beams) and what the strategy needs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import catalog
from ..numbers import to_float
from .reader import describe_raw, require, shape_text
from .types import Decode, Given, Problem

if TYPE_CHECKING:
    from .reader import Reader

SAMPLING_KEYS = ("logits", "probabilities", "vocab", "k", "p", "u")
BEAM_KEYS = ("beams", "beam_scores", "beam_width", "length_penalty", "length", "vocab")
NEEDS = {"greedy": (), "sample": (), "top-k": ("k",), "top-p": ("p",), "beam": ("beams", "beam_scores", "beam_width")}
TAKES = {
    "greedy": ("logits", "probabilities", "vocab"),
    "sample": ("logits", "probabilities", "vocab", "u"),
    "top-k": ("logits", "probabilities", "vocab", "k", "u"),
    "top-p": ("logits", "probabilities", "vocab", "p", "u", "k"),  # k: top-k first (Hugging Face's order)
    "beam": BEAM_KEYS,
}


def _int(r: Reader, raw: Any, key: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise r.fail(key, f"expected a whole number of at least 1, got {describe_raw(raw)}")
    return raw


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind decode, past the top level."""
    t = raw["given"]
    strategy = r.string(raw.get("strategy", "greedy"), "strategy", tuple(catalog.STRATEGIES))
    for key in t:
        if key not in TAKES[strategy]:
            users = [s for s, keys in TAKES.items() if key in keys]
            raise r.fail(f"given.{key}", f"does not apply to strategy {strategy!r} (it belongs to {', '.join(users)})")
    for key in NEEDS[strategy]:
        require(r, t, key, f"strategy {strategy!r} needs it")
    temperature = common["settings"].temperature
    logits = probs = beams = scores = None
    if strategy == "beam":
        if temperature is not None:
            raise r.fail("settings.temperature", "applies to the sampling strategies: the beams are log-probabilities")
        beams = r.matrix(t["beams"], "given.beams")
        if np.any(beams.floats > 0):
            raise r.fail("given.beams", "holds log-probabilities, which are at most 0")
        scores = r.vector(t["beam_scores"], "given.beam_scores")
        if scores.shape[0] != beams.shape[0]:
            raise r.fail(
                "given.beam_scores", f"has {scores.shape[0]} entries but given.beams has {beams.shape[0]} rows"
            )
        V = beams.shape[1]
    else:
        if ("logits" in t) == ("probabilities" in t):
            raise r.fail("given.logits", "give either logits or probabilities (one of the two)")
        if "logits" in t:
            logits = r.vector(t["logits"], "given.logits")
            V = logits.shape[0]
        else:
            probs = r.vector(t["probabilities"], "given.probabilities")
            V = probs.shape[0]
            if np.any(probs.floats < 0) or abs(float(probs.floats.sum()) - 1) > 1e-9:
                raise r.fail(
                    "given.probabilities", f"must be at least 0 and add up to 1 (they add up to {probs.floats.sum():g})"
                )
            if temperature is not None:
                raise r.fail("settings.temperature", "divides logits: give given.logits instead of probabilities")
    vocab = common["tokens"]
    if "vocab" in t:
        vocab = r.labels(t["vocab"], "given.vocab")
    where = "given.vocab" if "vocab" in t else "tokens"
    if vocab is not None and len(vocab) != V:
        raise r.fail(where, f"has {len(vocab)} labels but there are {V} vocabulary entries")
    if vocab is not None and len(set(vocab)) != len(vocab):
        raise r.fail(where, "a label is repeated: each vocabulary entry needs its own")
    labels = tuple(vocab) if vocab is not None else tuple(f"w{i + 1}" for i in range(V))
    k = _int(r, t["k"], "given.k") if "k" in t else None
    if k is not None and k > V:
        raise r.fail("given.k", f"is {k}, but the vocabulary has {V} entries")
    p = r.number(t["p"], "given.p") if "p" in t else None
    if p is not None and not 0 < to_float(p) <= 1:
        raise r.fail("given.p", "must be above 0 and at most 1")
    u = r.number(t["u"], "given.u") if "u" in t else None
    if u is not None and not 0 <= to_float(u) < 1:
        raise r.fail("given.u", "is a uniform draw: at least 0 and below 1")
    width = _int(r, t["beam_width"], "given.beam_width") if "beam_width" in t else None
    if width is not None and beams is not None and width > beams.floats.size:
        raise r.fail(
            "given.beam_width", f"is {width}, but there are only {beams.floats.size} candidates ({shape_text(beams)})"
        )
    alpha = r.number(t["length_penalty"], "given.length_penalty") if "length_penalty" in t else None
    if alpha is not None and not 0 <= to_float(alpha) <= 10:  # Wu et al. use α in [0.6, 1]
        raise r.fail("given.length_penalty", "α is at least 0 (0: no penalty) and at most 10")
    length = _int(r, t["length"], "given.length") if "length" in t else None
    if length is not None and not 1 <= length <= 10_000:  # ((5 + L)/6)^α must stay a number
        raise r.fail("given.length", "the hypothesis length is 1 to 10,000 tokens")
    if (alpha is None) != (length is None):
        key = "given.length" if alpha is not None else "given.length_penalty"
        raise r.fail(key, "the length penalty needs both length_penalty (α) and length (L)")
    d = Decode(
        strategy=strategy,
        vocab=labels,
        logits=logits,
        probabilities=probs,
        k=k,
        p=p,
        u=u,
        beams=beams,
        beam_scores=scores,
        beam_width=width,
        length_penalty=alpha,
        length=length,
    )
    given: dict[str, Given] = {
        name: g for name, g in (("logits", logits), ("probabilities", probs), ("beams", beams)) if g is not None
    }
    common = {**common, "tokens": None}
    return Problem(given=given, head=None, decode=d, vocab=labels, **common)
