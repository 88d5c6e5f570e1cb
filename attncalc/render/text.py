"""The terminal view: a derivation as a worked example, with rich.

Every step type has a ``_step_<TypeName>`` method that writes its substitution out; a test holds
every type in :data:`attncalc.derivation.STEP_TYPES` to having one. Meaning never rests on colour
alone: weights are drawn as bars of block characters, and every table is labelled.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from rich import box
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..derivation import (
    Derivation,
    Input,
    Map,
    Step,
)
from ..derivation.fmt import (
    ENTRY_LIMIT,
    bar,
    elide,
    entry_indices,
    entry_label,
    flat_rows,
    fmt,
    inline,
    position_labels,
    significant_words,
    step_places,
)
from ..kinds import entry_namer, tables_after
from . import expand, heads, timeline
from .blocks import exact_label
from .describe import describe
from .exact import exact_groups, exact_text
from .sheet import BRIEF_ENTRY_LIMIT
from .text_parts import Fit, Hanging, Narrowest, SplitColumns, cut_exact
from .text_steps import COL_LIMIT, ROW_LIMIT, TextSteps

CUT_POINTER = (
    "(… stands for an exact form, or some of its terms, left out to fit; --format json gives every exact form in full)"
)


class TextRenderer(TextSteps):
    """Renders a derivation to rich renderables (and so to any rich Console)."""

    def __init__(self, derivation: Derivation, detail: str = "first") -> None:
        self.d = derivation
        brief = timeline.brief_of(derivation, detail)
        self.plan, self._runs, self._merged, self._tl = brief.plan, brief.runs, brief.merged, brief.timeline
        self.entry_limit = BRIEF_ENTRY_LIMIT if self.plan else ENTRY_LIMIT
        self.dec = derivation.decimals
        self._told_cut = False  # the pointer to the full exact forms is given once per derivation

    # ------------------------------------------------------------------ public
    def renderables(self) -> list[RenderableType]:
        d = self.d
        out: list[RenderableType] = [self._header()]
        out.append(Text("Given", style="bold underline"))
        for inp in d.inputs:
            out.append(self._input(inp))
        tl = self._tl  # None where there are no time steps
        if tl is not None:
            for table in tl.tables(self.n):
                out.append(Text(""))
                out.append(self._overview(table))
        if self.plan:  # Step 10 then Step 41: say where the steps in between are
            out += [Text(""), Text(timeline.NUMBERING_NOTE, style="italic dim")]
        brief: str | None = None  # the time step written in brief whose heading was given
        for k, step in enumerate(d.steps, 1):
            if tl is not None and step.id in tl.section_starts:
                out.append(Text(""))
                out.append(Text(tl.section_starts[step.id], style="bold reverse"))
            if step.id in self._merged:  # one-unit time steps in a row: one table, a row each
                if step.id in self._runs and tl is not None:
                    header, rows, caption = tl.merged_rows(self._runs[step.id], self.n)
                    out += [Text(""), SplitColumns(header, rows, caption, lambda h, r, t: self._table(h, r, "", t))]
                continue
            if step.id in self.plan:
                if step.intro:  # where the decoder starts is said however briefly its steps are written
                    out.append(Text(step.intro, style="yellow"))
                    brief = None
                prefix = timeline.block_of(step.id)
                if prefix != brief:
                    assert tl is not None  # a derivation written in brief has time steps
                    out += [Text(""), Text(timeline.block_heading(tl, prefix or "", step.id), style="bold")]
                    brief = prefix
                if self.plan[step.id] == "line":  # a long line wraps indented, its id kept whole
                    out.append(
                        Hanging(f"  {timeline.step_line(step, self._inline(step), self.dec)}   [{step.id}]", hang=4)
                    )
                if tl is not None and step.id in tl.table_after:
                    out += [Text(""), self._gate_table(tl, tl.table_after[step.id])]
                continue
            if step.intro:
                out.append(Text(step.intro, style="yellow"))
            if step.id == "concat" and heads.applies(d):  # every head's weights, before they are put together
                out.append(Text(""))
                out.append(heads.HeadsTable(d, self.n))
            out.append(Text(""))
            out.append(self._step(k, step))
            for extra in tables_after(d.problem.kind, step.id):
                out.append(getattr(self, f"_{extra}_table")())

            if tl is not None and step.id in tl.table_after:
                out.append(Text(""))
                out.append(self._gate_table(tl, tl.table_after[step.id]))
        for extra in tables_after(d.problem.kind, ""):
            drawn = getattr(self, f"_{extra}_table")()
            if drawn is not None:
                out += [Text(""), drawn]
        if d.headline:
            out.append(Text(""))
            out.append(Panel(Text(d.headline, style="bold"), box=box.HEAVY, expand=False))
        out.append(Text(""))
        for note in d.notes:
            out.append(Text("Note: " + note, style="dim"))
        return out

    def print(self, console: Console) -> None:
        from .console import controls_shown

        with controls_shown():  # (user text built into rich's Text keeps \x08 and the like, as escapes)
            for r in self.renderables():
                console.print(r)

    # ------------------------------------------------------------------ pieces
    def _header(self) -> RenderableType:
        p = self.d.problem
        bits = describe(p)
        body = Text(p.title, style="bold")
        body.append("\n" + " · ".join(bits), style="italic")
        if p.description:
            body.append("\n" + p.description.strip())
        return Panel(body, box=box.ROUNDED, expand=False)

    def _input(self, inp: Input) -> RenderableType:
        head = Text(f"{inp.symbol}", style="bold")
        head.append(f"  {inp.role}" if inp.role else "", style="dim")
        if inp.words and inp.rows is not None:  # a sentence: its words, not their positions
            return Group(head, Padding(Text(" ".join(inp.rows)), (0, 0, 0, 2)))
        if inp.value.ndim == 0 and inp.whole:  # a count: 50,257
            return Fit(head, Text(f"{int(inp.value):,}"))
        if inp.value.ndim == 0 and inp.flag:  # a boolean: true or false, as the problem file writes it
            return Fit(head, Text("true" if float(inp.value) else "false"))
        if inp.value.ndim == 0:
            return Fit(head, Text(self.n(inp.value)))
        if inp.value.ndim == 1 and inp.rows is not None and len(inp.rows) == len(inp.value) <= 12:
            # labelled entries (logits over a vocabulary): each value under its label
            t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
            for label in inp.rows:
                t.add_column(label, justify="right")
            t.add_row(*[self.n(x) for x in inp.value])
            return Group(head, Padding(t, (0, 0, 0, 2)))
        if inp.value.ndim == 1:
            return Fit(head, self._vector(inp.value, inp.rows))
        return Group(head, self._matrix(inp.value, inp.rows, inp.cols, inp.symbol))

    def _step(self, k: int, step: Step) -> RenderableType:
        title = Text(f"Step {k} · {step.title}", style="bold")
        title.append(f"   [{step.id}]", style="dim")
        parts: list[RenderableType] = [title, Padding(Text(step.formula, style="cyan"), (0, 0, 0, 2), expand=False)]
        if step.explain:
            parts.append(Padding(Text(step.explain, style="italic dim"), (0, 0, 0, 2), expand=False))
        if step.note:
            parts.append(Padding(Text("Note: " + step.note, style="yellow"), (0, 0, 0, 2), expand=False))
        method = getattr(self, f"_step_{type(step).__name__}")
        saved, self.dec = self.dec, step_places(step, self.dec, self.d.carry_rounded)
        try:
            if self.dec != saved:  # a small value kept to its significant digits
                parts.append(Text(f"  (shown to {self.dec} decimals, {significant_words(step)})", style="dim"))
            body: list[RenderableType] = list(method(step))
            parts.extend(body)
            parts.extend(self._exact(step))
        finally:
            self.dec = saved
        return Group(*parts)

    def _exact(self, step: Step) -> list[RenderableType]:
        """Exact forms that say more than the decimals, equal entries grouped on one line."""
        groups, more = exact_groups(step.exact, step.symbol, self.dec, self._exact_name(step))
        full: list[str] = []  # lines shown whole or with leading terms
        too_long: list[tuple[str, int, str]] = []  # (first name, length, names) of forms not shown at all
        shortened = False
        label = exact_label(self.d.carry_rounded)
        for labels, expr in groups:
            names = " = ".join(labels[:3]) + (f" = … ({len(labels)} entries)" if len(labels) > 3 else "")
            form = exact_text(expr)
            line = cut_exact(f"  {label}: {names} = ", form)
            shortened = shortened or line != f"  {label}: {names} = {form}"
            if line.endswith(" characters)"):
                too_long.append((labels[0], len(form), line))
            else:
                full.append(line)
        if len(too_long) > 1:  # one line for the forms too long to show, not one each
            sizes = sorted(n for _, n, _ in too_long)
            span = f"{sizes[0]}" if sizes[0] == sizes[-1] else f"{sizes[0]}–{sizes[-1]}"
            full.append(
                f"  {label}: {too_long[0][0]} … {too_long[-1][0]}: {len(too_long)} forms of {span} characters"
                " each, too long to show here"
            )
        elif too_long:
            full.append(too_long[0][2])
        lines: list[RenderableType] = [Hanging(line, style="green") for line in full]
        if shortened and not self._told_cut:
            self._told_cut = True
            lines.append(Hanging("    " + CUT_POINTER, hang=0, style="green"))
        if more:
            lines.append(Text(f"    ⋮   ({more} more exact forms; --format json lists them all)", style="green"))
        return lines

    # ------------------------------------------------------------------ values
    def n(self, x: Any) -> str:
        return fmt(x, self.dec)

    def _inline(self, step: Step) -> str:
        return inline(step.shown, self.n)

    def _vector(self, v: np.ndarray, labels: tuple[str, ...] | None = None) -> Text:
        items = [self.n(x) for x in np.asarray(v).ravel()]
        shown = [x if x is not None else "…" for x in elide(items, 12)]
        return Text("[" + ", ".join(shown) + "]")

    def _matrix(
        self,
        m: np.ndarray,
        rows: tuple[str, ...] | None,
        cols: tuple[str, ...] | None,
        symbol: str = "",
        bars: bool = False,
    ) -> RenderableType:
        m = np.asarray(m, dtype=float)
        n_r, n_c = m.shape
        t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
        t.add_column("", style="bold")
        col_idx = list(elide(list(range(n_c)), COL_LIMIT))
        col_names = position_labels(cols, n_c)
        for j in col_idx:
            t.add_column("…" if j is None else col_names[j], justify="right")
        row_names = position_labels(rows, n_r)
        for i in elide(list(range(n_r)), ROW_LIMIT):
            if i is None:
                t.add_row("⋮", *["⋮"] * len(col_idx))
                continue
            cells = []
            for j in col_idx:
                if j is None:
                    cells.append("…")
                    continue
                cell = self.n(m[i, j])
                if bars:
                    cell += " " + bar(m[i, j], 6).ljust(6)
                cells.append(cell)
            t.add_row(row_names[i], *cells)
        if n_r > ROW_LIMIT or n_c > COL_LIMIT:  # a line of its own: a caption would wrap in a narrow table
            note = f"{n_r}×{n_c}; the middle is elided (--format json gives every entry)"
            return Group(t, Text(note, style="dim"))
        return t

    def _result(self, step: Step) -> RenderableType:
        """The step's shown value: a line for a vector or number, a table for a matrix."""
        v, rows = flat_rows(np.asarray(step.shown), step.rows)
        if v.ndim == 2:
            return self._matrix(v, rows, step.cols, step.symbol, bars=step.id == "weights")
        if v.ndim == 0:
            return Text(f"  {step.symbol} = {self.n(v)}", style="bold")
        return Text.assemble(Text(f"  {step.symbol} = ", style="bold"), self._vector(v))

    def _exact_name(self, step: Step) -> Any:
        """Entries the kind names (a similarity's, by its vectors) are named so in exact lines too
        (cos(cat, chat), not cos_1)."""
        if entry_namer(self.d.problem) is None:
            return None
        return lambda idx: self._label(step, idx)

    def _label(self, step: Step, idx: tuple[int, ...]) -> str:
        named = entry_namer(self.d.problem)
        if named is not None:  # entries named by the kind: a similarity's by its vectors, cat·chat, ‖cat‖
            return named(step.id, idx)
        label = entry_label(step.symbol, idx)
        if len(idx) == 1 and step.rows is not None and step.rows[idx[0]] != label:
            label += f" ({step.rows[idx[0]]})"
        return label

    def _lines(self, step: Step, line_for: Any, shape: tuple[int, ...] | None = None) -> Iterable[RenderableType]:
        shape = np.asarray(step.shown).shape if shape is None else shape
        for idx in elide(entry_indices(shape), self.entry_limit):
            if idx is None:
                total = int(np.prod(shape))
                yield Text(f"    ⋮   ({total - 4} more entries, computed the same way)", style="dim")
                continue
            yield Hanging("  " + line_for(idx))

    def _written(self, s: Step) -> Iterable[RenderableType]:
        """Each entry written out, "label = rhs = result", then the result."""
        shown = np.asarray(s.shown)

        def line(idx: tuple[int, ...]) -> str:
            if isinstance(s, Map) and np.isneginf(s.arg[idx]):
                if s.fn in ("exp", "shift_exp"):
                    return f"{self._label(s, idx)} = {expand.rhs(s, idx, self.dec)} = 0  (masked)"
                return f"{self._label(s, idx)} = −∞"
            rhs, value = expand.rhs(s, idx, self.dec), self.n(shown[idx])
            text = f"{self._label(s, idx)} = {value}" if rhs == value else f"{self._label(s, idx)} = {rhs} = {value}"
            return text + self._aside(s, idx, shown[idx])

        yield from self._lines(s, line)
        if shown.ndim or entry_namer(self.d.problem) is None:  # a named entry's one number is its own line
            yield self._result(s)

    def _one_line(self, s: Step) -> RenderableType:
        """A step whose result is one number: "symbol = written out = result"."""
        return Hanging(
            f"  {s.symbol} = {expand.rhs(s, (), self.dec)} = {self.n(s.shown)}" + self._aside(s, (), s.shown)
        )

    def _aside(self, s: Step, idx: tuple[int, ...], shown: Any) -> str:
        note = expand.aside(s, idx, float(shown), self.dec)
        return f"   ({note})" if note else ""

    # ------------------------------------------------------------------ recurrent views
    def _overview(self, table: timeline.Overview) -> RenderableType:
        t = Table(title=table.title, box=box.SIMPLE_HEAVY, title_justify="left")
        for name in table.header:
            t.add_column(name, justify="right" if name in ("p(target)", "L_t") else "left")
        for row in table.rows:
            t.add_row(*row)
        return t

    def _gate_table(self, tl: timeline.Timeline, block: timeline.Block) -> RenderableType:
        header, rows, caption = tl.gate_rows(block, self.n)
        return self._table(header, rows, caption, f"Gates at {block.title}")

    @staticmethod
    def _table(header: list[str], rows: list[list[str]], caption: str, title: str) -> Table:
        """A table of gate values: labels on the left, numbers right-aligned."""
        t = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", caption=caption or None)
        for k, name in enumerate(header):
            t.add_column(name, justify="left" if k == 0 else "right", style="bold" if k == 0 else "")
        for row in rows:
            t.add_row(*row)
        return t

    # ------------------------------------------------------------------ summary table
    def _attention_table(self) -> RenderableType:
        return Narrowest(self._attention_table_with)

    def _attention_table_with(self, bar_width: int) -> Table:
        d = self.d
        ids = ["scores", "scaled_scores", "exponentials", "weights"]
        present = [d.step(i) for i in ids if i in d.step_ids]
        n = len(np.asarray(d.step("weights").shown))
        t = Table(title="Attention over the encoder states", box=box.SIMPLE_HEAVY, title_justify="left")
        t.add_column("i", justify="right")
        t.add_column("token")
        heads = {"scores": "score e_i", "scaled_scores": "scaled e'_i", "exponentials": "exp", "weights": "weight α_i"}
        for s in present:
            t.add_column(heads[s.id], justify="right")
        t.add_column("α_i as a bar (full = 1)" if bar_width == 20 else "α_i as a bar")
        labels = position_labels(d.problem.tokens, n, "h_")
        w = np.asarray(d.step("weights").shown, dtype=float)
        exact_w = np.asarray(d.step("weights").value, dtype=float)
        best = set(np.flatnonzero(np.isclose(exact_w, np.max(exact_w), rtol=1e-12, atol=0)).tolist())
        for i in elide(list(range(n)), ROW_LIMIT):
            if i is None:
                t.add_row("⋮", "", *[""] * len(present), "")
                continue
            cells = [self.n(np.asarray(s.shown)[i]) for s in present]
            mark = " ◀ most" if i in best else ""  # every one of tied weights
            t.add_row(str(i + 1), labels[i], *cells, bar(float(w[i]), bar_width) + mark)
        return t
