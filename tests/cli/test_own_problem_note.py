"""A gradebook's file that names another problem, graded against the PROBLEM given first, gets
that note once, also when it answers nothing (it was graded twice then, and said twice)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ..helpers import PROBLEMS


def test_the_own_problem_note_is_said_once(cli: Any, tmp_path: Path) -> None:
    shutil.copy(PROBLEMS / "decode-top-k.toml", tmp_path / "other.toml")
    blank = tmp_path / "blank.toml"
    blank.write_text('problem = "other.toml"\nscores = ["?", "?", "?"]\n', encoding="utf-8")
    some = tmp_path / "some.toml"
    some.write_text('problem = "other.toml"\nscores = [1, 2, 2]\n', encoding="utf-8")
    result = cli(
        "check", str(PROBLEMS / "decoder-dot.toml"), str(blank), str(some), "-f", "csv", "--gradebook", "plain"
    )
    assert result.exit_code in (0, 1), result.output
    for f in (blank, some):
        notes = [line for line in result.stderr.splitlines() if f"{f} names another problem (problem =)" in line]
        assert len(notes) == 1, result.stderr
