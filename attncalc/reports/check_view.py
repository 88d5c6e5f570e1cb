"""Reports of ``attncalc check``: a rich table for people, JSON for scripts (INTERFACE.md)."""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np
from rich import box
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ..check import UNANSWERED, Report, StepResult
from ..check.report import points_text
from ..errors import printable
from ..render import json_forms
from ..render.console import terminal_console
from .check_blocks import Wrapped, step_block

MARKS = {"correct": ("✓ correct", "green"), "carried": ("↪ carried", "yellow"), "wrong": ("✗ wrong", "bold red")}


def _typed(step_id: str, x: Any, whole: bool) -> Any:
    """An answer or a true value in the JSON contract's types: a list of tokens as a list, re-segmented
    words as token lists, a count as integers (as ``solve --format json`` writes the step)."""
    form = json_forms.form(step_id)
    if isinstance(x, str) and step_id in json_forms.TOKEN_STEPS:  # (a number's id elsewhere: a string here is tokens)
        return x.split(", ")
    if isinstance(x, str) and form == "tokens":
        return json_forms.split_items(step_id, x)
    if isinstance(x, str) and form == "segments":
        return [item.split() for item in json_forms.split_items(step_id, x)]
    if whole or form == "count":
        return json_forms.as_ints(x)
    return x


def result_dict(r: StepResult) -> dict[str, Any]:
    whole = isinstance(r.expected, int) and not isinstance(r.expected, bool)  # a count computed exactly
    out: dict[str, Any] = {
        "id": r.id,
        "verdict": r.verdict,
        "given": _typed(r.id, r.given, whole),
        "expected": _typed(r.id, r.expected, whole),
        "wrong_entries": r.wrong_entries,
        "note": r.note,
    }
    if r.mistake:
        out["mistake"] = r.mistake
    if r.began_at:
        out["began_at"] = r.began_at
    out["points"] = round(r.earned, 6)
    out["out_of"] = round(r.points, 6)
    return out


def report_dict(rep: Report) -> dict[str, Any]:
    answered = {r.id for r in rep.results}
    return {
        "summary": rep.summary,
        "score": {"points": round(rep.score, 6), "out_of": round(rep.out_of, 6)},
        "results": [result_dict(r) for r in rep.results],
        "unanswered": [s for s in rep.step_ids if s not in answered],
    }


def _split(entries: list[Any], several: bool) -> tuple[list[Report], list[Any], bool]:
    """A run's graded reports, the files it could not grade (attncalc.reports.gradebook.Unread: named,
    with the reason), and whether it is a class: more than one answers file given, whatever was graded
    (a script reads ``submissions`` whether or not a student's file was refused), or one refused (a
    folder given of one file: a class)."""
    reports = [e for e in entries if isinstance(e, Report)]
    unread = [e for e in entries if not isinstance(e, Report)]
    return reports, unread, several or len(entries) != 1 or bool(unread)


def _reason(u: Any) -> str:
    """Why a file was not read, without the file's name the message begins with (its row names it)."""
    reason: str = u.reason
    return reason.removeprefix(f"{u.answers}: ")


def _not_read(unread: list[Any]) -> list[dict[str, str]]:
    return [
        {"answers": u.answers, "reason": _reason(u), **({"student": printable(u.student)} if u.student else {})}
        for u in unread
    ]


def reports_json(entries: list[Any], several: bool = False) -> str:
    """``check --format json``: one answers file's report, or a class's (``several`` files given, or
    a folder: ``submissions``, the files graded; ``not_read``, the files refused, each with its reason)."""
    reports, unread, many = _split(entries, several)
    if not many:
        data: dict[str, Any] = report_dict(reports[0])
    else:
        total = {"correct": 0, "carried": 0, "wrong": 0}
        for rep in reports:
            for k, v in rep.summary.items():
                total[k] += v
        data = {
            # (file names escaped as everywhere else: a name of bytes no UTF-8 reads was written "??")
            "submissions": [
                {"problem": printable(r.problem), "answers": printable(r.answers), **report_dict(r)} for r in reports
            ],
            "total": total,
            "score": {  # every file's points, and what they were out of, summed
                "points": round(sum(r.score for r in reports), 6),
                "out_of": round(sum(r.out_of for r in reports), 6),
            },
            "all_correct": sum(1 for r in reports if r.all_correct),
            "not_read": _not_read(unread),
        }
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def reports_text(entries: list[Any], width: int, several: bool = False) -> str:
    """The report(s) as plain text at a fixed width, as `check -o FILE` writes them."""
    import os

    with open(os.devnull, "w") as sink:
        console = terminal_console(width=width, color_system=None, record=True, file=sink, force_jupyter=False)
        print_reports(entries, console, several)
        return console.export_text()


