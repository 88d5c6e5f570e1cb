"""``attncalc check``'s work once its options are read: the options checked against each other, every
answers file graded (a class folder's unreadable file named and skipped), and the report or gradebook
written out. The command and its options are in attncalc/cli/homework.py."""

from __future__ import annotations

import os
import sys
from typing import Any

from ..errors import NOT_PRINTABLE, NOT_SHOWN, hidden, printable, unprintable, visible
from ..reports.canvas_columns import CANVAS_NOT_ASSIGNMENTS, CANVAS_RESERVED
from ..reports.canvas_columns import CANVAS_TOTALS as _CANVAS_TOTALS
from .base import fail as _fail
from .files import PROBLEM_ONLY_KEYS, dotdot_after_a_link, first_file, key_given, not_read, problem_shaped
from .io import grade_one

# Canvas validates an assignment's title to at most 255 characters (maximum_string_length), and Moodle's
# grade item name is a varchar(255): a longer title would be cut or refused on import
MAX_ASSIGNMENT = 255


def one_roster(rosters: list[str] | None) -> str | None:
    """``--roster``, given at most once: a second one is refused, not taken over the first."""
    if rosters and len(rosters) > 1:
        _fail(f"--roster: given {len(rosters)} times; give it once (one class's gradebook export)")
    return rosters[0] if rosters else None


def refuse_mixed_options(
    csv: bool, gradebook: str | None, roster: str | None, assignment: str, problems: list[str] | None
) -> None:
    """Options that belong to another: --gradebook without --format csv, --roster or --assignment
    without a canvas or moodle gradebook; an --assignment that is no one-line title; a --problems that
    is not a folder."""
    if gradebook is not None and not csv:
        _fail("--gradebook: a layout of the CSV gradebook; add --format csv")
    if roster is not None and gradebook not in ("canvas", "moodle"):
        _fail("--roster: the class list of --gradebook canvas or moodle; add one of them (and --format csv)")
    if assignment != "attncalc" and gradebook not in ("canvas", "moodle"):
        _fail("--assignment: the score column of --gradebook canvas or moodle; add one of them")
    if not visible(assignment) or any(hidden(ch) for ch in assignment) or assignment != assignment.strip(" "):
        # as a student = is refused (a column title); a space at an end is one an LMS trims: another title
        _fail(
            f"--assignment {assignment!r}: expected the assignment's title on one line, without {NOT_PRINTABLE} "
            "(a newline, a tab, U+202E, U+00A0), a character that shows nothing, or a space at either end"
        )
    if len(assignment) > MAX_ASSIGNMENT:  # Canvas's assignment titles and Moodle's grade item names
        _fail(f"--assignment: {len(assignment):,} characters; an LMS keeps a title of at most {MAX_ASSIGNMENT}")
    if gradebook == "canvas" and _CANVAS_TOTALS.search(assignment):
        # Canvas's importer (GradebookImporter#strip_non_assignment_columns) pops trailing columns whose
        # title matches one of its totals: the score column would be dropped without a word
        _fail(
            f"--assignment {assignment!r}: Canvas reads a column titled with "
            + ", ".join(f"'{t}'" for t in CANVAS_NOT_ASSIGNMENTS)
            + " as its own total and drops it on import; give the assignment another title"
        )
    if gradebook == "canvas" and assignment.strip().casefold() in {t.casefold() for t in CANVAS_RESERVED}:
        _fail(
            f"--assignment {assignment!r}: the title of one of Canvas's student columns ("
            + ", ".join(CANVAS_RESERVED)
            + "): Canvas would read the scores from that column; give the assignment another title"
        )
    if gradebook == "moodle" and "\\" in assignment:
        _fail(
            f"--assignment {assignment!r}: Moodle's import reads the file with PHP's fgetcsv, which takes a backslash "
            "as an escape (the header would be misread); give the assignment another title"
        )
    if gradebook == "canvas":
        from ..reports.roster_rows import canvas_reads

        if canvas_reads(assignment) != assignment:  # (its CSV converter reads every cell, the header's too)
            _fail(
                f"--assignment {assignment!r}: Canvas's import reads a title made of digits, ',' and '.' as a number "
                f"({canvas_reads(assignment) or 'nothing'}), another assignment's title; give the assignment another title"
            )
    missing = [folder for folder in problems or [] if not os.path.isdir(folder)]
    if missing:
        _fail(f"--problems: {missing[0]}: not a folder")
    for folder in problems or []:  # (a `..` after a link, `subs/ev/../../hw3`: as written hw3, as followed not)
        link = dotdot_after_a_link(os.path.join(folder, "x"))
        if link is not None:
            _fail(
                f"--problems: {printable(folder)}: goes back up from the symbolic link {printable(link)}, so it is not "
                "the folder it reads as; name the folder as it is"
            )


