"""Kind ``dpo``: β, the four log-probabilities of each pair (a number per pair, or a list of token
log-probabilities summed per sequence), the loss and cDPO's label smoothing ε."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..numbers import Node, to_float
from ..schema.dpo import GIVEN, SEQUENCES
from .declared import read_declared
from .reader import Reader
from .types import Given, Problem

MAX_SMOOTHING = 0.5  # past one half the smoothed loss prefers the rejected response


@dataclass(frozen=True)
class Dpo:
    """The kind's typed data (``problem.data``): β and ε as written, the loss, and for each of the four
    sequences (``SEQUENCES``' order) either a vector, one log-probability per pair, or a tuple of
    vectors, one per pair, of token log-probabilities (summed in the derivation)."""

    beta: Node
    policy_chosen: Given | tuple[Given, ...]
    policy_rejected: Given | tuple[Given, ...]
    reference_chosen: Given | tuple[Given, ...]
    reference_rejected: Given | tuple[Given, ...]
    loss: str
    label_smoothing: Node

    @property
    def pairs(self) -> int:
        first = self.policy_chosen
        return len(first) if isinstance(first, tuple) else first.shape[0]

    def sequence(self, name: str) -> Given | tuple[Given, ...]:
        return getattr(self, name)  # type: ignore[no-any-return]

    @property
    def epsilon(self) -> float:
        return to_float(self.label_smoothing)

    def stated(self) -> list[tuple[str, str]]:
        """(key, sentence): β, the loss and its label smoothing ε, besides the log-probabilities' tables
        (a quiz item states them)."""
        out = [("beta", f"β = {_six(to_float(self.beta))}: the strength of the KL penalty.")]
        out.append(("loss", f"The loss: {_LOSS[self.loss]}, with h = chosen logratio − rejected logratio."))
        if self.loss == "sigmoid":
            out.append(("label_smoothing", f"label_smoothing ε = {_six(self.epsilon)} (cDPO; 0: plain DPO)."))
        return out


def _six(x: float) -> str:
    """β or ε to at most 6 decimals, trailing zeros dropped (0.1, 0.05), as the sheets write a given."""
    return f"{x:.6f}".rstrip("0").rstrip(".") or "0"


_LOSS = {
    "sigmoid": "sigmoid, −(1 − ε) log σ(β h) − ε log σ(−β h) per pair",
    "ipo": "IPO, (h − 1/(2β))² per pair",
    "hinge": "hinge, max(0, 1 − β h) per pair",
}


def _tokens(r: Reader, raw: list[Any], path: str) -> tuple[Given, ...]:
    rows = []
    for i, row in enumerate(raw, 1):
        if not isinstance(row, list):
            raise r.fail(path, f"pair {i}: expected a list of token log-probabilities, as the other pairs are")
        rows.append(r.vector(row, f"{path}[{i}]"))
    return tuple(rows)


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    given_raw = dict(raw["given"]) if isinstance(raw.get("given"), dict) else raw.get("given")
    tokens: dict[str, tuple[Given, ...]] = {}
    if isinstance(given_raw, dict):
        for name in SEQUENCES:
            v = given_raw.get(name)
            if isinstance(v, list) and v and any(isinstance(x, list) for x in v):
                tokens[name] = _tokens(r, v, f"given.{name}")
                given_raw[name] = [0] * len(v)  # the declaration checks the number of pairs
    g = read_declared(r, given_raw, GIVEN, "given")
    beta = g["beta"]
    if not to_float(beta) > 0:
        raise r.fail("given.beta", f"is {to_float(beta):g}: β must be greater than 0")
    eps = g["label_smoothing"]
    if not 0 <= to_float(eps) <= MAX_SMOOTHING:
        raise r.fail("given.label_smoothing", f"is {to_float(eps):g}: ε must be from 0 to {MAX_SMOOTHING}")
    if to_float(eps) != 0 and g["loss"] != "sigmoid":
        raise r.fail("given.label_smoothing", f"cDPO's smoothing belongs to the sigmoid loss, not {g['loss']!r}")
    seqs = {name: tokens.get(name, g[name]) for name in SEQUENCES}
    data = Dpo(beta, **seqs, loss=str(g["loss"]), label_smoothing=eps)  # type: ignore[arg-type]
    given: dict[str, Given] = {}
    for name, value in seqs.items():
        if isinstance(value, tuple):
            given.update({f"{name}[{i}]": v for i, v in enumerate(value, 1)})
        else:
            given[name] = value
    return Problem(given=given, data=data, **common)
