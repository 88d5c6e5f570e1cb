"""Reading the text of ``--roster FILE`` (the LMS's gradebook export) as CSV: the file itself, its line
ends, the separator its header uses, and the errors csv reports, each said as bad input naming the file,
``--roster`` and the line. :mod:`attncalc.reports.roster` reads the students from it and matches them."""

from __future__ import annotations

import csv
from typing import Any

from ..errors import ProblemError

# the columns that identify a student, as each LMS names them, in the order they are tried
CANVAS_IDS = ("SIS User ID", "SIS Login ID", "ID", "Integration ID")
MOODLE_IDS = ("ID number", "Email address", "Username")
# the separators each export may use, in the order tried: Canvas writes commas (semicolons where the
# user's locale asks for them); Moodle's plain-text export offers comma, tab, semicolon and colon
SEPARATORS = {"canvas": (",", ";"), "moodle": (",", "\t", ";", ":")}
# the most columns a header is read with (a gradebook of thousands of assignments has fewer): a header
# split into millions of cells would be a list of millions of strings, for each separator tried
MAX_COLUMNS = 10_000
# the most cells a row is read with (twice the header's limit), counted outside quotes before csv splits it
MAX_LINE_CELLS = 2 * MAX_COLUMNS
# the most lines an export is read with (a row a student: a million students is past any course's); each
# line costs microseconds a reading, and 20 MB of empty lines are 20 million of them (two minutes)
MAX_LINES = 1_000_000


def read_text(path: str, limit: int) -> str:
    """The export's text: a regular file, or a pipe handed over (``<(...)``, ``/dev/stdin``), read once,
    at most ``limit`` bytes; never a device, a FIFO in the file system or a folder."""
    from ..files import read_input

    source = "/dev/fd/0" if path == "/dev/stdin" else path  # standard input, as /dev/fd/0 names it
    try:
        data = read_input(source, limit, pipe=True)
    except ProblemError as exc:
        message = f"larger than {limit:,} bytes" if exc.message.startswith("is larger than") else exc.message
        if message.startswith("is a FIFO"):
            message += ": pass the export's file, or pipe it in (--roster /dev/stdin, --roster <(cat FILE))"
        raise ProblemError(path, "--roster", message) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ProblemError(path, "--roster", "not UTF-8 text (export the gradebook as CSV in UTF-8)") from None


class Lines:
    """The text's lines as csv reads them, by how the header line ends: at LF or CR LF, the file splits at
    each LF (a CR alone inside an unquoted cell is an error); at a CR alone (Excel for Mac), at each CR (a
    line break inside a quoted cell, which Excel writes as LF, stays in its cell). One line at a time (a
    StringIO would hold the text again, four bytes a character). ``done`` once csv asked past the last
    line: a row it hands over after that ended inside a quoted cell, at the end of the file (csv, not
    strict, takes that for the cell's end); ``read``: the line the last whole row ended on."""

    def __init__(self, text: str) -> None:
        cr, lf = text.find("\r"), text.find("\n")
        self.end = "\r" if cr >= 0 and (lf < 0 or lf > cr + 1) else "\n"
        self.text, self.start, self.done, self.read = text, 0, False, 0
        self.mark = 0  # where the row after the last whole one begins (its offset in the text)
        self.seen = 0  # the lines handed over
        self.wide: tuple[str, str] | None = None  # (separator, path): a row of more cells is refused
        self.quoted, self.cells = False, 0  # (inside a quoted cell at the line's end; the row's separators so far)

    def at_most(self, sep: str, path: str) -> Lines:
        """Refuse, naming the line, a row of more than :data:`MAX_LINE_CELLS` cells split at ``sep``
        (counted before csv splits it: a row of millions of cells would be a list of millions of strings)."""
        self.wide = (sep, path)
        return self

    def __iter__(self) -> Lines:
        return self

    def __next__(self) -> str:
        if self.start >= len(self.text):
            self.done = True
            raise StopIteration
        stop = self.text.find(self.end, self.start)
        stop = len(self.text) if stop < 0 else stop + 1
        line, self.start = self.text[self.start : stop], stop
        self.seen += 1
        if self.wide:
            self._count(line, *self.wide)
        return line

    def _count(self, line: str, sep: str, path: str) -> None:
        """Adds the line's cells to its row's, counted as csv splits them (a quote opens a quoted cell only
        at the cell's start, as csv reads ``O"Brien`` literally; a doubled quote inside is one; a quoted cell
        may go on over lines); a row past :data:`MAX_LINE_CELLS` is refused before csv splits it."""
        if not self.quoted and '"' not in line:
            self.cells += line.count(sep)
        else:
            self._scan(line, sep)
        if self.cells >= MAX_LINE_CELLS:
            raise ProblemError(
                path,
                "--roster",
                f"line {self.seen:,}: a row of more than {MAX_LINE_CELLS:,} cells split at {sep!r}, the most read (a row "
                "has as many as its header): not a gradebook export as the LMS writes it",
            )
        if not self.quoted:
            self.cells = 0

    def _scan(self, line: str, sep: str) -> None:
        """:meth:`_count` for a line with quotes: cell by cell (at most :data:`MAX_LINE_CELLS` of them)."""
        pos, end = 0, len(line)
        while pos < end and self.cells < MAX_LINE_CELLS:
            if self.quoted:  # inside a quoted cell: to its closing quote (a doubled one is a quote in it)
                q = line.find('"', pos)
                if q < 0:
                    return  # (the cell goes on to the next line)
                if line.startswith('"', q + 1):
                    pos = q + 2
                    continue
                self.quoted, pos = False, q + 1
            elif line.startswith('"', pos):  # a cell that starts with a quote is quoted
                self.quoted, pos = True, pos + 1
                continue
            nxt = line.find(sep, pos)  # (the rest of an unquoted cell, or what follows a closing quote)
            if nxt < 0:
                return
            self.cells, pos = self.cells + 1, nxt + 1

    def unclosed(self, path: str, reader: Any, row: list[str], base: int = 0) -> ProblemError | None:
        """Bad input naming the line a quote opened on, for a ``row`` read to the end of the file inside
        a quoted cell (its last: every line break in it is one of the file's lines); None for a row
        ended as rows end."""
        if not self.done:
            return None
        cell = row[-1] if row else ""
        line = base + reader.line_num - cell.count(self.end) + cell.endswith(self.end)
        return ProblemError(
            path,
            "--roster",
            f"line {line}: a quote opened there is never closed (the rest of the file would be one cell): "
            "not a CSV gradebook export as the LMS writes it",
        )

    def never_closed(self, path: str, sep: str) -> ProblemError:
        """Bad input naming the line a quote opened on, the rows being read with ``strict`` (which refuses
        the end of the file inside a quoted cell without the row): the row from :attr:`mark` read again,
        not strict, to the end of the file."""
        rest = Lines(self.text[self.mark :])
        rest.end, reader = self.end, csv.reader(rest, delimiter=sep)
        return rest.unclosed(path, reader, next(reader, []), self.read) or ProblemError(
            path, "--roster", "a quote is never closed: not a CSV gradebook export as the LMS writes it"
        )


