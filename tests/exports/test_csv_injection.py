"""No gradebook cell is run as a formula by a spreadsheet, in any locale (OWASP, CSV injection).

A cell beginning with =, +, -, @, tab or CR gets an apostrophe, and so does such a character after a
separator another locale's spreadsheet splits at (`;` in much of Europe, a tab, `|`, a comma) or a line
break: "x;=HYPERLINK(...)" was written as it was, and a spreadsheet splitting at `;` ran the second
half. A number (-0.5, 1e-3) stays a number; Moodle's "-" (no grade) stays "-".
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from attncalc.reports.gradebook import Unread, gradebook_csv

ATTACKS = [
    "=1+1",
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1)",
    "\t=1",
    "\r=1",
    'ok;=HYPERLINK("http://evil.example","x")',
    "ok; =1",
    "ok,@SUM(A1)",
    "ok|+1",
    "ok\t-1",
    "ok\n=1",
    "ok\r\n@x",
    " =1+1",  # (spaces first: a spreadsheet that trims them on import runs the rest; tryout 35)
    "\u00a0@SUM(A1)",
    "  -2+3",
]
FORMULA = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff"), newline="")))


def _pieces(cell: str) -> list[str]:
    """The cell as a spreadsheet of any locale may split it: at , ; tab | and line breaks."""
    return [p.lstrip(" ") for p in re.split(r"[,;\t|\r\n]", cell)]


def _safe(cell: str) -> bool:
    if cell == "-" or NUMBER.fullmatch(cell):
        return True
    first = cell.lstrip()  # (as a spreadsheet that trims spaces on import reads it)
    return (
        not cell.startswith(FORMULA)
        and not first.startswith(("=", "+", "-", "@"))
        and not any(p.startswith(("=", "+", "-", "@")) for p in _pieces(cell)[1:])
    )


@pytest.mark.parametrize("layout", ["plain", "canvas", "moodle"])
@pytest.mark.parametrize("attack", ATTACKS)
def test_no_cell_starts_a_formula_in_any_locale(layout: str, attack: str) -> None:
    entries = [Unread(f"{attack}.toml", f"reason {attack}", attack)]
    rows = _cells(gradebook_csv(entries, layout, "HW"))
    for cell in (c for row in rows for c in row):
        assert _safe(cell), (layout, cell)
    # still readable: the student's cell is the text with apostrophes added, nothing else changed
    assert any(c.replace("'", "") == attack.replace("'", "") for row in rows for c in row)


@pytest.mark.parametrize("cell", ["-0.5", "-3", "1e-3", "-1.25e+2", "+4", "0.75"])
def test_numbers_stay_numbers(cell: str) -> None:
    rows = _cells(gradebook_csv([Unread("a.toml", "r", cell)], "canvas", "HW"))
    assert rows[-1][0] == cell  # the student column, as written: a spreadsheet reads it as the number


def test_no_grade_stays_a_dash() -> None:
    rows = _cells(gradebook_csv([Unread("a.toml", "could not be read", "s1")], "moodle", "HW"))
    assert rows[1][1] == "-"


def test_the_apostrophe_is_where_the_formula_would_start() -> None:
    rows = _cells(gradebook_csv([Unread("a.toml", "r", "ok;=HYPERLINK(1)")], "canvas", "HW"))
    assert rows[-1][0] == "ok;'=HYPERLINK(1)"


# the fullwidth = + - @ (U+FF1D, U+FF0B, U+FF0D, U+FF20), and a fullwidth ; before one: NFKC, which some
# spreadsheets apply before parsing, turns each into its ASCII form
FULLWIDTH = [
    "\uff1d1+1",
    "\uff0b1+cmd|' /C calc'!A0",
    "\uff0d2+3",
    "\uff20SUM(A1)",
    "ok\uff1b\uff1dHYPERLINK(1)",
    "ok;\uff20x",
]


@pytest.mark.parametrize("layout", ["plain", "canvas", "moodle"])
@pytest.mark.parametrize("attack", FULLWIDTH)
def test_no_cell_starts_a_formula_once_normalised(layout: str, attack: str) -> None:
    import unicodedata

    assert not _safe(unicodedata.normalize("NFKC", attack))  # a formula once normalised (the premise)
    rows = _cells(gradebook_csv([Unread(f"{attack}.toml", f"reason {attack}", attack)], layout, "HW"))
    for cell in (c for row in rows for c in row):
        assert _safe(unicodedata.normalize("NFKC", cell)), (layout, cell)
    # the fullwidth characters are kept as they were: only apostrophes added
    assert any(c.replace("'", "") == attack.replace("'", "") for row in rows for c in row)


def test_fullwidth_apostrophe_goes_before_the_fullwidth_sign() -> None:
    rows = _cells(gradebook_csv([Unread("a.toml", "r", "ok\uff1b\uff1d1")], "canvas", "HW"))
    assert rows[-1][0] == "ok\uff1b'\uff1d1"
    rows = _cells(gradebook_csv([Unread("a.toml", "r", "\uff20x")], "canvas", "HW"))
    assert rows[-1][0] == "'\uff20x"
