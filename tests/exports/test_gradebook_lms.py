"""The gradebook as the LMSs import it: `check --format csv --gradebook canvas|moodle|plain`.

Each CSV is read here as the importer reads it, its rules transcribed from its source:
- Canvas, app/models/gradebook_importer.rb: the header is the first row; `header?` wants row[0] to
  contain "Student", row[1] "ID", then "SIS User ID" and "SIS Login ID" (`update_column_count`), and the
  last student column to contain "Section"; every later column is an assignment, matched by
  "Title (id)" or by title; a row whose first cell is "Points Possible" gives the points; a student is
  found by ID, then SIS User ID, then SIS Login ID, then the name in Student.
- Moodle, lib/csvlib.class.php (`csv_import_reader::load_csv_content`: the BOM is trimmed, every row
  has as many fields as the header) and grade/import/csv (one column is mapped to a user field; a
  grade is a number, or '' or '-' for none; a user it cannot find stops the whole import; the mapping
  form preselects the identifier whose header is the user field's name, "Email address" or "ID
  number", and the grade item NAME for a header "NAME (Real)", its feedback for "NAME (Feedback)").
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS

DOT = PROBLEMS / "decoder-dot.toml"
# the decoder document's attention weights, rounded to 3 decimals by hand: softmax([1, 2, 2])
RIGHT = "weights = [0.155, 0.422, 0.422]\n"
WRONG = "weights = [0.155, 0.422, 0.5]\n"


def _answers(folder: Path, name: str, body: str, student: str | None = None) -> str:
    path = folder / name
    head = f'problem = "{DOT.name}"\n' + (f'student = "{student}"\n' if student is not None else "")
    path.write_text(head + body, encoding="utf-8")
    return str(path)


@pytest.fixture
def klass(tmp_path: Path) -> list[str]:
    """A class folder as `ls` sorts it: a broken file first, Müller (an email) right, a file naming no
    student with one entry wrong."""
    folder = tmp_path / "subs"
    folder.mkdir()
    broken = folder / "a-broken.toml"
    broken.write_text("weights = [0.1,\n", encoding="utf-8")  # not TOML
    return [
        str(broken),
        _answers(folder, "b-mueller.toml", RIGHT, "müller@uni.example"),
        _answers(folder, "c-nobody.toml", WRONG),
    ]


def _read(data: bytes) -> list[list[str]]:
    """The CSV as an importer reads it: UTF-8 after the byte order mark."""
    assert data.startswith(b"\xef\xbb\xbf"), "no byte order mark: Excel on Windows would garble Müller"
    return list(csv.reader(io.StringIO(data[3:].decode("utf-8"), newline="")))


def _book(cli: Any, tmp_path: Path, *args: str) -> tuple[Any, list[list[str]]]:
    out = tmp_path / "book.csv"
    result = cli("check", "--problems", str(PROBLEMS), *args, "--format", "csv", "-o", str(out), "--force")
    return result, _read(out.read_bytes())


def _json_scores(cli: Any, files: list[str]) -> dict[str, float]:
    data = json.loads(cli("check", "--problems", str(PROBLEMS), *files, "--format", "json").stdout)
    subs = data["submissions"] if "submissions" in data else [data]
    return {Path(s["answers"]).name: s["score"]["points"] for s in subs}


# --- Canvas -----------------------------------------------------------------------------------


def canvas_import(table: list[list[str]]) -> tuple[list[str], dict[str, str] | None, list[dict[str, str]]]:
    """GradebookImporter's reading of a CSV: (assignment titles, points possible, student rows)."""
    header = table[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1], "Canvas: invalid header row"
    student_columns = 3  # name, user id, section
    sis_user = sis_login = None
    if "SIS Login ID" in header[2]:
        sis_login, student_columns = 2, 4
    elif "SIS User ID" in header[2] and "SIS Login ID" in header[3]:
        sis_user, sis_login, student_columns = 2, 3, 5
    assert "Section" in header[student_columns - 1], "Canvas: the last student column must be Section"
    non_assignment = ("Current Score", "Current Points", "Current Grade", "Final Score", "Final Points", "Final Grade")
    assignments = [h for h in header[student_columns:] if not any(n in h for n in non_assignment)]
    possible = None
    students = []
    for row in table[1:]:
        if "Points Possible" in row[0]:
            possible = dict(zip(assignments, row[student_columns:], strict=True))
            continue
        if all(c.strip().lower() in ("", "muted") for c in row):
            continue
        students.append(
            {
                "name": row[0],
                "id": row[1],
                "sis_user_id": row[sis_user] if sis_user is not None else "",
                "sis_login_id": row[sis_login] if sis_login is not None else "",
                **dict(zip(assignments, row[student_columns:], strict=True)),
            }
        )
    return assignments, possible, students


