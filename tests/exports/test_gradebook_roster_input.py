"""`check --gradebook canvas|moodle --roster FILE`: how the export's text is read. Line ends as the
spreadsheets write them (Excel for Mac: a bare CR after each row), the separator the export uses (a
Moodle grade column is named "Module: item (Real)", so its header may hold more colons than commas),
cells longer than any LMS keeps, and the export piped in on standard input. Each roster here is
written by hand in the layout of tests/exports/test_gradebook_roster.py's exports.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS, one_line_refusal
from .test_gradebook_lms import RIGHT, _answers, _book, canvas_import, moodle_import

CANVAS_HEAD = "Student,ID,SIS User ID,SIS Login ID,Section"
MOODLE_HEAD = "First name,Last name,ID number,Email address"


def _files(tmp_path: Path, *names: str) -> list[str]:
    folder = tmp_path / "subs"
    folder.mkdir(exist_ok=True)
    return [_answers(folder, name, RIGHT) for name in names]


def _roster(tmp_path: Path, text: str) -> str:
    path = tmp_path / "r.csv"
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def _refused(cli: Any, tmp_path: Path, layout: str, text: str) -> str:
    files = _files(tmp_path, "anna.toml")
    roster = _roster(tmp_path, text)
    out = tmp_path / "book.csv"
    result = cli("check", "--problems", str(PROBLEMS), *files, "--format", "csv", "--gradebook", layout,
                 "--roster", roster, "-o", str(out))  # fmt: skip
    assert not out.exists()
    return one_line_refusal(result, roster, "--roster")


def test_a_canvas_export_with_bare_cr_line_ends_is_read(cli: Any, tmp_path: Path) -> None:
    """Excel for Mac ends each row with a CR alone: the reader stopped with a traceback."""
    files = _files(tmp_path, "anna.toml")
    roster = _roster(tmp_path, f"{CANVAS_HEAD}\rC,4801,S1,anna,\r")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    _, _, students = canvas_import(table)
    assert [(s["name"], s["id"], s["sis_user_id"], s["sis_login_id"]) for s in students] == [
        ("C", "4801", "S1", "anna")
    ]
    assert result.exit_code == 0, result.stderr


def test_a_moodle_export_with_bare_cr_line_ends_is_read(cli: Any, tmp_path: Path) -> None:
    files = _files(tmp_path, "S1.toml", "b@x.edu.toml")
    roster = _roster(tmp_path, f"{MOODLE_HEAD}\rA,X,S1,a@x.edu\rB,Y,S2,b@x.edu\r")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    assert moodle_import(table)[0] == "useridnumber"
    assert [row[0] for row in table[1:]] == ["S1", "S2"], result.stderr


def test_a_quoted_cell_with_a_line_break_is_one_cell(cli: Any, tmp_path: Path) -> None:
    """A line break inside quotes is part of the cell (here the section), with CR LF rows as with bare CRs."""
    for text in (f'{CANVAS_HEAD}\r\nC,4801,S1,anna,"A\rB"\r\n', f'{CANVAS_HEAD}\rC,4801,S1,anna,"A\rB"\r'):
        files = _files(tmp_path, "anna.toml")
        _, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", _roster(tmp_path, text))
        assert [row[1:4] for row in table[2:]] == [["4801", "S1", "anna"]]


def test_bare_cr_rows_with_a_line_feed_in_a_quoted_cell_are_read(cli: Any, tmp_path: Path) -> None:
    """Excel for Mac ends rows with a CR and writes a line break inside a cell as LF, in quotes."""
    text = f'{CANVAS_HEAD}\r"Müller, Anna",4711,S100,amueller,"A\nB"\r"Zhang, Li",4713,S102,lzhang,B\r'
    files = _files(tmp_path, "amueller.toml", "S102.toml")
    _, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", _roster(tmp_path, text))
    assert [row[:4] for row in table[2:]] == [
        ["Müller, Anna", "4711", "S100", "amueller"],
        ["Zhang, Li", "4713", "S102", "lzhang"],
    ]


@pytest.mark.parametrize("layout", ["canvas", "moodle"])
def test_a_stray_cr_inside_an_unquoted_cell_is_one_line(cli: Any, tmp_path: Path, layout: str) -> None:
    """A CR LF export with "An\\rna" in a name, unquoted: no export writes that, and a cell cut there would
    shift the row, so it is refused in one line naming the line."""
    head = CANVAS_HEAD if layout == "canvas" else MOODLE_HEAD
    row = "An\rna,4801,S1,anna," if layout == "canvas" else "An\rna,X,S1,anna@x.edu"
    err = _refused(cli, tmp_path, layout, f"{head}\r\n{row}\r\n")
    assert "line 2" in err and "line break" in err


@pytest.mark.parametrize("length", [300, 140_000])
def test_a_name_longer_than_an_lms_keeps_is_one_line(cli: Any, tmp_path: Path, length: int) -> None:
    """140,000 characters passed csv's own cell limit (131,072) and stopped with a traceback; an LMS keeps
    a name or an id in at most 255."""
    err = _refused(cli, tmp_path, "canvas", f"{CANVAS_HEAD}\r\n{'x' * length},4801,S1,anna,\r\n")
    assert "line 2" in err
    assert ("255" in err) if length == 300 else ("131,072" in err)


UNCLOSED = "a quote opened there is never closed (the rest of the file would be one cell)"


@pytest.mark.parametrize(
    ("rows", "line"),
    [
        # the name's quote never closed: Bob's and Carol's rows became part of Anna's name
        ('"Müller, Anna,4711,S100,amueller,A\nBob B,4712,S101,bob,A\nCarol C,4713,S102,carol,A\n', 2),
        ('"Müller, Anna,4711,S100,amueller,A', 2),  # no line end after it
        # a quoted section holding a line break (lines 2 and 3), then a quote opened on line 4
        ('"Müller, Anna",4711,S100,amueller,"A\nB"\n"Bob B,4712,S101,bob,A\r\nCarol C,4713,S102,carol,A\n', 4),
    ],
)
def test_a_quote_never_closed_is_one_line(cli: Any, tmp_path: Path, rows: str, line: int) -> None:
    """Python's csv reads the end of the file inside a quoted cell as the cell's end: the rest of the
    roster became one name, and the files matched no student, with nothing said of the roster."""
    err = _refused(cli, tmp_path, "canvas", f"{CANVAS_HEAD}\n{rows}")
    assert f"--roster: line {line}: {UNCLOSED}: not a CSV gradebook export as the LMS writes it" in err


@pytest.mark.parametrize("head", ['Student,ID,"SIS User ID,SIS Login ID,Section', 'Student,"ID,SIS User ID'])
def test_a_quote_never_closed_in_the_header_is_one_line(cli: Any, tmp_path: Path, head: str) -> None:
    """A header whose quote never closes: every row became one header cell (here after Student and ID, so
    the header still looked like Canvas's, or not), and no student was read."""
    err = _refused(cli, tmp_path, "canvas", f"{head}\r\nC,4801,S1,anna,\r\n")
    assert f"--roster: line 1: {UNCLOSED}" in err


STRAY = "text after the quote that closes a cell (a stray quote: an LMS writes a quote inside a cell as two)"


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        # Amy's quote closes on line 3, before S1: Amy and Bob were one student, whose ID cell was "bob"
        ('"Amy, A,2,S2,amy,A\nBob B,1,"S1,bob,A\nCarl,3,A,carl,B\n', f"line 3: {STRAY} in the row beginning on line 2"),
        ('"Bob "B"",1,S1,anna,A\n', f"line 2: {STRAY}"),  # read as the name 'Bob B""'
        ('Bob,1,S1,anna,A\n"Carl" C,3,S3,carl,B\n', f"line 3: {STRAY}"),
    ],
)
def test_text_after_a_closing_quote_is_one_line(cli: Any, tmp_path: Path, rows: str, said: str) -> None:
    """csv, not strict, read on after a cell's closing quote: two rows became one student, or a name kept
    its quotes, and the gradebook was written."""
    err = _refused(cli, tmp_path, "canvas", f"{CANVAS_HEAD}\n{rows}")
    assert f"--roster: {said}: not a CSV gradebook export as the LMS writes it" in err


