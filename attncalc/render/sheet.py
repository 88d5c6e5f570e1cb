"""Solution, answers and question sheets as a format-neutral list of blocks.

The builder walks a derivation once (one ``_step_<TypeName>`` method per step type, in the
manner of sympy's printers); the Markdown, LaTeX and HTML writers then typeset the same blocks.
Mathematics in blocks is written in attncalc's plain notation ("e_2 = 1·0 + 1·2 = 2",
"S'[1,3]", "√2", "exp(e_1)"), which each writer converts with its own small translator.
"""

from __future__ import annotations

import numpy as np

from ..derivation import (
    STEP_TYPES,
    Count,
    Derivation,
    Stated,
    Step,
    Tokens,
    single_tokens,
)
from ..derivation.fmt import ENTRY_LIMIT, significant_words, step_places
from ..kinds import tables_after
from . import heads, timeline
from .asked import answer_layout, asks, decimals_text, flag_meaning, tie_rule
from .blocks import Block, Details, Heading, MathLines, Para, Sheet, Table
from .describe import describe
from .reveal import without_results
from .setup import payload_stated
from .sheet_steps import StepBlocks

SHEETS = ("solution", "answers", "question")
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


class _Builder(StepBlocks):
    def __init__(self, d: Derivation, out: list[Block], reveal: bool = False, detail: str = "first") -> None:
        self.d = d
        brief = timeline.brief_of(d, detail)
        self.plan, self._runs, self._merged, self._table_only = brief.plan, brief.runs, brief.merged, brief.table_only
        self._tl: timeline.Timeline | None = brief.timeline
        self._brief_at: int | None = None  # --reveal: where the open time step written in brief starts
        # entries written out per step: a recurrent derivation in brief keeps 4 of a long vector
        self.entry_limit = BRIEF_ENTRY_LIMIT if self.plan else ENTRY_LIMIT
        self.dec = d.decimals
        self.out = out
        self.reveal = reveal
        self._result_at: int | None = None

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
        for _key, line in payload_stated(self.d.problem):  # what an LMS item states too (the practice page)
            self.add(Para(line))
        stated = [s for s in self.d.steps if isinstance(s, Stated)]
        if stated:  # gate values the problem states: given, not asked for
            self.add(Para("Stated by the problem (use these values as they are):", "explain"))
            for s in stated:
                self.add(self._matrix(s.symbol, np.asarray(s.shown), s.rows, s.cols))
        self.add(Heading("Compute", 3))
        asked = [s for s in self.d.steps if not isinstance(s, Stated)]
        rows = tuple((str(k), f"{s.title} [{s.id}]", s.formula) for k, s in enumerate(asked, 1))
        self.add(Table(("#", "step", "compute"), rows, math_cols=(2,)))
        what = {asks(s, self.d) for s in asked}
        if asked and all(isinstance(s, Count) for s in asked):  # parameters, FLOPs, bytes: whole numbers
            self.add(Para("Give every value as a whole number, to the unit.", "explain"))
        else:
            parts = ["the counts as whole numbers"] if "a count" in what else []
            words = any(isinstance(s, Tokens) and not single_tokens(s.labels) for s in asked)
            tokens = (
                "the tokens with a space between tokens and a comma between items"
                if words
                else "the tokens separated by commas"
            )
            parts += [tokens] if "tokens" in what else []
            parts += ["each label as the problem writes it"] if "a label" in what else []
            said = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + (parts[-1] if parts else "")
            if asked and decimals_text(self.dec) not in what:  # bpe: counts and tokens, no decimals asked
                self.add(Para(f"Give {said}.", "explain"))
            else:  # (speculative: probabilities to the decimals, accept flags whole, the output as tokens)
                rest = f"; {said}" if parts else ""
                self.add(Para(f"Give every value to {self.dec} decimals{rest}.", "explain"))
        for a in asked:  # the order of ties the step's answer follows (a beam search's kept beams)
            if tie_rule(a):
                self.add(Para(f"{a.title} [{a.id}]: {tie_rule(a)}", "explain"))
            if flag_meaning(a):  # a 0/1 flag per entry: what 1 and 0 say
                self.add(Para(f"{a.title} [{a.id}]: {flag_meaning(a)}.", "explain"))
            if answer_layout(a):  # the shape and order of an answer its formula does not give (ranges per group)
                self.add(Para(f"{a.title} [{a.id}]: {answer_layout(a).rstrip('.')}.", "explain"))

    def answers(self) -> None:
        rows = []
        for s in self.d.steps:
            saved, self.dec = self.dec, step_places(s, self.dec, self.d.carry_rounded)
            try:  # (a small value kept to its significant digits, as the answer key writes it)
                rows.append((s.id, s.title, self._inline_value(s)))
            finally:
                self.dec = saved
        self.add(Table(("step", "", "value"), tuple(rows)))
        if self.d.headline:
            self.add(Para(self.d.headline, "result"))
        # the answers sheet writes nothing out: only the note's first sentence applies (not 'as written')
        note = self._rounding_note()
        if note:  # (a derivation of whole numbers only rounds nothing)
            self.add(Para(note.split(". Where a written-out line")[0].rstrip(".") + ".", "explain"))

    def solution(self) -> None:
        self.givens()
        tl = self._tl  # None where there are no time steps
        if tl is not None:
            overview = [
                Table(tuple(t.header), tuple(tuple(r) for r in t.rows), caption=t.title) for t in tl.tables(self.n)
            ]
            if self.reveal and overview:  # the states and predictions are the answers: shown when asked
                self.add(Details("Show the overview of every time step (the answers)", tuple(overview)))
            else:
                self.out.extend(overview)
        if self.plan:  # Step 10 then Step 41: say where the steps in between are
            self.add(Para(timeline.NUMBERING_NOTE, "explain"))
        brief: str | None = None  # the time step written in brief whose heading was given
        for k, s in enumerate(self.d.steps, 1):
            if s.id not in self.plan or timeline.block_of(s.id) != brief:
                self._close_brief()
            if tl is not None and s.id in tl.section_starts:
                self.add(Heading(tl.section_starts[s.id], 3))
            if s.id in self._merged:  # one-unit time steps in a row: one table, a row each
                if s.id in self._runs:
                    header, rows, caption = self._timeline().merged_rows(self._runs[s.id], self.n)
                    self.add(Table(tuple(header), tuple(tuple(r) for r in rows), caption=caption))
                continue
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
            saved, self.dec = self.dec, step_places(s, self.dec, self.d.carry_rounded)
            try:
                if self.dec != saved:  # a small value kept to its significant digits
                    self.add(Para(f"Shown to {self.dec} decimals, {significant_words(s)}.", "explain"))
                getattr(self, f"_step_{type(s).__name__}")(s)
                self._exact(s)
            finally:
                self.dec = saved
            for extra in tables_after(self.d.problem.kind, s.id):
                getattr(self, f"_{extra}_table")()
            if self.reveal:
                self._stages(start)

            if tl is not None and s.id in tl.table_after:
                self._gate_table(tl, s.id)
        self._close_brief()
        for extra in tables_after(self.d.problem.kind, ""):
            getattr(self, f"_{extra}_table")()
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
            self._close_brief()
            if prefix not in self._table_only:  # a table-only time step: its table's caption names it
                self.add(Heading(timeline.block_heading(self._timeline(), prefix or "", s.id), 3))
                self._brief_at = len(self.out) if self.reveal else None
        if self.plan[s.id] == "line":
            line = (timeline.step_line(s, self._inline_value(s), self.dec), s.id)  # the writers parenthesise it
            last = self.out[-1] if self.out else None
            if isinstance(last, MathLines) and prefix == brief:
                self.out[-1] = MathLines((*last.lines, line))
            else:
                self.add(MathLines((line,)))
        return prefix

    def _close_brief(self) -> None:
        """--reveal: a time step written in brief keeps its lines and gate table closed under its
        heading, as a step keeps its working."""
        if self._brief_at is not None and len(self.out) > self._brief_at:
            body = tuple(self.out[self._brief_at :])
            del self.out[self._brief_at :]
            self.add(Details("Show this time step's lines and values", body))
        self._brief_at = None

    def _timeline(self) -> timeline.Timeline:
        """The derivation's timeline (a derivation written in brief has time steps)."""
        assert self._tl is not None
        return self._tl

    def _gate_table(self, tl: timeline.Timeline, step_id: str) -> None:
        block = tl.table_after[step_id]
        header, rows, caption = tl.gate_rows(block, self.n)
        title = timeline.block_heading(tl, block.prefix) if block.prefix in self._table_only else block.title
        self.add(
            Table(
                tuple(header),
                tuple(tuple(r) for r in rows),
                caption=f"Gates at {title}" + (f"; {caption}" if caption else ""),
            )
        )

    def _stages(self, start: int) -> None:
        """The step's blocks from ``start`` in two stages: the working, then (inside it) the value.
        The working is the written-out substitution without its results ("e_1 = 1·1 + 1·0 = ?");
        the value stage gives the lines with their results, then the value."""
        body = self.out[start:]
        del self.out[start:]
        cut = self._result_at - start if self._result_at is not None else len(body)
        work, value = body[:cut], body[cut:]
        # the working is lines and words: a table (a "largest" mark), a value or an exact form waits
        results = [b for b in work if not isinstance(b, MathLines | Para)]
        work = [b for b in work if isinstance(b, MathLines | Para)]
        answered = [b for b in work if without_results(b) is not b]
        work = [without_results(b) for b in work]
        value = answered + results + value
        inner = (Details("Show the value", tuple(value)),) if value else ()
        if work:
            self.add(Details("Show the working", tuple(work) + inner))
        elif inner:
            self.add(inner[0])

    def _rounding_note(self) -> str:
        return next((n for n in self.d.notes if n.startswith("Shown values")), "")

    # -- pieces --------------------------------------------------------------------


STEP_METHODS = {cls: getattr(_Builder, f"_step_{cls.__name__}", None) for cls in STEP_TYPES}