def canvas_find(row: dict[str, str], roster: list[dict[str, str]]) -> dict[str, str] | None:
    """process_student: by Canvas ID, then SIS User ID, then SIS Login ID, then the name."""
    for key, field in (("id", "id"), ("sis_user_id", "sis_user_id"), ("sis_login_id", "login"), ("name", "name")):
        if row[key]:
            hit = next((u for u in roster if u[field] == row[key]), None)
            if hit:
                return hit
    return None


def test_canvas_imports_the_header_its_importer_reads(cli: Any, tmp_path: Path, klass: list[str]) -> None:
    result, table = _book(cli, tmp_path, *klass, "--gradebook", "canvas", "--assignment", "Homework 3 (1234)")
    assert result.exit_code == 2  # one file refused, named on stderr
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Homework 3 (1234)"]
    # Ruby's CSV.foreach (as Canvas calls it) keeps the BOM in the first cell: the header test asks
    # only that "Student" be in it
    raw = (tmp_path / "book.csv").read_bytes().decode("utf-8")
    assignments, possible, students = canvas_import(list(csv.reader(io.StringIO(raw, newline=""))))
    assert raw.startswith("\ufeffStudent,")
    assert assignments == ["Homework 3 (1234)"]
    assert len(students) == len(klass)  # one row per answers file, the broken one included
    assert [s["sis_login_id"] for s in students] == ["a-broken", "müller@uni.example", "c-nobody"]
    assert all(s["sis_user_id"] and s["name"] for s in students)  # never an empty identity
    scores = _json_scores(cli, klass[1:])
    assert students[0]["Homework 3 (1234)"] == ""  # not graded: Canvas leaves it ungraded
    assert float(students[1]["Homework 3 (1234)"]) == scores["b-mueller.toml"]
    assert float(students[2]["Homework 3 (1234)"]) == pytest.approx(scores["c-nobody.toml"], abs=0.005)
    out_of = json.loads(cli("check", "--problems", str(PROBLEMS), klass[1], "--format", "json").stdout)["score"][
        "out_of"
    ]
    assert possible is not None and float(possible["Homework 3 (1234)"]) == out_of
    roster = [
        {"id": "17", "sis_user_id": "s001", "login": "müller@uni.example", "name": "Anna Müller"},
        {"id": "18", "sis_user_id": "c-nobody", "login": "cn@uni.example", "name": "C. Nobody"},
    ]
    assert canvas_find(students[1], roster) == roster[0]  # found by its login (the email)
    assert canvas_find(students[2], roster) == roster[1]  # found by SIS User ID (the file's name)


def test_canvas_rows_are_the_files_even_when_points_differ(cli: Any, tmp_path: Path) -> None:
    """Two problems out of different points: no Points Possible row (it would be wrong for one of them)."""
    other = PROBLEMS / "answers" / "decoder-dot.toml"
    _, table = _book(cli, tmp_path, str(DOT), str(other), "--gradebook", "canvas")
    assert [r[0] for r in table[1:]].count("Points Possible") == 1  # one problem: one total
    assert (
        cli("generate", "--kind", "softmax", "--count", "1", "--seed", "3", "--out", str(tmp_path / "hw")).exit_code
        == 0
    )
    key = tmp_path / "hw" / "answers" / "variant-01.toml"  # names its own problem
    folders = ("--problems", str(PROBLEMS), "--problems", str(tmp_path / "hw"))  # each file's problem's folder
    scores = json.loads(cli("check", *folders, str(other), str(key), "--format", "json").stdout)["submissions"]
    assert scores[0]["score"]["out_of"] != scores[1]["score"]["out_of"]
    _, table = _book(cli, tmp_path, *folders, str(other), str(key), "--gradebook", "canvas")
    _, possible, students = canvas_import(table)
    assert len(students) == 2 and possible is None


