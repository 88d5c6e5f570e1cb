"""Kind ``speculative``: the vocabulary, the draft's γ distributions q_i, the target's γ + 1
distributions p_i, the γ drafted tokens, the γ uniform draws of the accept tests and the draw that
picks the token after the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numbers import Node, to_float
from ..schema.speculative import GIVEN, SPECULATIVE
from .declared import Dims, read_declared
from .reader import Reader
from .types import Given, Problem

MAX_GAMMA = 16  # drafted tokens in one round (the papers draft 2 to 10)
MAX_VOCAB = 256  # entries of each distribution
SUM_TOLERANCE = 1e-6  # how far a row's sum may be from 1 (decimals written to 6 places)


@dataclass(frozen=True)
class Speculative:
    """The kind's typed data (``problem.data``): the vocabulary, q (γ × V), p ((γ + 1) × V), the drafted
    tokens as indices of the vocabulary, the uniforms r_i and the resample draw as written."""

    vocab: tuple[str, ...]
    draft: Given
    target: Given
    drafted: tuple[int, ...]
    uniforms: Given
    resample: Node

    @property
    def gamma(self) -> int:
        return len(self.drafted)

    @property
    def drafted_labels(self) -> tuple[str, ...]:
        return tuple(self.vocab[i] for i in self.drafted)


def _distributions(r: Reader, g: Given, path: str, what: str) -> None:
    f = g.floats
    if not np.all(np.isfinite(f)) or np.any(f < 0):
        i, j = np.argwhere(~(np.isfinite(f) & (f >= 0)))[0]
        raise r.fail(path, f"row {i + 1}, entry {j + 1} is {f[i, j]:g}: {what} are probabilities, at least 0")
    sums = f.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1) > SUM_TOLERANCE)
    if bad.size:
        i = int(bad[0])
        raise r.fail(path, f"row {i + 1} adds up to {sums[i]:g}: each row is a distribution, adding up to 1")


def _uniform(r: Reader, x: float, path: str) -> None:
    if not 0 <= x < 1:
        raise r.fail(path, f"is {x:g}: a uniform draw is at least 0 and below 1")


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    dims = Dims()
    vocab: tuple[str, ...] = read_declared(r, raw, SPECULATIVE.top, "", dims, only=("vocab",))["vocab"]
    if len(vocab) > MAX_VOCAB:
        raise r.fail("vocab", f"has {len(vocab):,} entries: at most {MAX_VOCAB} are worked")
    seen: dict[str, int] = {}
    for i, label in enumerate(vocab, 1):
        if label in seen:
            raise r.fail("vocab", f"entry {i}, {label!r}, is entry {seen[label]} too: each label once")
        seen[label] = i
    g = read_declared(r, raw["given"], GIVEN, "given", dims)
    q, p = g["draft"], g["target"]
    gamma = q.shape[0]
    if gamma > MAX_GAMMA:
        raise r.fail("given.draft", f"has {gamma} rows: at most {MAX_GAMMA} drafted tokens are worked")
    if p.shape[0] != gamma + 1:
        raise r.fail(
            "given.target",
            f"has {p.shape[0]} rows, but γ = {gamma} from given.draft: the target gives γ + 1 = {gamma + 1} rows",
        )
    _distributions(r, q, "given.draft", "the draft's q_i")
    _distributions(r, p, "given.target", "the target's p_i")
    drafted = []
    for i, label in enumerate(g["drafted"], 1):
        if label not in seen:
            raise r.fail("given.drafted", f"entry {i}, {label!r}, is not in vocab ({', '.join(vocab)})")
        k = seen[label] - 1
        if q.floats[i - 1, k] <= 0:
            raise r.fail(
                "given.drafted",
                f"entry {i}, {label!r}, has draft probability q_{i}({label}) = 0: the draft model cannot propose it",
            )
        drafted.append(k)
    for i, u in enumerate(g["uniforms"].floats, 1):
        _uniform(r, float(u), f"given.uniforms[{i}]")
    _uniform(r, to_float(g["resample"]), "given.resample")
    data = Speculative(vocab, q, p, tuple(drafted), g["uniforms"], g["resample"])
    return Problem(given={"draft": q, "target": p, "uniforms": g["uniforms"]}, data=data, **common)
