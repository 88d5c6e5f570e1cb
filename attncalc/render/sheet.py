"""Solution, answers and question sheets as a format-neutral list of blocks.

The builder walks a derivation once (one ``_step_<TypeName>`` method per step type, in the
manner of sympy's printers); the Markdown, LaTeX and HTML writers then typeset the same blocks.
Mathematics in blocks is written in attncalc's plain notation ("e_2 = 1·0 + 1·2 = 2",
"S'[1,3]", "√2", "exp(e_1)"), which each writer converts with its own small translator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import (
    STEP_TYPES,
    Add,
    Argmax,
    Arrange,
    Combine,
    Concat,
    Cosine,
    Derivation,
    Divide,
    Formula,
    Gradient,
    Input,
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
    Update,
    tie_note,
)
from . import expand, heads, timeline
from .blocks import Block, Details, Exact, Heading, MathLines, Matrix, Para, Sheet, Table
from .describe import describe
from .exact import exact_groups
from .fmt import ENTRY_LIMIT, elide, entry_indices, entry_label, fmt, fmt_given, inline, position_labels

SHEETS = ("solution", "answers", "question")
MATRIX_LIMIT = 12  # rows/columns of a matrix shown before the middle is elided
BRIEF_ENTRY_LIMIT = 6  # entries written out per step at --detail first or summary


# ------------------------------------------------------------------------------ builder


def build(
    derivations: list[Derivation],
    kind: str = "solution",
    title: str | None = None,
    reveal: bool = False,
    detail: str = "first",
) -> Sheet:
    """The sheet for one or more derivations (numbered problems when there are several).

    ``reveal``: each step of a solution shows its formula, and keeps its written-out working and then
    its value in :class:`Details` blocks, opened one after the other (an HTML <details>). ``detail``:
    how much of a recurrent derivation's later time steps is written out (:func:`timeline.detail_plan`)."""
    if kind not in SHEETS:
        raise ValueError(kind)
    several = len(derivations) > 1
    label = {"solution": "Solution", "answers": "Answers", "question": "Questions"}[kind]
    explicit = title is not None
    if title is None:
        title = derivations[0].problem.title if not several else f"{len(derivations)} problems"
        title = f"{title}: {label.lower()}" if not several else f"{label}: {title}"
    sheet = Sheet(title, kind)
    if several or explicit:
        sheet.blocks.append(Heading(title, 1))
    for k, d in enumerate(derivations, 1):
        b = _Builder(d, sheet.blocks, reveal, detail)
        heading = f"Problem {k}. {d.problem.title}" if several else d.problem.title
        b.add(Heading(heading, 2 if sheet.blocks else 1))
        {"solution": b.solution, "answers": b.answers, "question": b.question}[kind]()
    return sheet


