"""``student =`` and ``--assignment`` must show something and may not hide characters at their ends: a
name of only a ZERO WIDTH JOINER looked empty in a Canvas row, and a tab, CR, no-break or ideographic
space at the start was stripped ("\\t=1" and "\\u3000=1" became one student "=1") where the docs say such
a character is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from attncalc.check.answers import read_answers
from attncalc.errors import ProblemError

from ..helpers import PROBLEMS


def _file(tmp_path: Path, student: str) -> Path:
    path = tmp_path / "a.toml"
    path.write_text(f'student = "{student}"\nweights = [0.155, 0.422, 0.422]\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("student", ["\\u200d", "\\u200c\\u200d", " \\u200d "])
def test_a_name_of_only_joiners_is_refused(tmp_path: Path, student: str) -> None:
    with pytest.raises(ProblemError, match="student: expected the student's id"):
        read_answers(_file(tmp_path, student), None)


@pytest.mark.parametrize("student", ["\\t=1", "\\r=1", "\\u00a0=1", "\\u3000=1", "bob\\u3000"])
def test_a_hidden_character_at_an_end_is_refused_not_stripped(tmp_path: Path, student: str) -> None:
    with pytest.raises(ProblemError, match="student: expected one line of at most"):
        read_answers(_file(tmp_path, student), None)


@pytest.mark.parametrize(("student", "name"), [("  ann  ", "ann"), ("می\\u200cخواهم", "می\u200cخواهم")])
def test_plain_spaces_are_trimmed_and_a_joiner_inside_a_name_kept(tmp_path: Path, student: str, name: str) -> None:
    assert read_answers(_file(tmp_path, student), None)[2] == name


def test_an_assignment_of_only_a_joiner_is_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answers = _file(tmp_path, "ann")
    result = cli("check", str(PROBLEMS / "decoder-dot.toml"), str(answers), "--format", "csv",
                 "--gradebook", "canvas", "--assignment", "\u200d")  # fmt: skip
    assert result.exit_code == 2 and "--assignment" in result.stderr


# Default_Ignorable_Code_Point (Unicode 15.1.0 DerivedCoreProperties.txt) letters and marks that
# str.isprintable takes: Hangul fillers, a Khmer inherent vowel, variation selectors
SHOW_NOTHING = ["\u3164", "\u115f", "\u1160", "\uffa0", "\u17b4", "\u180b", "\ufe0f", "\U000e0100"]


@pytest.mark.parametrize("ch", SHOW_NOTHING, ids=[f"U+{ord(c):04X}" for c in SHOW_NOTHING])
def test_a_name_that_shows_nothing_is_refused(tmp_path: Path, ch: str) -> None:
    with pytest.raises(ProblemError, match="student: expected the student's id"):
        read_answers(_file(tmp_path, f"\\U{ord(ch):08x} \\u200d"), None)


@pytest.mark.parametrize("ch", ["\u034f", "\u3164", "\ufe0f"])
def test_a_character_that_shows_nothing_inside_a_name_is_refused(tmp_path: Path, ch: str) -> None:
    with pytest.raises(ProblemError, match=r"student: .*shows nothing.*\\u" + f"{ord(ch):04x}"):
        read_answers(_file(tmp_path, f"a\\u{ord(ch):04x}b"), None)


def test_a_file_named_by_a_filler_is_no_gradebook_row(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "inv"
    folder.mkdir()
    (folder / "\u3164.toml").write_text("weights = [0.155, 0.422, 0.422]\n", encoding="utf-8")
    (folder / "ann.toml").write_text("weights = [0.155, 0.422, 0.422]\n", encoding="utf-8")
    result = cli("check", str(PROBLEMS / "decoder-dot.toml"), str(folder / "\u3164.toml"), str(folder / "ann.toml"),
                 "--format", "csv", "--gradebook", "canvas")  # fmt: skip
    assert "\u3164" not in result.stdout
    assert "shows nothing" in result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if line.strip()]
    assert any(line.startswith("ann,") or ",ann," in line for line in rows)


@pytest.mark.parametrize("student", ["\\u2800", "\\u0301", "\\u2800\\u0301"])
def test_a_blank_glyph_or_a_lone_combining_mark_is_no_name(tmp_path: Path, student: str) -> None:
    """The braille blank U+2800 (a symbol, not Default_Ignorable) and a combining mark with nothing to sit
    on are drawn as nothing: refused as a name of fillers is."""
    with pytest.raises(ProblemError, match="student: expected the student's id"):
        read_answers(_file(tmp_path, student), None)


def test_a_blank_glyph_inside_a_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ProblemError, match=r"student: .*shows nothing.*\\u2800"):
        read_answers(_file(tmp_path, "a\\u2800b"), None)


@pytest.mark.parametrize("title", ["\u2800", " Homework 3", "Homework 3 "])
def test_an_assignment_blank_or_with_a_space_at_an_end_is_refused(cli, tmp_path: Path, title: str) -> None:  # type: ignore[no-untyped-def]
    answers = _file(tmp_path, "ann")
    result = cli("check", str(PROBLEMS / "decoder-dot.toml"), str(answers), "--format", "csv",
                 "--gradebook", "canvas", "--assignment", title)  # fmt: skip
    assert result.exit_code == 2 and "--assignment" in result.stderr, result.stderr