def grade_paths(
    paths: list[str],
    folders: Any,
    limit: int | None,
    tol: Any,
    problems: list[str] | None,
    csv: bool,
    found: set[str] | None = None,
) -> tuple[list[Any], list[Any], int]:
    """The reports, the gradebook's rows (the reports and the files that could not be graded, in
    order) and how many answers files were refused (one line each on stderr). ``found``: the paths
    that came from a folder given (:func:`answers_in_folders`), answers files whatever they hold."""
    from ..check import check as grade
    from ..parse import load_problem

    reports: list[Any] = []
    entries: list[Any] = []
    problem = None
    answer_paths = paths
    # the first path is the PROBLEM only where a student's file cannot be: typed, not found in a folder,
    # and with --problems inside a --problems folder; otherwise every path is an answers file
    first = first_file(paths, limit) if key_given(paths, found or set(), problems, csv) else None
    if first is not None and "problem" not in first and not set(first) & PROBLEM_ONLY_KEYS:
        _fail(
            f'{paths[0]}: no problem named: add problem = "path/to/problem.toml" to the file, '
            "or give the problem first: attncalc check PROBLEM ANSWERS"
        )
    if first is not None and ("kind" in first or "problem" not in first):  # PROBLEM [ANSWERS...]
        problem = load_problem(paths[0], limit)
        answer_paths = paths[1:]
        if not answer_paths:
            if not problem.answers:
                _fail(f"{paths[0]}: answers: none to check; give an ANSWERS file or an [answers] table")
            reports.append(grade(problem, problem.answers, paths[0], tol, key_prefix="answers."))
            entries.append(reports[-1])
    from ..reports.gradebook import Unread

    bad = 0
    for path in answer_paths:
        # a class: several files, a gradebook, or a folder given (even of one file)
        alone = len(answer_paths) == 1 and not csv and path not in (found or set())
        linked = None if alone else not_read(path, problems, folders)
        report = _grade_file(path, folders, problem, paths[0], limit, tol, problems, alone, csv, linked)
        entries.append(report)
        if isinstance(report, Unread):
            bad += 1
        else:
            reports.append(report)
    return reports, entries, bad


def _grade_file(
    path: str,
    folders: Any,
    problem: Any,
    first: str,
    limit: int | None,
    tol: Any,
    problems: list[str] | None,
    alone: bool,
    gradebook: bool = False,
    linked: str | None = None,
) -> Any:
    """One answers file's report, or (in a class folder) the file named as unread, with the reason;
    alone, its error is raised. In a ``gradebook``, a file that names no student is named by its file
    name: one that is no printable text is refused, as a ``student =`` of such text is."""
    from ..check.answers import NothingAnswered, read_answers
    from ..check.report import points_text
    from ..errors import AttncalcError, ProblemError
    from ..reports.gradebook import Unread
    from .files import shown_path

    student = None
    name = shown_path(path, folders)
    try:
        if linked:  # (a student's link, or folder linked, to the TA's key or to files elsewhere)
            raise ProblemError(path, "", linked)
        raw, own_problem, student = read_answers(path, limit, blank=gradebook)
        if problem_shaped(raw):  # never the key, never graded as answers (its steps would be "kind", "given")
            where = " (with --problems, one inside a --problems folder)" if problems else ""
            raise ProblemError(
                path,
                "",
                "a problem file, not an answers file: the problem graded against is only one given first "
                f"on the command line{where}, never a file among the answers files",
            )
        if gradebook and student is None:
            _name_as_student(path)
        # a class of files (several, or a gradebook): a problem beside a submission is not taken
        try:
            report = grade_one(path, raw, own_problem, student, problem, first, limit, tol, problems, beside=alone)
        except NothingAnswered:  # every step "?": in a gradebook, a student who answered nothing
            if not gradebook:
                raise
            raw = {}
            # graded again with nothing: the note that the file names another problem was said already
            mine = own_problem if problem is None else None
            report = grade_one(path, raw, mine, student, problem, first, limit, tol, problems, beside=alone)
        if not raw:
            sys.stderr.write(
                f"attncalc: note: {printable(name)}: nothing answered (no step, or every entry '?'): "
                f"0 / {points_text(report.out_of)} in the gradebook\n"
            )
        return report
    except AttncalcError as exc:
        if alone:
            raise
        # a class folder: one unreadable file is named, and the others are still graded; the
        # gradebook gives it its row, with the reason
        sys.stderr.write(f"attncalc: error: {printable(str(exc))}\n")
        student = student or getattr(exc, "student", None)  # read before the file was refused
        return Unread(_shown(name), printable(str(exc).replace(path, name)), student)


