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
from collections.abc import Callable, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ProblemError, printable
from .cells import moodle_misread, safe_cell
from .roster_csv import CANVAS_IDS, MOODLE_IDS, Lines, count_lines, read_text, separator
from .roster_rows import MAX_CELL, Rows, Student, lms_name
from .roster_shared import named_students

__all__ = ["MAX_CELL", "Roster", "Student", "lms_name", "match", "moodle_column", "on_roster", "read_roster", "tried"]


@dataclass(frozen=True)
class Roster:
    """The students of an export, and the id columns its header has (in the order they are tried)."""

    students: list[Student]
    columns: list[str]
    header: list[str]  # (as the export writes it: Canvas's custom columns and assignments are compared so)


def read_roster(path: str, layout: str, limit: int | None, wanted: Set[str]) -> Roster:
    """The students of a Canvas or Moodle gradebook export (``layout``) some answers file names, or bad
    input naming the file. ``limit``: the largest file read, in bytes (``--max-file-size``; default 20 MB);
    ``wanted``: the names the answers files go by, as :func:`lms_name` writes them. Only the students some
    file names are kept, each without the ids several students share
    (:func:`attncalc.reports.roster_shared.named_students`): a large export is never held as a list of
    students."""
    text = read_text(path, limit or 20_000_000)
    count_lines(text, path)
    sep = separator(text, path, layout)
    header = next(csv.reader(Lines(text), delimiter=sep))
    head = [h.strip() for h in header]
    columns = CANVAS_IDS if layout == "canvas" else MOODLE_IDS
    present = [c for c in columns if c in head]
    twice = sorted({c for c in (*columns, "Student", "First name", "Last name") if head.count(c) > 1})
    if twice:  # which copy identifies the student? (the two readers took different ones)
        raise ProblemError(path, "--roster", f"the column {twice[0]!r} appears twice in the header: keep one")
    return Roster(named_students(Rows(text, sep, head, present, layout, path), wanted, path), present, header)


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
            missing.append((i, f"matches {len(hits)} students of the roster ({', '.join(map(shown, hits[:3]))})"))
    return found, missing


def moodle_column(students: list[Student]) -> str:
    """The column Moodle's import finds ``students`` by: the one of :data:`MOODLE_IDS` that finds the most
    of them (a cell present and written as it is: an ID number ``=1+0`` is written ``'=1+0``, which the
    import does not find), then the one most of them have, then the earlier (``ID number`` when there are
    none)."""

    def rank(column: str) -> tuple[int, int, int]:
        values = [v for s in students if (v := s.ids.get(column, "")).strip()]
        return sum(moodle_misread(v) is None for v in values), len(values), -MOODLE_IDS.index(column)

    return max(MOODLE_IDS, key=rank)


def shown(s: Student) -> str:
    """The roster's student as a list names them: their name, or (a name cell left empty) "the student with
    the SIS User ID S1", by their first id."""
    return printable(s.name) if s.name else f"the {_student(s)}"


def _student(s: Student) -> str:
    """``student NAME``, or ``student with the COLUMN ID`` for a student whose name cell is empty."""
    if s.name:
        return f"student {printable(s.name)}"
    c, v = next(((c, v) for c, v in s.ids.items() if v.strip()), ("id", ""))
    return f"student with the {c} {printable(v)}"


def _moodle_unplaced(found: dict[int, Student]) -> dict[int, str]:
    """The matched students Moodle's import could not find: one column identifies every row
    (:func:`moodle_column`), and the students without it, or whose cell in it would be written with an
    apostrophe, get no row (Moodle's import stops the whole import at a user it cannot find, and an empty
    cell puts the row's grades on the row before), each with the reason."""
    students = list(found.values())
    if not students:
        return {}
    column = moodle_column(students)
    out = {}
    for i, s in found.items():
        value = s.ids.get(column, "")
        if not value.strip():
            out[i] = (
                f"the roster's {_student(s)} has no {column}, the column the other rows go by (Moodle's import "
                "finds every row's user by one column, and stops at an empty one)"
            )
        elif why := moodle_misread(value):
            out[i] = (
                f"the roster's {column} {printable(value)!r} {why}: Moodle's import would not find the user and would "
                "stop the whole import (or give the grade to another): enter this grade by hand"
            )
    return out


def _canvas_unplaced(found: dict[int, Student]) -> dict[int, str]:
    """The matched students whose row would carry no id Canvas's import finds (matched by an Integration ID
    alone, or every id it reads would be written with an apostrophe, as a spreadsheet formula's): Canvas
    would take the row for a new student, so it gets none, with the reason."""
    out = {}
    for i, s in found.items():
        read = [v for c in ("ID", "SIS User ID", "SIS Login ID") if (v := s.ids.get(c, "").strip())]  # (its order)
        if not read:
            out[i] = (
                f"the roster's {_student(s)} has no ID, SIS User ID or SIS Login ID (only an Integration ID, "
                "which Canvas's gradebook import does not read)"
            )
        elif all(safe_cell(v) != v for v in read):
            out[i] = (
                f"every id of the roster's {_student(s)} that Canvas's import reads ({', '.join(map(printable, read))}) "
                "begins as a spreadsheet formula does: written with an apostrophe first (so that no spreadsheet runs "
                "it), Canvas would not find the student and would take the row for a new one: enter this grade by hand"
            )
    return out


def on_roster(
    entries: list[Any],
    path: str,
    layout: str,
    limit: int | None,
    shown: Callable[[str], str] = str,
    assignment: str | None = None,
) -> tuple[list[Any], list[Student], int]:
    """The gradebook entries the roster names and their students, in order, and how many files it did
    not place; each of those is said on standard error, one line each, and gets no row (Canvas would add
    it as a new student, and Moodle would stop the import at it). ``shown``: how a file name is printed;
    ``assignment``: the score column's title, refused where Canvas's import would put it on another
    column than the roster shows (:func:`attncalc.reports.canvas_columns.canvas_assignment`)."""
    names = [(e.student or "", e.answers) for e in entries]
    roster = read_roster(path, layout, limit, set().union(*(tried(*n) for n in names)))
    if layout == "canvas" and assignment is not None:
        import unicodedata

        from .canvas_columns import canvas_assignment

        written = safe_cell(unicodedata.normalize("NFC", assignment))  # (the header cell, as the gradebook writes it)
        for note in canvas_assignment(roster.header, assignment, written, path):
            sys.stderr.write(f"attncalc: note: {printable(path)}: {note}\n")
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
