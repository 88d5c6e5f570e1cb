"""``check --gradebook canvas|moodle --roster FILE``: the LMS's own gradebook export as the class list.

Each answers file is matched to one student of the roster by its ``student =`` and its file name
(without the extension), compared, without case and surrounding spaces, with the student's login, email
or SIS id (Canvas: ``SIS User ID``, ``SIS Login ID``, its own ``ID``; Moodle: ``ID number``, ``Email
address``, ``Username`` where exported). The gradebook then has the roster's own identifiers in its id
columns, so the LMS finds every row: Canvas would add an unknown row as a new student, and the first
unknown user stops a Moodle import. A file that matches nobody (or several students) gets no row: it is
reported, one line each, on standard error.

The layouts, as the LMSs write them (read in their source):

* Canvas (``GradebookExporter``, lib/gradebook_exporter.rb): a header ``Student`` (or ``LastName``,
  ``FirstName``), ``ID``, ``SIS User ID`` (when SIS ids are exported), ``SIS Login ID``, optionally
  ``Integration ID`` and ``Root Account``, ``Section``, custom columns, the assignments and totals;
  then, before the students, a row whose assignments say ``Manual Posting`` (when one posts manually)
  and the ``    Points Possible`` row.
* Moodle (grade/export/txt, the plain text export as CSV): ``First name``, ``Last name``, the profile
  fields the site exports (by default ``ID number``, ``Institution``, ``Department``, ``Email
  address``), the grade items, ``Last downloaded from this course``; one row per student.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ProblemError, printable, unprintable
from .roster_csv import CANVAS_IDS, MOODLE_IDS, Lines, csv_problem, read_text, separator

# the longest name or id cell read: Canvas keeps a name or an SIS id in a string column of 255
# characters, Moodle an ID number in a varchar(255) (its names, email and username in 100)
MAX_CELL = 255


def lms_name(text: str) -> str:
    """A name or id as Canvas and Moodle look a student up: composed (NFC: "jose\u0301" is "josé"),
    lower-cased as their databases compare (not case-folded: "maß" is not "mass", the ligature "ﬁn" is
    not "fin"), without the spaces at its ends, the two joiners U+200C, U+200D left out (unseen)."""
    import unicodedata

    # (the joiners left out before the ends are stripped: "\u200d \u200d" is no id, not a space)
    return unicodedata.normalize("NFC", text).replace("\u200c", "").replace("\u200d", "").strip().lower()


@dataclass(frozen=True, slots=True)
class Student:
    name: str
    ids: dict[str, str] = field(default_factory=dict)  # column -> value, as the export writes them
    line: int = field(default=0, compare=False)  # the export's line the row begins on
    # the ids left out for a control or format character (column, value as written): said in a note
    left_out: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def keys(self) -> set[str]:
        return {lms_name(v) for v in self.ids.values() if v.strip()}


@dataclass(frozen=True)
class Roster:
    """The students of an export, and the id columns its header has (in the order they are tried)."""

    students: list[Student]
    columns: list[str]


def read_roster(path: str, layout: str, limit: int | None = None, wanted: set[str] | None = None) -> Roster:
    """The students of a Canvas or Moodle gradebook export (``layout``), or bad input naming the file;
    ``limit``: the largest file read, in bytes (``--max-file-size``; default 20 MB). With ``wanted`` (the
    names the answers files go by, as :func:`lms_name` writes them), only the students
    that matter are kept: those some file names and those sharing an id with them (a second reading of
    the text finds these), so a large export is never held as a list of students."""
    text = read_text(path, limit or 20_000_000)
    sep = separator(text, path, layout)
    head = [h.strip() for h in next(csv.reader(Lines(text), delimiter=sep))]
    columns = CANVAS_IDS if layout == "canvas" else MOODLE_IDS
    present = [c for c in columns if c in head]
    twice = sorted({c for c in (*columns, "Student", "First name", "Last name") if head.count(c) > 1})
    if twice:  # which copy identifies the student? (the two readers took different ones)
        raise ProblemError(path, "--roster", f"the column {twice[0]!r} appears twice in the header: keep one")
    rows = _Rows(text, sep, head, present, layout, path)
    if wanted is None:
        return Roster(_unshared(_left_out_said(rows.each(), path), path), present)

    def named(s: Student) -> bool:  # (by an id it has, or by one left out: the note says why it gets no row)
        return bool(Student.keys(s) & wanted or {lms_name(v) for _, v in s.left_out} & wanted)

    relevant = {(c, lms_name(v)) for s in rows.each() if named(s) for c, v in s.ids.items() if v.strip()}
    kept = (
        s for s in rows.each() if named(s) or any(v.strip() and (c, lms_name(v)) in relevant for c, v in s.ids.items())
    )
    return Roster(_unshared(_left_out_said(kept, path), path, relevant), present)


@dataclass(frozen=True)
class _Rows:
    """The export's student rows, to be read once or twice."""

    text: str
    sep: str
    head: list[str]
    present: list[str]
    layout: str
    path: str

    def each(self) -> Iterator[Student]:
        """Each student, in order (one whose every id was left out too, with its ``left_out``)."""
        lines = Lines(self.text)
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
        bad = tuple((c, v) for c, v in ids.items() if not v.isprintable() and any(map(unprintable, v.strip(" "))))
        ids = {c: ("" if any(c == b for b, _ in bad) else v) for c, v in ids.items()}
        # (a row with no id is none: Canvas's Points Possible and Manual Posting rows; one with an id is a
        # student, whatever its name cell holds, an empty one included)
        if bad or any(v.strip() for v in ids.values()):
            yield Student(name, ids, line, bad)


