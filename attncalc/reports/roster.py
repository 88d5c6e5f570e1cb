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
import io
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ProblemError, same_name

# the columns that identify a student, as each LMS names them, in the order they are tried
CANVAS_IDS = ("SIS User ID", "SIS Login ID", "ID", "Integration ID")
MOODLE_IDS = ("ID number", "Email address", "Username")


@dataclass(frozen=True)
class Student:
    name: str
    ids: dict[str, str] = field(default_factory=dict)  # column -> value, as the export writes them

    def keys(self) -> set[str]:
        return {same_name(v) for v in self.ids.values() if v.strip()}


def read_roster(path: str, layout: str, limit: int | None = None) -> list[Student]:
    """The students of a Canvas or Moodle gradebook export (``layout``), or bad input naming the file;
    ``limit``: the largest file read, in bytes (``--max-file-size``; default 20 MB)."""
    from ..files import read_input

    limit = limit or 20_000_000
    try:  # a regular file, or the shell's pipe (<(...)); never a device, a FIFO or a folder; at most limit bytes
        data = read_input(path, limit, pipe=True)
    except ProblemError as exc:
        message = exc.message.replace("not a problem file", "not a regular file")
        message = f"larger than {limit:,} bytes" if message.startswith("is larger than") else message
        raise ProblemError(path, "--roster", message) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ProblemError(path, "--roster", "not UTF-8 text (export the gradebook as CSV in UTF-8)") from None
    # Moodle's plain-text export separates by comma, tab, semicolon or colon, as the teacher picks: the
    # header line's most frequent of them (a Canvas export: commas)
    first = text.split("\n", 1)[0]
    sep = max((",", "\t", ";", ":"), key=lambda c: (first.count(c), c == ","))
    rows = list(csv.reader(io.StringIO(text), delimiter=sep))
    if not rows:
        raise ProblemError(path, "--roster", "empty: expected the LMS's gradebook export (CSV)")
    head = [h.strip() for h in rows[0]]
    wanted = CANVAS_IDS if layout == "canvas" else MOODLE_IDS
    present = [c for c in wanted if c in head]
    twice = sorted({c for c in (*wanted, "Student", "First name", "Last name") if head.count(c) > 1})
    if twice:  # which copy identifies the student? (the two readers took different ones)
        raise ProblemError(path, "--roster", f"the column {twice[0]!r} appears twice in the header: keep one")
    if layout == "canvas" and not ({"Student", "LastName"} & set(head) and present):
        raise ProblemError(
            path,
            "--roster",
            "not a Canvas gradebook export: its header has no Student and ID, SIS User ID or SIS Login ID",
        )
    if layout == "moodle" and not ("First name" in head and present):
        raise ProblemError(
            path, "--roster", "not a Moodle grade export: its header has no First name and ID number or Email address"
        )
    out = []
    for row in rows[1:]:
        cells = dict(zip(head, row, strict=False))
        if layout == "canvas":
            first = cells.get("Student", cells.get("LastName", ""))
            no_id = not any(cells.get(c, "").strip() for c in present)
            if not first.strip() or (first.strip() == "Points Possible" and no_id):
                continue  # the Points Possible row, the Manual Posting row (no student: no id)
            name = first if "Student" in cells else f"{cells.get('FirstName', '')} {first}".strip()
        else:
            name = f"{cells.get('First name', '')} {cells.get('Last name', '')}".strip()
        ids = {c: cells.get(c, "") for c in present}
        if any(v.strip() for v in ids.values()):
            out.append(Student(name, ids))
    return _unshared(out, path)


def _unshared(students: list[Student], path: str) -> list[Student]:
    """An id two students of the roster share (Moodle does not make ID numbers unique) identifies neither:
    it is left out of both (a file is then matched by another id, and the row is written by another
    column), with a note, never a grade put on the other student's row."""
    from collections import Counter

    from ..errors import printable

    seen = Counter((c, same_name(v)) for s in students for c, v in s.ids.items() if v.strip())
    shared = {k for k, n in seen.items() if n > 1}
    for c, v in sorted(shared):
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: the {c} {printable(v)} is two students' of the roster: "
            "it identifies neither (they are matched and written by another id)\n"
        )
    if not shared:
        return students
    return [Student(s.name, {c: v for c, v in s.ids.items() if (c, same_name(v)) not in shared}) for s in students]


def match(names: list[tuple[str, str]], roster: list[Student]) -> tuple[dict[int, Student], list[tuple[int, str]]]:
    """For each answers file (its ``student =`` or '', its file name), the one student it names: by
    index, and the files matching nobody or several students with the reason."""
    found: dict[int, Student] = {}
    missing: list[tuple[int, str]] = []
    # the columns compared, as the export names them (a Moodle export has an ID number, not an SIS id)
    columns = list(dict.fromkeys(c for s in roster for c in s.ids))
    by = ", ".join(columns) if columns else "login, email or SIS id"
    for i, (student, file) in enumerate(names):
        tried = [same_name(t) for t in (student, Path(file).stem) if t and t.strip()]
        hits = [s for s in roster if s.keys() & set(tried)]
        if len(hits) == 1:
            found[i] = hits[0]
        elif not hits:
            missing.append((i, f"matches no student of the roster (by {by})"))
        else:
            missing.append((i, f"matches {len(hits)} students of the roster ({', '.join(s.name for s in hits[:3])})"))
    return found, missing


def on_roster(
    entries: list[Any], path: str, layout: str, limit: int | None, shown: Callable[[str], str] = str
) -> tuple[list[Any], list[Student], int]:
    """The gradebook entries the roster names and their students, in order, and how many files it did
    not place; each of those is said on standard error, one line each, and gets no row (Canvas would add
    it as a new student, and Moodle would stop the import at it). ``shown``: how a file name is printed."""
    roster = read_roster(path, layout, limit)
    found, unmatched = match([(e.student or "", e.answers) for e in entries], roster)
    # Moodle exports no Username by default: a class named by login matches nobody, and the line says why
    hint = ""
    if layout == "moodle" and roster and not any("Username" in s.ids for s in roster):
        hint = (
            " (this export has no Username column, Moodle's default: add it under the export's user fields, or name "
            "the files by ID number or email)"
        )
    for i, why in unmatched:
        extra = hint if why.startswith("matches no student") else ""
        sys.stderr.write(f"attncalc: {shown(entries[i].answers)}: {why}; no row for it{extra}\n")
    return [e for i, e in enumerate(entries) if i in found], [found[i] for i in sorted(found)], len(unmatched)