def test_a_header_of_more_than_ten_thousand_columns_is_refused(cli: Any, tmp_path: Path) -> None:
    """A 19.8 MB header of 6.6 million columns took 1.06 GB: split into a list of cells for each separator
    tried. Its columns are now counted first: 5 named columns and 9,996 grade columns are 10,001."""
    err = _refused(cli, tmp_path, "canvas", f"{CANVAS_HEAD}{',x' * 9_996}\r\nC,4801,S1,anna,\r\n")
    assert "--roster: line 1: the header has 10,001 columns split at ',', more than the 10,000 read" in err


def test_a_header_of_ten_thousand_columns_is_read(cli: Any, tmp_path: Path) -> None:
    files = _files(tmp_path, "anna.toml")
    roster = _roster(tmp_path, f"{CANVAS_HEAD}{',x' * 9_995}\r\nC,4801,S1,anna,\r\n")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    assert [s["id"] for s in canvas_import(table)[2]] == ["4801"] and result.exit_code == 0, result.stderr


def test_a_header_cell_longer_than_csv_reads_is_said(cli: Any, tmp_path: Path) -> None:
    """A 140,000-character grade column name was refused as "not a Canvas gradebook export: its header has
    no Student ...", which it has."""
    err = _refused(cli, tmp_path, "canvas", f"{CANVAS_HEAD},{'x' * 140_000}\r\nC,4801,S1,anna,\r\n")
    assert "--roster: line 1: a cell longer than 131,072 characters" in err and "no Student" not in err


