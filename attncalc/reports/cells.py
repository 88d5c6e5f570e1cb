"""A gradebook cell no spreadsheet runs as a formula (OWASP's CSV injection advice), as
:mod:`attncalc.reports.gradebook` writes every cell and :mod:`attncalc.reports.roster` chooses the
column Moodle's rows go by (one whose cells are written as the roster has them)."""

from __future__ import annotations

import re

NO_GRADE = "-"  # Moodle's "no grade" (grade/import/csv: '' or '-' leave the grade unset)
FORMULA_FIRST = ("=", "+", "-", "@", "\t", "\r")  # what makes a spreadsheet read a cell as a formula (OWASP)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# a separator another locale's spreadsheet may split the cell at (";" in much of Europe, a tab, a
# pipe), or a line break, followed by what would begin a formula in the cell it starts
_INNER = re.compile(r"([,;|\t\r\n]\s*)(?=[=+\-@])")
# spaces before what would begin a formula, at the cell's start: a spreadsheet that trims them on import
# (LibreOffice's "Trim spaces") reads the rest as a formula, as it would after a separator
_LEADING = re.compile(r"\s+(?=[=+\-@])")


# the characters of a formula or a separator above: a character whose compatibility form (NFKC) is
# one of them (the fullwidth ＝ ＋ － ＠ ； ｜ ，, the small ﹦ ﹢ ﹣ ﹫, the superscript ⁺ ⁼) is read as
# it by a spreadsheet that normalises its input before parsing
_FOLDED = frozenset("=+-@,;|")


def _as_folded(text: str) -> str:
    """``text`` with each character whose NFKC form is one of :data:`_FOLDED` written as that form, the
    others kept: of the same length, so that a position found in it is one in ``text``."""
    if text.isascii():
        return text
    import unicodedata

    out = []
    for ch in text:
        folded = unicodedata.normalize("NFKC", ch) if not ch.isascii() else ch
        out.append(folded if folded in _FOLDED else ch)
    return "".join(out)


def safe_cell(text: str) -> str:
    """A cell no spreadsheet runs as a formula (OWASP's CSV injection advice): an apostrophe before a
    first =, +, -, @, tab or CR, and before such a character after a separator of any locale (a comma,
    a semicolon, a tab, a pipe) or a line break, where a spreadsheet splitting the row there would start
    a cell, and before spaces (any: a no-break space too) that come before one at the cell's start, which
    a spreadsheet trimming them would run; a number (-0.5, 1e-3) stays a number, and Moodle's "-" (no grade) stays as it is. Each is
    found in the cell's compatibility form too (:func:`_as_folded`): ``＝1+1`` (a fullwidth =) is a
    formula to a spreadsheet that applies NFKC first, and gets its apostrophe as ``=1+1`` does."""
    if text == NO_GRADE or _NUMBER.fullmatch(text):
        return text
    folded = _as_folded(text)
    starts = [m.end(1) for m in _INNER.finditer(folded)]
    for at in reversed(starts):  # from the end: each insertion leaves the earlier positions in place
        text = text[:at] + "'" + text[at:]
    return "'" + text if folded.startswith(FORMULA_FIRST) or _LEADING.match(folded) else text


def moodle_misread(value: str) -> str | None:
    """Why Moodle's grade import would not find the user of an identifying cell written ``value`` (None:
    it would): the import (grade/import/csv, load_data.php) trims the cell, skips a cell PHP's ``empty``
    takes for none (``0``: the row's grades then go to the row before's user), and reads the file with
    PHP's ``fgetcsv``, whose escape character ``\\`` inside a quoted cell keeps the next quote from ending it."""
    written = safe_cell(value)
    if written != value:
        return f"begins as a spreadsheet formula does: written {written} (an apostrophe first, so that no spreadsheet runs it)"
    if value != value.strip():
        return "has spaces at its ends: the import trims the cell before it looks the user up"
    if value == "0":
        return (
            "is 0, which the import takes for an empty cell (PHP's empty): the row's grade would go to the row before"
        )
    if "\\" in value:  # (quoted or not as written: the import stores the rows with fputcsv and reads them again)
        return "holds a backslash, which the import's CSV reader (PHP's fgetcsv) takes as an escape"
    return None


def moodle_safe_text(text: str) -> str:
    """A text cell (a feedback) as Moodle's import reads it back: a backslash, which PHP's ``fgetcsv``
    takes as an escape inside a quoted cell (``\\"`` would not end it, and the row would be misread; the
    import stores the rows with ``fputcsv`` and reads them again, quoting a cell that ends in one), is
    written as the look-alike U+2216."""
    return text.replace("\\", "\u2216")