# the notes of one kind said in full (each naming its line or id); the others are counted in one line
SHOWN = 3


def _left_out_said(rows: Iterable[Student], path: str) -> Iterator[Student]:
    """The students with an id, each id holding a control, bidirectional or other format character
    (written raw, it would reorder or break the gradebook's row; escaped, the LMS would not find it) left
    out and said: in full for the first :data:`SHOWN` rows, the other rows' lines counted in one line."""
    more: list[int] = []
    shown = 0
    for s in rows:
        if s.left_out and shown < SHOWN:
            shown += 1
            rest = (
                "the student is matched and written by their other ids"
                if any(v.strip() for v in s.ids.values())
                else "the student has no other id: a file naming them gets no row"
            )
            for c, v in s.left_out:
                sys.stderr.write(
                    f"attncalc: note: {printable(path)}: line {s.line}: the {c} {printable(v)} holds a control or "
                    f"format character: it is left out ({rest})\n"
                )
        elif s.left_out:
            more.append(s.line)
        if any(v.strip() for v in s.ids.values()):
            yield s
    if more:
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: {_lines(more)} hold ids with a control or format character too: "
            "those ids are left out\n"
        )


def _lines(lines: list[int]) -> str:
    """``lines 4, 9, 12 and 1,000 more``: the first few of many lines, and how many more there are."""
    shown = ", ".join(f"{n:,}" for n in lines[:SHOWN])
    if len(lines) == 1:
        return f"line {shown}"
    if len(lines) > SHOWN:
        return f"lines {shown} and {len(lines) - SHOWN:,} more"
    head, _, last = shown.rpartition(", ")
    return f"lines {head} and {last}"


