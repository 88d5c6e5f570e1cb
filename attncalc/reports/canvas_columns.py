"""How Canvas's gradebook import reads the score column's title (canvas-lms
``app/models/gradebook_importer.rb``, read for this module):

* ``process_custom_column_headers`` takes any header cell equal to one of the course's custom column
  titles (``Notes``) for that column: its cells become each student's text there, replacing it;
* ``strip_non_assignment_columns`` drops a column whose title holds one of its totals
  (:data:`CANVAS_NOT_ASSIGNMENTS`), and ``GRADEBOOK_IMPORTER_RESERVED_NAMES`` are the student columns
  (:data:`CANVAS_RESERVED`);
* ``parse_assignments`` splits a title as ``Assignment.title_and_id`` does (``/\\A(.*)\\s\\((\\d+)\\)\\z/``)
  and finds the assignment by that id first, then by the whole title, else creates one.

Its export (``lib/gradebook_exporter.rb``) writes the student columns up to ``Section``, then the custom
columns by title, the assignments as ``Title (id)`` and the totals: so a roster's header says which
titles would land on another assignment or on a custom column (:func:`canvas_assignment`).
"""

from __future__ import annotations

import re
import unicodedata

from ..errors import ProblemError, printable

CANVAS_NOT_ASSIGNMENTS = (
    "Current Score", "Current Points", "Current Grade", "Final Score", "Final Points", "Final Grade",
    "Override Score", "Override Grade", "Override Status",
)  # fmt: skip
CANVAS_RESERVED = ("Student", "LastName", "FirstName", "ID", "SIS User ID", "SIS Login ID", "Section",
                   "Integration ID", "Root Account")  # fmt: skip
CANVAS_TOTALS = re.compile("|".join(CANVAS_NOT_ASSIGNMENTS))

# Assignment.title_and_id, in Ruby's terms: \s and \d are ASCII there, and . is anything but a line break
_TITLE_AND_ID = re.compile(r"([^\n]*)[ \t\n\v\f\r]\(([0-9]+)\)")


def title_and_id(cell: str) -> tuple[str, int | None]:
    """A header cell as Canvas's import splits it: ``("Homework 3", 1234)`` for ``Homework 3 (1234)``
    (the id read as Ruby's to_i does: ``(007)`` is 7), ``(cell, None)`` without an id in parentheses."""
    m = _TITLE_AND_ID.fullmatch(cell)
    return (m[1], int(m[2])) if m else (cell, None)


def roster_columns(header: list[str]) -> tuple[dict[int, list[str]], list[str]]:
    """The export's assignment columns by id (each as the header writes it) and its custom columns'
    titles: the cells after ``Section`` that are no total, split by whether they read as ``Title (id)``
    (an assignment, as the export writes every one) or not (a custom column, written by its title)."""
    cells = [unicodedata.normalize("NFC", c) for c in header]
    after = next((k + 1 for k, c in enumerate(cells) if c.strip() == "Section"), len(cells))
    assignments: dict[int, list[str]] = {}
    custom: list[str] = []
    for cell in cells[after:]:
        if not cell.strip() or CANVAS_TOTALS.search(cell):
            continue
        key = title_and_id(cell)[1]
        if key is None:
            custom.append(cell)
        else:
            assignments.setdefault(key, []).append(cell)
    return assignments, custom


def canvas_assignment(header: list[str], assignment: str, written: str, path: str) -> list[str]:
    """Refuse (bad input naming the roster and ``--assignment``) a score column Canvas's import would put
    somewhere else than the roster shows: on a custom column, on another assignment found by the id in
    parentheses, or on one of several assignments of that title. ``assignment``: the title given;
    ``written``: its header cell as the gradebook writes it (an apostrophe before a formula's). The notes
    to say, for an id the roster does not show."""
    assignments, custom = roster_columns(header)
    given = unicodedata.normalize("NFC", assignment)

    def refuse(message: str) -> ProblemError:
        return ProblemError(path, "--assignment", f"{printable(given)!r}: {message}")

    if written in custom:
        raise refuse(
            "the title of a custom column of the roster: Canvas's import would put the scores into that column "
            "(each student's text there replaced) and grade no assignment; give the assignment's column as the "
            "roster's header writes it (Title (id)), or another title"
        )
    if any(given in cells for cells in assignments.values()):
        return []  # the roster's own column: the assignment it names
    title, key = title_and_id(written)
    if key is not None and key in assignments:
        raise refuse(
            f"Canvas's import finds an assignment by the id in parentheses first, and {key} is the roster's "
            f"{printable(assignments[key][0])!r}, whose grades these would replace; to grade that assignment, give "
            f"--assignment as that column is written; for another, a title without ({key})"
        )
    if key is not None:
        return [
            f"--assignment {printable(given)!r}: the roster has no assignment {key}: Canvas's import grades the "
            f"course's assignment {key} if it has one (an export of the current view may leave it out), else one "
            f"titled {printable(written)!r}, else creates the assignment {printable(title)!r}"
        ]
    same = [cells[0] for cells in assignments.values() if title_and_id(cells[0])[0] == written]
    if len(same) > 1:
        shown = ", ".join(repr(printable(c)) for c in same[:3]) + (", ..." if len(same) > 3 else "")
        raise refuse(
            f"{len(same)} of the roster's assignments have this title ({shown}): Canvas's import would grade one "
            "of them; give the one to grade as the roster's header writes it (Title (id))"
        )
    return []
