"""`check --gradebook canvas|moodle --roster FILE`: the roster's ids as the gradebook writes them. A
Moodle row must name its user in the one column the import maps (an empty cell stops the import); an
id holding a control or format character is never written raw; the notes name the roster's ids as the
roster writes them and say what is done; the matching is one look-up per answers file. Each roster is
written by hand in the layout of tests/exports/test_gradebook_roster.py's exports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS
from .test_gradebook_lms import RIGHT, _answers, _book, canvas_find, canvas_import, moodle_import

CANVAS_HEAD = "Student,ID,SIS User ID,SIS Login ID,Section"
MOODLE_HEAD = "First name,Last name,ID number,Email address"


def _class(tmp_path: Path, *names: str | tuple[str, str]) -> list[str]:
    """Answers files, each a file name or (file name, student =)."""
    folder = tmp_path / "subs"
    folder.mkdir(exist_ok=True)
    out = []
    for n in names:
        name, student = (n, None) if isinstance(n, str) else n
        out.append(_answers(folder, name, RIGHT, student))
    return out


def _roster(tmp_path: Path, text: str) -> str:
    path = tmp_path / "r.csv"
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def _lines(stderr: str, word: str) -> list[str]:
    return [line for line in stderr.splitlines() if word in line and not line.startswith("attncalc: wrote ")]


# --- Moodle's identifying column -------------------------------------------------------------


def test_moodle_rows_go_by_the_column_every_student_has(cli: Any, tmp_path: Path) -> None:
    """ID number is A's alone, Email address A's and B's, Username every student's: the rows go by Username
    (an Email address column wrote C's row with an empty cell, which stops Moodle's import)."""
    roster = _roster(
        tmp_path,
        f"{MOODLE_HEAD},Username\r\nA,X,S1,a@x.edu,ua\r\nB,Y,,b@x.edu,ub\r\nC,Z,,,uc\r\n",
    )
    files = _class(tmp_path, "ua.toml", "ub.toml", "uc.toml")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    field, rows = moodle_import(table)  # every row's user found (none empty)
    assert field == "username" and [r["Username"] for r in rows] == ["ua", "ub", "uc"]
    assert result.exit_code == 0, result.stderr


def test_a_moodle_student_without_the_rows_column_gets_no_row(cli: Any, tmp_path: Path) -> None:
    """No column is every student's (B has no ID number, C no email): the rows go by ID number, which
    most have, and B's file gets no row and one line saying why; the run exits 2, as for a file the
    roster does not place."""
    roster = _roster(tmp_path, f"{MOODLE_HEAD}\r\nA,X,S1,a@x.edu\r\nB,Y,,b@x.edu\r\nC,Z,S3,\r\n")
    files = _class(tmp_path, "S1.toml", ("hw.toml", "b@x.edu"), "S3.toml")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    field, rows = moodle_import(table)
    assert field == "useridnumber" and [r["ID number"] for r in rows] == ["S1", "S3"]
    lines = _lines(result.stderr, "hw.toml")
    assert len(lines) == 1 and "has no ID number" in lines[0] and "no row" in lines[0]
    assert result.exit_code == 2


# --- ids holding control or format characters ------------------------------------------------


def test_a_canvas_sis_id_with_a_bidi_override_is_left_out(cli: Any, tmp_path: Path) -> None:
    """A SIS User ID "S\\u202e1" was written raw: the row goes by Canvas's ID, the SIS User ID cell is left
    empty, and a note names the roster file and its line."""
    roster = _roster(tmp_path, f"{CANVAS_HEAD}\r\nC,4801,S\u202e1,anna,\r\n")
    files = _class(tmp_path, "anna.toml")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    _, _, students = canvas_import(table)
    assert [(s["id"], s["sis_user_id"], s["sis_login_id"]) for s in students] == [("4801", "", "anna")]
    notes = _lines(result.stderr, "SIS User ID")
    assert len(notes) == 1 and "r.csv" in notes[0] and "line 2" in notes[0] and "S\\u202e1" in notes[0]
    assert "\u202e" not in result.stderr


def test_a_canvas_login_with_a_line_break_is_left_out(cli: Any, tmp_path: Path) -> None:
    """A SIS Login ID holding CR LF (then a formula) was written raw into the gradebook."""
    roster = _roster(tmp_path, f'{CANVAS_HEAD}\r\nC,4801,S1,"lo\r\n=1+1",\r\n')
    files = _class(tmp_path, "S1.toml")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    _, _, students = canvas_import(table)
    assert [(s["id"], s["sis_user_id"], s["sis_login_id"]) for s in students] == [("4801", "S1", "")]
    notes = _lines(result.stderr, "SIS Login ID")
    assert len(notes) == 1 and "line 2:" in notes[0] and "lo\\x0d\\x0a=1+1" in notes[0]


@pytest.mark.parametrize("bad", ["S\u202e2", "S2\n"])
def test_a_moodle_id_number_with_a_control_character_is_left_out(cli: Any, tmp_path: Path, bad: str) -> None:
    """The ID number left out, B is written by email, as every other student (one column for all rows)."""
    roster = _roster(tmp_path, f'{MOODLE_HEAD}\r\nA,X,S1,a@x.edu\r\nB,Y,"{bad}",b@x.edu\r\n')
    files = _class(tmp_path, "S1.toml", ("hw.toml", "b@x.edu"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    field, rows = moodle_import(table)
    assert field == "useremail" and [r["Email address"] for r in rows] == ["a@x.edu", "b@x.edu"]
    assert len(_lines(result.stderr, "line 3: the ID number")) == 1


def test_the_formula_line_shows_the_cell_as_written(cli: Any, tmp_path: Path) -> None:
    """An ID number "S1;=2" is written S1;'=2 (the apostrophe where a spreadsheet splitting at ";" would
    start a formula), which Moodle's import does not find (it stops there): no row, the line saying how it
    would be written. (No Email address: the rows go by ID number.)"""
    roster = _roster(tmp_path, f"{MOODLE_HEAD}\r\nA,X,S1;=2,\r\nB,Y,S2,\r\n")
    files = _class(tmp_path, ("a.toml", "S1;=2"), ("b.toml", "S2"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    assert [row[0] for row in table[1:]] == ["S2"]
    lines = _lines(result.stderr, "formula")
    assert len(lines) == 1 and "a.toml" in lines[0] and "written S1;'=2 " in lines[0] and result.exit_code == 2


@pytest.mark.parametrize(
    ("row", "student", "written"),
    [
        # Canvas finds a row by ID first (process_student): a SIS id written with an apostrophe is harmless
        ("C,4801,=S1,=anna,", "=S1", ["4801", "'=S1", "'=anna"]),
        ("C,,=S1,anna,", "anna", ["", "'=S1", "anna"]),  # found by the login
        ("C,=4801,=S1,@anna,", "=S1", None),  # nothing Canvas can find: no row
    ],
)
def test_a_canvas_row_is_left_out_only_when_no_id_canvas_reads_is_written_as_it_is(
    cli: Any, tmp_path: Path, row: str, student: str, written: list[str] | None
) -> None:
    """Every roster id beginning as a formula was said, one line each (50 students, 51 lines), "the LMS's
    import will not match: enter that grade by hand", though Canvas finds these rows by their ID; and a
    row whose every id would be written with an apostrophe was written, for Canvas to add as a new student."""
    roster = _roster(tmp_path, f"{CANVAS_HEAD}\r\n{row}\r\n")
    files = _class(tmp_path, ("c.toml", student))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    _, _, students = canvas_import(table)
    if written is not None:
        assert [[s["id"], s["sis_user_id"], s["sis_login_id"]] for s in students] == [written]
        assert "formula" not in result.stderr and result.exit_code == 0, result.stderr
    else:
        lines = _lines(result.stderr, "c.toml")
        assert students == [] and result.exit_code == 2 and len(lines) == 1
        assert "(=S1, @anna) begins as a spreadsheet formula does" in lines[0]  # (=4801: no user number, left out)
        assert "enter this grade by hand; no row for it" in lines[0]


# --- the notes' wording ----------------------------------------------------------------------


def test_a_shared_id_is_named_as_the_roster_writes_it_with_how_many_share_it(cli: Any, tmp_path: Path) -> None:
    roster = _roster(tmp_path, f"{MOODLE_HEAD}\r\nA,X,S100,a@x.edu\r\nB,Y,S100,b@x.edu\r\nC,Z,s100,c@x.edu\r\n")
    files = _class(tmp_path, ("hw.toml", "b@x.edu"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    assert [r[0] for r in table[1:]] == ["b@x.edu"]
    notes = _lines(result.stderr, "100")
    assert len(notes) == 1 and "the ID number S100 is 3 students' of the roster" in notes[0]
    assert "identifies none of them" in notes[0] and "by their other ids" in notes[0]


def test_a_shared_id_of_students_without_another_id_says_they_get_no_row(cli: Any, tmp_path: Path) -> None:
    roster = _roster(tmp_path, "First name,Last name,ID number\r\nA,X,S1\r\nB,Y,S1\r\nC,Z,S2\r\n")
    files = _class(tmp_path, "S1.toml", "S2.toml")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    assert [r[0] for r in table[1:]] == ["S2"]
    notes = _lines(result.stderr, "students' of the roster")
    assert len(notes) == 1 and "identifies neither" in notes[0] and "no other id" in notes[0]
    assert "by another id" not in result.stderr and len(_lines(result.stderr, "S1.toml")) == 1
    assert result.exit_code == 2


def test_a_row_the_export_repeats_is_one_student(cli: Any, tmp_path: Path) -> None:
    """A row listed twice made every id shared, so the student matched nobody, with a note saying they
    were "matched and written by another id"."""
    row = '"Müller, Anna",4711,S100,amueller,A\r\n'
    roster = _roster(tmp_path, f"{CANVAS_HEAD}\r\n{row}{row}")
    files = _class(tmp_path, "amueller.toml")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    _, _, students = canvas_import(table)
    assert [(s["id"], s["sis_user_id"], s["sis_login_id"]) for s in students] == [("4711", "S100", "amueller")]
    notes = _lines(result.stderr, "repeats")
    assert len(notes) == 1 and "line 3 repeats line 2" in notes[0] and "r.csv" in notes[0]
    assert "another id" not in result.stderr and result.exit_code == 0


def test_moodle_rows_alike_are_two_accounts_that_no_id_identifies(cli: Any, tmp_path: Path) -> None:
    """Moodle's export lists each user once, so two rows alike (no ID number, no Username exported) are two
    accounts sharing an email; read as one student, the grade went by that email, which Moodle's import
    looks up site-wide and gives to either account (get_record: the first of several)."""
    roster = _roster(tmp_path, f"{MOODLE_HEAD}\r\nJohn,Smith,,j@x.edu\r\nJohn,Smith,,j@x.edu\r\nAnn,Lee,S2,a@x.edu\r\n")
    files = _class(tmp_path, ("j.toml", "j@x.edu"), ("a.toml", "a@x.edu"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    field, rows = moodle_import(table)
    assert field == "useridnumber" and [r["ID number"] for r in rows] == ["S2"]  # (Ann alone: by ID number)
    notes = _lines(result.stderr, "students' of the roster")
    assert (
        len(notes) == 1 and "the Email address j@x.edu is 2 students' of the roster: it identifies neither" in notes[0]
    )
    assert "they have no other id" in notes[0] and "repeat" not in result.stderr
    assert len(_lines(result.stderr, "j.toml: matches no student")) == 1 and result.exit_code == 2


@pytest.mark.parametrize(
    ("copies", "repeats"),
    [
        (1, "line 4 repeats line 2"),  # Bob B on lines 2 and 4, Müller on line 3
        (2, "lines 3 and 5 repeat line 2"),  # Bob B on lines 2, 3 and 5
        (3, "lines 3, 4 and 6 repeat line 2"),
        (6, "lines 3, 4, 5 and 3 more repeat line 2"),  # Bob B on lines 2 to 7 and 9
    ],
)
def test_a_row_repeated_many_times_gets_one_note(tmp_path: Path, capsys: Any, copies: int, repeats: str) -> None:
    """765,000 copies of one row wrote one note each: now one note a repeated row, with the first three
    of its copies' lines and how many more. The header is line 1; Bob B's row is written ``copies``
    times, then Müller's, then Bob B's once more."""
    from attncalc.reports.roster import read_roster

    bob = "Bob B,4712,S101,bob,A\r\n"
    roster = _roster(tmp_path, f'{CANVAS_HEAD}\r\n{bob * copies}"Müller, Anna",4711,S100,amueller,A\r\n{bob}')
    students = read_roster(roster, "canvas", None, {"bob", "amueller"}).students
    assert [(s.name, s.line) for s in students] == [("Bob B", 2), ("Müller, Anna", copies + 2)]
    notes = [line for line in capsys.readouterr().err.splitlines() if "repeat" in line]
    assert notes == [f"attncalc: note: {roster}: {repeats} (the same name and ids): read once"]


@pytest.mark.parametrize(
    ("layout", "head", "by"),
    [
        ("canvas", CANVAS_HEAD, "(by SIS User ID, SIS Login ID, ID)"),
        ("moodle", f"{MOODLE_HEAD},Username", "(by ID number, Email address, Username)"),
    ],
)
def test_an_unmatched_file_names_the_rosters_columns(cli: Any, tmp_path: Path, layout: str, head: str, by: str) -> None:
    """A roster with no student (the export of an empty course) said "(by login, email or SIS id)"."""
    files = _class(tmp_path, "nobody.toml")
    result, _ = _book(cli, tmp_path, *files, "--gradebook", layout, "--roster", _roster(tmp_path, head + "\r\n"))
    lines = _lines(result.stderr, "nobody.toml")
    assert len(lines) == 1 and by in lines[0] and result.exit_code == 2


# --- matching: one look-up per file ----------------------------------------------------------


def test_matching_looks_each_file_up_instead_of_scanning_the_roster(monkeypatch: pytest.MonkeyPatch) -> None:
    """1,500 files against a 436,000-row roster ran for over ten minutes: every file compared with every
    student. Counted here by the normalisations done: each roster id once and each file's two names,
    not files x ids."""
    from attncalc.reports import roster as module

    calls = 0
    real = module.lms_name

    def counted(text: str) -> str:
        nonlocal calls
        calls += 1
        return real(text)

    students = [
        module.Student(f"N{k}", {"SIS User ID": f"S{k}", "SIS Login ID": f"l{k}", "ID": str(k)}) for k in range(2000)
    ]
    names = [("", f"subs/l{k * 7}.toml") for k in range(200)] + [(f"S{k * 3}", "subs/x.toml") for k in range(200)]
    monkeypatch.setattr(module, "lms_name", counted)
    found, missing = module.match(names, students)
    assert not missing and [found[i].name for i in range(4)] == ["N0", "N7", "N14", "N21"]
    assert found[200].name == "N0" and found[399].name == "N597"
    assert calls <= 3 * len(students) + 2 * len(names)


def test_only_the_students_that_matter_are_kept_from_a_large_export(tmp_path: Path) -> None:
    """A 20 MB export was held whole (every row and cell, then every student): now only the students some
    answers file names are kept (Other, who shares N7's login, decides that the login identifies neither,
    and is no row)."""
    from attncalc.reports.roster import read_roster

    rows = [f"N{k},{k},S{k},l{k},A" for k in range(3000)]
    rows[2500] = "Other,2500,S2500,l7,A"  # shares the login l7 with N7
    path = _roster(tmp_path, CANVAS_HEAD + "\r\n" + "\r\n".join(rows) + "\r\n")
    roster = read_roster(path, "canvas", None, {"s7", "l1200"})
    assert [(s.name, s.line) for s in roster.students] == [("N7", 9), ("N1200", 1202)]
    assert roster.students[0].ids == {"SIS User ID": "S7", "ID": "7"}  # the login l7 is two students', left out
    assert roster.columns == ["SIS User ID", "SIS Login ID", "ID"]


def _work(tmp_path: Path, layout: str, head: str, rows: list[str], wanted: set[str]) -> tuple[int, int]:
    """The lines of attncalc/reports/roster*.py run to read ``rows`` (interpreted work, counted by a line
    tracer, not timed), and the lines written on standard error."""
    import io
    import sys

    from attncalc.reports import roster as module

    path = _roster(tmp_path, head + "\r\n" + "\r\n".join(rows) + "\r\n")
    count = 0

    def trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if not Path(frame.f_code.co_filename).name.startswith("roster"):  # (roster.py, roster_rows.py, ...)
            return None
        count += event == "line"
        return trace

    previous, stderr = sys.gettrace(), sys.stderr
    sys.stderr = io.StringIO()
    sys.settrace(trace)
    try:
        module.read_roster(path, layout, None, wanted)
    finally:
        sys.settrace(previous)
        said, sys.stderr = sys.stderr.getvalue(), stderr
    return count, len(said.splitlines())


@pytest.mark.parametrize(
    ("layout", "head", "row", "wanted"),
    [
        ("canvas", CANVAS_HEAD, '"Bob, B{k}",{k},S{k},bob,A', {"bob"}),  # all share the login bob
        ("canvas", CANVAS_HEAD, '"Bob, B",4712,S101,bob,A', {"bob"}),  # one row, repeated
        ("moodle", MOODLE_HEAD, "A,B{k},N/A,e{k}@x.edu", {"e7@x.edu", "e1200@x.edu"}),  # all share N/A
    ],
)
def test_reading_rows_that_share_an_id_is_linear_work(
    tmp_path: Path, layout: str, head: str, row: str, wanted: set[str]
) -> None:
    """20,000 Canvas rows sharing a login took 29 seconds and 40,000 took 113 (every row compared with
    every earlier one of its group); 765,000 copies of one row wrote 570,000 notes. Twice the rows is now
    twice the work (the lines run, counted), and the notes stay one per id and per repeated row."""
    small = _work(tmp_path, layout, head, [row.format(k=k) for k in range(1500)], wanted)
    large = _work(tmp_path, layout, head, [row.format(k=k) for k in range(3000)], wanted)
    assert large[0] <= 2.1 * small[0]
    assert small[1] == large[1] <= 2


def _ruby_to_i(text: str) -> int:
    """Ruby's String#to_i, as Canvas's importer reads an ID (leading spaces, a sign, the leading digits)."""
    import re

    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


@pytest.mark.parametrize("anna", ["7x", "+7", "007", "7.0", "7e0", "7 x", " 7 x", "0", "9" * 26])
def test_a_canvas_id_canvas_reads_as_another_number_is_left_out(cli: Any, tmp_path: Path, anna: str) -> None:
    """Anna's ID 7x was written as it is: Canvas's import reads IDs with to_i, 7, and put Anna's grade on
    Bob's row. Her ID is left out (a note), and her row goes by her SIS ids, which find her."""
    roster = _roster(tmp_path, f'{CANVAS_HEAD}\r\nAnna,"{anna}",S1,a,\r\nBob,7,S2,b,\r\n')
    files = _class(tmp_path, ("a.toml", "a"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    _, _, rows = canvas_import(table)
    users = {7: "Bob"}  # Canvas's own numbers: Anna's is not 7 (her export cell was altered)
    assert len(rows) == 1 and rows[0]["sis_user_id"] == "S1" and rows[0]["sis_login_id"] == "a"
    assert not rows[0]["id"] or users.get(_ruby_to_i(rows[0]["id"])) != "Bob"
    notes = _lines(result.stderr, "no Canvas user number")
    assert len(notes) == 1 and "line 2: the ID" in notes[0] and result.exit_code == 0, result.stderr


def test_a_canvas_row_of_a_wordy_id_and_formula_sis_ids_gets_no_row(cli: Any, tmp_path: Path) -> None:
    """ID abc (to_i: 0, no user) and SIS ids written '=S1 and '@b, which Canvas does not find: its import
    fell back to the name and gave the grade to the other "Smith, Bob" (ID 8)."""
    roster = _roster(tmp_path, f'{CANVAS_HEAD}\r\n"Smith, Bob",abc,=S1,@b,\r\n"Smith, Bob",8,S2,b2,\r\n')
    files = _class(tmp_path, ("b.toml", "=S1"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    assert canvas_import(table)[2] == [] and result.exit_code == 2
    lines = _lines(result.stderr, "b.toml")
    assert len(lines) == 1 and "(=S1, @b) begins as a spreadsheet formula does" in lines[0]


def _canvas_converter(field: str) -> str:
    """gradebook_importer.rb's CSV converter decimal_comma_to_period, as Ruby runs it: a field matching
    /^-?[0-9.,]+%?$/ is split at [,.] (String#split drops trailing empty parts), the last part popped, and
    the others joined before it with a period."""
    import re

    if not re.fullmatch(r"-?[0-9.,]+%?", field):
        return field
    parts = re.split(r"[,.]", field)
    while parts and parts[-1] == "":
        parts.pop()
    last = parts.pop() if parts else ""
    return ".".join(["".join(parts), last]) if parts else last


@pytest.mark.parametrize(("anna", "bob"), [("5.", "5"), ("1.2.3", "12.3"), ('"1,5"', "1.5"), ('",5"', ".5")])
def test_a_canvas_sis_id_canvas_reads_as_another_is_left_out(cli: Any, tmp_path: Path, anna: str, bob: str) -> None:
    """Anna's SIS User ID 5. was written as it is: Canvas's import rewrites numbers' separators in every
    field (5. is read 5), found Bob by SIS User ID and put Anna's grade on his row. It is left out (a note);
    her row goes by her login, which finds her."""
    roster = _roster(tmp_path, f"{CANVAS_HEAD}\r\nAnna,7x,{anna},a,\r\nBob,8,{bob},b,\r\n")
    files = _class(tmp_path, ("a.toml", "a"), ("b.toml", "b"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    _, _, rows = canvas_import(table)
    users = [{"id": "8", "sis_user_id": bob, "login": "b", "name": "Bob"}]  # (Anna's own SIS id is not 5)
    read = [{k: _canvas_converter(v) for k, v in r.items()} for r in rows]
    assert [r["sis_login_id"] for r in read] == ["a", "b"]
    assert canvas_find(read[0], users) is None and canvas_find(read[1], users) == users[0]
    notes = _lines(result.stderr, "is read by Canvas's import as")
    assert len(notes) == 1 and f"as {bob} " in notes[0] and result.exit_code == 0, result.stderr


@pytest.mark.parametrize(
    ("column", "export", "names"),
    [
        ("ID number", "A,X, S1,a@x.edu\r\nB,Y,S2,\r\nC,Z,S3,", ("S1", "S2", "S3")),
        ("Email address", "A,X,, a@x.edu\r\nB,Y,,b@x.edu\r\nC,Z,,c@x.edu", ("a@x.edu", "b@x.edu", "c@x.edu")),
    ],
)
def test_a_moodle_id_with_spaces_at_its_ends_gets_no_row(
    cli: Any, tmp_path: Path, column: str, export: str, names: tuple[str, str, str]
) -> None:
    """Moodle's import trims a cell before it looks the user up (load_data.php: $value = trim($value)): a
    roster ID number " S1" was written as it is, looked up as S1, not found, and the whole import stopped.
    (The column is the one finding the most students: the other finds one.)"""
    roster = _roster(tmp_path, f"{MOODLE_HEAD}\r\n{export}\r\n")
    files = _class(tmp_path, *((f"f{k}.toml", n) for k, n in enumerate(names)))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    _, rows = moodle_import(table)
    assert [r[column] for r in rows] == list(names[1:])
    lines = _lines(result.stderr, "f0.toml")
    assert len(lines) == 1 and "has spaces at its ends" in lines[0] and result.exit_code == 2


@pytest.mark.parametrize(
    ("anna", "why"),
    [
        ("0", "is 0, which the import takes for an empty cell"),  # PHP's empty("0"): Zed's grade went to Anna
        ('"S1,\\"', "holds a backslash"),  # fgetcsv's escape: the row was misread
        ("S1\\", "holds a backslash"),  # (unquoted, but stored with fputcsv and read again: "S1\\" quoted)
    ],
)
def test_a_moodle_id_the_import_misreads_gets_no_row(cli: Any, tmp_path: Path, anna: str, why: str) -> None:
    """load_data.php looks a user up only if !empty($value) and keeps the row before's user otherwise, and
    reads the file with fgetcsv, whose escape character is a backslash: such an identifying cell put the
    row's grade on another student or stopped the import. (The others have no email: the rows go by ID
    number.)"""
    roster = _roster(tmp_path, f"{MOODLE_HEAD}\r\nBob,B,S2,\r\nAnna,A,{anna},a@x.edu\r\nCid,C,S3,\r\n")
    files = _class(tmp_path, ("b.toml", "S2"), ("a.toml", "a@x.edu"), ("c.toml", "S3"))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    field, rows = moodle_import(table)
    assert field == "useridnumber" and [r["ID number"] for r in rows] == ["S2", "S3"]
    lines = _lines(result.stderr, "a.toml")
    assert len(lines) == 1 and why in lines[0] and lines[0].endswith("no row for it") and result.exit_code == 2


@pytest.mark.parametrize(
    ("student", "why"),
    [("0", "is 0"), ("=cmd", "begins as a spreadsheet formula does")],
)
def test_a_moodle_student_the_import_misreads_gets_no_row_without_a_roster(
    cli: Any, tmp_path: Path, student: str, why: str
) -> None:
    """Without a roster the identifying cell is the file's student: a student naming themselves 0 put their
    grade on the row before's student (or, named =cmd, stopped the whole class's import)."""
    files = _class(tmp_path, ("a.toml", "a@x.edu"), ("z.toml", student))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle")
    _, rows = moodle_import(table)
    assert [r["Email address"] for r in rows] == ["a@x.edu"]
    lines = _lines(result.stderr, "z.toml")
    assert len(lines) == 1 and why in lines[0] and lines[0].endswith("no row for it") and result.exit_code == 2


def test_a_moodle_feedback_holds_no_backslash_fgetcsv_would_take_as_an_escape() -> None:
    """PHP's fgetcsv (Moodle's csv_import_reader) keeps a quote after a backslash from ending a quoted cell."""
    from attncalc.reports.cells import moodle_safe_text

    assert moodle_safe_text('not valid: "a\\", b') == 'not valid: "a\u2216", b'
    # (unquoted as written, but the import stores its rows with fputcsv and reads them again: "C:\\" is quoted then)
    assert moodle_safe_text("C:\\") == "C:\u2216"


@pytest.mark.parametrize(("written", "layout"), [("00123", "moodle"), ("00123", "canvas"), ("1_234", "moodle")])
def test_a_yaml_student_of_digits_is_the_id_as_written(cli: Any, tmp_path: Path, written: str, layout: str) -> None:
    """PyYAML reads `student: 00123` as the octal 83 (YAML 1.1) and `1_234` as 1234: Anna's grade went to
    Ben's row, whose id is 83. Such a number is kept as written."""
    from .test_gradebook_lms import DOT, RIGHT

    folder = tmp_path / "subs"
    folder.mkdir()
    body = "\n".join(f"{line.split(' = ')[0]}: {line.split(' = ')[1]}" for line in RIGHT.strip().splitlines())
    answers = folder / "anna.yaml"
    answers.write_text(f"problem: {DOT.name}\nstudent: {written}\n{body}\n", encoding="utf-8")
    ben = "83" if written == "00123" else "1234"
    if layout == "moodle":
        export = f"{MOODLE_HEAD}\r\nAnna,A,{written},a@x.edu\r\nBen,B,{ben},b@x.edu\r\n"
    else:
        export = f"{CANVAS_HEAD}\r\nAnna,5,{written},a,\r\nBen,{ben},S2,b,\r\n"
    result, table = _book(cli, tmp_path, str(answers), "--gradebook", layout, "--roster", _roster(tmp_path, export))
    if layout == "moodle":
        assert [r["ID number"] for r in moodle_import(table)[1]] == [written]
    else:
        assert [(s["id"], s["sis_user_id"]) for s in canvas_import(table)[2]] == [("5", written)]
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("student", ["1,5", "5.", "=cmd"])
def test_a_canvas_student_canvas_reads_as_another_gets_no_row_without_a_roster(
    cli: Any, tmp_path: Path, student: str
) -> None:
    """Without a roster a Canvas row goes by the student in its SIS columns: "1,5" is read 1.5 by Canvas's
    CSV converter (another student's SIS id, perhaps), and '=cmd, written with its apostrophe, no one's."""
    files = _class(tmp_path, ("a.toml", "anna"), ("z.toml", student))
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas")
    assert [s["sis_login_id"] for s in canvas_import(table)[2]] == ["anna"]
    lines = _lines(result.stderr, "z.toml")
    assert len(lines) == 1 and lines[0].endswith("no row for it") and result.exit_code == 2


def test_a_moodle_assignment_with_a_backslash_is_refused(cli: Any, tmp_path: Path) -> None:
    """PHP's fgetcsv took the backslash of --assignment 'a\\",b' as an escape: the header read 5 cells, the
    rows 3, and Moodle refused the file."""
    files = _class(tmp_path, ("a.toml", "anna"))
    out = tmp_path / "book.csv"
    result = cli("check", "--problems", str(PROBLEMS), *files, "--format", "csv", "--gradebook", "moodle",
                 "--assignment", 'a\\",b', "-o", str(out))  # fmt: skip
    assert result.exit_code == 2 and not out.exists() and "backslash" in result.stderr


@pytest.mark.parametrize(("suffix", "line"), [(".yaml", "student: +12"), (".yaml", "student: -0"), (".json", None)])
def test_a_signed_student_number_is_not_another_students_id(
    cli: Any, tmp_path: Path, suffix: str, line: str | None
) -> None:
    """YAML's `student: +12` was read 12 and `-0` (YAML or JSON) 0: the grade went to the students 12 and 0.
    Kept as written: with the roster, no one's (no row, a line); without, the row's SIS ids are +12 or -0 as
    written (numbers: no apostrophe; Canvas's converter leaves them as they are), no other student's."""
    from .test_gradebook_lms import DOT

    folder = tmp_path / "subs"
    folder.mkdir()
    answers = folder / f"x{suffix}"
    if suffix == ".json":
        answers.write_text(
            f'{{"problem": "{DOT.name}", "student": -0, "weights": [0.155, 0.422, 0.422]}}', encoding="utf-8"
        )
    else:
        answers.write_text(f"problem: {DOT.name}\n{line}\nweights: [0.155, 0.422, 0.422]\n", encoding="utf-8")
    roster = _roster(tmp_path, f"{CANVAS_HEAD}\r\nTwelve,12,12,twelve,\r\nZero,100,0,zero,\r\n")
    result, table = _book(cli, tmp_path, str(answers), "--gradebook", "canvas", "--roster", roster)
    assert canvas_import(table)[2] == [] and result.exit_code == 2
    result, table = _book(cli, tmp_path, str(answers), "--gradebook", "canvas")
    written = "+12" if line == "student: +12" else "-0"
    assert [(s["sis_user_id"], s["sis_login_id"]) for s in canvas_import(table)[2]] == [(written, written)]
