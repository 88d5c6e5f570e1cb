"""`check --gradebook canvas|moodle --roster FILE`: which student of the roster an answers file is, and
which of the roster's ids its row carries. Names and ids are compared as Canvas and Moodle compare them
(lower-cased, not case-folded); an id the LMS could not read counts as absent. Each roster is written by
hand in the layouts of tests/exports/test_gradebook_roster.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS, one_line_refusal
from .test_gradebook_lms import RIGHT, _answers, _book, canvas_import, moodle_import
from .test_gradebook_roster_ids import _lines, _roster

CANVAS_HEAD = "Student,ID,SIS User ID,SIS Login ID,Section"
MOODLE_HEAD = "First name,Last name,ID number,Email address"


def _class(tmp_path: Path, *names: tuple[str, str | None]) -> list[str]:
    """Answers files, each (file name, student = or None)."""
    folder = tmp_path / "subs"
    folder.mkdir(exist_ok=True)
    return [_answers(folder, name, RIGHT, student) for name, student in names]


@pytest.mark.parametrize(("student", "login"), [("maß", "mass"), ("\ufb01n", "fin")])
def test_a_name_matches_a_login_only_as_the_lms_lower_cases_it(
    cli: Any, tmp_path: Path, student: str, login: str
) -> None:
    """Case-folding made "maß" the login mass and the ligature "ﬁn" the login fin: another student's row.
    Canvas and Moodle lower-case (ß stays ß), so the file matches no student."""
    files = _class(tmp_path, ("hw.toml", student))
    roster = _roster(tmp_path, f"{CANVAS_HEAD}\r\nOther,7,S7,{login},A\r\n")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    assert canvas_import(table)[2] == []
    lines = _lines(result.stderr, "hw.toml")
    assert len(lines) == 1 and "matches no student of the roster" in lines[0] and result.exit_code == 2


def test_a_name_differing_only_in_case_still_matches(cli: Any, tmp_path: Path) -> None:
    files = _class(tmp_path, ("hw.toml", "MASS"))
    roster = _roster(tmp_path, f"{CANVAS_HEAD}\r\nOther,7,S7,mass,A\r\n")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    assert [(s["id"], s["sis_login_id"]) for s in canvas_import(table)[2]] == [("7", "mass")]
    assert result.exit_code == 0, result.stderr


# --- Moodle's identifying column -------------------------------------------------------------


@pytest.mark.parametrize("unseen", ["\u200d", "\u200d \u200d", "\u200c  \u200c"], ids=["one", "spaced", "two-spaces"])
def test_a_moodle_id_number_of_only_joiners_counts_as_absent(cli: Any, tmp_path: Path, unseen: str) -> None:
    """A's ID number is a lone U+200D (or joiners with spaces between them, which stayed a space): the rows
    went by ID number (A's cell unseen, matched by nothing) though the email is every student's."""
    roster = _roster(tmp_path, f"{MOODLE_HEAD}\r\nA,X,{unseen},a@x.edu\r\nB,Y,S2,b@x.edu\r\n")
    files = _class(tmp_path, ("a.toml", "a@x.edu"), ("b.toml", "b@x.edu"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    field, rows = moodle_import(table)
    assert field == "useremail" and [r["Email address"] for r in rows] == ["a@x.edu", "b@x.edu"]
    assert result.exit_code == 0, result.stderr


def test_moodle_rows_go_by_a_column_that_needs_no_apostrophe(cli: Any, tmp_path: Path) -> None:
    """A's ID number =1+0 would be written '=1+0, which Moodle's import does not find; every student has
    an Email address, written as it is: the rows go by it."""
    roster = _roster(tmp_path, f"{MOODLE_HEAD}\r\nA,X,=1+0,a@x.edu\r\nB,Y,S2,b@x.edu\r\n")
    files = _class(tmp_path, ("a.toml", "a@x.edu"), ("b.toml", "S2"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    field, rows = moodle_import(table)
    assert field == "useremail" and [r["Email address"] for r in rows] == ["a@x.edu", "b@x.edu"]
    assert "formula" not in result.stderr and result.exit_code == 0, result.stderr


# --- Canvas: the ids a row carries ------------------------------------------------------------

INTEGRATION_HEAD = "Student,ID,SIS User ID,SIS Login ID,Integration ID,Section"


@pytest.mark.parametrize("name", ['"Bob, B"', "Points Possible"])
def test_a_canvas_student_with_only_an_integration_id_gets_no_row(cli: Any, tmp_path: Path, name: str) -> None:
    """Matched by the Integration ID bob, the row carried no ID, SIS User ID or SIS Login ID (the gradebook
    has no Integration ID column): Canvas would add it as a new student. Named Points Possible, the row was
    wholly empty."""
    files = _class(tmp_path, ("bob.toml", "bob"))
    roster = _roster(tmp_path, f"{INTEGRATION_HEAD}\r\n{name},,,,bob,A\r\n")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    assert canvas_import(table)[2] == []
    lines = _lines(result.stderr, "bob.toml")
    assert len(lines) == 1 and "has no ID, SIS User ID or SIS Login ID" in lines[0] and "no row" in lines[0]
    assert result.exit_code == 2


def test_a_canvas_header_with_only_an_integration_id_is_refused(cli: Any, tmp_path: Path) -> None:
    files = _class(tmp_path, ("bob.toml", "bob"))
    roster = _roster(tmp_path, "Student,Integration ID,Section\r\nBob,bob,A\r\n")
    out = tmp_path / "book.csv"
    result = cli("check", "--problems", str(PROBLEMS), *files, "--format", "csv", "--gradebook", "canvas",
                 "--roster", roster, "-o", str(out))  # fmt: skip
    assert not out.exists()
    err = one_line_refusal(result, roster, "--roster")
    assert "not a Canvas gradebook export: its header has no Student and ID, SIS User ID or SIS Login ID" in err


# --- rows with an empty name ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "row", "written"),
    [
        (CANVAS_HEAD, ",1,S1,bob,A", ("", "1", "S1", "bob")),  # no Student
        ("LastName,FirstName,ID,SIS User ID,SIS Login ID,Section", ",Bob,1,S1,bob,A", ("Bob", "1", "S1", "bob")),
    ],
)
def test_a_canvas_row_with_ids_and_an_empty_name_is_a_student(
    cli: Any, tmp_path: Path, head: str, row: str, written: tuple[str, ...]
) -> None:
    """The row was skipped as if it were Canvas's Manual Posting row (which has no id): bob matched no
    student, with nothing said of the roster."""
    files = _class(tmp_path, ("bob.toml", "bob"))
    roster = _roster(tmp_path, f"{head}\r\n{row}\r\n")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    students = canvas_import(table)[2]
    assert [(s["name"], s["id"], s["sis_user_id"], s["sis_login_id"]) for s in students] == [written]
    assert "skip the row" not in result.stderr and result.exit_code == 0, result.stderr  # (no name: nothing to say)


def test_canvas_rows_without_an_id_are_not_students(cli: Any, tmp_path: Path) -> None:
    """The Manual Posting row (no name, no id) and the Points Possible row are skipped."""
    files = _class(tmp_path, ("bob.toml", "bob"))
    text = f"{CANVAS_HEAD},HW\r\n,,,,,Manual Posting\r\n    Points Possible,,,,,10\r\nBob,1,S1,bob,A,\r\n"
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", _roster(tmp_path, text))
    assert [(s["name"], s["id"]) for s in canvas_import(table)[2]] == [("Bob", "1")]
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize(
    ("layout", "export", "names"),
    [
        (
            "canvas",
            f"{CANVAS_HEAD}\r\n,5,S1,a,\r\n,6,S2,b,\r\n",
            "(the student with the SIS User ID S1, the student with the SIS User ID S2)",
        ),
        ("moodle", f"{MOODLE_HEAD}\r\nBob,B,S1,a\r\n,,S2,b\r\n", "(Bob B, the student with the ID number S2)"),
    ],
)
def test_a_file_matching_two_students_without_names_names_them_by_an_id(
    cli: Any, tmp_path: Path, layout: str, export: str, names: str
) -> None:
    """a.toml of `student = "b"` matches two students (by file name and by student): with their name cells
    empty the line said "matches 2 students of the roster (, )"."""
    files = _class(tmp_path, ("a.toml", "b"))
    result, _ = _book(cli, tmp_path, *files, "--gradebook", layout, "--roster", _roster(tmp_path, export))
    lines = _lines(result.stderr, "a.toml")
    assert len(lines) == 1 and f"matches 2 students of the roster {names}; no row for it" in lines[0]
    assert result.exit_code == 2


def test_many_roster_names_canvas_skips_are_counted_past_the_first_few(cli: Any, tmp_path: Path) -> None:
    """Ten students named "Points Possible 0" to "9" (each one a file names) wrote ten notes, each saying
    "Canvas finds the student by ID" (one had none): three, then one counting the others."""
    rows = "".join(f"Points Possible {k},{'' if k == 0 else 100 + k},S{k},l{k},\r\n" for k in range(10))
    files = _class(tmp_path, *((f"f{k}.toml", f"l{k}") for k in range(10)))
    result, table = _book(
        cli, tmp_path, *files, "--gradebook", "canvas", "--roster", _roster(tmp_path, f"{CANVAS_HEAD}\r\n{rows}")
    )
    notes = _lines(result.stderr, "note:")
    assert len(notes) == 4 and all("by their ID or SIS ids" in n for n in notes[:3])
    assert notes[3].endswith("7 more of the roster's students have such names: their Student cells are left empty too")
    assert [s["name"] for s in canvas_import(table)[2]] == [""] * 10 and result.exit_code == 0
