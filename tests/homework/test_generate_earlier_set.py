"""`generate --force` over a folder holding an earlier set names the earlier set's files it did not
replace. The hostile tryout 28 wrote a 2-variant attention quiz (`quiz.xml`) over a seq2seq quiz written as
`quiz-1.xml`, `quiz-2.xml`, and a 2-variant set over a 3-variant one: the old quiz files and
`variant-03.toml` (and its key) stayed, without a word, and `check --problems` graded a student's file
naming `variant-03.toml` against the old variant.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _generate(cli: Any, out: Path, *args: str) -> str:
    result = cli("generate", "--out", str(out), "--kind", "softmax", "--seed", "3", *args)
    assert result.exit_code == 0, result.output
    return str(result.stderr)


def test_fewer_variants_over_more_name_the_old_variants(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "hw"
    assert "earlier set" not in _generate(cli, out, "--count", "3")
    (out / "notes.txt").write_text("the TA's own file\n")  # (not a set's name: never named, never touched)
    said = _generate(cli, out, "--count", "2", "--force")
    lines = [line for line in said.splitlines() if "earlier set" in line]
    assert len(lines) == 1
    assert lines[0].startswith(
        f"attncalc: note: {out} still holds 2 files of an earlier set that this run did not write "
        "(variant-03.toml, answers/variant-03.toml): remove them"
    )
    assert (out / "variant-03.toml").exists() and (out / "notes.txt").read_text() == "the TA's own file\n"  # kept


def test_another_format_names_the_old_quiz_and_sheets(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "hw"
    _generate(cli, out, "--count", "2", "--format", "html")
    said = _generate(cli, out, "--count", "2", "--format", "moodle", "--force")
    (line,) = [line for line in said.splitlines() if "earlier set" in line]
    # the HTML sheets (the Moodle set writes Markdown sheets beside quiz.xml); the variants were rewritten
    assert "(answers.html, questions.html, solutions.html)" in line
    said = _generate(cli, out, "--count", "2", "--format", "moodle", "--force")  # the same set again
    (line,) = [line for line in said.splitlines() if "earlier set" in line]
    assert "3 files" in line  # the HTML sheets are still there; nothing of this set is named
    assert "quiz.xml" not in line and "variant-0" not in line


def test_the_same_set_again_says_nothing(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "hw"
    _generate(cli, out, "--count", "2")
    assert "earlier set" not in _generate(cli, out, "--count", "2", "--force")
