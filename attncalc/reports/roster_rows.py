"""The student rows of ``--roster FILE`` (the LMS's gradebook export, its text read by
:mod:`attncalc.reports.roster_csv`): each row with an id, its name and ids as the export writes them, and
how a name or id compares as the LMS compares it (:func:`lms_name`)."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import ProblemError, unprintable
from .roster_csv import Lines, csv_problem

# the longest name or id cell read: Canvas keeps a name or an SIS id in a string column of 255
# characters, Moodle an ID number in a varchar(255) (its names, email and username in 100)
MAX_CELL = 255


def lms_name(text: str) -> str:
    """A name or id as Canvas and Moodle look a student up: composed (NFC: "jose\u0301" is "josé"),
    lower-cased as their databases compare (not case-folded: "maß" is not "mass", the ligature "ﬁn" is
    not "fin"), without the spaces at its ends, the two joiners U+200C, U+200D left out (unseen)."""
    if text.isascii():  # (already composed, and no joiner: the common case, read for every id of every row)
        return text.strip().lower()
    import unicodedata

    # (the joiners left out before the ends are stripped: "\u200d \u200d" is no id, not a space)
    return unicodedata.normalize("NFC", text).replace("\u200c", "").replace("\u200d", "").strip().lower()


@dataclass(frozen=True, slots=True)
class Student:
    name: str
    ids: dict[str, str] = field(default_factory=dict)  # column -> value, as the export writes them
    line: int = field(default=0, compare=False)  # the export's line the row begins on
    # the ids left out for a control or format character (column, value as written): said in a note
    left_out: tuple[tuple[str, str, str], ...] = field(default=(), compare=False)  # (column, value, why)

    def keys(self) -> set[str]:
        return {lms_name(v) for v in self.ids.values() if v.strip()}


def canvas_number(value: str) -> bool:
    """A Canvas user ``ID`` as Canvas writes it: digits, no sign, no leading zero, from 1 to a bigint's largest. Canvas's import reads an
    ID with Ruby's ``to_i`` (``7x``, ``+7``, ``007``, ``7.0`` are all 7, ``abc`` is 0: another student's
    number, or none), so only these find the student written."""
    v = value.strip()
    return v.isascii() and v.isdigit() and str(int(v)) == v and 0 < int(v) < 2**63  # (a bigint; there is no user 0)


def canvas_reads(field: str) -> str | None:
    """A cell as Canvas's gradebook import reads it: its CSV converter ``decimal_comma_to_period``
    (gradebook_importer.rb) rewrites every field that looks like a number, ids included: split at each
    ``,`` and ``.`` (Ruby's split drops the empty parts at the end), the last part after a ``.``, the
    others joined: ``5.`` is ``5``, ``1.2.3`` is ``12.3``, ``1,5`` is ``1.5``, ``,5`` is ``.5``."""
    if not re.fullmatch(r"-?[0-9.,]+%?", field):
        return field
    parts = re.split(r"[,.]", field)
    while parts and not parts[-1]:
        parts.pop()
    if not parts:
        return None
    last = parts.pop()
    return last if not parts else "".join(parts) + "." + last


def left_out_why(column: str, value: str, layout: str) -> str | None:
    """Why an id is left out, or None: it holds a control, bidirectional or other format character
    (written raw, it would reorder or break the gradebook's row; escaped, the LMS would not find it); a
    Canvas ``ID`` is no Canvas user number (:func:`canvas_number`); or Canvas's import would read a Canvas
    id as another (:func:`canvas_reads`: ``5.`` is the SIS User ID ``5``, another student's)."""
    if not value.isprintable() and any(map(unprintable, value.strip(" "))):
        return "holds a control or format character"
    if layout != "canvas" or not value.strip():
        return None
    if column == "ID" and not canvas_number(value):
        return "is no Canvas user number (digits from 1, no sign or leading zero: Canvas's import reads an ID's leading digits, as 7x is 7)"
    read = canvas_reads(value)
    if read != value:
        return f"is read by Canvas's import as {read or 'nothing'} (its number converter rewrites , and .)"
    return None


def id_keys(s: Student) -> list[tuple[str, str]]:
    """The student's ids as (column, :func:`lms_name`): the ones it has (an empty cell is none)."""
    return [(c, lms_name(v)) for c, v in s.ids.items() if v.strip()]


# the notes of one kind said in full (each naming its line or id); the others are counted in one line
SHOWN = 3


@dataclass
class Few:
    """The first :data:`SHOWN` of many lines, and how many there are (a bounded record of a row's copies,
    however many the export holds)."""

    first: list[int] = field(default_factory=list)
    count: int = 0

    def add(self, line: int) -> None:
        self.count += 1
        if len(self.first) < SHOWN:
            self.first.append(line)

    def __str__(self) -> str:
        """``lines 4, 9, 12 and 1,000 more``: the first few of many lines, and how many more there are."""
        shown = ", ".join(f"{n:,}" for n in self.first)
        if self.count == 1:
            return f"line {shown}"
        if self.count > SHOWN:
            return f"lines {shown} and {self.count - SHOWN:,} more"
        head, _, last = shown.rpartition(", ")
        return f"lines {head} and {last}"


@dataclass(frozen=True)
class Rows:
    """The export's student rows, to be read once or twice."""

    text: str
    sep: str
    head: list[str]
    present: list[str]
    layout: str
    path: str

    def each(self) -> Iterator[Student]:
        """Each student, in order (one whose every id was left out too, with its ``left_out``)."""
        lines = Lines(self.text).at_most(self.sep, self.path)
        reader = csv.reader(lines, delimiter=self.sep, strict=True)  # (a stray quote is refused, not read on)
        try:
            next(reader)
            lines.read, lines.mark = reader.line_num, lines.start
            yield from _students(reader, lines, self.head, self.present, self.layout, self.path)
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):  # (the file ends inside a quoted cell)
                raise lines.never_closed(self.path, self.sep) from None
            raise csv_problem(self.path, reader.line_num, exc, lines.read + 1) from None


def _students(
    reader: Any, lines: Lines, head: list[str], present: list[str], layout: str, path: str
) -> Iterator[Student]:
    """Each student row of the export (a row with no id, as Canvas's Points Possible and Manual Posting rows,
    skipped), once."""
    at = {
        c: head.index(c) for c in (*present, "Student", "LastName", "FirstName", "First name", "Last name") if c in head
    }
    for row in reader:
        line, lines.read = lines.read + 1, reader.line_num  # the row's first line (a quoted cell may hold breaks)
        lines.mark = lines.start

        def cell(column: str, row: list[str] = row, line: int = line) -> str:
            k = at.get(column)
            value = row[k] if k is not None and k < len(row) else ""
            if len(value) > MAX_CELL:
                raise ProblemError(
                    path,
                    "--roster",
                    f"line {line}: the {column} is {len(value):,} characters long: an LMS keeps at most {MAX_CELL}",
                )
            return value

        # (an id of only spaces and joiners is none: the row is matched and written by another)
        ids = {c: (v if lms_name(v) else "") for c in present for v in (cell(c),)}
        if layout == "canvas":
            last = cell("Student") if "Student" in at else cell("LastName")
            name = last if "Student" in at else f"{cell('FirstName')} {last}".strip()
        else:
            name = f"{cell('First name')} {cell('Last name')}".strip()
        bad = tuple((c, v, why) for c, v in ids.items() if (why := left_out_why(c, v, layout)))
        ids = {c: ("" if any(c == b for b, _, _ in bad) else v) for c, v in ids.items()}
        # (a row with no id is none: Canvas's Points Possible and Manual Posting rows; one with an id is a
        # student, whatever its name cell holds, an empty one included)
        if bad or any(v.strip() for v in ids.values()):
            yield Student(name, ids, line, bad)