# --- Moodle -----------------------------------------------------------------------------------

MOODLE_USER_FIELDS = {"Email address": "useremail", "ID number": "useridnumber", "Username": "username"}


def moodle_import(table: list[list[str]]) -> tuple[str, list[dict[str, str]]]:
    """csv_import_reader and grade/import/csv: (the preselected user field, the rows)."""
    header = table[0]
    assert all(len(row) == len(header) for row in table), "Moodle: csvweirdcolumns"
    mapfrom = [h for h in header if h in MOODLE_USER_FIELDS]
    assert len(mapfrom) == 1, "Moodle: one column must identify the user"
    rows = [dict(zip(header, row, strict=True)) for row in table[1:] if len(row) > 1]
    for row in rows:
        assert row[mapfrom[0]].strip(), "Moodle: user mapping error, could not find user"
        for h, value in row.items():
            if h.endswith(" (Real)") and value.strip() not in ("", "-"):
                float(value)  # is_numeric, else "badgrade" stops the import
    return MOODLE_USER_FIELDS[mapfrom[0]], rows


def test_moodle_maps_a_user_a_grade_and_feedback(cli: Any, tmp_path: Path, klass: list[str]) -> None:
    result, table = _book(cli, tmp_path, *klass, "--gradebook", "moodle", "--assignment", "Homework 3")
    assert result.exit_code == 2
    assert table[0] == ["ID number", "Homework 3 (Real)", "Homework 3 (Feedback)"]
    field, rows = moodle_import(table)
    assert field == "useridnumber" and len(rows) == len(klass)
    assert [r["ID number"] for r in rows] == ["a-broken", "müller@uni.example", "c-nobody"]
    assert rows[0]["Homework 3 (Real)"] == "-" and "not valid TOML" in rows[0]["Homework 3 (Feedback)"]
    scores = _json_scores(cli, klass[1:])
    assert float(rows[1]["Homework 3 (Real)"]) == scores["b-mueller.toml"]
    assert "1 correct, 0 carried, 0 wrong" in rows[1]["Homework 3 (Feedback)"]
    assert "first wrong step weights" in rows[2]["Homework 3 (Feedback)"]
    assert "Moodle maps the identifying column to one user field" in result.stderr  # emails and ids mixed


def test_moodle_names_an_email_column_when_every_student_is_an_email(cli: Any, tmp_path: Path) -> None:
    files = [_answers(tmp_path, f"{n}.toml", RIGHT, f"{n}@uni.example") for n in ("ann", "bo")]
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle")
    field, rows = moodle_import(table)
    assert field == "useremail" and [r["Email address"] for r in rows] == ["ann@uni.example", "bo@uni.example"]
    assert table[0][1:] == ["attncalc (Real)", "attncalc (Feedback)"]
    assert "name no student" not in result.stderr and "one user field" not in result.stderr


def test_unreadable_files_do_not_choose_moodles_identifying_column(cli: Any, tmp_path: Path) -> None:
    """Two garbage files sorted first (a student can drop them) made the column ``ID number`` for a class
    whose every graded student is an email: the graded files decide it."""
    for name in ("0bad.toml", "00bad.toml"):
        (tmp_path / name).write_text("weights = [0.1,\n", encoding="utf-8")  # not TOML
    files = [_answers(tmp_path, f"{n}.toml", RIGHT, f"{n}@uni.example") for n in ("ann", "bo")]
    bad = [str(tmp_path / "0bad.toml"), str(tmp_path / "00bad.toml")]
    _, table = _book(cli, tmp_path, *bad, *files, "--gradebook", "moodle")
    assert table[0][0] == "Email address"


