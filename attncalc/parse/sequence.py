"""Kind sequence: the probability a model gave the target token at each step."""

from __future__ import annotations

from typing import Any

from .reader import Reader, require
from .types import Given, Problem


def read(
    r: Reader, t: dict[str, Any], tokens: tuple[str, ...] | None
) -> tuple[dict[str, Given], tuple[str, ...] | None]:
    """The probability a model gave the target token at each step."""
    probs = r.vector(
        require(r, t, "probabilities", "the probability of the target token at each step"), "given.probabilities"
    )
    for k, v in enumerate(probs.floats, 1):
        if not 0 < v <= 1:
            why = "−ln 0 is infinite" if v == 0 else "a probability lies in (0, 1]"
            raise r.fail("given.probabilities", f"entry {k} is {v:g}: {why}")
    labels = r.labels(t["targets"], "given.targets") if "targets" in t else tokens
    if labels is not None and len(labels) != probs.shape[0]:
        raise r.fail(
            "given.targets" if "targets" in t else "tokens",
            f"has {len(labels)} labels but there are {probs.shape[0]} probabilities: one target per step",
        )
    return {"probabilities": probs}, labels


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind sequence, past the top level."""
    given, labels = read(r, raw["given"], common["tokens"])
    return Problem(given=given, head=None, labels=labels, **common)