def test_a_quote_never_closed_in_a_large_export_names_its_row(cli: Any, tmp_path: Path) -> None:
    """A quote never closed on line 3, then 20,000 rows (past csv's cell limit of 131,072 characters): the
    refusal named line 5210, where the limit was passed, not the row the cell begins in."""
    rows = "".join(f"C{i},{i},S{i},c{i},A\r\n" for i in range(10, 20_010))
    err = _refused(cli, tmp_path, "canvas", f'{CANVAS_HEAD}\r\nAnna,1,S1,anna,A\r\n"Bob, B,2,S2,bob,A\r\n{rows}')
    assert "--roster: line 3: a cell longer than 131,072 characters in the row beginning there" in err


def test_an_id_longer_than_an_lms_keeps_is_one_line(cli: Any, tmp_path: Path) -> None:
    err = _refused(cli, tmp_path, "moodle", f"{MOODLE_HEAD}\r\nA,X,{'9' * 256},anna@x.edu\r\n")
    assert "line 2" in err and "ID number" in err and "256" in err and "255" in err


def test_moodle_grade_columns_with_colons_keep_the_comma(cli: Any, tmp_path: Path) -> None:
    """Moodle names a grade column "Module: item (Real)": five quizzes put ten colons in a header of nine
    commas, and the colon was taken for the separator (the export refused as no Moodle export)."""
    items = ",".join(f"Quiz: Week {i}: Attention (Real)" for i in range(1, 6))
    roster = _roster(
        tmp_path,
        f"{MOODLE_HEAD},{items},Last downloaded from this course\r\n"
        "A,X,S1,a@x.edu,-,-,-,-,-,1764000000\r\nB,Y,S2,b@x.edu,-,-,-,-,-,1764000000\r\n",
    )
    files = _files(tmp_path, "S1.toml", "S2.toml")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "moodle", "--roster", roster)
    assert [row[0] for row in table[1:]] == ["S1", "S2"], result.stderr


