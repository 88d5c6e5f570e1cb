"""The gradebook of ``attncalc check --format csv``: one row per answers file, for a spreadsheet or
an LMS gradebook import, in one of three layouts (``--gradebook``):

``plain`` (the default): ``file``, ``problem``, ``score``, ``out_of``, then one column per step id
(every step of the problems, in derivation order; several problems: their steps in first-seen order)
holding the verdict (``correct``, ``carried``, ``wrong``, or empty where the file did not answer it),
then ``student`` and ``error`` (why a file could not be graded; empty otherwise).

``canvas``: what Canvas's gradebook importer (``GradebookImporter#header?``) reads: ``Student``, ``ID``,
``SIS User ID``, ``SIS Login ID``, ``Section``, then one assignment column; a ``Points Possible`` row
when every graded file is out of the same points. Canvas finds a row's student by ``ID`` (its own
number, left empty), then ``SIS User ID``, then ``SIS Login ID`` (the login, often the email), then the
name in ``Student``: the student named by the answers file goes into all three.

``moodle``: what Moodle's grade import (grade/import/csv) maps: one identifying column, named as
Moodle's mapping form names the user field it holds (``Email address`` when every student is an email,
else ``ID number``), the grade (``NAME (Real)``) and the feedback (``NAME (Feedback)``), which newer
Moodle maps to the grade item called NAME by itself. A file that could not be graded has ``-`` (no
grade) and the reason as its feedback.

Every layout: one row per answers file, in the order given, a file that could not be graded included;
the student is the answers file's ``student = "..."``, else the file's name without its extension.
UTF-8 with a byte order mark (Excel on Windows reads "Müller" right), comma-separated, CRLF line ends;
a cell a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, tab or CR first, or after a
separator of any locale: ``,``, ``;``, tab, ``|``, a line break) gets an apostrophe there; a number
(``-0.5``) stays a number, and Moodle's ``-`` for "no grade" is left as it is.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from ..check.report import Report, points_text
from ..errors import printable, same_name
from .cells import NO_GRADE, moodle_safe_text
from .cells import safe_cell as _cell
from .roster import Student, moodle_column

HEAD = ("file", "problem", "score", "out_of")
TAIL = ("student", "error")
CANVAS_HEAD = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
LAYOUTS = ("plain", "canvas", "moodle")
BOM = "\ufeff"


@dataclass(frozen=True)
class Unread:
    """An answers file that could not be graded: its row says why."""

    answers: str
    reason: str
    student: str | None = None


Entry = Report | Unread


def student_of(entry: Entry) -> str:
    """Who the row is about: the file's ``student =``, else the file's name without its extension."""
    import unicodedata

    if entry.student:
        return unicodedata.normalize("NFC", entry.student)  # "jose\u0301" is written "josé", as it is matched
    stem = Path(entry.answers).stem.strip() or entry.answers  # "b9 .toml" is b9, as student = "b9 " is
    return unicodedata.normalize("NFC", stem)


def unnamed(entries: list[Entry]) -> list[str]:
    """The files that name no student (their rows use the file's name)."""
    return [e.answers for e in entries if not e.student]


def columns(reports: list[Report]) -> list[str]:
    """Every step id of the reports' problems, each once, in order."""
    return list(dict.fromkeys(s for rep in reports for s in rep.step_ids))


def _reports(entries: list[Entry]) -> list[Report]:
    return [e for e in entries if isinstance(e, Report)]


def rows(entries: list[Entry]) -> list[list[str]]:
    """The plain layout: the header and one row per entry."""
    steps = columns(_reports(entries))
    out = [[*HEAD, *steps, *TAIL]]
    for e in entries:
        if isinstance(e, Unread):
            out.append([e.answers, "", "", "", *([""] * len(steps)), student_of(e), e.reason])
            continue
        verdicts = {r.id: r.verdict for r in e.results}
        out.append(
            [e.answers, e.problem, points_text(e.score), points_text(e.out_of)]
            + [verdicts.get(s, "") for s in steps]
            + [student_of(e), ""]
        )
    return out


def common_out_of(entries: list[Entry]) -> str | None:
    """The points every graded file is out of, when they agree."""
    totals = {points_text(r.out_of) for r in _reports(entries)}
    return totals.pop() if len(totals) == 1 else None


def canvas_rows(entries: list[Entry], assignment: str, students: list[Student] | None = None) -> list[list[str]]:
    """With ``students`` (the roster's student of each entry, :mod:`attncalc.reports.roster`), the id
    columns hold the roster's own identifiers, so Canvas finds each row's student by its ``ID``."""
    out = [[*CANVAS_HEAD, assignment]]
    possible = common_out_of(entries)
    if possible is not None:
        out.append(["Points Possible", "", "", "", "", possible])
    for k, e in enumerate(entries):
        score = points_text(e.score) if isinstance(e, Report) else ""
        if students is not None:
            ids = students[k].ids
            row = [ids.get(c, "") for c in ("ID", "SIS User ID", "SIS Login ID")]
            # (as the LMS holds it, controls escaped; empty where Canvas would take the row for no student's)
            out.append([canvas_name(printable(students[k].name)), *row, "", score])
            continue
        who = student_of(e)
        out.append([canvas_name(who), "", who, who, "", score])
    return out


# what Canvas's importer takes a row for when its first cell holds it (gradebook_importer.rb,
# check_for_non_student_row: a case-sensitive match), so that a student named so would be no student
CANVAS_NOT_A_STUDENT = ("Points Possible", "Muted")


def canvas_name(who: str) -> str:
    """The Student cell: the student, or empty where the name would make Canvas skip the row (Canvas
    finds the student by the SIS Login ID column, which holds the name as it is)."""
    return "" if any(word in who for word in CANVAS_NOT_A_STUDENT) else who


def moodle_id_column(entries: list[Entry]) -> str:
    """The identifying column, named as Moodle's mapping form names the user field it holds."""
    # the files that were graded decide it: an unreadable file (a student's, perhaps) never changes the
    # column every other student is matched by
    graded = [e for e in entries if not isinstance(e, Unread)] or entries
    return "Email address" if graded and all(_email(student_of(e)) for e in graded) else "ID number"


def feedback(rep: Report) -> str:
    s = rep.summary
    if not rep.results:  # a blank submission (every answer "?", or none): a student who answered nothing
        return f"{points_text(rep.score)} / {points_text(rep.out_of)}: nothing answered"
    text = f"{points_text(rep.score)} / {points_text(rep.out_of)}: {s['correct']} correct, {s['carried']} carried, {s['wrong']} wrong"
    return text + (f"; first wrong step {rep.first_error}" if rep.first_error else "")


def moodle_rows(entries: list[Entry], assignment: str, students: list[Student] | None = None) -> list[list[str]]:
    """With ``students`` (the roster's student of each entry), the identifying column is the roster's
    ``ID number`` (or its ``Email address``, where some student has no ID number, else its ``Username``),
    as Moodle exported it: one every student has (:func:`attncalc.reports.roster.on_roster` leaves out
    the others)."""
    column = moodle_id_column(entries) if students is None else moodle_column(students)
    out = [[column, f"{assignment} (Real)", f"{assignment} (Feedback)"]]
    for k, e in enumerate(entries):
        who = students[k].ids.get(column, "") if students is not None else student_of(e)
        if isinstance(e, Unread):
            out.append([who, NO_GRADE, moodle_safe_text(e.reason)])
        else:
            out.append([who, points_text(e.score), moodle_safe_text(feedback(e))])
    return out


def mixed_moodle_ids(entries: list[Entry]) -> bool:
    """Some students are emails and some are not: Moodle maps the column to one user field only."""
    emails = {_email(student_of(e)) for e in entries}
    return len(emails) == 2


def _email(who: str) -> bool:
    """An address: something before the @ and a dotted domain after it (@SUM(A1) is not one)."""
    local, at, domain = who.rpartition("@")
    return bool(at and local and "." in domain.strip(".") and " " not in who)


def duplicates(entries: list[Entry], students: list[Student] | None = None) -> list[tuple[str, list[str]]]:
    """The students two or more answers files name (or are named by), with those files: an LMS keeps
    one row of each, so a second file could stand in for a student's own. Compared as an LMS finds a
    student: without case, surrounding spaces and the unseen joiners U+200C, U+200D (``Alice@uni.example``
    is ``alice@uni.example``), and
    with a roster (``students``, each entry's student) by the roster's student, so a file named by a
    login and one by the same student's SIS id are one student (named as the roster names them)."""
    seen: dict[object, tuple[str, list[str]]] = {}
    for k, e in enumerate(entries):
        key: object
        if students is not None:
            who, key = students[k].name or student_of(e), (students[k].name, tuple(sorted(students[k].ids.items())))
        else:
            # the joiners U+200C and U+200D left out: printable text, but unseen (alice and alice\u200c look alike)
            who, key = student_of(e), same_name(student_of(e))
        seen.setdefault(key, (who, []))[1].append(e.answers)
    return [(who, files) for who, files in seen.values() if len(files) > 1]


def gradebook_csv(
    entries: list[Entry], layout: str = "plain", assignment: str = "attncalc", students: list[Student] | None = None
) -> str:
    """The CSV text, beginning with a byte order mark. ``students``: the roster's student of each entry
    (``check --roster``; canvas and moodle layouts)."""
    import unicodedata

    assignment = unicodedata.normalize("NFC", assignment)  # composed, as every string attncalc reads
    if layout == "canvas":
        table = canvas_rows(entries, assignment, students)
    elif layout == "moodle":
        table = moodle_rows(entries, assignment, students)
    else:
        table = rows(entries)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    for row in table:
        writer.writerow([_cell(c) for c in row])
    return BOM + buf.getvalue()
