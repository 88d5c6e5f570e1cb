"""Kind ``grpo``: the rewards of a group of completions, their tokens' log-probabilities under the policy,
the old policy and (optionally) the reference, ε, β, the standard deviation and the normalisation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..numbers import Node, to_float
from ..schema.grpo import GIVEN, TOKEN_KEYS
from .declared import read_declared
from .reader import Reader
from .types import Given, Problem

MAX_TOKENS = 64  # tokens over the whole group: every one is a row of five steps


@dataclass(frozen=True)
class Grpo:
    """The kind's typed data (``problem.data``): the rewards (a vector of G), each completion's token
    log-probabilities (a tuple of G vectors) under the policy, the old policy (None: the policy's own)
    and the reference (None: no KL term), and the numbers and choices as written."""

    rewards: Given
    logprobs: tuple[Given, ...]
    old_logprobs: tuple[Given, ...] | None
    ref_logprobs: tuple[Given, ...] | None
    epsilon: Node
    beta: Node
    std: str
    advantage_eps: Node
    normalize: str

    @property
    def group(self) -> int:
        return len(self.logprobs)

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(row.shape[0] for row in self.logprobs)

    def stated(self) -> list[tuple[str, str]]:
        """(key, sentence): the numbers and choices besides the arrays that decide the answers (a quiz
        question states them; the derivation's formulas and header say them too)."""
        eps = to_float(self.epsilon)
        out = [("epsilon", f"ε = {eps:g}: the ratios are clipped to [1 − ε, 1 + ε].")]
        if self.ref_logprobs is not None:
            out.append(("beta", f"β = {to_float(self.beta):g}: the weight of the KL term."))
        spread = "unbiased (divided by n − 1)" if self.std == "unbiased" else "the population's (divided by n)"
        out.append(("std", f"The rewards' standard deviation: {spread}."))
        out.append(("advantage_eps", f"advantage_eps = {to_float(self.advantage_eps):g}: A = (r − mean) / (std + "
                    f"{to_float(self.advantage_eps):g})."))  # fmt: skip
        if self.normalize == "sequence":
            out.append(("normalize", "The loss: each completion's mean over its tokens, then the mean (sequence)."))
        else:
            out.append(("normalize", "The loss: the mean over all the group's tokens at once (token)."))
        return out

    @property
    def labels(self) -> tuple[str, ...]:
        """One label per token, completion by completion: "o2 t1" is completion 2's first token."""
        return tuple(f"o{i} t{t}" for i, n in enumerate(self.lengths, 1) for t in range(1, n + 1))


def _rows(r: Reader, raw: Any, path: str) -> tuple[Given, ...]:
    if not isinstance(raw, list) or not raw:
        raise r.fail(path, "expected a list with one list of token log-probabilities per completion")
    rows = []
    for i, row in enumerate(raw, 1):
        if not isinstance(row, list):
            raise r.fail(path, f"completion {i}: expected a list of token log-probabilities, got {row!r}")
        v = r.vector(row, f"{path}[{i}]")
        above = [j for j, x in enumerate(v.floats.tolist(), 1) if not x <= 0]
        if above:
            raise r.fail(
                f"{path}[{i}]", f"token {above[0]} is {v.floats[above[0] - 1]:g}: a log-probability is 0 or less"
            )
        rows.append(v)
    return tuple(rows)


def _same_lengths(r: Reader, rows: tuple[Given, ...], lengths: tuple[int, ...], path: str) -> None:
    if len(rows) != len(lengths):
        raise r.fail(path, f"has {len(rows)} completions, but given.logprobs has {len(lengths)}")
    for i, (row, n) in enumerate(zip(rows, lengths, strict=True), 1):
        if row.shape[0] != n:
            raise r.fail(f"{path}[{i}]", f"has {row.shape[0]} tokens, but given.logprobs[{i}] has {n}")


def _numbers(r: Reader, g: dict[str, Any], rewards: Given) -> None:
    eps = to_float(g["epsilon"])
    if not 0 < eps < 1:
        raise r.fail("given.epsilon", f"is {eps:g}: ε must be greater than 0 and less than 1")
    if not to_float(g["beta"]) >= 0:
        raise r.fail("given.beta", f"is {to_float(g['beta']):g}: β must be 0 or more")
    a_eps = to_float(g["advantage_eps"])
    if not a_eps >= 0:
        raise r.fail("given.advantage_eps", f"is {a_eps:g}: it must be 0 or more")
    if a_eps == 0 and len(set(rewards.floats.tolist())) == 1:
        raise r.fail("given.advantage_eps", "is 0 and every reward is equal: the advantages divide 0 by 0")


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    given_raw = dict(raw["given"]) if isinstance(raw.get("given"), dict) else raw.get("given")
    tokens: dict[str, tuple[Given, ...]] = {}
    if isinstance(given_raw, dict):
        for name in TOKEN_KEYS:
            if name in given_raw:
                tokens[name] = _rows(r, given_raw[name], f"given.{name}")
                given_raw[name] = [[0]] * len(tokens[name])  # the declaration checks the rest
    g = read_declared(r, given_raw, GIVEN, "given")
    rewards: Given = g["rewards"]
    group = rewards.shape[0]
    if group < 2:
        raise r.fail("given.rewards", f"has {group} completion: a group needs at least 2")
    logprobs = tokens["logprobs"]
    if len(logprobs) != group:
        raise r.fail("given.logprobs", f"has {len(logprobs)} completions, but given.rewards has {group}")
    lengths = tuple(row.shape[0] for row in logprobs)
    if sum(lengths) > MAX_TOKENS:
        raise r.fail("given.logprobs", f"has {sum(lengths)} tokens: at most {MAX_TOKENS} over the group")
    for name in TOKEN_KEYS[1:]:
        if name in tokens:
            _same_lengths(r, tokens[name], lengths, f"given.{name}")
    _numbers(r, g, rewards)
    data = Grpo(
        rewards, logprobs, tokens.get("old_logprobs"), tokens.get("ref_logprobs"), g["epsilon"], g["beta"],
        str(g["std"]), g["advantage_eps"], str(g["normalize"]),
    )  # fmt: skip
    given: dict[str, Given] = {"rewards": rewards}
    for name, rows in tokens.items():
        given.update({f"{name}[{i}]": v for i, v in enumerate(rows, 1)})
    return Problem(given=given, data=data, **common)
