"""Error types raised by the library; only the CLI turns them into messages and exit codes."""

from __future__ import annotations

from typing import Any

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


# Unicode's Default_Ignorable_Code_Point, from DerivedCoreProperties.txt of Unicode 15.1.0 (unchanged
# since 14.0, which added U+180F): code points a renderer shows as nothing when it has no glyph for
# them. Python's unicodedata has no such property. Most are format characters (Cf), which
# :func:`unprintable` refuses already; the rest are letters and marks that str.isprintable takes
# (U+034F COMBINING GRAPHEME JOINER, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the Khmer
# inherent vowels U+17B4..U+17B5, the variation selectors U+180B..U+180D, U+180F, U+FE00..U+FE0F,
# U+E0100..U+E01EF) and unassigned code points set aside for such use.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
NOT_SHOWN = (
    "a character that shows nothing (Unicode's Default_Ignorable_Code_Point: a filler, a variation selector, U+034F; "
    "or the braille blank U+2800)"
)


# characters drawn as nothing that Unicode does not list as ignorable: the braille blank U+2800 (a symbol
# whose pattern has no dots), often used as an "invisible" name
# (U+2800), the object replacement character U+FFFC and the musical null notehead U+1D159
BLANK_GLYPHS = frozenset({"\u2800", "\ufffc", "\U0001d159"})


def ignorable(ch: str) -> bool:
    """Whether ``ch`` is a Default_Ignorable_Code_Point (:data:`DEFAULT_IGNORABLE`)."""
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in DEFAULT_IGNORABLE)


def hidden(ch: str) -> bool:
    """A character a name may not hold: not printable text (:func:`unprintable`), or one that shows
    nothing (:func:`ignorable`) other than the two :data:`JOINERS` a script needs."""
    return unprintable(ch) or ch in BLANK_GLYPHS or (ch not in JOINERS and ignorable(ch))


def escape(ch: str) -> str:
    """A character as its escape: ``\\x1b``, ``\\u202e``, ``\\U000e0041`` (above U+FFFF)."""
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> bool:
    """Whether text shows anything: a character other than white space, the :data:`JOINERS` and the
    other characters that show nothing (:func:`ignorable`: a name of only a ZERO WIDTH JOINER, or of the
    Hangul filler U+3164, looks empty in a gradebook)."""
    import unicodedata

    return any(
        not ch.isspace()
        and ch not in JOINERS
        and ch not in BLANK_GLYPHS
        and not ignorable(ch)
        and not unicodedata.category(ch).startswith("M")  # a combining mark alone is drawn on nothing
        for ch in text
    )


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

    student: str | None = None  # an answers file's student = where it was read before the file was refused

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


def same_name(text: str) -> str:
    """A name as an LMS looks a student up: composed (NFC: "jose\u0301" is "josé"), without case or the
    spaces at its ends, the two JOINERS left out (names differing only by them are one student)."""
    import unicodedata

    return unicodedata.normalize("NFC", text).replace("\u200c", "").replace("\u200d", "").strip().casefold()


def composed(value: Any, file: str | None = None, where: str = "") -> Any:
    """Every string of a file's table (keys too) in Unicode's composed form (NFC), as labels, words and
    answers are compared: "cafe\u0301" is "café" wherever it is written. Two keys of one table that are
    one key composed (a word written both ways in a bpe ``words`` table) are refused as a repeated key
    is: ProblemError naming ``file`` and the key (one would silently replace the other)."""
    import unicodedata

    if isinstance(value, str):
        return value if value.isascii() else unicodedata.normalize("NFC", value)
    if isinstance(value, list):
        return [composed(v, file, where) for v in value]
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for k, v in value.items():
            key = composed(k)
            at = f"{where}.{key}" if where else str(key)
            if key in out:
                raise ProblemError(
                    file or "<input>",
                    at,
                    "appears twice in the same table (written once composed and once decomposed: "
                    "the same characters in Unicode's NFC); keep one",
                )
            out[key] = composed(v, file, at)
        return out
    return value


NOT_TEXT = "not Unicode text (a lone surrogate such as \\ud800)"


def is_text(text: str) -> bool:
    """Whether ``text`` is Unicode text that can be written (no lone surrogate such as \\ud800, which JSON's
    escapes and undecodable form bytes can hold, and no TOML file can)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def all_text(value: Any) -> bool:
    """Whether every string of ``value`` (a list's, a table's keys and values too) :func:`is_text`."""
    if isinstance(value, str):
        return is_text(value)
    if isinstance(value, list):
        return all(all_text(v) for v in value)
    if isinstance(value, dict):
        return all(is_text(str(k)) and all_text(v) for k, v in value.items())
    return True
