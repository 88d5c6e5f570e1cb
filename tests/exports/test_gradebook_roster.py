"""`check --format csv --gradebook canvas|moodle --roster FILE`: the LMS's own gradebook export as the
class list. Students matched only if an answers file's name or `student =` was their SIS id or login
(Canvas) or idnumber/email (Moodle); Canvas added unmatched rows as new students and the first unknown
user stopped a Moodle import. Now each file is matched to its student by file name or `student =`
(login, email or SIS id), the roster's own ids fill the id columns, and a file that matches nobody
gets no row and one line on standard error.

The rosters are written here as the LMSs write their exports (read in their source):
Canvas's GradebookExporter (lib/gradebook_exporter.rb): `Student` (the sortable name), `ID`, `SIS User
ID`, `SIS Login ID`, `Section`, the assignments, the totals; a `Manual Posting` row where an assignment
is posted by hand, then `    Points Possible`; UTF-8 with a BOM. Moodle's grade/export/txt: `First
name`, `Last name`, the default profile fields (`ID number`, `Institution`, `Department`, `Email
address`), each grade item, `Last downloaded from this course`. The gradebook written is read as the
importers read it (tests/exports/test_gradebook_lms.py's readers, from Canvas's GradebookImporter and
Moodle's grade/import/csv).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS
from .test_gradebook_lms import RIGHT, WRONG, _answers, _book, canvas_import

CANVAS_EXPORT = (
    "\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Homework 3 (1234),Current Score,Unposted Current Score,"
    "Final Score,Unposted Final Score\r\n"
    ",,,,,Manual Posting,,,,\r\n"
    "    Points Possible,,,,,10.00,(read only),(read only),(read only),(read only)\r\n"
    '"Müller, Anna",4711,S100,amueller,Section A,,0.00,0.00,0.00,0.00\r\n'
    '"Okafor, Ben",4712,S101,bokafor@uni.example,Section A,N/A,0.00,0.00,0.00,0.00\r\n'
    '"Zhang, Li",4713,S102,lzhang,Section B,,0.00,0.00,0.00,0.00\r\n'
)

MOODLE_EXPORT = (
    "First name,Last name,ID number,Institution,Department,Email address,Assignment: Homework 3 (Real),"
    "Last downloaded from this course\r\n"
    "Anna,Müller,S100,Uni,CS,anna.mueller@uni.example,-,1764000000\r\n"
    "Ben,Okafor,S101,Uni,CS,bokafor@uni.example,-,1764000000\r\n"
    "Li,Zhang,S102,Uni,CS,lzhang@uni.example,-,1764000000\r\n"
)


def _klass(tmp_path: Path) -> list[str]:
    folder = tmp_path / "subs"
    folder.mkdir()
    return [
        _answers(folder, "amueller.toml", RIGHT),  # the Canvas login as the file name
        _answers(folder, "hw3-ben.toml", WRONG, "bokafor@uni.example"),  # student = the email
        _answers(folder, "S102.toml", RIGHT),  # the SIS id as the file name
        _answers(folder, "stranger.toml", RIGHT, "someone@else.example"),  # on no roster
    ]


def _roster(tmp_path: Path, text: str) -> str:
    path = tmp_path / "export.csv"
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def test_canvas_rows_carry_the_rosters_ids_and_no_new_student(cli: Any, tmp_path: Path) -> None:
    files = _klass(tmp_path)
    roster = _roster(tmp_path, CANVAS_EXPORT)
    result, table = _book(
        cli, tmp_path, *files, "--gradebook", "canvas", "--assignment", "Homework 3 (1234)", "--roster", roster
    )
    _, _, students = canvas_import(table)
    # every row is a student of the roster, found by Canvas's own ID first
    ids = {
        "4711": ("Müller, Anna", "S100", "amueller"),
        "4712": ("Okafor, Ben", "S101", "bokafor@uni.example"),
        "4713": ("Zhang, Li", "S102", "lzhang"),
    }
    assert [s["id"] for s in students] == ["4711", "4712", "4713"]
    for s in students:
        assert (s["name"], s["sis_user_id"], s["sis_login_id"]) == ids[s["id"]]
    scores = {s["id"]: s["Homework 3 (1234)"] for s in students}
    assert scores["4711"] == scores["4713"] and scores["4711"] != scores["4712"]  # right, wrong, right
    # the file matching nobody: one line on standard error, no row
    lines = [line for line in result.stderr.splitlines() if "stranger.toml" in line]
    assert len(lines) == 1 and "no student" in lines[0]
    assert all("stranger" not in c and "someone@else" not in c for row in table for c in row)
    # its grade is not in the gradebook: exit 2, as for a file that cannot be read (it exited 0)
    assert result.exit_code == 2


def test_a_class_the_roster_places_whole_exits_as_its_grades(cli: Any, tmp_path: Path) -> None:
    """Without the stranger, every file has its row: the exit code is the grades' (1: Ben has a step wrong)."""
    files = _klass(tmp_path)[:3]
    roster = _roster(tmp_path, CANVAS_EXPORT)
    result, _ = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    assert result.exit_code == 1, result.stderr


