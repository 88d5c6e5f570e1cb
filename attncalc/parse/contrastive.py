"""Kind ``contrastive``: N queries, their N keys (key i is query i's positive), the temperature, and
whether the rows are L2-normalised first and the loss is CLIP's symmetric one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numbers import to_float
from ..schema.contrastive import GIVEN
from .declared import read_declared
from .limits import MAX_SCORES
from .reader import Reader
from .types import Given, Problem


@dataclass(frozen=True)
class Contrastive:
    """The kind's typed data (``problem.data``): queries and keys (N × d each), the temperature as a
    number tree, and CLIP's two choices (both true by default)."""

    queries: Given
    keys: Given
    temperature: Any  # number tree, greater than 0
    normalize: bool
    symmetric: bool

    @property
    def n(self) -> int:
        """The number of pairs (rows of the queries and of the keys)."""
        return int(self.queries.shape[0])


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    g = read_declared(r, raw["given"], GIVEN, "given")
    Q, K = g["queries"], g["keys"]
    n = Q.shape[0]
    if n * n > MAX_SCORES:
        raise r.fail("given.queries", f"{n:,} pairs make {n * n:,} similarities: at most {MAX_SCORES:,} are worked")
    tau = to_float(g["temperature"])
    if not np.isfinite(tau) or tau <= 0:
        raise r.fail("given.temperature", f"is {raw['given']['temperature']}: must be a number greater than 0")
    normalize, symmetric = bool(g["normalize"]), bool(g["symmetric"])
    if normalize:
        for name, m in (("queries", Q), ("keys", K)):
            zero = ~np.any(m.floats != 0, axis=1)
            if zero.any():
                i = int(np.argmax(zero)) + 1
                raise r.fail(
                    f"given.{name}",
                    f"row {i} is all zeros: it has no direction to normalise (normalize = true); "
                    "give it a non-zero entry or set normalize = false",
                )
    data = Contrastive(Q, K, g["temperature"], normalize, symmetric)
    return Problem(given={"queries": Q, "keys": K}, data=data, **common)
