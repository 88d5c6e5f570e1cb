"""What the practice page shows: the question, and for every asked step its inputs, its verdict
and, once revealed, its worked step; built from a derivation and a check report, no grading here.

The givens and the staged working are the HTML sheet's own blocks (:mod:`attncalc.render.sheet`,
escaped by its writer), so the page and ``attncalc solve --format html --reveal`` show the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from markupsafe import Markup, escape

from ..check import Report, StepResult
from ..check.report import points_text
from ..derivation import Arrange, Derivation, Step, Tokens, single_tokens
from ..derivation.fmt import flat_rows, fmt
from ..render.asked import asks, decimals_text, flag_meaning, labels_give_away, tie_rule
from ..render.blocks import Block, Heading, Sheet
from ..render.typeset_html import to_html
from ..render.write_html import HtmlWriter
from .answers import Typed, asked, entries, field_name, fixed_entries
from .pair_heads import is_pair_table, pair_heads

MARKS = {"correct": "✓ correct", "carried": "↪ carried", "wrong": "✗ wrong", "right": "✓"}
_STEP_HEADING = re.compile(r"\[([^\]]+)\]$")


class AsTyped(Markup):
    """A field's typed text, HTML-escaped: shown in its field as typed, never rewritten (a control
    character typed is refused by its message, and sent back as it was)."""


@dataclass
class Cell:
    """One entry: its field, its accessible label, what was typed, or the fixed value shown instead."""

    name: str
    id: str
    label: str
    text: str = ""
    fixed: str = ""  # a masked score: shown, not asked
    mark: str = ""  # correct | carried | wrong | right (an entry right in a wrong step)
    error: str = ""  # check's message for a bad number


@dataclass
class StepView:
    number: int
    id: str
    title: str
    formula: str  # HTML (typeset, escaped)
    shape: str  # label | one | vector | matrix
    cols: list[str] = field(default_factory=list)
    rows: list[tuple[str, list[Cell]]] = field(default_factory=list)
    verdict: str = ""
    mark: str = ""
    note: str = ""
    began_at: str = ""
    began_number: int = 0
    points: str = ""
    error: str = ""
    revealed: str = ""  # HTML of the worked step, in --reveal's stages
    hint: str = ""  # what the step asks and how it is written: "To 3 decimals.", "A count: ...", tokens
    asks: str = ""  # what is asked: "a count", "tokens", "a label", "3 decimals"

    @property
    def anchor(self) -> str:
        return f"step-{self.number}"


@dataclass
class Summary:
    score: str
    out_of: str
    correct: int
    carried: int
    wrong: int
    first_error: str
    first_error_number: int


def question_html(d: Derivation) -> str:
    """The question sheet's givens (the title left to the page), as the HTML sheet writes them."""
    from ..render.sheet import build

    sheet = build([d], "question")
    kept: list[Block] = []
    for b in sheet.blocks:
        if isinstance(b, Heading) and b.text == "Compute":
            break
        if isinstance(b, Heading) and b.level == 1:
            continue
        kept.append(b)
    return HtmlWriter(Sheet(sheet.title, "question", kept)).write(fragment=True)


def revealed_html(d: Derivation) -> dict[str, str]:
    """Each step's worked solution as ``--reveal`` stages it (formula, working, value), by step id.

    Written at ``--detail full`` so that every step has a section of its own."""
    from ..render.sheet import build

    sheet = build([d], "solution", None, True, "full")
    sections: dict[str, list[Block]] = {}
    current: list[Block] | None = None
    for b in sheet.blocks:
        if isinstance(b, Heading):
            m = _STEP_HEADING.search(b.text) if b.level >= 3 else None
            current = sections.setdefault(m.group(1), []) if m and m.group(1) in d else None
            continue
        if current is not None:
            current.append(b)
    return {k: HtmlWriter(Sheet(k, "solution", v)).write(fragment=True) for k, v in sections.items()}


def tokens_hint(step: Tokens) -> str:
    """How this step's tokens are written: a list of single tokens, one pair or word, or a list of them.

    In words only: an example made of real tokens could be this problem's own (CS336's "ne, west" is
    the encoding of newest), and would give it away."""
    if single_tokens(step.labels) and ", " in str(step.value):
        return "Tokens: the tokens in order, separated by commas or spaces."
    if ", " not in str(step.value):
        return "Tokens: its tokens separated by spaces."
    return "Tokens: a space between the tokens of each item, a comma between the items."


LABEL_HINT = "A label: as the problem writes it (capitals count)."
PAIRS_HINT = (
    "A count (a whole number) for each distinct pair of your words before this merge, in the order the "
    "pairs first occur; leave the fields past your last pair empty."
)


def _labels(names: tuple[str, ...] | None, n: int, by: str = "") -> list[str]:
    """The labels of an axis, or its positions: 1, 2, ... where it has none, "rank 1", ... where its
    labels would give an answer away (they are in a computed order)."""
    if names is not None and len(names) == n:
        return list(names)
    return [f"{by}{i + 1}" for i in range(n)]