def test_a_trailing_space_in_a_file_name_is_not_part_of_the_student(cli: Any, tmp_path: Path) -> None:
    """``subs/b9 .toml`` named the student "b9 " (Canvas's and Moodle's lookup of b9 missed it), where
    ``student = "b9 "`` is stripped."""
    path = tmp_path / "b9 .toml"
    path.write_text(f'problem = "{DOT.name}"\n' + RIGHT, encoding="utf-8")
    _, table = _book(cli, tmp_path, str(path), "--gradebook", "moodle")
    assert [r[0] for r in table[1:]] == ["b9"]


# --- plain, and every layout ---------------------------------------------------------------------


def test_plain_is_todays_columns_plus_student_and_error(cli: Any, tmp_path: Path, klass: list[str]) -> None:
    _, table = _book(cli, tmp_path, *klass)
    header = table[0]
    assert header[:4] == ["file", "problem", "score", "out_of"] and header[-2:] == ["student", "error"]
    rows = [dict(zip(header, r, strict=True)) for r in table[1:]]
    assert [Path(r["file"]).name for r in rows] == [Path(f).name for f in klass]
    assert [r["student"] for r in rows] == ["a-broken", "müller@uni.example", "c-nobody"]
    assert rows[0]["score"] == "" and "not valid TOML" in rows[0]["error"]
    assert rows[1]["weights"] == "correct" and rows[2]["weights"] == "wrong" and rows[1]["error"] == ""


@pytest.mark.parametrize("layout", ["plain", "canvas", "moodle"])
def test_a_malformed_file_that_sorts_first_does_not_empty_the_gradebook(
    cli: Any, tmp_path: Path, klass: list[str], layout: str
) -> None:
    """Reported: `check subs/*.toml -f csv` with a broken file first wrote nothing (exit 2)."""
    result = cli("check", "--problems", str(PROBLEMS), *klass, "--format", "csv", "--gradebook", layout)
    assert result.exit_code == 2
    table = _read(result.stdout.encode("utf-8"))
    body = [r for r in table[1:] if r[0] != "Points Possible"]
    assert len(body) == 3
    errors = [line for line in result.stderr.splitlines() if line.startswith("attncalc: error:")]
    assert len(errors) == 1 and "a-broken.toml" in errors[0]


def test_a_file_naming_no_problem_that_sorts_first_gets_its_row(cli: Any, tmp_path: Path) -> None:
    first = tmp_path / "a.toml"
    first.write_text(RIGHT, encoding="utf-8")  # answers, but no problem =
    files = [str(first), _answers(tmp_path, "b.toml", RIGHT, "s2")]
    result = cli("check", "--problems", str(PROBLEMS), *files, "--format", "csv")
    assert result.exit_code == 2
    table = _read(result.stdout.encode("utf-8"))
    assert len(table) == 3 and "names no problem" in table[1][-1] and table[2][-1] == ""


def test_one_broken_file_alone_still_gets_its_row(cli: Any, tmp_path: Path) -> None:
    bad = _answers(tmp_path, "x.toml", "weights = [1, 2]\n", "s9")  # the wrong shape: read, not graded
    result = cli("check", "--problems", str(PROBLEMS), str(DOT), bad, "--format", "csv", "--gradebook", "moodle")
    assert result.exit_code == 2 and "x.toml" in result.stderr
    field, rows = moodle_import(_read(result.stdout.encode("utf-8")))
    assert field == "useridnumber" and rows == [
        {"ID number": "s9", "attncalc (Real)": "-", "attncalc (Feedback)": rows[0]["attncalc (Feedback)"]}
    ]
    assert "weights" in rows[0]["attncalc (Feedback)"]  # the student it named is kept, and why it failed


def test_the_student_falls_back_to_the_file_name_and_says_so(cli: Any, tmp_path: Path) -> None:
    files = [_answers(tmp_path, "alice.toml", RIGHT), _answers(tmp_path, "bob.toml", RIGHT, "b0b")]
    result = cli("check", "--problems", str(PROBLEMS), *files, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(_read_text(result.stdout))))
    assert [r["student"] for r in rows] == ["alice", "b0b"]
    notes = [line for line in result.stderr.splitlines() if "name no student" in line]
    assert len(notes) == 1 and "alice.toml" in notes[0] and "bob.toml" not in notes[0]


