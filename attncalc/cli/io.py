"""Helpers of the command line: the one-line error, the output streams, the files it reads and writes.

Kept apart from :mod:`attncalc.cli` (the commands and their options) and as cheap to import:
everything heavy is imported inside the functions.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import typer


def fail(message: str, code: int = 2) -> NoReturn:
    """Print the one-line error (control characters written as escapes) and exit with code (2: bad input)."""
    from ..errors import printable

    sys.stderr.write(f"attncalc: error: {printable(message)}\n")
    raise typer.Exit(code)


def utf8_output() -> None:
    """Write UTF-8 whatever the locale, and a character it cannot hold (a lone surrogate read from a
    JSON file) as "?" instead of failing halfway through the output."""
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a stream that cannot switch keeps its encoding
                reconfigure(encoding="utf-8", errors="replace")


def max_bytes(value: str | None) -> int | None:
    """--max-file-size: "4M", "512K" or a number of bytes."""
    if value is None:
        return None
    from ..files import parse_size

    try:
        return parse_size(value)
    except ValueError:
        fail(f"--max-file-size: {value!r} is not a size; write bytes, or K, M or G: 4M, 512K")


def write_output(path: str, text: str | bytes, force: bool) -> None:
    """Write text to path atomically with the umask's mode; never overwrite without force."""
    from ..errors import AttncalcError
    from ..files import write_atomic

    try:
        write_atomic(path, text, force)
    except AttncalcError as exc:
        fail(str(exc))


def pdf_name(problem: str) -> str:
    """The default PDF: the problem's name with .pdf, in the current folder."""
    name = Path(problem).name
    return str(Path(name if name not in ("", ".", "..") else "problem").with_suffix(".pdf"))


def text_view(derivations: list[Any], to_terminal: bool, width: int | None, detail: str = "first") -> str:
    if not to_terminal:
        from ..reports.exports import text_view

        return text_view(derivations, width or 100, detail)
    from rich.rule import Rule

    from ..render.console import terminal_console
    from ..render.text import TextRenderer

    console = terminal_console(width=width) if width else terminal_console()
    if not console.is_terminal:  # piped or redirected: plain text at the console's width, no padding
        from ..reports.exports import text_view as plain

        sys.stdout.write(plain(derivations, console.width, detail))
        return ""
    for k, d in enumerate(derivations):
        if len(derivations) > 1:
            console.print(Rule(f"Problem {k + 1}"))
        TextRenderer(d, detail).print(console)
    return ""


def named_problem(answers: str, written: str, folder: list[str] | None, limit: int | None, beside: bool = True) -> Any:
    """The problem an answers file names (``problem = "..."``), read only inside the answers file's
    folder or the --problems folder; any failure is one message that says nothing of what was found."""
    import dataclasses

    from ..errors import AttncalcError, ProblemError
    from ..parse import load_problem
    from .files import UNUSABLE, problem_found

    found = problem_found(answers, written, folder, beside)
    if found is None:
        raise ProblemError(answers, "problem", UNUSABLE)
    try:
        problem = load_problem(found[0], limit)
    except AttncalcError:
        raise ProblemError(answers, "problem", UNUSABLE) from None
    # named in what follows (a report, a grading error) as the answers file's folder sees it, never by the
    # real path resolved above
    return dataclasses.replace(problem, path=found[1])


def grade_one(
    path: str,
    raw: dict[str, Any],
    own_problem: str | None,
    student: str | None,
    problem: Any,
    first: str,
    limit: int | None,
    tol: Any,
    folder: list[str] | None = None,
    beside: bool = True,
) -> Any:
    """Grade one answers file: against the PROBLEM given first, else the problem the file names (read only
    inside its folder or ``folder``, the --problems folders)."""
    import dataclasses

    from ..check import check as grade
    from ..errors import printable
    from .files import problem_named, same_file

    # a PROBLEM on the command line wins: the file's own problem = is followed only without one
    if problem is not None:
        if own_problem is not None:
            own = problem_named(path, own_problem, folder)
            if own is None or not same_file(own, first):
                what = "another problem" if own is not None else "a problem not found in its folder"
                sys.stderr.write(
                    f"attncalc: note: {printable(path)} names {what} (problem =); "
                    f"graded against {printable(first)}, the PROBLEM given first\n"
                )
        return dataclasses.replace(grade(problem, raw, path, tol), student=student)
    if own_problem is None:
        from ..errors import ProblemError

        raise ProblemError(path, "problem", "this answers file names no problem; give the PROBLEM file first")
    target = named_problem(path, own_problem, folder, limit, beside)
    return dataclasses.replace(grade(target, raw, path, tol), student=student)
