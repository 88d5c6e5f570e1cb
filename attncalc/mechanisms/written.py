"""A Formula's written entries, made lazily: shared by the kinds whose working is written per entry
(quantization, online-softmax, contrastive)."""

from __future__ import annotations

from typing import Any


class Written:
    """A Formula's written entries, made when a view asks for one: ``w[i]`` (or ``w[i][j]``) is
    ``fn(idx, dec)`` with the computed operands written to ``dec`` decimals; ``at_decimals`` changes it."""

    def __init__(self, fn: Any, ndim: int, dec: int, at: tuple[int, ...] = ()) -> None:
        self.fn, self.ndim, self.dec, self.at = fn, ndim, dec, at

    def __getitem__(self, i: int) -> Any:
        idx = (*self.at, i)
        return self.fn(idx, self.dec) if len(idx) == self.ndim else Written(self.fn, self.ndim, self.dec, idx)

    def at_decimals(self, dec: int) -> Written:
        return Written(self.fn, self.ndim, dec, self.at)
