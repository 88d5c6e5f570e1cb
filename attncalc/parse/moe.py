"""Kind ``moe``: the token rows, the router's weights, the E linear experts, top_k, whether the gates
are renormalised, the optional capacity factor and the load-balancing loss's coefficient."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numbers import to_float
from ..schema.moe import GIVEN
from .declared import Dims, read_declared
from .reader import Reader, check_tokens
from .types import Given, Problem

MAX_EXPERTS = 64  # a router worked by hand: its n × E tables stay readable
MAX_TOKENS = 64


@dataclass(frozen=True)
class Moe:
    """The kind's typed data (``problem.data``): X (n × d), W_router (d × E), the experts (E × d × d_out),
    top_k, renormalize, the capacity factor (a number tree, or None) and aux_coef (a number tree)."""

    X: Given
    W_router: Given
    experts: Given
    top_k: int
    renormalize: bool
    capacity_factor: Any  # number tree greater than 0, or None: no capacity
    aux_coef: Any  # number tree

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def E(self) -> int:
        return int(self.W_router.shape[1])

    @property
    def capacity(self) -> int | None:
        """ceil(capacity_factor · n · top_k / E), at least 1; None without a capacity factor."""
        if self.capacity_factor is None:
            return None
        import sympy as sp

        from ..numbers import to_exact

        return max(1, int(sp.ceiling(to_exact(self.capacity_factor) * self.n * self.top_k / self.E)))


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    g = read_declared(r, raw["given"], GIVEN, "given", Dims())
    X, W, experts = g["X"], g["W_router"], g["experts"]
    n, E = X.shape[0], W.shape[1]
    if E < 2:
        raise r.fail("given.W_router", f"has {E} column: a router needs at least 2 experts to choose between")
    if E > MAX_EXPERTS:
        raise r.fail("given.W_router", f"has {E} columns (experts): at most {MAX_EXPERTS} are worked")
    if n > MAX_TOKENS:
        raise r.fail("given.X", f"has {n} rows (tokens): at most {MAX_TOKENS} are worked")
    k = int(g["top_k"])
    if k > E:
        raise r.fail("given.top_k", f"is {k}, but there are {E} experts: top_k must be at most E")
    cf = g["capacity_factor"]
    if cf is not None:
        v = to_float(cf)
        if not math.isfinite(v) or v <= 0 or v > 1000:
            raise r.fail(
                "given.capacity_factor",
                f"is {raw['given']['capacity_factor']}: must be a number above 0 (at most 1000)",
            )
    aux = g["aux_coef"]
    if not math.isfinite(to_float(aux)):
        raise r.fail("given.aux_coef", f"is {raw['given'].get('aux_coef')}: must be a finite number")
    if (
        not np.all(np.isfinite(X.floats))
        or not np.all(np.isfinite(W.floats))
        or not np.all(np.isfinite(experts.floats))
    ):
        raise r.fail("given", "every entry of X, W_router and experts must be a finite number")
    check_tokens(r, common["tokens"], n, "given.X has")
    data = Moe(X, W, experts, k, bool(g["renormalize"]), cf, aux)
    return Problem(given={"X": X, "W_router": W}, data=data, **common)
