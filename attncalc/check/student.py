"""An answers file's ``student =``: who handed it in (an id, an email or a login), as a gradebook names
them; read by :func:`attncalc.check.answers.answers_of_table`."""

from __future__ import annotations

from typing import Any

from ..errors import NOT_PRINTABLE, NOT_SHOWN, ProblemError, escape, hidden, unprintable, visible

STUDENT_MAX = 200  # characters of a student = (an id, an email or a login)


def student_of(value: Any, file: str) -> str | None:
    """``student = "..."``: who handed the file in (an id, an email or a login), as a gradebook names them."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        value = str(value)  # student = 12345 (TOML reads a bare id as a number)
    if not isinstance(value, str) or not visible(value):  # blank, or only joiners: no name anyone can see
        raise ProblemError(file, "student", 'expected the student\'s id, email or login as text: student = "s1234567"')
    # only plain spaces are trimmed: a tab, CR, no-break or ideographic space at an end is refused below as
    # anywhere else (stripped, "\t=1" and "\u3000=1" became one student "=1")
    text: str = value.strip(" ")
    bad = next((ch for ch in text if hidden(ch)), None)
    if len(text) > STUDENT_MAX or bad is not None:
        what = NOT_PRINTABLE if bad is None or unprintable(bad) else NOT_SHOWN
        found = f": it has {what}, {escape(bad)}" if bad is not None else ""
        raise ProblemError(
            file,
            "student",
            f"expected one line of at most {STUDENT_MAX} printable characters (an id, email or login){found}",
        )
    return text