def _entries(x: Any, idx: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], Any]]:
    if isinstance(x, list):
        return [e for i, v in enumerate(x) for e in _entries(v, (*idx, i))]
    return [(idx, x)]


def _partial(r: StepResult) -> list[tuple[int, ...]] | None:
    """The answered entries of an answer that left some out ("?"); None when all were answered."""
    given = _entries(r.given_shown) if isinstance(r.given_shown, list) else []
    if not any(v == UNANSWERED for _, v in given):
        return None
    return [idx for idx, v in given if v != UNANSWERED]


def _at(idx: tuple[int, ...]) -> str:
    return "[" + ",".join(str(i + 1) for i in idx) + "]"


def _given_cell(r: StepResult) -> str:
    """The answer as written, wrong entries between ⟨ ⟩ so they show without colour; of a partial
    answer only the answered entries, by position ("[2,2] 0.476")."""
    rows = _given_rows(r)
    return rows if isinstance(rows, str) else "[" + ", ".join(rows) + "]"


def _is_matrix(x: Any) -> bool:
    return isinstance(x, list) and len(x) > 0 and all(isinstance(v, list) for v in x)


def _given_rows(r: StepResult) -> str | list[str]:
    """The given answer as one string, or one string a row for a matrix (for the block layout)."""
    wrong = {tuple(e) for e in r.wrong_entries}
    answered = _partial(r)
    if answered is not None:
        values = dict(_entries(r.given_shown))
        marked = [f"⟨{values[i]}⟩" if i in wrong and r.verdict == "wrong" else str(values[i]) for i in answered]
        return ", ".join(f"{_at(i)} {v}" for i, v in zip(answered, marked, strict=True))

    def walk(x: Any, idx: tuple[int, ...]) -> str:
        if isinstance(x, list):
            return "[" + ", ".join(walk(v, (*idx, i)) for i, v in enumerate(x)) + "]"
        text = str(x)
        return f"⟨{text}⟩" if idx in wrong and r.verdict == "wrong" else text

    shown = r.given_shown if r.given_shown is not None else r.given
    if _is_matrix(shown):
        return [walk(row, (i,)) for i, row in enumerate(shown)]
    return walk(shown, ())


def _expected_cell(r: StepResult) -> str:
    rows = _expected_rows(r)
    return rows if isinstance(rows, str) else "[" + ", ".join(rows) + "]"


def _expected_rows(r: StepResult) -> str | list[str]:
    answered = _partial(r)
    expected = r.expected_shown if r.expected_shown is not None else r.expected
    if answered is None:
        if _is_matrix(expected):
            return [_value_cell(row) for row in expected]
        return _value_cell(expected)
    values = dict(_entries(expected))
    return ", ".join(f"{_at(i)} {_value_cell(values[i])}" for i in answered)


def _value_cell(x: Any) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_value_cell(v) for v in x) + "]"
    if x is None:
        return "−∞"
    if isinstance(x, str):
        return x
    if x != 0 and abs(x) < 1e-4:  # the value rounded to the answer's precision: 0.000014, not 1.4e-05
        return np.format_float_positional(x, trim="-")
    return f"{x:g}"


