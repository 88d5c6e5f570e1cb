"""Kind sequence: the probability a model gave the target token at each step."""

from __future__ import annotations

from typing import Any

from ..schema.feedforward import SEQUENCE_GIVEN
from .data import Sequence
from .declared import read_declared
from .reader import Reader
from .types import Problem


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind sequence, past the top level: the declaration reads the probabilities and the targets (one
    per step); a probability lies in (0, 1], and the tokens label the steps when targets are not given."""
    given = read_declared(r, raw["given"], SEQUENCE_GIVEN, "given")
    probs = given["probabilities"]
    for k, v in enumerate(probs.floats, 1):
        if not 0 < v <= 1:
            why = "−ln 0 is infinite" if v == 0 else "a probability lies in (0, 1]"
            raise r.fail("given.probabilities", f"entry {k} is {v:g}: {why}")
    targets = given["targets"] or common["tokens"]
    if given["targets"] is None and targets is not None and len(targets) != probs.shape[0]:
        raise r.fail(
            "tokens", f"has {len(targets)} labels but there are {probs.shape[0]} probabilities: one target per step"
        )
    data = Sequence(probs, targets)
    return Problem(given={"probabilities": probs}, data=data, **common)