def _read_text(stdout: str) -> str:
    assert stdout.startswith("\ufeff")
    return stdout[1:]


def test_muller_survives_as_utf8_with_a_bom(cli: Any, tmp_path: Path) -> None:
    """Excel on Windows reads a CSV as UTF-8 only when it begins with the BOM."""
    path = _answers(tmp_path, "m.toml", RIGHT, "Müller")
    out = tmp_path / "g.csv"
    cli("check", "--problems", str(PROBLEMS), path, "--format", "csv", "--gradebook", "canvas", "-o", str(out))
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfStudent,") and "Müller".encode() in data
    assert "Müller" not in data.decode("cp1252")  # read without the BOM's hint, it would be garbled


@pytest.mark.parametrize(
    ("value", "message"),
    [("42", None), ('""', "expected the student"), ("[1]", "expected the student"), ('"a\\u0007b"', "printable")],
)
def test_the_student_key(cli: Any, tmp_path: Path, value: str, message: str | None) -> None:
    path = tmp_path / "s.toml"
    path.write_text(f'problem = "{DOT.name}"\nstudent = {value}\n{RIGHT}', encoding="utf-8")
    result = cli("check", "--problems", str(PROBLEMS), str(path), "--format", "csv")
    if message is None:
        assert result.exit_code == 0 and next(csv.DictReader(io.StringIO(_read_text(result.stdout))))["student"] == "42"
    else:
        assert result.exit_code == 2 and f"{path}: student: " in result.stderr and message in result.stderr
        assert "Traceback" not in result.stderr


def test_the_student_key_is_not_a_step_for_text_and_json(cli: Any, tmp_path: Path) -> None:
    path = _answers(tmp_path, "s.toml", RIGHT, "s1")
    assert cli("check", "--problems", str(PROBLEMS), path).exit_code == 0
    assert (
        json.loads(cli("check", "--problems", str(PROBLEMS), path, "--format", "json").stdout)["summary"]["correct"]
        == 1
    )


def test_gradebook_wants_csv(cli: Any) -> None:
    result = cli("check", "--problems", str(PROBLEMS), str(DOT), "--gradebook", "canvas")
    assert result.exit_code == 2 and "--format csv" in result.stderr
    result = cli(
        "check", "--problems", str(PROBLEMS), str(DOT), "--format", "csv", "--assignment", "HW 3"
    )  # plain has no score column to title
    assert result.exit_code == 2 and "--gradebook canvas or moodle" in result.stderr


@pytest.mark.parametrize("layout", ["canvas", "moodle"])
@pytest.mark.parametrize("title", ["HW\n3", "HW 3\r", "HW\t3", "HW\u202e3", "\x1b[31mHW", "HW\u2028", "", "  "])
def test_an_assignment_with_a_control_character_is_refused(
    cli: Any, klass: list[str], tmp_path: Path, layout: str, title: str
) -> None:
    """--assignment titles the score column: a newline, a tab, an escape or U+202E in it (raw in the
    header, where it splits the row or reorders what the spreadsheet shows), or no title, is refused as
    a student = of such text is: one line naming --assignment, exit 2, no gradebook written."""
    out = tmp_path / "book.csv"
    args = ["--gradebook", layout, "--assignment", title, "-o", str(out)]
    result = cli("check", "--problems", str(PROBLEMS), *klass, "--format", "csv", *args)
    assert result.exit_code == 2 and not out.exists()
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("attncalc: error: --assignment ") and "Traceback" not in lines[0]
    assert lines[0].isprintable()


def test_an_assignment_title_of_printable_text_is_kept(cli: Any, klass: list[str], tmp_path: Path) -> None:
    _, table = _book(cli, tmp_path, *klass, "--gradebook", "moodle", "--assignment", "Hausaufgabe 3 – Müller’s")
    assert table[0][1:] == ["Hausaufgabe 3 – Müller’s (Real)", "Hausaufgabe 3 – Müller’s (Feedback)"]


