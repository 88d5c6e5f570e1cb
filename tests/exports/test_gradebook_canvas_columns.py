"""`check --gradebook canvas --roster FILE --assignment TITLE`: where Canvas's import puts the score column.

Canvas's GradebookImporter (app/models/gradebook_importer.rb, read for these tests) takes a header cell
equal to one of the course's custom column titles for that column (`process_custom_column_headers`: each
student's text there replaced by the score), and otherwise splits it as `Assignment.title_and_id` does
(`/\\A(.*)\\s\\((\\d+)\\)\\z/`) and finds the assignment by that id first, then by the whole cell as a
title (`parse_assignments`), else creates one. The hostile tryout 27 found `--assignment "Attention quiz
(2024)"` written over the roster's `Midterm Exam (2024)` and `--assignment Notes` over a custom column,
without a word. The oracle below is that lookup, written from the Ruby, over the course the roster's
header shows (its export writes custom columns by title and every assignment as `Title (id)`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS
from .test_gradebook_lms import RIGHT, _answers, _read

# Ruby's regex: \s and \d are ASCII, and "." is anything but a line break
_RUBY_TITLE_AND_ID = re.compile(r"\A([^\n]*)[ \t\r\n\f\v]\(([0-9]+)\)\Z")


def canvas_lands(cell: str, custom: list[str], assignments: dict[int, str]) -> tuple[str, Any]:
    """Where Canvas's import puts a header cell: ("custom", title), ("assignment", id) or ("new", title).
    ``assignments``: the course's assignments, id to title."""
    if cell in custom:
        return "custom", cell
    m = _RUBY_TITLE_AND_ID.match(cell)
    if m and int(m[2]) in assignments:  # (to_i)
        return "assignment", int(m[2])
    by_title = [k for k, title in assignments.items() if title == cell]
    if by_title:
        return "assignment", by_title[0]  # (Hash#find: the first; ambiguous when there are two)
    return "new", m[1] if m else cell


CUSTOM = ["Notes", "Attendance"]
ASSIGNMENTS = {2024: "Midterm Exam", 1234: "Homework 3", 1300: "Quiz", 1301: "Quiz", 7: "Lab (old)"}
HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *CUSTOM]
HEADER += [f"{title} ({key})" for key, title in ASSIGNMENTS.items()]
HEADER += ["Current Score", "Unposted Current Score", "Final Score", "Unposted Final Score"]


def _export(tmp_path: Path) -> str:
    rows = [HEADER, ["    Points Possible", "", "", "", "", "", "", "100.00", "5.00", "1.00", "1.00", "1.00"]]
    rows[1] += ["(read only)"] * 4
    rows.append(["Müller, Anna", "4711", "S100", "amueller", "Section A", "late", "", "88", "", "", "", ""])
    rows[-1] += ["0.00"] * 4
    path = tmp_path / "export.csv"
    path.write_text(
        "\ufeff" + "".join(",".join(f'"{c}"' if "," in c else c for c in r) + "\r\n" for r in rows), encoding="utf-8"
    )
    return str(path)


# (--assignment, what the run does: "written" the column as given; "refused" exit 2; "noted" written with a note)
CASES = [
    ("Midterm Exam (2024)", "written"),  # the roster's own column
    ("Homework 3 (1234)", "written"),
    ("Homework 3", "written"),  # one assignment of that title: Canvas finds it by title
    ("Lab (old) (7)", "written"),  # a title that itself ends in parentheses
    ("Attention quiz (2024)", "refused"),  # 2024 is the midterm: its grades would be replaced
    ("Midterm Exam (02024)", "refused"),  # to_i: 2024 again, under another title
    ("Notes", "refused"),  # a custom column: the scores would become each student's note
    ("Attendance", "refused"),
    ("Quiz", "refused"),  # two assignments titled Quiz: Canvas would grade one of them
    ("Quiz (1300)", "written"),
    ("Attention quiz (99)", "noted"),  # no assignment 99 in the roster: said, written
    ("Attention quiz", "written"),  # a new assignment, as the docs say
    ("Attention quiz(2024)", "written"),  # no space before "(": no id for Canvas, a new assignment's title
    ("Notes (2)", "noted"),
    ("notes", "written"),  # Canvas compares custom titles with ==: another title
]