@pytest.mark.parametrize("sep", [",", ";"])
def test_canvas_assignments_with_colons_keep_the_separator(cli: Any, tmp_path: Path, sep: str) -> None:
    """Six assignments "Lab i: due 10:30: part A (10i)" put 18 colons in the header."""
    labs = sep.join(f"Lab {i}: due 10:30: part A (10{i})" for i in range(1, 7))
    roster = _roster(
        tmp_path,
        f"{CANVAS_HEAD.replace(',', sep)}{sep}{labs}\r\n"
        f"    Points Possible{sep * 5}{sep.join(['5.00'] * 6)}\r\n"
        f'"Müller, Anna"{sep}4711{sep}S100{sep}amueller{sep}A{sep * 6}\r\n',
    )
    files = _files(tmp_path, "amueller.toml")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", roster)
    _, _, students = canvas_import(table)
    assert [(s["name"], s["id"], s["sis_user_id"]) for s in students] == [("Müller, Anna", "4711", "S100")], (
        result.stderr
    )


def test_a_canvas_export_is_never_read_by_colons(cli: Any, tmp_path: Path) -> None:
    """Canvas writes commas (or semicolons): a header that only splits at colons is no Canvas export."""
    err = _refused(cli, tmp_path, "canvas", "Student:ID:SIS User ID:SIS Login ID:Section\r\nC:4801:S1:anna:\r\n")
    assert "not a Canvas gradebook export" in err


def _piped(tmp_path: Path, roster: str, stdin: str | None) -> Any:
    """The real command, the roster given as ``roster`` and ``stdin`` written to its standard input."""
    import os

    files = _files(tmp_path, "amueller.toml", "S102.toml")
    args = ["check", "--problems", str(PROBLEMS), *files, "--format", "csv", "--gradebook", "canvas"]
    return subprocess.run(
        [sys.executable, "-m", "attncalc", *args, "--roster", roster],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )


EXPORT = f'{CANVAS_HEAD}\r\n"Müller, Anna",4711,S100,amueller,A\r\n"Zhang, Li",4713,S102,lzhang,B\r\n'


@pytest.mark.parametrize("name", ["/dev/stdin", "/dev/fd/0"])
def test_a_roster_piped_to_standard_input_is_read(tmp_path: Path, name: str) -> None:
    """`cat export.csv | attncalc check ... --roster /dev/stdin` was refused as a FIFO, while /dev/fd/0 (the
    same pipe) was read: both are read, once, as the file is."""
    piped = _piped(tmp_path, name, EXPORT)
    named = _piped(tmp_path, _roster(tmp_path, EXPORT), None)
    assert piped.returncode == named.returncode == 0, piped.stderr
    assert "4711" in piped.stdout and "4713" in piped.stdout
    assert piped.stdout == named.stdout


