"""Kind ``quantization``: the weights W, the integer width, the scheme, the granularity (and the group
size), the optional input row x."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..schema.quantization import GIVEN
from .declared import read_declared
from .reader import Reader
from .types import Given, Problem


@dataclass(frozen=True)
class Quantization:
    """The kind's typed data (``problem.data``): W (rows × cols), b bits, the scheme (absmax |
    zeropoint), the granularity (tensor | row | group) with its ``group`` size (None unless group),
    and the optional input row ``x`` (cols)."""

    W: Given
    bits: int
    scheme: str
    granularity: str
    group: int | None
    x: Given | None

    def stated(self) -> list[tuple[str, str]]:
        """(key, sentence): the integer width, the scheme and the granularity besides W's table (a quiz
        item states them)."""
        out = [("bits", f"bits b = {self.bits}: {self.bits}-bit integers.")]
        out.append(("scheme", f"Scheme: {_SCHEME[self.scheme]}; rounding half to even (as torch.round)."))
        if self.granularity == "group":
            out += [
                ("granularity", "Granularity: group."),
                ("group", f"group = {self.group}: one scale per {self.group} consecutive entries of a row."),
            ]
        else:
            out.append(("granularity", f"Granularity: {_GRANULARITY[self.granularity]}."))
        return out

    @property
    def qmin(self) -> int:
        return int(-(2 ** (self.bits - 1) - 1) if self.scheme == "absmax" else 0)

    @property
    def qmax(self) -> int:
        return int(2 ** (self.bits - 1) - 1 if self.scheme == "absmax" else 2**self.bits - 1)

    @property
    def blocks(self) -> tuple[int, int, int]:
        """How W is cut into the entries that share a scale: (outer, groups per row, entries per block)."""
        rows, cols = self.W.shape
        if self.granularity == "tensor":
            return 1, 1, rows * cols
        if self.granularity == "row":
            return rows, 1, cols
        g = self.group or cols
        return rows, cols // g, g

    @property
    def scale_shape(self) -> tuple[int, ...]:
        """A scale's shape: one number (tensor), one per row (row), rows × groups (group)."""
        outer, groups, _ = self.blocks
        return () if self.granularity == "tensor" else (outer,) if self.granularity == "row" else (outer, groups)


_SCHEME = {
    "absmax": "absmax (symmetric), scale = max|w| / (2^(b−1) − 1), q = clamp(round(w / scale), −(2^(b−1) − 1), "
    "2^(b−1) − 1)",
    "zeropoint": "zeropoint (asymmetric) over [min(w, 0), max(w, 0)], scale = (max − min) / (2^b − 1), "
    "zero_point = round(−min / scale), q = clamp(round(w / scale) + zero_point, 0, 2^b − 1)",
}
_GRANULARITY = {"tensor": "tensor, one scale for the whole of W", "row": "row, one scale per row (output channel)"}


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    g = read_declared(r, raw["given"], GIVEN, "given")
    W: Given = g["W"]
    if len(W.shape) != 2:
        raise r.fail("given.W", "must be a matrix: a list of rows of the same length")
    granularity = str(g["granularity"])
    group = g["group"]
    cols = W.shape[1]
    if granularity == "group":
        if group is None:
            raise r.fail("given.group", 'missing: granularity = "group" needs the entries of a row per scale')
        if cols % int(group):
            raise r.fail(
                "given.group", f"is {int(group)}: it must divide the row length {cols} (W is {W.shape[0]}×{cols})"
            )
    elif group is not None:
        raise r.fail("given.group", f'belongs to granularity = "group", not {granularity!r}')
    data = Quantization(
        W, int(g["bits"]), str(g["scheme"]), granularity, int(group) if group is not None else None, g["x"]
    )
    given = {"W": W} if data.x is None else {"W": W, "x": data.x}
    return Problem(given=given, data=data, **common)