def test_moodle_rows_carry_the_rosters_id_number(cli: Any, tmp_path: Path) -> None:
    files = _klass(tmp_path)
    roster = _roster(tmp_path, MOODLE_EXPORT)
    result, table = _book(
        cli, tmp_path, *files, "--gradebook", "moodle", "--assignment", "Homework 3", "--roster", roster
    )
    assert table[0] == ["ID number", "Homework 3 (Real)", "Homework 3 (Feedback)"]
    # amueller is no Moodle id (Moodle exports no username by default): that file matches nobody there
    assert [row[0] for row in table[1:]] == ["S101", "S102"]
    lines = [line for line in result.stderr.splitlines() if "amueller.toml" in line]
    assert len(lines) == 1 and "no Username column" in lines[0]  # why a login matches nobody, and what to do
    assert sum("stranger.toml" in line for line in result.stderr.splitlines()) == 1


def test_a_roster_that_is_no_export_is_bad_input(cli: Any, tmp_path: Path) -> None:
    files = _klass(tmp_path)
    roster = _roster(tmp_path, "name,score\r\nAnna,3\r\n")
    out = tmp_path / "book.csv"
    result = cli("check", *files, "--format", "csv", "--gradebook", "canvas", "--roster", roster, "-o", str(out))
    assert result.exit_code == 2 and "export.csv" in result.stderr and "--roster" in result.stderr
    assert "Traceback" not in result.stderr and not out.exists()


def test_a_roster_needs_a_canvas_or_moodle_gradebook(cli: Any, tmp_path: Path) -> None:
    files = _klass(tmp_path)
    result = cli("check", *files, "--format", "csv", "--roster", _roster(tmp_path, CANVAS_EXPORT))
    assert result.exit_code == 2 and "--roster" in result.stderr


def _note(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "answers files are the student" in line]


def test_two_files_of_one_roster_student_are_said_in_canvas(cli: Any, tmp_path: Path) -> None:
    """amueller (Anna Müller's SIS Login ID) and S100 (her SIS User ID) are one student of the roster:
    each file keeps its row (as two files with one student = do), and one note names her and both."""
    folder = tmp_path / "subs"
    folder.mkdir()
    files = [_answers(folder, "amueller.toml", RIGHT), _answers(folder, "S100.toml", WRONG)]
    files.append(_answers(folder, "S102.toml", RIGHT))
    roster = _roster(tmp_path, CANVAS_EXPORT)
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    _, _, students = canvas_import(table)
    assert [s["id"] for s in students] == ["4711", "4711", "4713"]
    notes = _note(result.stderr)
    assert len(notes) == 1 and "2 answers files are the student Müller, Anna (" in notes[0]
    assert "amueller.toml" in notes[0] and "S100.toml" in notes[0] and "S102" not in notes[0]


