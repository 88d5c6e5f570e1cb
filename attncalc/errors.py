"""Error types raised by the library; only the CLI turns them into messages and exit codes."""

from __future__ import annotations

NOT_PRINTABLE = "a character that is not printable text (a control or format character, a bidirectional mark, a space other than ' ')"


# ZERO WIDTH NON-JOINER and ZERO WIDTH JOINER: format characters (Cf) that are part of how a name is
# written in Persian (می‌خواهم), Kurdish, Hindi and other Indic scripts, and of emoji sequences
JOINERS = frozenset("\u200c\u200d")


def unprintable(ch: str) -> bool:
    """The one definition of a character that is not printable text, for what is refused (a student's
    name, an answers file's name as one) and what is escaped (:func:`printable`, the downloaded TOML,
    the gradebook's cells, the notes on stderr): every character ``str.isprintable`` refuses but the
    two :data:`JOINERS`. That is the controls (newlines, ANSI escapes), the format characters (the
    bidirectional marks and overrides U+061C, U+200E, U+202E, U+2066..., the zero-width U+200B, U+2060,
    U+FEFF, the soft hyphen U+00AD, the tags U+E0000...), lone surrogates, private-use and unassigned
    code points, the line and paragraph separators, and every space but ``" "`` (U+00A0, U+3000): each
    either invisible, reorders or hides what is around it, or looks like something it is not.

    U+200C and U+200D are printable text wherever they stand: they reorder nothing and hide nothing,
    only join or part the characters beside them, and a name written in those scripts needs them (an
    escaped ``\u200c`` in the gradebook is a misspelt name). Allowing them only between two letters
    would not stop them making two Latin names differ unseen (``al\u200cice`` is between letters), so
    the one rule is kept simple; two names that differ only by them are one student to the gradebook's
    duplicate note (:func:`attncalc.reports.gradebook.duplicates`)."""
    return not ch.isprintable() and ch not in JOINERS


def escape(ch: str) -> str:
    """A character as its escape: ``\\x1b``, ``\\u202e``, ``\\U000e0041`` (above U+FFFF)."""
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> bool:
    """Whether text shows anything: a character other than white space and the :data:`JOINERS` (a name of
    only a ZERO WIDTH JOINER looks empty in a gradebook)."""
    return any(not ch.isspace() and ch not in JOINERS for ch in text)


def printable(text: str, keep: str = "") -> str:
    """Text safe to show on a terminal and to keep on one line: every character that is not printable
    text (:func:`unprintable`: control characters, bidirectional marks, zero-width and other format
    characters, spaces other than " ", lone surrogates, line separators) written as its escape
    (``\\x1b``), except the characters in ``keep`` (a view keeps its own newlines)."""
    if text.isprintable() or all(ch.isprintable() or ch in JOINERS for ch in text):  # the usual case
        return text
    return "".join(escape(ch) if ch not in keep and unprintable(ch) else ch for ch in text)


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
