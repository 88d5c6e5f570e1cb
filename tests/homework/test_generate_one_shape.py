"""Quiz formats (moodle, qti, qti12, ilias) draw variants of one shape, so the same --seed can give the
worksheet formats other variants (a TA printing sheets and importing a quiz from "seed 11" would hand
out other problems). `generate --one-shape` draws the worksheets' variants as a quiz does, and a quiz
format says so on standard error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

COMMON = ("--count", "3", "--seed", "11")


def _files(cli: Any, out: Path, kind: str, *args: str) -> tuple[dict[str, bytes], str]:
    result = cli("generate", "--out", str(out), "--kind", kind, *COMMON, *args)
    assert result.exit_code == 0, result.output
    names = sorted(out.glob("variant-*.toml")) + sorted((out / "answers").glob("*.toml"))
    assert len(names) == 6
    return {str(p.relative_to(out)): p.read_bytes() for p in names}, result.stderr


@pytest.mark.parametrize("kind", ["accounting", "moe"])
def test_one_shape_worksheets_are_the_quizs_variants(cli: Any, tmp_path: Path, kind: str) -> None:
    quiz, note = _files(cli, tmp_path / "quiz", kind, "--format", "moodle")
    sheets, quiet = _files(cli, tmp_path / "sheets", kind, "--format", "markdown", "--one-shape")
    assert sheets == quiz
    assert "--one-shape" in note and "quiz formats draw variants of one shape" in note
    assert "note:" not in quiet


def test_without_it_the_worksheets_of_a_seed_can_differ_and_the_quiz_says_so(cli: Any, tmp_path: Path) -> None:
    # the tryout's case: accounting, seed 11 (the quiz draws one shape: other configurations)
    quiz, note = _files(cli, tmp_path / "quiz", "accounting", "--format", "qti")
    sheets, quiet = _files(cli, tmp_path / "sheets", "accounting", "--format", "markdown")
    assert sheets != quiz
    assert "--one-shape" in note and "note:" not in quiet


def test_the_note_is_one_line_and_only_for_quiz_formats(cli: Any, tmp_path: Path) -> None:
    for fmt in ("moodle", "qti", "qti12", "ilias"):
        _, err = _files(cli, tmp_path / fmt, "softmax", "--format", fmt)
        assert len([ln for ln in err.splitlines() if "one shape" in ln]) == 1
    for fmt in ("markdown", "newquizzes"):  # newquizzes: a quiz per variant, any shape
        _, err = _files(cli, tmp_path / fmt, "softmax", "--format", fmt)
        assert "one shape" not in err
    _, err = _files(cli, tmp_path / "both", "softmax", "--format", "moodle", "--one-shape")
    assert "one shape" not in err  # asked for: nothing to warn of
