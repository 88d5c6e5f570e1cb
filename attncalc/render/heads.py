"""The summary of a multi-head derivation: every head's attention weights, side by side.

In the terminal the heads stand side by side when that fits the console and one under the other
when it does not; the sheets get one table (side by side) when it is narrow, one per head otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ..derivation import Derivation
from ..derivation.fmt import elide, position_labels

ROWS = 16  # query rows shown per head before the middle is elided
COLS = 8  # keys shown per head before the middle is elided

SHEET_COLUMNS = 12  # key columns of all heads together that one sheet table holds


def applies(d: Derivation) -> bool:
    """Whether the derivation has per-head weights at the top level (head.1.weights: multi-head's;
    a transformer layer's self.head.1.weights are its sublayer's and get no table)."""
    return any(i.startswith("head.") and i.endswith(".weights") for i in d.step_ids)


def heads(d: Derivation) -> list[tuple[int, np.ndarray, tuple[str, ...], tuple[str, ...]]]:
    """(head, shown weights, query labels, key labels) of every head, in order."""
    out = []
    for sid in d.step_ids:
        if sid.startswith("head.") and sid.endswith(".weights"):
            s = d.step(sid)
            w = np.asarray(s.shown, dtype=float)
            out.append(
                (
                    int(sid.split(".")[1]),
                    w,
                    tuple(position_labels(s.rows, w.shape[0])),
                    tuple(position_labels(s.cols, w.shape[1])),
                )
            )
    return out


TITLE = "Attention weights of every head (each row sums to 1)"


class HeadsTable:
    """The terminal summary: side by side when it fits, else one table per head."""

    def __init__(self, d: Derivation, n: Callable[[Any], str]) -> None:
        self.d, self.n = d, n

    def side_by_side(self) -> Table:
        hs = heads(self.d)
        t = Table(title=TITLE, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        t.add_column("query", style="bold")
        for j, _, _, keys in hs:
            for k, key in enumerate(keys):
                t.add_column(f"head {j}\n{key}" if k == 0 else f"\n{key}", justify="right")
        for i, q in enumerate(hs[0][2]):
            cells = [self.n(w[i, k]) if np.isfinite(w[i, k]) else "·" for _, w, _, keys in hs for k in range(len(keys))]
            t.add_row(q, *cells)
        return t

    def stacked(self) -> Group:
        parts: list[Any] = [Text(TITLE, style="italic")]
        for j, w, queries, keys in heads(self.d):
            t = Table(title=f"head {j}", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
            t.add_column("query", style="bold")
            cols = list(elide(list(range(len(keys))), COLS))
            for k in cols:
                t.add_column("…" if k is None else keys[k], justify="right")
            for i in elide(list(range(len(queries))), ROWS):
                if i is None:
                    t.add_row("⋮", *["⋮"] * len(cols))
                    continue
                t.add_row(queries[i], *["…" if k is None else self._cell(w[i, k]) for k in cols])
            parts.append(t)
        if any(len(q) > ROWS or len(k) > COLS for _, _, q, k in heads(self.d)):
            parts.append(Text("the middle rows and keys are elided (--format json gives every weight)", style="dim"))
        return Group(*parts)

    def _cell(self, x: float) -> str:
        return self.n(x) if np.isfinite(x) else "·"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        hs = heads(self.d)
        if sum(len(keys) for *_, keys in hs) * 6 > options.max_width or len(hs[0][2]) > ROWS:
            yield self.stacked()  # too wide for side by side whatever the numbers: no need to measure
            return
        wide = self.side_by_side()
        if Measurement.get(console, options.update(width=10_000), wide).maximum <= options.max_width:
            yield wide
        else:
            yield self.stacked()


def sheet_tables(
    d: Derivation, n: Callable[[Any], str]
) -> list[tuple[tuple[str, ...], tuple[tuple[str, ...], ...], str]]:
    """(header, rows, caption) of the sheets' summary: one table, or one per head when wide."""
    hs = heads(d)
    if sum(len(keys) for *_, keys in hs) <= SHEET_COLUMNS:
        header = ("query", *(f"h{j} {key}" for j, _, _, keys in hs for key in keys))
        rows = tuple(
            (q, *(n(w[i, k]) for _, w, _, keys in hs for k in range(len(keys)))) for i, q in enumerate(hs[0][2])
        )
        return [(header, rows, TITLE)]
    return [
        (
            ("query", *keys),
            tuple((q, *(n(x) for x in w[i])) for i, q in enumerate(queries)),
            f"Head {j}: attention weights",
        )
        for j, w, queries, keys in hs
    ]
