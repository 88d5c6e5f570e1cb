"""Error types raised by the library; only the CLI turns them into messages and exit codes."""

from __future__ import annotations

import unicodedata

_BIDI = {0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def printable(text: str, keep: str = "") -> str:
    """Text safe to show on a terminal and to keep on one line: control characters (newlines, ANSI
    escapes), lone surrogates, line separators and bidirectional overrides written as escapes
    (``\\x1b``), except the characters in ``keep`` (a view keeps its own newlines)."""

    def one(ch: str) -> str:
        code = ord(ch)
        if ch not in keep and (code in _BIDI or unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp")):
            return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
        return ch

    if text.isprintable():  # the usual case: nothing to do
        return text
    return "".join(one(ch) for ch in text)


def shorten(text: str, limit: int = 60) -> str:
    """A value quoted in a message, cut to ``limit`` characters (a file may hold a megabyte-long string)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class AttncalcError(Exception):
    """Base class for every error attncalc reports to a person instead of a traceback."""

    exit_code = 2


class ProblemError(AttncalcError):
    """A problem file (or an option standing in for one) is unusable.

    The message always names the file and the key, e.g.
    ``problems/x.toml: given.query: expected a vector, got a table``.
    """

    def __init__(self, file: str, key: str, message: str) -> None:
        self.file = file
        self.key = key
        self.message = message
        where = f"{printable(file)}: {printable(shorten(key))}" if key else printable(file)
        super().__init__(f"{where}: {printable(message)}")


class NumberSyntaxError(ValueError):
    """A string in a number field does not follow attncalc's number grammar."""


class ArgumentError(ProblemError, TypeError):
    """A call of the Python API with a keyword it does not take (``attncalc.check(p, rtoll=0.1)``), or
    with arguments that do not fit its signature: named with a close keyword, if any. A TypeError too,
    as Python's own error for such a call is, so code that caught TypeError still does."""