def test_two_files_of_one_roster_student_are_said_in_moodle(cli: Any, tmp_path: Path) -> None:
    """Moodle: one file names Anna by her email in other case, the other is named by her ID number."""
    folder = tmp_path / "subs"
    folder.mkdir()
    files = [
        _answers(folder, "hw3.toml", RIGHT, "Anna.Mueller@UNI.example"),
        _answers(folder, "S100.toml", WRONG),
        _answers(folder, "S101.toml", RIGHT),
    ]
    roster = _roster(tmp_path, MOODLE_EXPORT)
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    assert [row[0] for row in table[1:]] == ["S100", "S100", "S101"]
    notes = _note(result.stderr)
    assert len(notes) == 1 and "2 answers files are the student Anna Müller (" in notes[0]
    assert "hw3.toml" in notes[0] and "S100.toml" in notes[0]


@pytest.mark.parametrize("layout", ["plain", "canvas", "moodle"])
def test_students_differing_only_in_case_are_one_student(cli: Any, tmp_path: Path, layout: str) -> None:
    """Without a roster: emails differing only in case (as an LMS looks them up) are one student."""
    folder = tmp_path / "subs"
    folder.mkdir()
    files = [
        _answers(folder, "a.toml", RIGHT, "Ben.Okafor@uni.example"),
        _answers(folder, "b.toml", WRONG, "ben.okafor@uni.example "),
        _answers(folder, "c.toml", RIGHT, "li@uni.example"),
    ]
    result, table = _book(cli, tmp_path, *files, "--gradebook", layout)
    assert len(table) == (5 if layout == "canvas" else 4)  # every file its row (canvas: Points Possible)
    notes = _note(result.stderr)
    assert len(notes) == 1 and "2 answers files are the student Ben.Okafor@uni.example (" in notes[0]
    assert "a.toml" in notes[0] and "b.toml" in notes[0] and "c.toml" not in notes[0]


def test_a_roster_name_with_a_control_character_is_escaped_in_canvas(cli: Any, tmp_path: Path) -> None:
    """A name in the LMS's export with U+202E or an escape (a student's own display name) is written
    escaped into the Student cell, never raw; Canvas still finds the row by its ID."""
    folder = tmp_path / "subs"
    folder.mkdir()
    files = [_answers(folder, "amueller.toml", RIGHT), _answers(folder, "S102.toml", RIGHT)]
    export = CANVAS_EXPORT.replace('"Müller, Anna"', '"Müller\u202e, Anna"').replace(
        '"Zhang, Li"', '"Zhang\x1b[2J, Li"'
    )
    _, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", _roster(tmp_path, export))
    _, _, students = canvas_import(table)
    assert [(s["id"], s["name"]) for s in students] == [("4711", "Müller\\u202e, Anna"), ("4713", "Zhang\\x1b[2J, Li")]
    assert not any("\u202e" in c or "\x1b" in c for row in table for c in row)


def _roster_run(tmp_path: Path, roster: str, shell: bool = False) -> Any:
    """The real command (a subprocess bounded in memory and time: a roster read without a limit grew
    to gigabytes, and a FIFO hung) grading the class against ``roster``; ``shell``: through bash, so
    that ``roster`` may be a process substitution."""
    import os
    import shlex
    import subprocess
    import sys

    from ..helpers import PROBLEMS, run_cli

    files = _klass(tmp_path)
    args = ["check", "--problems", str(PROBLEMS), *files, "--format", "csv", "--gradebook", "canvas", "--roster"]
    if not shell:
        return run_cli(*args, roster, timeout=60)
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "attncalc", *args]) + " " + roster
    return subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )


@pytest.mark.parametrize(
    ("what", "kind"),
    [
        ("/dev/zero", "is a character device, not a regular file"),
        ("/dev/urandom", "is a character device, not a regular file"),
        ("folder", "is a directory, not a regular file"),
        ("fifo", "is a FIFO (named pipe), not a regular file"),
    ],
)
def test_a_roster_that_is_no_regular_file_is_one_line(tmp_path: Path, what: str, kind: str) -> None:
    """As an answers or problem file: refused by what it is, exit 2, before anything is read from it
    (/dev/zero grew to gigabytes, and a FIFO without a writer hung)."""
    import os

    from ..helpers import one_line_refusal

    roster = what if what.startswith("/dev/") else str(tmp_path / what)
    if what == "folder":
        os.mkdir(roster)
    elif what == "fifo":
        os.mkfifo(roster)
    err = one_line_refusal(_roster_run(tmp_path, roster), roster, "--roster")
    assert kind in err