def test_a_fifo_in_the_file_system_says_how_to_pass_the_export(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    err = one_line_refusal(_piped(tmp_path, str(fifo), None), str(fifo), "--roster")
    assert "is a FIFO (named pipe)" in err and "--roster /dev/stdin" in err


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_an_export_of_a_million_empty_lines_is_refused_before_it_is_read(cli: Any, tmp_path: Path, end: str) -> None:
    """19,999,000 empty lines after two students took 107 to 162 seconds (each line read three times,
    microseconds each): an export of more lines than any course's is refused, counted before any row."""
    text = f"{CANVAS_HEAD}{end}A,5,S1,anna,{end}B,6,S2,bo,{end}" + end * 1_000_000
    said = _refused(cli, tmp_path, "canvas", text)
    assert "1,000,003 lines, more than the 1,000,000 read" in said


def test_the_line_limit_counts_the_last_line_without_its_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Ten lines (the header, nine students, the last without a line end) are read at a limit of ten;
    an eleventh is refused."""
    from attncalc.errors import ProblemError
    from attncalc.reports import roster_csv
    from attncalc.reports.roster import read_roster

    monkeypatch.setattr(roster_csv, "MAX_LINES", 10)
    rows = [f"N{k},{k},S{k},l{k}," for k in range(10)]
    ten = _roster(tmp_path, "\r\n".join([CANVAS_HEAD, *rows[:9]]))
    assert len(read_roster(ten, "canvas", None, {"l0", "l8"}).students) == 2
    eleven = _roster(tmp_path, "\r\n".join([CANVAS_HEAD, *rows]))
    with pytest.raises(ProblemError, match="11 lines, more than the 10 read"):
        read_roster(eleven, "canvas", None, {"l0"})


@pytest.mark.parametrize(("cells", "refused"), [(20_000, False), (20_001, True)])
def test_a_row_of_more_cells_than_twice_the_headers_limit_is_refused_before_it_is_split(
    cli: Any, tmp_path: Path, cells: int, refused: bool
) -> None:
    """A row of 6,300,000 cells ('ab,' repeated, 18.9 MB) took 563 MB: csv split it into a list of
    millions of strings before anything looked at it. Its separators are now counted first (the header's
    limit is 10,000 columns; a quoted name may hold separators, so a row may have twice as many)."""
    row = "Anna,1,S1,anna," + ",x" * (cells - 5)
    text = f"{CANVAS_HEAD}\r\n{row}\r\n"
    if refused:
        said = _refused(cli, tmp_path, "canvas", text)
        assert "line 2: a row of more than 20,000 cells split at ',', the most read" in said
    else:
        files = _files(tmp_path, "anna.toml")
        result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", _roster(tmp_path, text))
        assert [s["sis_login_id"] for s in canvas_import(table)[2]] == ["anna"] and result.exit_code == 0


@pytest.mark.parametrize(
    ("tail", "refused"),
    [
        (',"' + "," * 25_000 + '"', None),  # one quoted cell of 25,000 commas: 6 cells (refused as 25,006)
        (',"a\r\n' + "," * 25_000 + '\r\nb"', None),  # the same over three lines
        (',"x""y"' * 20_000, "line 2: a row of more than 20,000 cells"),  # 20,000 quoted cells after 5
    ],
)
def test_the_cells_of_a_row_are_counted_outside_quotes(
    cli: Any, tmp_path: Path, tail: str, refused: str | None
) -> None:
    _anna_read_or_refused(
        cli, tmp_path, f"Student,ID,SIS User ID,SIS Login ID,Section,Notes\r\nAnna,1,S1,anna,{tail}\r\n", refused
    )


def _anna_read_or_refused(cli: Any, tmp_path: Path, text: str, refused: str | None) -> None:
    """The Canvas export ``text`` refused in one line saying ``refused``, or (None) read: anna.toml's row."""
    if refused:
        assert refused in _refused(cli, tmp_path, "canvas", text)
        return
    files = _files(tmp_path, "anna.toml")
    result, table = _book(cli, tmp_path, *files, "--gradebook", "canvas", "--roster", _roster(tmp_path, text))
    assert [s["sis_login_id"] for s in canvas_import(table)[2]] == ["anna"] and result.exit_code == 0, result.stderr


@pytest.mark.parametrize(
    ("rows", "refused"),
    [
        # csv reads a quote inside an unquoted cell literally: the counter took it for a quoted cell's start
        (
            ['O"Brien,7,S7,anna,', "ab," * 30_000],
            "line 3: a row of more than 20,000",
        ),  # (the huge row went through csv)
        (['O"Brien,7,S7,anna,', 'Bo,8,S8,bo,"S' + "," * 25_000 + '"'], None),  # (refused as 25,001 cells)
        (['O"Brien,7,S7,anna,'] + [f'"Doe, J{k}",{100 + k},s{k},l{k},' for k in range(20_001)], None),  # (summed)
    ],
)
def test_a_quote_inside_an_unquoted_cell_does_not_start_a_quoted_cell_for_the_count(
    cli: Any, tmp_path: Path, rows: list[str], refused: str | None
) -> None:
    _anna_read_or_refused(cli, tmp_path, CANVAS_HEAD + "\r\n" + "\r\n".join(rows) + "\r\n", refused)