def csv_problem(path: str, line: int, exc: csv.Error, start: int) -> ProblemError:
    """Bad input for csv's error at ``line``, in the row beginning on line ``start``."""
    what = str(exc)
    if "expected after" in what:  # (csv, strict: "',' expected after '\"'")
        what = "text after the quote that closes a cell (a stray quote: an LMS writes a quote inside a cell as two)" + (
            f" in the row beginning on line {start}" if start != line else ""
        )
    elif "new-line" in what:
        what = "a line break (CR or LF) inside a cell that is not in quotes"
    elif "field larger" in what:  # (said where the row begins: the cell may be a quote never closed)
        line, what = start, f"a cell longer than {csv.field_size_limit():,} characters in the row beginning there"
    return ProblemError(path, "--roster", f"line {line}: {what}: not a CSV gradebook export as the LMS writes it")


def count_lines(text: str, path: str) -> None:
    """Bad input, before any row is read, for an export of more than :data:`MAX_LINES` lines (counted as
    :class:`Lines` splits them, empty ones too)."""
    end = Lines(text).end
    n = text.count(end) + (not text.endswith(end))
    if n > MAX_LINES:
        raise ProblemError(
            path,
            "--roster",
            f"{n:,} lines, more than the {MAX_LINES:,} read (a row a student, empty lines counted): not a gradebook "
            "export as the LMS writes it",
        )


def _fits(head: list[str], layout: str) -> bool:
    if layout == "canvas":
        # (an Integration ID alone is not enough: Canvas's gradebook import finds no student by it)
        return bool({"Student", "LastName"} & set(head)) and any(c in head for c in CANVAS_IDS[:3])
    return "First name" in head and any(c in head for c in MOODLE_IDS)


def separator(text: str, path: str, layout: str) -> str:
    """The first separator the export may use whose header has the columns the layout needs (a Moodle
    grade column "Quiz: Week 1: Attention (Real)" holds more colons than the header has commas)."""
    said = None  # why a separator's header could not be read: said if no other separator fits
    ends = [n for n in (text.find("\n"), text.find("\r")) if n >= 0]
    first = text[: min(ends)] if ends else text  # the header's line (without a quoted line break in it)
    for sep in SEPARATORS[layout]:
        columns = first.count(sep) + 1  # (counted, not split: no list of cells)
        if columns > MAX_COLUMNS:
            said = said or ProblemError(
                path,
                "--roster",
                f"line 1: the header has {columns:,} columns split at {sep!r}, more than the {MAX_COLUMNS:,} "
                "read: not a gradebook export as the LMS writes it",
            )
            continue
        lines = Lines(text)
        reader = csv.reader(lines, delimiter=sep)
        try:
            head = next(reader, None)
        except csv.Error as exc:
            said = said or csv_problem(path, reader.line_num, exc, 1)
            continue
        if head is None:
            raise ProblemError(path, "--roster", "empty: expected the LMS's gradebook export (CSV)")
        fits, unclosed = _fits([h.strip() for h in head], layout), lines.unclosed(path, reader, head)
        if unclosed and fits:  # (the rows are in its last cell)
            raise unclosed
        if fits:
            return sep
        said = said or unclosed
    if said:
        raise said
    if layout == "canvas":
        raise ProblemError(
            path,
            "--roster",
            "not a Canvas gradebook export: its header has no Student and ID, SIS User ID or SIS Login ID",
        )
    raise ProblemError(
        path,
        "--roster",
        "not a Moodle grade export: its header has no First name and ID number, Email address or Username",
    )
