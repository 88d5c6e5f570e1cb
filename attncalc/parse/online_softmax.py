"""Kind ``online-softmax``: the scores (or Q and K), the optional values V and the block size."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..schema.online_softmax import GIVEN
from .declared import read_declared
from .limits import MAX_BLOCKS, MAX_RUNNING, MAX_SCORES
from .reader import Reader
from .types import Given, Problem


@dataclass(frozen=True)
class QueryKeys:
    """Scores to compute: S = Q Kᵀ (dot) or Q Kᵀ / √d_k (scaled-dot)."""

    Q: Given  # n × d_k
    K: Given  # m × d_k
    score: str  # scaled-dot | dot


@dataclass(frozen=True)
class OnlineSoftmax:
    """The kind's typed data (``problem.data``): the scores given (``scores``, n × m, always as rows)
    or computed from queries and keys (a ``QueryKeys``); ``V`` (m × d_v) or None; keys per ``block``."""

    scores: Given | QueryKeys
    V: Given | None
    block: int
    one_row: bool  # the scores were given as one vector: the running values are single numbers

    @property
    def score(self) -> str | None:
        """The score function computing the scores (None: the scores are given)."""
        return self.scores.score if isinstance(self.scores, QueryKeys) else None

    @property
    def n(self) -> int:
        """Rows of scores (queries)."""
        return self.scores.shape[0] if isinstance(self.scores, Given) else self.scores.Q.shape[0]

    @property
    def m(self) -> int:
        """Columns of scores (keys)."""
        return self.scores.shape[1] if isinstance(self.scores, Given) else self.scores.K.shape[0]

    def stated(self) -> list[tuple[str, str]]:
        """(key, sentence): the block size, and the score function when the scores are computed, besides
        the arrays' tables (a quiz item states them)."""
        out = [
            (
                "block",
                f"block = {self.block}: the keys are taken in order, {self.block} a block "
                "(the last block may be shorter).",
            )
        ]
        if self.score is not None:
            formula = "Q Kᵀ / √d_k" if self.score == "scaled-dot" else "Q Kᵀ"
            out.append(("score", f"The scores: S = {formula} ({self.score})."))
        return out

    @property
    def blocks(self) -> list[tuple[int, int]]:
        """Each block's columns, [start, stop) (0-based)."""
        return [(s, min(s + self.block, self.m)) for s in range(0, self.m, self.block)]


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    t = raw["given"]
    for key in ("Q", "K"):  # (before the shapes: Q's rows and the scores' rows are not the same n)
        if isinstance(t, dict) and t.get("scores") is not None and t.get(key) is not None:
            raise r.fail(f"given.{key}", "give either the scores or Q and K (the scores are then Q Kᵀ), not both")
    g = read_declared(r, t, GIVEN, "given")
    if g["scores"] is not None:
        if "score" in raw:
            raise r.fail("score", "applies only when the scores are computed from given.Q and given.K; remove it")
        one_row = not any(isinstance(x, list) for x in t["scores"])
        data = OnlineSoftmax(g["scores"], g["V"], g["block"], one_row)
        common = {**common, "score": None}
    else:
        if g["Q"] is None and g["K"] is None:
            raise r.fail("given.scores", "missing: the scores (or given.Q and given.K, to compute them)")
        for key, other in (("Q", "K"), ("K", "Q")):
            if g[key] is None:
                raise r.fail(f"given.{key}", f"missing: given.{other} needs it (the scores are Q Kᵀ)")
        data = OnlineSoftmax(QueryKeys(g["Q"], g["K"], common["score"]), g["V"], g["block"], False)
    _check_blocks(r, data)
    given = {k: v for k, v in g.items() if isinstance(v, Given)}
    return Problem(given=given, data=data, **common)


def _check_blocks(r: Reader, data: OnlineSoftmax) -> None:
    """At most MAX_SCORES scores (Q Kᵀ: 20,000 queries and keys of width 1 asked for 400 million),
    MAX_BLOCKS blocks of keys per row and MAX_RUNNING running outputs (rows × blocks × d_v: each block
    keeps an output row per query), checked before any is worked."""
    n, m = data.n, data.m
    if isinstance(data.scores, QueryKeys) and n * m > MAX_SCORES:
        raise r.fail(
            "given.Q",
            f"{n:,} queries and {m:,} keys make {n * m:,} scores: at most {MAX_SCORES:,} (256 × 256) are computed",
        )
    count = -(-data.m // data.block)
    if count > MAX_BLOCKS:
        least = -(-data.m // MAX_BLOCKS)
        raise r.fail(
            "given.block",
            f"{data.m:,} keys in blocks of {data.block:,} make {count:,} blocks: at most {MAX_BLOCKS} are worked "
            f"(a block of at least {least:,})",
        )
    d_v = data.V.shape[1] if data.V is not None and len(data.V.shape) > 1 else 0
    if n * count * d_v > MAX_RUNNING:
        fewer = max(1, MAX_RUNNING // (n * d_v))  # the blocks that would fit (0 when not even one does)
        cure = (
            f"a block of at least {-(-m // fewer):,}"
            if n * d_v <= MAX_RUNNING
            else f"fewer rows or values' columns: even one block keeps {n * d_v:,}"
        )
        raise r.fail(
            "given.block",
            f"{n:,} rows × {count:,} blocks × {d_v:,} values' columns make {n * count * d_v:,} running outputs: "
            f"at most {MAX_RUNNING:,} are worked ({cure})",
        )
