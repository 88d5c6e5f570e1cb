"""ZERO WIDTH NON-JOINER (U+200C) and ZERO WIDTH JOINER (U+200D) are printable text: a Persian name
such as می‌خواهم, a Hindi one, an emoji sequence need them, and they were shown escaped (`\\u200c`) in
the gradebook and the notes. The bidirectional controls stay escaped or refused. The characters below
are written by their code points, from the Unicode names, not taken from attncalc.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from attncalc.errors import printable, unprintable

from ..helpers import PROBLEMS

ZWNJ, ZWJ = "\u200c", "\u200d"
# می‌خواهم ("I want"): MEEM, FARSI YEH, ZWNJ, KHAH, WAW, ALEF, HEH, MEEM
PERSIAN = "\u0645\u06cc" + ZWNJ + "\u062e\u0648\u0627\u0647\u0645"
# Devanagari KA, VIRAMA, ZWJ, SSA (the half form of KA); WOMAN, ZWJ, PERSONAL COMPUTER (one emoji)
HINDI = "\u0915\u094d" + ZWJ + "\u0937"
EMOJI = "\U0001f469" + ZWJ + "\U0001f4bb"
BIDI = [
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u061c",
    "\u200e",
    "\u200f",
]


@pytest.mark.parametrize("text", [PERSIAN, HINDI, EMOJI, ZWNJ, "a" + ZWJ])
def test_the_joiners_are_printable_text(text: str) -> None:
    assert printable(text) == text
    assert not unprintable(ZWNJ) and not unprintable(ZWJ)


@pytest.mark.parametrize("mark", BIDI)
def test_the_bidirectional_controls_are_still_escaped(mark: str) -> None:
    assert unprintable(mark)
    assert printable(PERSIAN + mark + "x") == PERSIAN + f"\\u{ord(mark):04x}" + "x"
    assert printable(ZWJ + mark) == ZWJ + f"\\u{ord(mark):04x}"  # beside a joiner too


def _rows(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout.lstrip("\ufeff"))))


@pytest.fixture
def subs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


def _answers(folder: Path, name: str, student: str | None) -> None:
    who = f'student = "{student}"\n' if student is not None else ""
    # by hand: q·k_i = [1·1 + 1·0, 1·0 + 1·2, 1·1 + 1·1] = [1, 2, 2]
    (folder / name).write_text(f'problem = "p.toml"\n{who}scores = [1, 2, 2]\n', encoding="utf-8")


def test_a_persian_name_is_shown_as_written_in_the_gradebook_and_the_notes(cli: Any, subs: Path) -> None:
    _answers(subs, "a.toml", PERSIAN)  # student = with a ZWNJ
    _answers(subs, f"{PERSIAN}.toml", None)  # named by a file name with a ZWNJ
    result = cli("check", "a.toml", f"{PERSIAN}.toml", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = _rows(result.stdout)
    assert [r["student"] for r in rows] == [PERSIAN, PERSIAN]
    assert rows[1]["file"] == f"{PERSIAN}.toml"
    assert "\\u200c" not in result.stdout and "\\u200c" not in result.stderr
    assert f"({PERSIAN}.toml)" in result.stderr  # the note naming the files that name no student
    # two files of one student: the note names the student as written
    assert f"the student {PERSIAN} (a.toml, {PERSIAN}.toml)" in result.stderr
    moodle = cli("check", "a.toml", "--format", "csv", "--gradebook", "moodle", "--assignment", f"HW {PERSIAN}")
    assert moodle.exit_code == 0 and f"HW {PERSIAN} (Real)" in moodle.stdout and PERSIAN + "," in moodle.stdout


def test_names_that_differ_only_by_a_joiner_are_one_student(cli: Any, subs: Path) -> None:
    """A joiner is unseen in a Latin name: alice and alice+ZWNJ get the note for two files of one student."""
    _answers(subs, "a.toml", "alice")
    _answers(subs, "b.toml", "alice" + ZWNJ)
    result = cli("check", "a.toml", "b.toml", "--format", "csv")
    assert "2 answers files are the student alice (a.toml, b.toml)" in result.stderr


def test_a_name_with_an_override_is_still_escaped_or_refused(cli: Any, subs: Path) -> None:
    rlo = "\u202e"
    _answers(subs, "r.toml", "ab" + rlo + "c")  # student = with U+202E: refused
    _answers(subs, f"x{rlo}{ZWNJ}y.toml", None)  # a file name with U+202E: refused as a student, escaped
    _answers(subs, "ok.toml", PERSIAN)
    result = cli("check", "ok.toml", "r.toml", f"x{rlo}{ZWNJ}y.toml", "--format", "csv")
    assert result.exit_code == 2
    assert rlo not in result.stdout and rlo not in result.stderr
    rows = _rows(result.stdout)
    assert rows[0]["student"] == PERSIAN
    assert "student" in rows[1]["error"] and "\\u202e" in rows[1]["error"]
    assert rows[2]["file"] == f"x\\u202e{ZWNJ}y.toml" and rows[2]["score"] == ""