def step_views(d: Derivation, typed: Typed, errors: dict[str, str], report: Report | None) -> list[StepView]:
    """Every asked step with its cells, what was typed, check's verdicts and any field's error."""
    results: dict[str, StepResult] = {r.id: r for r in report.results} if report is not None else {}
    numbers = {s.id: k for k, s in enumerate(d.steps, 1)}
    out = []
    for step in asked(d):
        view = _view(d, step, numbers[step.id], typed, errors)
        r = results.get(step.id)
        if r is not None:
            view.verdict, view.mark, view.note = r.verdict, MARKS[r.verdict], r.note
            view.began_at = r.began_at or ""
            view.began_number = numbers.get(view.began_at, 0)
            copy = isinstance(step, Arrange) and not step.ranked and not r.points
            view.points = (
                "Not graded: nothing is computed here"
                if copy
                else f"Points {points_text(r.earned)} / {points_text(r.points)}"
            )
            wrong = {tuple(w) for w in r.wrong_entries}
            for _, cells in view.rows:
                for cell in cells:
                    if cell.text and cell.text != "?":
                        idx = _index_of(cell.name)
                        # a field holding the whole step (a label, a list of tokens) is wrong with the step,
                        # whichever of its items check counts wrong
                        bad = idx in wrong or (not idx and r.verdict == "wrong")
                        cell.mark = "wrong" if bad else (r.verdict if r.verdict != "wrong" else "right")
        # a one-number step's field is named by the step id: its message is shown at the field, once
        view.error = errors.get(step.id, "") if view.shape not in ("one", "label") else ""
        out.append(view)
    return out


def _index_of(name: str) -> tuple[int, ...]:
    return tuple(int(i) for i in re.findall(r"\[(\d+)\]", name))


def _view(d: Derivation, step: Step, number: int, typed: Typed, errors: dict[str, str]) -> StepView:
    shape: tuple[int, ...] = () if isinstance(step.value, str) else np.shape(step.value)
    kind = "label" if isinstance(step.value, str) else {0: "one", 1: "vector"}.get(len(shape), "matrix")
    view = StepView(number, step.id, step.title, to_html(step.formula), kind, asks=asks(step, d))
    if isinstance(step, Tokens):
        view.hint = tokens_hint(step)
    elif kind == "label":
        view.hint = f"{LABEL_HINT} {tie_rule(step)}".strip()  # and the order of ties, where the step has one
    elif view.asks == "a count" and getattr(step, "unit", None) == "bytes":
        view.hint = 'A count of bytes: a whole number, or a size with its unit ("142.5 GiB", "153 GB").'
    elif view.asks == "a count" and flag_meaning(step) is not None:
        view.hint = f"A flag: {flag_meaning(step)}."
    elif view.asks == "a count":
        view.hint = "A count: a whole number."
    else:
        view.hint = f"To {view.asks}."
    fixed = fixed_entries(step)
    hidden = labels_give_away(d, step)  # kept beams before the step that asks them: by rank
    value = None if isinstance(step.value, str) else np.asarray(step.value, dtype=float)

    def cell(idx: tuple[int, ...], label: str) -> Cell:
        name = field_name(step.id, idx)
        shown = fmt(float(value[idx]), 0, minus="−") if value is not None and idx in fixed else ""
        text = AsTyped(escape(typed.get(name)))
        return Cell(name, f"f-{number}" + "".join(f"-{i}" for i in idx), label, text, shown, "", errors.get(name, ""))

    if kind in ("label", "one"):
        view.rows = [("", [cell((), step.title)])]
    elif kind == "vector":
        # a pair table is headed by the pairs of the student's own words before it, never the true ones
        if is_pair_table(d, step):
            view.cols = pair_heads(d, step, typed.get(f"{int(step.id.split('.')[0]) - 1}.words"))
            if len(view.cols) > len(step.rows or ()):  # (more fields than pairs: how many is not said)
                view.hint = PAIRS_HINT
        else:
            view.cols = _labels(None if hidden else step.rows, shape[0], "rank " if hidden else "")
        view.rows = [("", [cell((j,), f"{step.title}, {c}") for j, c in enumerate(view.cols)])]
    elif len(shape) == 3:  # a list of matrices (moe's expert outputs): a row per first and second index
        view.cols = _labels(step.cols, shape[2])
        labels = flat_rows(np.zeros(shape), step.rows)[1] or ()
        view.rows = [
            (
                r,
                [
                    cell((i, k, j), f"{step.title}, {_named('row', r)}, {_named('column', c)}")
                    for j, c in enumerate(view.cols)
                ],
            )
            for (i, k), r in zip(np.ndindex(*shape[:2]), labels, strict=True)
        ]
    else:
        rows = _labels(None if hidden else step.rows, shape[0], "rank " if hidden else "")
        view.cols = _labels(step.cols, shape[1])
        view.rows = [
            (
                r,
                [
                    cell((i, j), f"{step.title}, {_named('row', r)}, {_named('column', c)}")
                    for j, c in enumerate(view.cols)
                ],
            )
            for i, r in enumerate(rows)
        ]
    assert all(len(cells) for _, cells in view.rows) and len(entries(step)) >= 1
    return view


def _named(word: str, label: str) -> str:
    """A field's row or column for a screen reader: "row 2", "row cat"; a label that already says it
    ("row 1", quantization's) as it is, not "row row 1"."""
    return label if label.lower().startswith(word + " ") else f"{word} {label}"


def summary_of(report: Report, d: Derivation) -> Summary:
    numbers = {s.id: k for k, s in enumerate(d.steps, 1)}
    s = report.summary
    first = report.first_error or ""
    return Summary(
        points_text(report.score),
        points_text(report.out_of),
        s["correct"],
        s["carried"],
        s["wrong"],
        first,
        numbers.get(first, 0),
    )


def page_context(d: Derivation) -> dict[str, Any]:
    """What the page says of the problem itself: kind, decimals, the question's givens."""
    p = d.problem
    found = {asks(s, d) for s in asked(d)}
    numbers = decimals_text(d.decimals)
    kinds = [a for a in (numbers, "a count", "tokens", "a label") if a in found]
    return {"title": p.title, "kind": p.kind, "decimals": d.decimals, "asks": kinds, "numbers_only": kinds == [numbers]}
