"""The terminal view's step types: one ``_step_<TypeName>`` method per type in
:data:`attncalc.derivation.STEP_TYPES` (a test holds the view to it), each yielding the written-out
substitution and the value. A mixin of :class:`attncalc.render.text.TextRenderer`, which provides
the helpers declared below."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ..derivation import (
    Add,
    Argmax,
    Arrange,
    Combine,
    Concat,
    Cosine,
    Count,
    Derivation,
    Divide,
    Formula,
    Gradient,
    Loss,
    Map,
    Mask,
    Norm,
    Pick,
    Product,
    Softmax,
    Stated,
    Step,
    Sum,
    Tokens,
    Update,
    shown_label,
    tie_note,
)
from ..derivation.fmt import (
    bar,
    elide,
    entry_label,
    paren,
    position_labels,
)
from . import counts, expand, simtable
from .text_parts import Hanging

ROW_LIMIT = 32  # table rows shown before the middle is elided
COL_LIMIT = 10  # table columns shown before the middle is elided


class TextSteps:
    """What the renderer provides to the step methods."""

    d: Derivation
    dec: int
    entry_limit: int

    if TYPE_CHECKING:

        def n(self, x: Any) -> str: ...

        def _lines(
            self, step: Step, line_for: Any, shape: tuple[int, ...] | None = None
        ) -> Iterable[RenderableType]: ...
        def _written(self, s: Step) -> Iterable[RenderableType]: ...
        def _one_line(self, s: Step) -> RenderableType: ...
        def _aside(self, s: Step, idx: tuple[int, ...], shown: Any) -> str: ...
        def _result(self, step: Step) -> RenderableType: ...
        def _label(self, step: Step, idx: tuple[int, ...]) -> str: ...
        def _matrix(self, *args: Any, **kwargs: Any) -> RenderableType: ...
        def _vector(self, v: np.ndarray, labels: tuple[str, ...] | None = None) -> Text: ...
        def _inline(self, step: Step) -> str: ...

    def _step_Product(self, s: Product) -> Iterable[RenderableType]:
        if s.note and "identity" in s.note:
            yield self._result(s)
            return
        yield from self._written(s)

    def _step_Map(self, s: Map) -> Iterable[RenderableType]:
        if s.fn == "divide" and s.param_text.startswith("√"):
            yield Text(f"  {s.param_text} = {self.n(s.param)}")
        if np.asarray(s.shown).ndim == 0:  # one number: one line
            yield self._one_line(s)
            return
        yield from self._written(s)

    def _step_Sum(self, s: Sum) -> Iterable[RenderableType]:
        if np.asarray(s.arg).ndim == 1:
            yield self._one_line(s)
            return
        yield from self._written(s)

    def _step_Divide(self, s: Divide) -> Iterable[RenderableType]:
        yield from self._written(s)
        shown = np.asarray(s.shown)
        if shown.ndim == 1:
            total = float(np.sum(shown))
            n = len(shown)
            terms = (
                " + ".join(f"{s.symbol}_{k}" for k in range(1, n + 1))
                if n <= 3
                else f"{s.symbol}_1 + … + {s.symbol}_{n}"
            )
            yield Text(f"  check: {terms} = {self.n(total)}", style="dim")

    def _step_Add(self, s: Add) -> Iterable[RenderableType]:
        yield from self._written(s)

    def _step_Concat(self, s: Concat) -> Iterable[RenderableType]:
        pieces = [f"{name} = {self._vector(p).plain}" for name, p in zip(s.part_names, s.parts, strict=True)]
        yield Text("  " + ",  ".join(pieces))
        yield self._result(s)

    def _step_Mask(self, s: Mask) -> Iterable[RenderableType]:
        blocked = [(i, j) for i, j in zip(*np.nonzero(~np.asarray(s.allowed)), strict=True)]
        labels = [entry_label("S'", (int(i), int(j))) for i, j in blocked]
        shown = [x if x is not None else "…" for x in elide(labels, 12)]
        yield Text(f"  set to −∞: {', '.join(shown)}" if labels else "  nothing is masked")
        yield self._result(s)

    def _step_Softmax(self, s: Softmax) -> Iterable[RenderableType]:
        labels = position_labels(s.rows, len(s.arg))
        shift = f" − {paren(self.n(s.shift))}" if s.shift else ""
        for i in elide(list(range(len(s.arg))), self.entry_limit):
            if i is None:
                yield Text("    ⋮")
                continue
            remark = "; ".join(x for x in (labels[i], expand.softmax_exp_aside(s, i, self.dec)) if x)
            yield Text(f"  exp({self.n(s.arg[i])}{shift}) = {self.n(s.exps[i])}   ({remark})")
        yield Hanging(f"  sum = {expand.sum_text([self.n(x) for x in s.exps])} = {self.n(s.total)}")
        for i in elide(list(range(len(s.arg))), self.entry_limit):
            if i is None:
                yield Text("    ⋮")
                continue
            yield Text(
                f"  {s.symbol}({labels[i]}) = {expand.rhs(s, (i,), self.dec)} = {self.n(s.shown[i])}"
                + self._aside(s, (i,), s.shown[i])
            )

    def _step_Argmax(self, s: Argmax) -> Iterable[RenderableType]:
        probs = np.asarray(s.probs)
        best = int(np.argmax(probs))
        tied = s.tied()
        t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        t.add_column("entry", style="bold")
        t.add_column("p", justify="right")
        t.add_column("")
        for i in elide(list(range(len(probs))), ROW_LIMIT):
            if i is None:
                t.add_row("⋮", "⋮", "")
                continue
            mark = "  ◀ largest" if i == best or s.labels[i] in tied else ""
            t.add_row(s.labels[i], self.n(probs[i]), bar(float(probs[i]), 20) + mark)
        yield t
        yield Text(f"  ŷ = {shown_label(s)}" + tie_note(s), style="bold")

    def _step_Pick(self, s: Pick) -> Iterable[RenderableType]:
        probs = np.asarray(s.probs, dtype=float)
        t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        t.add_column("entry", style="bold")
        t.add_column("p" if s.u is not None else "score", justify="right")
        if s.cumulative is not None:
            t.add_column("running sum", justify="right")
        t.add_column("")
        chosen = shown_label(s).split(", ")
        for i in elide(list(range(len(probs))), ROW_LIMIT):
            if i is None:
                t.add_row("⋮", "⋮", *([""] if s.cumulative is not None else []), "")
                continue
            mark = "◀ chosen" if s.labels[i] in chosen and s.u is not None else ""
            cells = [self.n(probs[i])] + ([self.n(s.cumulative[i])] if s.cumulative is not None else [])
            t.add_row(s.labels[i], *cells, mark)
        yield t
        if s.u is not None:
            yield Text(f"  u = {self.n(s.u)}: the first running sum above u picks {shown_label(s)}", style="bold")
        else:
            yield Text(f"  kept: {shown_label(s)}", style="bold")

    def _step_Loss(self, s: Loss) -> Iterable[RenderableType]:
        yield Hanging(
            f"  {s.symbol} = −ln p({s.label}) = {expand.rhs(s, (), self.dec)} = {self.n(s.shown)}"
            + self._aside(s, (), s.shown)
        )

    def _step_Gradient(self, s: Gradient) -> Iterable[RenderableType]:
        yield from self._written(s)

    def _step_Combine(self, s: Combine) -> Iterable[RenderableType]:
        if s.scalar_product:
            yield self._one_line(s)
            return
        yield from self._written(s)

    def _step_Stated(self, s: Stated) -> Iterable[RenderableType]:
        yield self._result(s)

    def _step_Step(self, s: Step) -> Iterable[RenderableType]:  # a plain step: its formula and value
        yield self._result(s)

    def _step_Arrange(self, s: Arrange) -> Iterable[RenderableType]:
        if s.source and s.source not in s.formula:
            yield Text(f"  {s.source}", style="dim")
        yield self._result(s)

    def _step_Formula(self, s: Formula) -> Iterable[RenderableType]:
        yield from self._written(s)

    def _step_Count(self, s: Count) -> Iterable[RenderableType]:
        yield Hanging(f"  {counts.line(s)} {s.unit}".rstrip())
        more = counts.gib_text(s, self.dec)
        if more:
            yield Text(f"  {' ' * len(s.symbol)} {more}")

    def _step_Update(self, s: Update) -> Iterable[RenderableType]:
        dec = expand.update_decimals(s, self.dec) if not self.d.carry_rounded else self.dec
        saved, self.dec = self.dec, dec
        try:
            if dec != saved:
                yield Text(f"  (shown to {dec} decimals so that the change is visible)", style="dim")
            yield from self._written(s)
        finally:
            self.dec = saved

    def _step_Norm(self, s: Norm) -> Iterable[RenderableType]:
        yield from self._written(s)

    def _step_Cosine(self, s: Cosine) -> Iterable[RenderableType]:
        yield from self._written(s)

    def _step_Tokens(self, s: Tokens) -> Iterable[RenderableType]:
        if s.table:
            t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
            t.add_column(s.heads[0], style="bold")
            t.add_column(s.heads[1])
            for row in elide(list(s.table), ROW_LIMIT):
                t.add_row(*(row if row is not None else ("⋮", "⋮")))
            yield t
        yield Hanging(f"  {s.symbol} = {shown_label(s)}")

    def _similarity_table(self) -> RenderableType | None:
        """The table of every pair, when a measure gives more than one number (None: no table)."""
        if not simtable.applies(self.d):
            return None
        heads, rows, title = simtable.table(self.d, self.n)
        t = Table(title=title, box=box.SIMPLE_HEAVY, title_justify="left")
        for k, h in enumerate(heads):
            t.add_column(h, justify="right" if 1 < k < len(heads) - 1 else "left")
        for row in rows:
            t.add_row(*row)
        return t