def _unshared(rows: Iterable[Student], path: str, relevant: set[tuple[str, str]] | None = None) -> list[Student]:
    """An id two students of the roster share (Moodle does not make ID numbers unique) identifies neither:
    it is left out of both (a file is then matched by another id, and the row is written by another
    column), with a note, never a grade put on the other student's row. A row the export repeats (the
    same name and ids) is one student, read once, with a note. ``relevant``: the ids (column, lms_name)
    whose sharing matters, every holder of which is among ``students`` (:func:`read_roster`). Linear work:
    each row and each id is looked up once in a dict."""
    students = _once(rows, path)  # (a row the export repeats is never held twice)
    shared: dict[tuple[str, str], list[int]] = {}
    for c in dict.fromkeys(c for s in students for c in s.ids):
        first: dict[str, int] = {}  # (one column at a time: each id's first student)
        for k, s in enumerate(students):
            v = s.ids.get(c, "")
            if v.strip():
                key = lms_name(v)
                j = first.setdefault(key, k)
                if j != k and (relevant is None or (c, key) in relevant):
                    shared.setdefault((c, key), [j]).append(k)
    if not shared:
        return students
    out = [
        Student(s.name, {c: v for c, v in s.ids.items() if (c, lms_name(v)) not in shared}, s.line) for s in students
    ]
    ordered = sorted(shared.items())
    for (c, _), ks in ordered[:SHOWN]:  # one note an id, however many share it (the first few: then counted)
        shown = students[ks[0]].ids[c]  # as the roster writes it
        bare = sum(not any(v.strip() for v in out[k].ids.values()) for k in ks)
        whom = "neither" if len(ks) == 2 else "none of them"
        rest = (
            "they are matched and written by their other ids"
            if not bare
            else f"{'they have' if bare == len(ks) else f'{bare} of them have'} no other id: "
            "a file naming them gets no row"
        )
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: the {c} {printable(shown)} is {len(ks):,} students' of the roster: "
            f"it identifies {whom} ({rest})\n"
        )
    if len(ordered) > SHOWN:
        named = ", ".join(f"the {c} {printable(students[ks[0]].ids[c])}" for (c, _), ks in ordered[SHOWN : 2 * SHOWN])
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: {len(ordered) - SHOWN:,} more ids are several students' of the "
            f"roster ({named}{', ...' if len(ordered) > 2 * SHOWN else ''}): each identifies none of them (a "
            "student with no other id gets no row)\n"
        )
    return [s for s in out if any(v.strip() for v in s.ids.values())]


def _once(rows: Iterable[Student], path: str) -> list[Student]:
    """The students with each row the export repeats exactly (the same name and ids: one student listed
    twice is one student, never two sharing every id) read once; one note a repeated row, naming the
    first few of its copies' lines and how many more there are."""
    first: dict[tuple[str, tuple[tuple[str, str], ...]], int] = {}  # a row's identity -> its first index
    copies: dict[int, list[int]] = {}  # the first index -> the lines repeating it
    kept: list[Student] = []
    for s in rows:
        j = first.setdefault((s.name, tuple(sorted(s.ids.items()))), len(kept))
        if j == len(kept):
            kept.append(s)
        else:
            copies.setdefault(j, []).append(s.line)
    repeated = sorted(copies.items())  # in the order of the rows repeated
    for j, lines in repeated[:SHOWN]:
        which = _lines(lines) + (" repeats" if len(lines) == 1 else " repeat")
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: {which} line {kept[j].line:,} (the same name and ids): read once\n"
        )
    if len(repeated) > SHOWN:
        rest = [kept[j].line for j, _ in repeated[SHOWN:]]
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: {len(rest):,} more rows, on {_lines(rest)}, are repeated further "
            "down (the same name and ids): each is read once\n"
        )
    return kept


def tried(student: str, file: str) -> set[str]:
    """The names an answers file goes by (its ``student =``, its file name without the extension), compared
    as an LMS compares them."""
    return {lms_name(t) for t in (student, Path(file).stem) if t and t.strip()}


