"""What attncalc shows of text that is not printable (a name, a title, a label, on a terminal, in a
cell, in a downloaded file): each such character as its escape. The expected escapes are written here
by hand from the Unicode names of the characters, not taken from attncalc."""

from __future__ import annotations

import pytest

from attncalc.errors import printable

CASES = [
    ("a\u061cb", "a\\u061cb"),  # ARABIC LETTER MARK (a bidirectional mark; was shown raw)
    ("a\u200eb\u202ec\u2066d", "a\\u200eb\\u202ec\\u2066d"),  # LRM, RLO, LRI
    ("a\u200bb", "a\\u200bb"),  # ZERO WIDTH SPACE
    ("a\u2060b", "a\\u2060b"),  # WORD JOINER
    ("\ufeffab", "\\ufeffab"),  # ZERO WIDTH NO-BREAK SPACE (BOM)
    ("a\u00adb", "a\\xadb"),  # SOFT HYPHEN
    ("a\U000e0041b", "a\\U000e0041b"),  # TAG LATIN CAPITAL LETTER A (above U+FFFF: eight digits)
    ("a\ue000b", "a\\ue000b"),  # private use
    ("a\u0378b", "a\\u0378b"),  # unassigned
    ("a\u3000b", "a\\u3000b"),  # IDEOGRAPHIC SPACE
    ("a\u00a0b", "a\\xa0b"),  # NO-BREAK SPACE
    ("a\x1b[31mb", "a\\x1b[31mb"),  # an ANSI escape
    ("a b\u00e9\u0986\u09be\u09ae\u09bf", "a b\u00e9\u0986\u09be\u09ae\u09bf"),  # a space, letters, Bengali: kept
]


@pytest.mark.parametrize(("text", "shown"), CASES)
def test_every_character_that_is_not_printable_text_is_escaped(text: str, shown: str) -> None:
    assert printable(text) == shown
