"""How a transformer layer's Formula steps write their entries: numbers to the view's decimals, a
negative one subtracted in parentheses, and the entries made only when a view asks for them."""

from __future__ import annotations

from typing import Any

from ..derivation.fmt import fmt


def num(x: Any, dec: int) -> str:
    return fmt(float(x), dec)


def sub(x: Any, dec: int) -> str:
    """A number subtracted: a negative one in parentheses, 0.5 − (−0.980)."""
    text = num(x, dec)
    return f"({text})" if text.startswith(("−", "-")) else text


class Lazy:
    """A Formula's written entries made only when a view asks for them (a 64 × 64 layer has 4096 per step,
    of which a view shows a few): ``lazy[i][j]`` is ``fn((i, j), dec)``, the operands written to ``dec``
    decimals; ``at_decimals`` writes them to another precision (a check note at the answer's)."""

    def __init__(self, fn: Any, ndim: int, dec: int, at: tuple[int, ...] = ()) -> None:
        self.fn, self.ndim, self.dec, self.at = fn, ndim, dec, at

    def __getitem__(self, i: int) -> Any:
        idx = (*self.at, i)
        return self.fn(idx, self.dec) if len(idx) == self.ndim else Lazy(self.fn, self.ndim, self.dec, idx)

    def at_decimals(self, dec: int) -> Lazy:
        return Lazy(self.fn, self.ndim, dec, self.at)


def paren(s: str) -> str:
    return f"({s})" if s.startswith("-") else s