@pytest.mark.parametrize(("assignment", "expected"), CASES, ids=[a for a, _ in CASES])
def test_the_score_column_lands_where_the_roster_shows_or_is_refused(
    cli: Any, tmp_path: Path, assignment: str, expected: str
) -> None:
    landed = canvas_lands(assignment, CUSTOM, ASSIGNMENTS)
    # the oracle agrees with the hand-made expectation: written only where Canvas puts it on a new assignment
    # or on the one the roster's column names
    if expected == "refused":
        kind, where = landed
        assert (
            kind == "custom"
            or (kind == "assignment" and f"{ASSIGNMENTS[where]} ({where})" != assignment)
            or (assignment == "Quiz" and list(ASSIGNMENTS.values()).count("Quiz") == 2)
        )
    else:
        assert (
            landed[0] == "new"
            or f"{ASSIGNMENTS[landed[1]]} ({landed[1]})" == assignment
            or (ASSIGNMENTS[landed[1]] == assignment and list(ASSIGNMENTS.values()).count(assignment) == 1)
        )
    folder = tmp_path / "subs"
    folder.mkdir()
    files = [_answers(folder, "amueller.toml", RIGHT)]
    roster, out = _export(tmp_path), tmp_path / "book.csv"
    done = cli(
        "check", "--problems", str(PROBLEMS), *files, "--format", "csv", "--gradebook", "canvas",
        "--assignment", assignment, "--roster", roster, "-o", str(out),
    )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    if expected == "refused":
        assert done.exit_code == 2 and not out.exists(), done.output
        assert len(lines) == 1 and lines[0].startswith(f"attncalc: error: {roster}: --assignment: {assignment!r}: ")
        assert "Traceback" not in done.output
        if landed[0] == "assignment" and assignment != "Quiz":  # the column whose grades would be replaced
            assert f"{ASSIGNMENTS[landed[1]]} ({landed[1]})" in lines[0]
        return
    assert done.exit_code == 0, done.output
    table = _read(out.read_bytes())
    report = cli("check", "--problems", str(PROBLEMS), *files, "--format", "json")  # (the score, as check gives it)
    score = json.loads(report.stdout)["score"]["points"]
    assert table[0][-1] == assignment and float(table[2][-1]) == pytest.approx(score, abs=0.005)
    notes = [line for line in lines if "--assignment" in line]
    if expected == "noted":
        assert len(notes) == 1 and notes[0].startswith(f"attncalc: note: {roster}: --assignment {assignment!r}: ")
        assert "the roster has no assignment" in notes[0]
    else:
        assert notes == []


def test_title_and_id_splits_as_rubys_regex_does() -> None:
    from attncalc.reports.canvas_columns import title_and_id

    cases = {
        "Homework 3 (1234)": ("Homework 3", 1234),
        "Quiz (007)": ("Quiz", 7),  # to_i
        "Lab (old) (7)": ("Lab (old)", 7),  # the last parentheses
        "A  (7)": ("A ", 7),
        "A\t(7)": ("A", 7),  # \s: a tab too
        "A(7)": ("A(7)", None),  # no space before
        "A (7) ": ("A (7) ", None),  # \z: nothing after
        "A (٧)": ("A (٧)", None),  # \d is ASCII in Ruby
        "A\u00a0(7)": ("A\u00a0(7)", None),  # \s is ASCII in Ruby
        "A (-7)": ("A (-7)", None),
        "(7)": ("(7)", None),  # \s needs a character before "("
    }
    for cell, expected in cases.items():
        assert title_and_id(cell) == expected, cell
        m = _RUBY_TITLE_AND_ID.match(cell)  # the test's own transcription agrees
        assert (m[1], int(m[2])) == expected if m else expected == (cell, None), cell


def test_without_a_roster_the_title_is_written_as_given(cli: Any, tmp_path: Path) -> None:
    """Without the export there is no course to compare with: the column is the title given (the
    docs say Canvas finds `Title (id)` by id), and nothing is refused for it."""
    folder = tmp_path / "subs"
    folder.mkdir()
    files = [_answers(folder, "amueller.toml", RIGHT)]
    out = tmp_path / "book.csv"
    done = cli(
        "check", "--problems", str(PROBLEMS), *files, "--format", "csv", "--gradebook", "canvas",
        "--assignment", "Attention quiz (2024)", "-o", str(out),
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert _read(out.read_bytes())[0][-1] == "Attention quiz (2024)"