@pytest.mark.skipif(__import__("shutil").which("bash") is None, reason="bash makes the process substitution")
def test_a_roster_from_a_process_substitution_is_read(tmp_path: Path) -> None:
    """`--roster <(cat export.csv)`: the shell hands a pipe over as /dev/fd/N; it is read (to its end,
    within the size limit) as the file would be."""
    roster = _roster(tmp_path, CANVAS_EXPORT)
    (tmp_path / "one").mkdir()
    (tmp_path / "again").mkdir()
    piped = _roster_run(tmp_path / "one", f"<(cat {roster})", shell=True)
    named = _roster_run(tmp_path / "again", roster)
    assert piped.returncode == named.returncode == 2, piped.stderr  # (2: the stranger, on no roster, has no row)
    assert "amueller" in piped.stdout and "S102" in piped.stdout  # the roster's ids, in the rows it names
    assert piped.stdout.replace(str(tmp_path / "one"), "") == named.stdout.replace(str(tmp_path / "again"), "")


def test_a_roster_id_a_spreadsheet_would_run_gets_no_moodle_row(cli: Any, tmp_path: Path) -> None:
    """A roster's ID number "=1+1" is Moodle's own value, written with an apostrophe first (a formula cell
    is a CSV-injection risk in a spreadsheet): the row was written with a note, but Moodle's import finds
    no user '=1+1 and stops the whole import there (grade/import/csv load_data.php: check_user_exists,
    then "User not found, abort whole import"). Ben gets no row and a line saying why, exit 2. (Li has no
    Email address, Ben no usable ID number: each column finds one; the ID number, which both have, wins.)"""
    files = _klass(tmp_path)
    roster = _roster(tmp_path, MOODLE_EXPORT.replace("S101", "=1+1").replace("lzhang@uni.example", ""))
    result, table = _book(
        cli, tmp_path, *files, "--gradebook", "moodle", "--assignment", "Homework 3", "--roster", roster
    )
    assert [row[0] for row in table[1:]] == ["S102"]
    lines = [line for line in result.stderr.splitlines() if "=1+1" in line]
    assert len(lines) == 1 and "hw3-ben.toml" in lines[0] and "would stop the whole import" in lines[0]
    assert "written '=1+1 " in lines[0] and lines[0].endswith("no row for it") and result.exit_code == 2


def test_a_repeated_roster_is_refused(cli: Any, tmp_path: Path) -> None:
    files = _klass(tmp_path)
    roster = _roster(tmp_path, MOODLE_EXPORT)
    result = cli("check", "--problems", str(PROBLEMS), *files, "--format", "csv",
                 "--gradebook", "moodle", "--roster", roster, "--roster", roster)  # fmt: skip
    assert result.exit_code == 2 and "--roster" in result.stderr and "once" in result.stderr
    assert "Traceback" not in result.stderr and not result.stdout


def test_a_name_composed_or_decomposed_is_one_student(cli: Any, tmp_path: Path) -> None:
    """josé with U+00E9 and with e + U+0301 look the same and are one name to an LMS (NFC): one note."""
    folder = tmp_path / "subs"
    folder.mkdir()
    files = [_answers(folder, "a.toml", RIGHT, "jos\u00e9"), _answers(folder, "b.toml", WRONG, "jose\u0301")]
    result, _ = _book(cli, tmp_path, *files, "--gradebook", "plain")
    notes = _note(result.stderr)
    assert len(notes) == 1 and "a.toml" in notes[0] and "b.toml" in notes[0], result.stderr