def _shown(name: str) -> str:
    """A file's name as its gradebook row names it: every character a name may not hold escaped
    (``\u3164``), so that the row of a file refused for its name is never blank-looking."""
    from ..errors import escape

    return "".join(escape(ch) if hidden(ch) else ch for ch in name)


def _name_as_student(path: str) -> None:
    """A file that names no student is the gradebook's student by its file name: a control character or
    a bidirectional override (U+202E) there, raw in a cell, would reorder or hide what the grader sees,
    so the file is refused, as a ``student =`` holding one is (its row says why)."""
    from pathlib import Path

    from ..errors import ProblemError

    stem = Path(path).stem
    bad = next((ch for ch in stem if hidden(ch)), None)
    if bad is not None or not visible(stem):  # "ㅤ.toml" (U+3164): a row with a blank-looking student
        what = NOT_PRINTABLE if bad is None or unprintable(bad) else NOT_SHOWN
        raise ProblemError(
            path,
            "student",
            f"none given, and the file's name {'has ' + what if bad is not None else 'shows nothing'}, so it "
            'cannot name the student in a gradebook: add student = "..." (an id, email or login) to the file',
        )


def gradebook_text(
    entries: list[Any], layout: str, assignment: str, roster: str | None, limit: int | None
) -> tuple[str, int]:
    """The CSV gradebook, with a note on stderr for rows named by file name or for Moodle ids of two
    kinds; with a roster, only the rows it names."""
    import dataclasses

    from ..errors import AttncalcError
    from ..reports.gradebook import Unread, duplicates, gradebook_csv, mixed_moodle_ids, unnamed

    # a file's and a problem's name as printable text (a control character or U+202E escaped), as the notes say them
    entries = [
        dataclasses.replace(e, answers=printable(e.answers))
        if isinstance(e, Unread)
        else dataclasses.replace(e, answers=printable(e.answers), problem=printable(e.problem))
        for e in entries
    ]

    # a file that could not be read was named on its own line (its student = may be what was refused)
    nameless = unnamed([e for e in entries if not isinstance(e, Unread)])
    if nameless and roster is None:  # (with a roster, the roster names every row)
        names = ", ".join(printable(n) for n in nameless[:5]) + (", ..." if len(nameless) > 5 else "")
        sys.stderr.write(
            f'attncalc: note: {len(nameless)} answers file(s) name no student (student = "..."): '
            f"the gradebook names them by file name ({names})\n"
        )
    if layout == "canvas" and roster is None:
        from ..reports.gradebook import canvas_name, student_of

        for e in entries:
            if not canvas_name(student_of(e)):
                sys.stderr.write(
                    f"attncalc: note: {printable(e.answers)}: the student's name would make Canvas skip the row "
                    "('Points Possible', 'Muted'): its Student cell is left empty (SIS Login ID holds it)\n"
                )
    if layout == "moodle" and roster is None and mixed_moodle_ids(entries):
        sys.stderr.write(
            "attncalc: note: some students are emails and some are not: Moodle maps the identifying column "
            "to one user field, and stops at a row it cannot find\n"
        )
    students, unplaced = None, 0
    if roster is None:  # a student the LMS's import would not find, or would take for another: no row, a line
        entries, unplaced = _findable(entries, layout)
    if roster is not None:  # the rows the roster names, each with its student; the others on stderr
        from ..reports.roster import on_roster

        try:
            entries, students, unplaced = on_roster(entries, roster, layout, limit, printable, assignment)
        except AttncalcError as exc:
            _fail(str(exc))
    # an LMS keeps one row of a student (found without case, or the roster's student): say which files
    for who, files in duplicates(entries, students):
        shown = ", ".join(printable(f) for f in files[:5]) + (", ..." if len(files) > 5 else "")
        sys.stderr.write(
            f"attncalc: note: {len(files)} answers files are the student {printable(who)} ({shown}): "
            "each has its row, and an LMS import keeps one; check which is theirs\n"
        )
    if students is not None and layout == "canvas":  # a roster name Canvas reads as its Points Possible row
        from ..reports.gradebook import canvas_name

        skipped = list(dict.fromkeys(s.name for s in students if s.name and not canvas_name(s.name)))
        for who in skipped[:3]:  # (the first few; the others counted: a roster may hold thousands)
            sys.stderr.write(
                f"attncalc: note: the roster's student {printable(who)}: the name would make Canvas skip the row "
                "('Points Possible', 'Muted'): its Student cell is left empty (Canvas finds the student by their "
                "ID or SIS ids)\n"
            )
        if len(skipped) > 3:
            sys.stderr.write(
                f"attncalc: note: {len(skipped) - 3:,} more of the roster's students have such names: their Student "
                "cells are left empty too\n"
            )
    if layout == "moodle":
        _over_moodles_maximum(entries)
    return gradebook_csv(entries, layout, assignment, students), unplaced


