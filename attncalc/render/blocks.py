"""The blocks a sheet is made of: format-neutral, typeset by the Markdown, LaTeX and HTML writers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Para:
    text: str
    style: str = "normal"  # normal | explain | note | result


@dataclass(frozen=True)
class MathLines:
    """Lines of plain-notation mathematics, each with an optional text remark."""

    lines: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Matrix:
    """lhs = a vector or matrix of formatted numbers, with optional row/column labels."""

    lhs: str
    cells: tuple[tuple[str, ...], ...]
    rows: tuple[str, ...] | None = None
    cols: tuple[str, ...] | None = None
    shade: tuple[tuple[float, ...], ...] | None = None  # 0..1 per cell (weights)
    vector: bool = False


@dataclass(frozen=True)
class Table:
    """A labelled table; ``shade`` gives a 0..1 level per row for the last column (weights)."""

    header: tuple[str, ...]  # plain-notation math allowed
    rows: tuple[tuple[str, ...], ...]
    shade: tuple[float, ...] | None = None
    caption: str = ""
    math_cols: tuple[int, ...] = ()  # columns whose cells are plain-notation mathematics


@dataclass(frozen=True)
class Exact:
    """Exact forms: (labels joined by =, sympy expression, or a str saying why the form is not
    shown: one too long to read on a page)."""

    items: tuple[tuple[str, Any], ...]
    more: int = 0
    label: str = "exact"  # EXACT_CARRIED under --carry


# With --carry the lines show the numbers rounded and carried forward, as by hand, while an exact form
# is the true value (nothing carried): they can differ by more than the last digit (a quantized integer
# from a rounded scale). The label says which is which.
EXACT_CARRIED = "exact (the true value, not carried)"


def exact_label(carried: bool) -> str:
    return EXACT_CARRIED if carried else "exact"


@dataclass(frozen=True)
class Details:
    """Blocks shown when the reader asks (``--reveal``: an HTML <details>); other writers show them."""

    summary: str
    blocks: tuple[Block, ...]


Block = Heading | Para | MathLines | Matrix | Table | Exact | Details
BLOCK_TYPES = (Heading, Para, MathLines, Matrix, Table, Exact, Details)


@dataclass
class Sheet:
    title: str
    kind: str  # solution | answers | question
    blocks: list[Block] = field(default_factory=list)