def report_renderable(rep: Report, width: int | None = None) -> RenderableType:
    """The report as a table when the table fits ``width`` without wrapping a cell, otherwise as one
    block per step (check_blocks), so that at 80 columns no step id, value or note is cut."""
    t = _table(rep)
    if width is not None and _natural_width(t) > width:
        return _blocks(rep, width)
    return Group(_header(rep, width), t, Wrapped(summary_line(rep)))


def _header(rep: Report, width: int | None) -> Text:
    """ "answers.toml  (problem p.toml)", or the problem on a line of its own when that is too wide."""
    answers, problem = printable(rep.answers), printable(rep.problem)  # (a name's newline would fake a line)
    one = f"{answers}  (problem {problem})"
    if width is None or len(one) <= width:
        return Text(one)
    return Text(f"{answers}\n  problem: {problem}")


def _natural_width(t: Table) -> int:
    wide = terminal_console(width=100_000, file=io.StringIO(), force_jupyter=False)
    return Measurement.get(wide, wide.options, t).maximum


def _blocks(rep: Report, width: int) -> RenderableType:
    lines: list[RenderableType] = [_header(rep, width), Text("")]
    for r in rep.results:
        mark, style = MARKS[r.verdict]
        rows = [("given", _given_rows(r)), ("expected", _expected_rows(r)), ("note", r.note)]
        lines.extend(step_block(mark, style, r.id, rows, width))
    lines += [Text(""), Wrapped(summary_line(rep))]
    return Group(*lines)


def _table(rep: Report) -> Table:
    t = Table(box=box.SIMPLE_HEAVY)
    t.add_column("step")
    t.add_column("verdict")
    t.add_column("given")
    t.add_column("expected")
    t.add_column("note", ratio=1)
    for r in rep.results:
        mark, style = MARKS[r.verdict]
        t.add_row(r.id, Text(mark, style=style), _given_cell(r), _expected_cell(r), r.note)
    return t


def summary_line(rep: Report) -> str:
    s = rep.summary
    line = f"{s['correct']} correct, {s['carried']} carried, {s['wrong']} wrong"
    if rep.first_error:
        line += f"; the first error is at {rep.first_error}"
    elif rep.all_correct:
        line += "; all correct"
    return line + f"; score {points_text(rep.score)} / {points_text(rep.out_of)}"


def print_reports(entries: list[Any], console: Console, several: bool = False) -> None:
    """One answers file's report, or a class's table (a row for each file, graded or not read)."""
    from ..render.console import controls_shown

    reports, _, many = _split(entries, several)
    with controls_shown():  # (a label or a file name with \x08 shown as an escape, not dropped)
        if many:
            _print_class(entries, console)
        else:
            console.print(report_renderable(reports[0], console.width))


def _print_class(entries: list[Any], console: Console) -> None:
    reports, unread, _ = _split(entries, True)
    total = {"correct": 0, "carried": 0, "wrong": 0}
    # one row per file; the result wraps within --width (a file name is never broken)
    t = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1))
    t.add_column(no_wrap=True)
    t.add_column(no_wrap=True, overflow="fold")
    t.add_column(ratio=1)
    for rep in entries:
        if not isinstance(rep, Report):  # (refused: its row says why, as the gradebook's does)
            t.add_row("✗", rep.answers, Wrapped(f"not read: {_reason(rep)}"))
            continue
        mark = "✓" if rep.all_correct else "✗"
        t.add_row(mark, printable(rep.answers), Wrapped(summary_line(rep)))  # "score 1 / 27" never broken
        for k, v in rep.summary.items():
            total[k] += v
    console.print(t)
    perfect = sum(1 for r in reports if r.all_correct)
    mean = ""
    if len({r.out_of for r in reports}) == 1:  # one problem (or variants of one): the mean score says something
        mean = f"; mean score {points_text(sum(r.score for r in reports) / len(reports))} / {points_text(reports[0].out_of)}"
    console.print(
        Wrapped(
            f"Total: {len(reports)} submission{'' if len(reports) == 1 else 's'}, {perfect} all correct; steps: {total['correct']} correct, "
            f"{total['carried']} carried, {total['wrong']} wrong{mean}"
            + (f"; {len(unread)} not read" if unread else "")
        )
    )