# Moodle's grade import (grade/import/csv/classes/load_data.php, insert_grade_record) refuses a grade above
# 100, or above the site's gradepointmax where unlimitedgrades is on, and stops the whole import there
MOODLE_MAXIMUM = 100


def _over_moodles_maximum(entries: list[Any]) -> None:
    """A note naming the rows whose score, as written, is above :data:`MOODLE_MAXIMUM` points."""
    from ..check.report import Report, points_text

    over = [e for e in entries if isinstance(e, Report) and float(points_text(e.score)) > MOODLE_MAXIMUM]
    if not over:
        return
    top = max(over, key=lambda e: e.score)
    sys.stderr.write(
        f"attncalc: note: {len(over)} score{'s are' if len(over) > 1 else ' is'} above {MOODLE_MAXIMUM} points (the "
        f"highest, {points_text(top.score)} of {points_text(top.out_of)}, {printable(top.answers)}): Moodle's grade "
        f"import refuses a grade above {MOODLE_MAXIMUM} and stops the whole import there, unless the site allows "
        "more (Site administration > Grades > General settings: Unlimited grades, then Grade point maximum); else "
        "give the problem fewer points ([grading])\n"
    )


def _findable(entries: list[Any], layout: str) -> tuple[list[Any], int]:
    """The entries whose student the LMS's import finds as written (plain: all), and how many others there
    are; each of those is said on standard error and gets no row. Moodle: a cell it misreads would stop
    the whole import, or put the grade on another row (:func:`attncalc.reports.cells.moodle_misread`);
    Canvas: its SIS ids written with an apostrophe (a formula's) are no one's, and its CSV converter reads
    a student ``1,5`` or ``5.`` as another id (:func:`attncalc.reports.roster_rows.canvas_reads`)."""
    from ..reports.cells import moodle_misread, safe_cell
    from ..reports.gradebook import student_of
    from ..reports.roster_rows import canvas_reads

    def misread(who: str) -> str | None:
        if layout == "moodle":
            return moodle_misread(who)
        if layout != "canvas":
            return None
        if safe_cell(who) != who:
            return f"begins as a spreadsheet formula does: written {safe_cell(who)} (an apostrophe first), no one's id"
        read = canvas_reads(who)
        return None if read == who else f"is read by Canvas's import as {read or 'nothing'}, another id"

    kept = []
    lms = "Moodle" if layout == "moodle" else "Canvas"
    stops = " (and stop the whole import there)" if layout == "moodle" else ""
    for e in entries:
        if why := misread(student_of(e)):
            sys.stderr.write(
                f"attncalc: {printable(e.answers)}: the student {printable(student_of(e))!r} {why}: {lms}'s import "
                f"would not find them{stops} or would give the grade to another; no row for it\n"
            )
        else:
            kept.append(e)
    return kept, len(entries) - len(kept)