@pytest.mark.parametrize(
    "title",
    ["Final Score", "Week 5 Final Grade", "HW Current Score", "Unposted Final Points", "Override Score",
     "Quiz Override Grade", "Override Status"],
)  # fmt: skip
def test_an_assignment_canvas_reads_as_its_total_is_refused(
    cli: Any, klass: list[str], tmp_path: Path, title: str
) -> None:
    """Canvas's importer pops trailing columns whose title matches /Current Score|Current Points|Current
    Grade|Final Score|Final Points|Final Grade/ (canvas-lms GradebookImporter#strip_non_assignment_columns):
    such a title would import no assignment, so it is refused in one line for Canvas, and kept for Moodle."""
    out = tmp_path / "book.csv"
    result = cli("check", "--problems", str(PROBLEMS), *klass, "--format", "csv", "--gradebook", "canvas",
                 "--assignment", title, "-o", str(out))  # fmt: skip
    assert result.exit_code == 2 and not out.exists() and "drops it on import" in result.stderr
    _, table = _book(cli, tmp_path, *klass, "--gradebook", "moodle", "--assignment", title)
    assert table[0][1] == f"{title} (Real)"


def test_an_assignment_title_longer_than_an_lms_keeps_is_refused(cli: Any, klass: list[str], tmp_path: Path) -> None:
    """Canvas's assignment titles and Moodle's grade item names hold at most 255 characters."""
    out = tmp_path / "book.csv"
    long = "H" * 256
    result = cli("check", "--problems", str(PROBLEMS), *klass, "--format", "csv", "--gradebook", "moodle",
                 "--assignment", long, "-o", str(out))  # fmt: skip
    assert result.exit_code == 2 and not out.exists() and "at most 255" in result.stderr
    _, table = _book(cli, tmp_path, *klass, "--gradebook", "moodle", "--assignment", "H" * 255)
    assert table[0][1] == "H" * 255 + " (Real)"


@pytest.mark.parametrize("title", ["ID", "Student", "SIS User ID", "SIS Login ID", "Section", "Integration ID", "id"])
def test_an_assignment_titled_as_a_canvas_student_column_is_refused(
    cli: Any, klass: list[str], tmp_path: Path, title: str
) -> None:
    """canvas-lms's importer finds an assignment's column with original_header_row.index(title): titled
    "ID", its scores would be read from the student ID column (GRADEBOOK_IMPORTER_RESERVED_NAMES)."""
    out = tmp_path / "book.csv"
    result = cli("check", "--problems", str(PROBLEMS), *klass, "--format", "csv", "--gradebook", "canvas",
                 "--assignment", title, "-o", str(out))  # fmt: skip
    assert result.exit_code == 2 and not out.exists() and "student columns" in result.stderr


@pytest.mark.parametrize(
    ("title", "refused"), [("1,5", True), ("3.", True), ("1.2.3", True), ("1.5", False), ("2024", False)]
)
def test_an_assignment_canvas_reads_as_another_number_is_refused(
    cli: Any, klass: list[str], tmp_path: Path, title: str, refused: bool
) -> None:
    """Canvas's importer runs its CSV converter decimal_comma_to_period on every cell, the header's too: a
    field of digits, ',' and '.' is split at them and joined with one period before the last part (Ruby's
    split drops trailing empty parts): "1,5" is read "1.5", "3." is "3", another assignment's title."""
    out = tmp_path / "book.csv"
    result = cli("check", "--problems", str(PROBLEMS), *klass, "--format", "csv", "--gradebook", "canvas",
                 "--assignment", title, "-o", str(out))  # fmt: skip
    if refused:
        assert result.exit_code == 2 and not out.exists() and "another assignment's title" in result.stderr
    else:
        assert out.exists() and next(csv.reader(io.StringIO(out.read_text(encoding="utf-8-sig"))))[-1] == title
    _, table = _book(cli, tmp_path, *klass, "--gradebook", "moodle", "--assignment", title)
    assert table[0][1] == f"{title} (Real)"