def match(
    names: list[tuple[str, str]], roster: list[Student], columns: list[str] | None = None
) -> tuple[dict[int, Student], list[tuple[int, str]]]:
    """For each answers file (its ``student =`` or '', its file name), the one student it names: by
    index, and the files matching nobody or several students with the reason. ``columns``: the
    roster's id columns, as its header names them. The files' names are gathered first, then each
    roster id is compared (as :func:`lms_name` writes it) once, with a look-up among
    them: linear work, and only the students some file names are kept aside."""
    tries = [tried(student, file) for student, file in names]
    wanted = set().union(*tries)
    index: dict[str, list[int]] = {}
    for k, s in enumerate(roster):
        for key in Student.keys(s):  # (each id once, compared as the files are)
            if key in wanted:
                index.setdefault(key, []).append(k)
    found: dict[int, Student] = {}
    missing: list[tuple[int, str]] = []
    # the columns compared, as the export names them (a Moodle export has an ID number, not an SIS id)
    if columns is None:
        columns = list(dict.fromkeys(c for s in roster for c in s.ids))
    by = ", ".join(columns)
    for i, keys in enumerate(tries):
        hits = [roster[k] for k in sorted({k for t in keys for k in index.get(t, ())})]
        if len(hits) == 1:
            found[i] = hits[0]
        elif not hits:
            missing.append((i, f"matches no student of the roster (by {by})"))
        else:
            missing.append((i, f"matches {len(hits)} students of the roster ({', '.join(s.name for s in hits[:3])})"))
    return found, missing


def moodle_column(students: list[Student]) -> str:
    """The column Moodle's import finds ``students`` by: the one of :data:`MOODLE_IDS` most of them have,
    then the one whose cells need no apostrophe (an ID number ``=1+0`` is written ``'=1+0``, which the
    import does not find) for the most of them, then the earlier (``ID number`` when there are none)."""
    from .cells import safe_cell

    def rank(column: str) -> tuple[int, int, int]:
        values = [v for s in students if (v := s.ids.get(column, "").strip())]
        return len(values), sum(safe_cell(v) == v for v in values), -MOODLE_IDS.index(column)

    return max(MOODLE_IDS, key=rank)


def _moodle_unplaced(found: dict[int, Student]) -> dict[int, str]:
    """The matched students Moodle's import could not find: one column identifies every row
    (:func:`moodle_column`), and the students without it get no row (an empty identifying cell would stop
    the import), each with the reason."""
    students = list(found.values())
    if not students:
        return {}
    column = moodle_column(students)
    return {
        i: f"the roster's student {printable(s.name)} has no {column}, the column the other rows go by (Moodle's "
        "import finds every row's user by one column, and stops at an empty one)"
        for i, s in found.items()
        if not s.ids.get(column, "").strip()
    }


def _canvas_unplaced(found: dict[int, Student]) -> dict[int, str]:
    """The matched students whose row would carry no id Canvas's import reads (matched by an Integration ID
    alone): Canvas would take the row for a new student, so it gets none, with the reason."""
    return {
        i: f"the roster's student {printable(s.name)} has no ID, SIS User ID or SIS Login ID (only an Integration "
        "ID, which Canvas's gradebook import does not read)"
        for i, s in found.items()
        if not any(s.ids.get(c, "").strip() for c in CANVAS_IDS[:3])
    }


def on_roster(
    entries: list[Any], path: str, layout: str, limit: int | None, shown: Callable[[str], str] = str
) -> tuple[list[Any], list[Student], int]:
    """The gradebook entries the roster names and their students, in order, and how many files it did
    not place; each of those is said on standard error, one line each, and gets no row (Canvas would add
    it as a new student, and Moodle would stop the import at it). ``shown``: how a file name is printed."""
    names = [(e.student or "", e.answers) for e in entries]
    roster = read_roster(path, layout, limit, set().union(*(tried(*n) for n in names)))
    found, unmatched = match(names, roster.students, roster.columns)
    # Moodle exports no Username by default: a class named by login matches nobody, and the line says why
    hint = ""
    if layout == "moodle" and "Username" not in roster.columns:
        hint = (
            " (this export has no Username column, Moodle's default: add it under the export's user fields, or name "
            "the files by ID number or email)"
        )
    for i, why in (_moodle_unplaced(found) if layout == "moodle" else _canvas_unplaced(found)).items():
        del found[i]
        unmatched.append((i, why))
    for i, why in sorted(unmatched):
        extra = hint if why.startswith("matches no student") else ""
        sys.stderr.write(f"attncalc: {shown(entries[i].answers)}: {why}; no row for it{extra}\n")
    return [e for i, e in enumerate(entries) if i in found], [found[i] for i in sorted(found)], len(unmatched)