class _Builder:
    def __init__(self, d: Derivation, out: list[Block], reveal: bool = False, detail: str = "first") -> None:
        self.d = d
        # revealed step by step, every step has its stages: nothing is given away in a one-line summary
        self.plan = {} if reveal else timeline.detail_plan(d, detail)
        # entries written out per step: a recurrent derivation in brief keeps 4 of a long vector
        self.entry_limit = BRIEF_ENTRY_LIMIT if self.plan else ENTRY_LIMIT
        self.dec = d.decimals
        self.out = out
        self.reveal = reveal
        self._result_at: int | None = None
        self._tl: timeline.Timeline | None = None  # where the step's value block went (reveal's last stage)

    def add(self, block: Block) -> None:
        self.out.append(block)

    def n(self, x: Any) -> str:
        return fmt(x, self.dec)

    # -- the three sheets -----------------------------------------------------------
    def givens(self) -> None:
        p = self.d.problem
        if p.description:
            self.add(Para(p.description.strip()))
        self.add(Para(" · ".join(describe(p)), "explain"))
        self.add(Heading("Given", 3))
        for inp in self.d.inputs:
            self.add(self._input(inp))

    def question(self) -> None:
        self.givens()
        stated = [s for s in self.d.steps if isinstance(s, Stated)]
        if stated:  # gate values the problem states: given, not asked for
            self.add(Para("Stated by the problem (use these values as they are):", "explain"))
            for s in stated:
                self.add(self._matrix(s.symbol, np.asarray(s.shown), s.rows, s.cols))
        self.add(Heading("Compute", 3))
        asked = [s for s in self.d.steps if not isinstance(s, Stated)]
        rows = tuple((str(k), f"{s.title} [{s.id}]", s.formula) for k, s in enumerate(asked, 1))
        self.add(Table(("#", "step", "compute"), rows, math_cols=(2,)))
        self.add(Para(f"Give every value to {self.dec} decimals.", "explain"))

    def answers(self) -> None:
        rows = []
        for s in self.d.steps:
            rows.append((s.id, s.title, self._inline_value(s)))
        self.add(Table(("step", "", "value"), tuple(rows)))
        if self.d.headline:
            self.add(Para(self.d.headline, "result"))
        # the answers sheet writes nothing out: only the note's first sentence applies (not 'as written')
        self.add(Para(self._rounding_note().split(". Where a written-out line")[0].rstrip(".") + ".", "explain"))

    def solution(self) -> None:
        self.givens()
        tl = timeline.Timeline(self.d) if timeline.applies(self.d) else None
        if tl is not None:
            overview = [
                Table(tuple(t.header), tuple(tuple(r) for r in t.rows), caption=t.title) for t in tl.tables(self.n)
            ]
            if self.reveal and overview:  # the states and predictions are the answers: shown when asked
                self.add(Details("Show the overview of every time step (the answers)", tuple(overview)))
            else:
                self.out.extend(overview)
        brief: str | None = None  # the time step written in brief whose heading was given
        for k, s in enumerate(self.d.steps, 1):
            if tl is not None and s.id in tl.section_starts:
                self.add(Heading(tl.section_starts[s.id], 3))
            if s.id in self.plan:
                if s.intro:  # where the decoder starts is said however briefly its steps are written
                    self.add(Para(s.intro))
                    brief = None
                brief = self._brief(s, brief)
                if tl is not None and s.id in tl.table_after:
                    self._gate_table(tl, s.id)
                continue
            if s.intro:
                self.add(Para(s.intro))
            if s.id == "concat" and heads.applies(self.d):  # every head's weights, before they are put together
                for head_header, head_rows, head_caption in heads.sheet_tables(self.d, self.n):
                    self.add(Table(head_header, head_rows, caption=head_caption))
            self.add(Heading(f"Step {k}. {s.title} [{s.id}]", 3))
            self.add(MathLines(((s.formula, ""),)))
            if s.explain:
                self.add(Para(s.explain, "explain"))
            if s.note:
                self.add(Para(s.note, "note"))
            start, self._result_at = len(self.out), None
            getattr(self, f"_step_{type(s).__name__}")(s)
            self._exact(s)
            if s.id == "weights" and self.d.problem.kind == "attention":
                self._attention_table()
            if self.reveal:
                self._stages(start)

            if tl is not None and s.id in tl.table_after:
                self._gate_table(tl, s.id)
        if self.d.problem.kind == "similarity":
            from . import simtable

            if simtable.applies(self.d):
                self._similarity_table()
        if self.d.headline:
            result = Para(self.d.headline, "result")
            self.add(Details("Show the result", (result,)) if self.reveal else result)
        for note in self.d.notes:
            self.add(Para(note, "explain"))

    def _brief(self, s: Step, brief: str | None) -> str | None:
        """A step of a time step written in brief: its block's heading once, then one line (or, for a
        cell step in summary, nothing: the gate table shows it). Consecutive lines share one block."""
        prefix = timeline.block_of(s.id)
        if prefix != brief:
            self.add(Heading(timeline.block_heading(self._timeline(), prefix or ""), 3))
        if self.plan[s.id] == "line":
            line = (timeline.step_line(s, self._inline_value(s), self.dec), s.id)  # the writers parenthesise it
            last = self.out[-1] if self.out else None
            if isinstance(last, MathLines) and prefix == brief:
                self.out[-1] = MathLines((*last.lines, line))
            else:
                self.add(MathLines((line,)))
        return prefix

    def _timeline(self) -> timeline.Timeline:
        """The derivation's timeline, built once (building it walks every step)."""
        if self._tl is None:
            self._tl = timeline.Timeline(self.d)
        return self._tl

    def _gate_table(self, tl: timeline.Timeline, step_id: str) -> None:
        block = tl.table_after[step_id]
        header, rows, caption = tl.gate_rows(block, self.n)
        self.add(
            Table(
                tuple(header),
                tuple(tuple(r) for r in rows),
                caption=f"Gates at {block.title}" + (f"; {caption}" if caption else ""),
            )
        )

    def _stages(self, start: int) -> None:
        """The step's blocks from ``start`` in two stages: the working, then (inside it) the value."""
        body = self.out[start:]
        del self.out[start:]
        cut = self._result_at - start if self._result_at is not None else len(body)
        work, value = body[:cut], body[cut:]
        inner = (Details("Show the value", tuple(value)),) if value else ()
        if work:
            self.add(Details("Show the working", tuple(work) + inner))
        elif inner:
            self.add(inner[0])

    def _rounding_note(self) -> str:
        return next((n for n in self.d.notes if n.startswith("Shown values")), "")

    # -- pieces --------------------------------------------------------------------
    def _input(self, inp: Input) -> Block:
        if inp.words and inp.rows is not None:  # a sentence: its words, not their positions
            return Para(f"{inp.symbol} ({len(inp.rows)} tokens): {' '.join(inp.rows)}")
        v = np.asarray(inp.value)
        return self._matrix(inp.symbol, v, inp.rows, inp.cols, given=True)

    def _matrix(
        self,
        lhs: str,
        v: np.ndarray,
        rows: tuple[str, ...] | None = None,
        cols: tuple[str, ...] | None = None,
        shade: bool = False,
        given: bool = False,
    ) -> Block:
        """A value as a vector or a table; a ``given`` keeps its short decimals whole (fmt_given)."""
        v = np.asarray(v, dtype=float)

        def n(x: Any) -> str:
            return fmt_given(x, self.dec) if given else self.n(x)

        if v.ndim == 0:
            return MathLines(((f"{lhs} = {n(v)}", ""),))
        if v.ndim == 1:
            vec: tuple[str, ...] = tuple(x if x is not None else "…" for x in elide([n(x) for x in v], MATRIX_LIMIT))
            return Matrix(lhs, (vec,), rows, None, None, vector=True)
        r_idx = list(elide(list(range(v.shape[0])), MATRIX_LIMIT))
        c_idx = list(elide(list(range(v.shape[1])), MATRIX_LIMIT))
        rl = position_labels(rows, v.shape[0])
        cl = position_labels(cols, v.shape[1])
        cells = tuple(tuple("⋮" if i is None else ("…" if j is None else n(v[i, j])) for j in c_idx) for i in r_idx)
        sh = None
        if shade:
            sh = tuple(tuple(0.0 if i is None or j is None else float(v[i, j]) for j in c_idx) for i in r_idx)
        return Matrix(
            lhs,
            cells,
            tuple("⋮" if i is None else rl[i] for i in r_idx),
            tuple("…" if j is None else cl[j] for j in c_idx),
            sh,
        )

    def _result(self, s: Step) -> None:
        self._result_at = len(self.out)
        self.add(self._matrix(s.symbol, np.asarray(s.shown), s.rows, s.cols, shade=s.id == "weights"))

    def _inline_value(self, s: Step) -> str:
        return inline(s.shown, self.n, MATRIX_LIMIT)

    def _label(self, s: Step, idx: tuple[int, ...]) -> tuple[str, str]:
        if self.d.problem.kind == "similarity":  # entries named by their vectors: cat·chat, ‖cat‖
            from ..problem_similarity import entry_name

            return entry_name(self.d.problem, s.id, idx), ""
        label = entry_label(s.symbol, idx)
        token = s.rows[idx[0]] if len(idx) == 1 and s.rows is not None else ""
        return label, token

    def _written(self, s: Step) -> None:
        shown = np.asarray(s.shown)
        lines: list[tuple[str, str]] = []
        for idx in elide(entry_indices(shown.shape), self.entry_limit):
            if idx is None:
                lines.append(("⋮", f"{int(np.prod(shown.shape)) - 4} more entries, computed the same way"))
                continue
            label, token = self._label(s, idx)
            if isinstance(s, Map) and np.isneginf(s.arg[idx]):
                if s.fn in ("exp", "shift_exp"):
                    lines.append((f"{label} = {expand.rhs(s, idx, self.dec)} = 0", f"masked {token}".strip()))
                else:
                    lines.append((f"{label} = −∞", "masked"))
                continue
            remark = "; ".join(x for x in (token, expand.aside(s, idx, float(shown[idx]), self.dec)) if x)
            lines.append((f"{label} = {expand.rhs(s, idx, self.dec)} = {self.n(shown[idx])}", remark))
        self.add(MathLines(tuple(lines)))
        if shown.ndim or self.d.problem.kind != "similarity":  # a similarity's one number is its own line
            self._result(s)

    def _exact(self, s: Step) -> None:
        name = (lambda idx: self._label(s, idx)[0]) if self.d.problem.kind == "similarity" else None
        groups, more = exact_groups(s.exact, s.symbol, self.dec, name)
        if groups:
            items = [
                (" = ".join(labels[:3]) + (" = …" if len(labels) > 3 else ""), _readable(expr))
                for labels, expr in groups
            ]
            self.add(Exact(tuple(items), more))

    def _attention_table(self) -> None:
        d = self.d
        ids = [i for i in ("scores", "scaled_scores", "exponentials", "weights") if i in d.step_ids]
        heads = {"scores": "e_i", "scaled_scores": "e'_i", "exponentials": "exp(e_i)", "weights": "α_i"}
        w = np.asarray(d.step("weights").shown, dtype=float)
        labels = position_labels(d.problem.tokens, len(w), "h_")
        rows = []
        idx = list(elide(list(range(len(w))), 32))
        for i in idx:
            if i is None:
                rows.append(("⋮",) + ("",) * (len(ids) + 1))
                continue
            rows.append((str(i + 1), labels[i], *(self.n(np.asarray(d.step(x).shown)[i]) for x in ids)))
        shade = tuple(0.0 if i is None else float(w[i]) for i in idx)
        self.add(
            Table(("i", "token", *(heads[x] for x in ids)), tuple(rows), shade, "Attention over the encoder states")
        )

    # -- step types ----------------------------------------------------------------
    def _step_Product(self, s: Product) -> None:
        if s.note and "identity" in s.note:
            self._result(s)
            return
        self._written(s)

    def _step_Map(self, s: Map) -> None:
        if s.fn == "divide" and s.param_text.startswith("√"):
            self.add(MathLines(((f"{s.param_text} = {self.n(s.param)}", ""),)))
        if np.asarray(s.shown).ndim == 0:  # one number: one line
            remark = expand.aside(s, (), float(s.shown), self.dec)
            self.add(MathLines(((f"{s.symbol} = {expand.rhs(s, (), self.dec)} = {self.n(s.shown)}", remark),)))
            return
        self._written(s)

    def _step_Sum(self, s: Sum) -> None:
        if np.asarray(s.arg).ndim == 1:
            remark = expand.aside(s, (), float(s.shown), self.dec)
            self.add(MathLines(((f"{s.symbol} = {expand.rhs(s, (), self.dec)} = {self.n(s.shown)}", remark),)))
            return
        self._written(s)

    def _step_Divide(self, s: Divide) -> None:
        self._written(s)

    def _step_Add(self, s: Add) -> None:
        self._written(s)

    def _step_Concat(self, s: Concat) -> None:
        parts = [f"{name} = [{', '.join(self.n(x) for x in p)}]" for name, p in zip(s.part_names, s.parts, strict=True)]
        self.add(MathLines(tuple((x, "") for x in parts)))
        self._result(s)

    def _step_Mask(self, s: Mask) -> None:
        blocked = [
            entry_label("S'", (int(i), int(j))) for i, j in zip(*np.nonzero(~np.asarray(s.allowed)), strict=True)
        ]
        shown = [x if x is not None else "…" for x in elide(blocked, 12)]
        self.add(MathLines(((", ".join(shown) + " = −∞", "masked") if blocked else ("", "nothing is masked"),)))
        self._result(s)

    def _step_Softmax(self, s: Softmax) -> None:
        labels = position_labels(s.rows, len(s.arg))
        shift = f" − {self.n(s.shift)}" if s.shift else ""
        lines = []
        for i in elide(list(range(len(s.arg))), self.entry_limit):
            if i is None:
                lines.append(("⋮", ""))
                continue
            remark = "; ".join(x for x in (labels[i], expand.softmax_exp_aside(s, i, self.dec)) if x)
            lines.append((f"exp({self.n(s.arg[i])}{shift}) = {self.n(s.exps[i])}", remark))
        lines.append((f"Σ = {expand.sum_text([self.n(x) for x in s.exps])} = {self.n(s.total)}", ""))
        for i in elide(list(range(len(s.arg))), self.entry_limit):
            if i is None:
                lines.append(("⋮", ""))
                continue
            remark = "; ".join(x for x in (labels[i], expand.aside(s, (i,), float(s.shown[i]), self.dec)) if x)
            lines.append(
                (f"{entry_label(s.symbol, (i,))} = {expand.rhs(s, (i,), self.dec)} = {self.n(s.shown[i])}", remark)
            )
        self.add(MathLines(tuple(lines)))

    def _step_Argmax(self, s: Argmax) -> None:
        probs = np.asarray(s.probs, dtype=float)
        best = int(np.argmax(probs))
        tied = s.tied()
        rows = tuple(
            (lab, self.n(p), "largest" if i == best or lab in tied else "")
            for i, (lab, p) in enumerate(zip(s.labels, probs, strict=True))
        )
        self.add(Table(("entry", "p", ""), rows, tuple(float(p) for p in probs)))
        self.add(MathLines(((f"ŷ = {s.value}", tie_note(s).strip()),)))

    def _step_Pick(self, s: Pick) -> None:
        probs = np.asarray(s.probs, dtype=float)
        chosen = str(s.value).split(", ")
        cum = s.cumulative
        rows = tuple(
            (
                lab,
                self.n(p),
                *((self.n(cum[i]),) if cum is not None else ()),
                "chosen" if lab in chosen and s.u is not None else "",
            )
            for i, (lab, p) in enumerate(zip(s.labels, probs, strict=True))
        )
        header = ("entry", "p" if s.u is not None else "score", *(("running sum",) if cum is not None else ()), "")
        self.add(Table(header, rows))
        if s.u is not None:
            self.add(MathLines(((f"u = {self.n(s.u)}", f"the first running sum above u picks {s.value}"),)))
        else:
            self.add(MathLines(((f"kept: {s.value}", ""),)))

    def _step_Loss(self, s: Loss) -> None:
        self.add(
            MathLines(
                ((f"{s.symbol} = −ln p_{s.target + 1} = {expand.rhs(s, (), self.dec)} = {self.n(s.shown)}", s.label),)
            )
        )

    def _step_Gradient(self, s: Gradient) -> None:
        self._written(s)

    def _step_Combine(self, s: Combine) -> None:
        if s.scalar_product:
            remark = expand.aside(s, (), float(s.shown), self.dec)
            self.add(MathLines(((f"{s.symbol} = {expand.rhs(s, (), self.dec)} = {self.n(s.shown)}", remark),)))
            return
        self._written(s)

    def _step_Arrange(self, s: Arrange) -> None:
        if s.source and s.source not in s.formula:
            self.add(Para(s.source, "explain"))
        self._result(s)

    def _step_Formula(self, s: Formula) -> None:
        self._written(s)

    def _step_Stated(self, s: Stated) -> None:
        self._result(s)

    def _step_Update(self, s: Update) -> None:
        saved, self.dec = self.dec, expand.update_decimals(s, self.dec) if not self.d.carry_rounded else self.dec
        try:
            if self.dec != saved:
                self.add(Para(f"Shown to {self.dec} decimals so that the change is visible.", "explain"))
            self._written(s)
        finally:
            self.dec = saved

    def _step_Norm(self, s: Norm) -> None:
        self._written(s)

    def _step_Cosine(self, s: Cosine) -> None:
        self._written(s)

    def _similarity_table(self) -> None:
        from . import simtable

        heads, rows, title = simtable.table(self.d, self.n)
        self.add(Table(heads, tuple(rows), None, title))


STEP_METHODS = {cls: getattr(_Builder, f"_step_{cls.__name__}", None) for cls in STEP_TYPES}


SHEET_EXACT_CHARS = 600  # an exact form longer than this (printed as text) is named, not typeset


def _readable(expr: Any) -> Any:
    """The form itself, or, past SHEET_EXACT_CHARS, what it is: typeset it would fill several lines
    or shrink to a hairline (the text view cuts such forms too; JSON keeps them whole)."""
    from .exact import exact_text

    form = exact_text(expr)
    if len(form) <= SHEET_EXACT_CHARS:
        return expr
    return f"a form of {len(form)} characters, too long to typeset (attncalc solve -f json gives it whole)"