@pytest.mark.parametrize("layout", ["canvas", "moodle"])
def test_a_student_typed_decomposed_is_written_composed(cli: Any, tmp_path: Path, layout: str) -> None:
    """student = "jose\\u0301", a file named "rene\\u0301.toml" and --assignment "Caf\\u0065\\u0301" were written
    to the LMS as typed (e + U+0301), while attncalc matched them composed: the LMS got an id that is not
    the NFC "josé" its own records hold. Every one is written composed (U+00E9)."""
    folder = tmp_path / "subs"
    folder.mkdir()
    files = [_answers(folder, "a.toml", RIGHT, "jose\u0301"), _answers(folder, "rene\u0301.toml", WRONG)]
    _, table = _book(cli, tmp_path, *files, "--gradebook", layout, "--assignment", "Cafe\u0301")
    text = "\n".join(",".join(row) for row in table)
    assert "\u0301" not in text
    assert "jos\u00e9" in text and "ren\u00e9" in text and "Caf\u00e9" in table[0][-1] + table[0][-2]


def test_a_roster_name_canvas_reads_as_points_possible_is_left_empty(cli: Any, tmp_path: Path) -> None:
    """A roster student named "Points Possible, Pat": Canvas's importer (check_for_non_student_row: the
    first cell includes "Points Possible") would take the row for its points row, drop the student and
    set the assignment's points to their score. The Student cell is left empty (the ID finds them), said."""
    files = _klass(tmp_path)[:3]
    roster = _roster(tmp_path, CANVAS_EXPORT.replace('"Zhang, Li"', '"Points Possible, Pat"'))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    rows = [r for r in table if r[1] == "4713"]
    assert len(rows) == 1 and rows[0][0] == ""
    assert sum("Points Possible" in row[0] for row in table) == 1  # the points row alone
    notes = [line for line in result.stderr.splitlines() if "Points Possible, Pat" in line]
    assert len(notes) == 1 and "left empty" in notes[0]


def test_an_id_number_two_roster_students_share_identifies_neither(cli: Any, tmp_path: Path) -> None:
    """Moodle does not make ID numbers unique: with A B and C D both "s1", a file of C D's (by email) was
    written under "s1", which Moodle gives to A B. The shared id identifies neither: the row goes by email."""
    folder = tmp_path / "subs"
    folder.mkdir()
    files = [_answers(folder, "c.toml", RIGHT, "c@x.edu")]
    roster = _roster(
        tmp_path,
        "First name,Last name,ID number,Email address\r\nA,B,s1,a@x.edu\r\nC,D,s1,c@x.edu\r\nE,F,s2,e@x.edu\r\n",
    )
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    assert table[0][0] == "Email address" and [r[0] for r in table[1:]] == ["c@x.edu"]
    notes = [line for line in result.stderr.splitlines() if "s1" in line]
    assert len(notes) == 1 and "identifies neither" in notes[0]


@pytest.mark.parametrize("sep", ["\t", ";", ":"])
def test_a_moodle_export_with_another_separator_is_read(cli: Any, tmp_path: Path, sep: str) -> None:
    """Moodle's plain-text export separates by comma, tab, semicolon or colon: the others were refused as
    "not a Moodle grade export"."""
    files = _klass(tmp_path)
    roster = _roster(tmp_path, MOODLE_EXPORT.replace(",", sep))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    assert [row[0] for row in table[1:]] == ["S101", "S102"], result.stderr


def test_a_roster_repeating_an_id_column_is_refused(cli: Any, tmp_path: Path) -> None:
    files = _klass(tmp_path)
    roster = _roster(tmp_path, CANVAS_EXPORT.replace("SIS Login ID,", "SIS User ID,", 1))
    result = cli("check", "--problems", str(PROBLEMS), *files, "-f", "csv", "--gradebook", "canvas", "--roster", roster)
    assert result.exit_code == 2 and "appears twice" in result.stderr and "Traceback" not in result.stderr


def test_a_student_named_points_possible_with_an_id_is_a_student(cli: Any, tmp_path: Path) -> None:
    """Only Canvas's own Points Possible row (no id) is skipped: a student so named, with an ID, was dropped
    and their file matched nobody."""
    files = _klass(tmp_path)[:3]
    roster = _roster(tmp_path, CANVAS_EXPORT.replace('"Zhang, Li"', "Points Possible"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    rows = [r for r in table if r[1] == "4713"]
    assert len(rows) == 1 and rows[0][0] == "" and "no student" not in result.stderr
