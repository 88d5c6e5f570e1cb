"""``generate --slip-share S`` warns where Moodle cannot give S: Moodle's answer grades are a fixed list
(``question_bank::fraction_options_full()``), so 0.55 is written as 50 % while ``check`` gives 0.55."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# Moodle's list (question/engine/bank.php, fraction_options_full), as percentages
MOODLE_PERCENT = (100, 90, 83.33333, 80, 75, 70, 66.66667, 60, 50, 40, 33.33333, 30, 25, 20, 16.66667, 14.28571,
                  12.5, 11.11111, 10, 5, 0)  # fmt: skip


def _generate(cli: Any, tmp_path: Path, fmt: str, share: str) -> Any:
    out = tmp_path / f"{fmt}-{share}"
    return cli("generate", "--out", str(out), "--count", "2", "--seed", "5", "--format", fmt, "--slip-share", share)


@pytest.mark.parametrize("fmt", ["moodle", "moodle-cloze"])
def test_a_share_moodle_cannot_give_is_warned_with_the_grade_it_will_use(cli: Any, tmp_path: Path, fmt: str) -> None:
    result = _generate(cli, tmp_path, fmt, "0.55")
    assert result.exit_code == 0, result.output
    used = max(p for p in MOODLE_PERCENT if p <= 55)  # the largest grade at most the share
    warning = [line for line in result.stderr.splitlines() if line.startswith("attncalc: warning: --slip-share")]
    assert len(warning) == 1, result.stderr
    assert f"{used:g} %" in warning[0] and "check 0.55" in warning[0], warning[0]


@pytest.mark.parametrize(("fmt", "share"), [("moodle", "0.5"), ("moodle-cloze", "0.25"), ("qti", "0.55")])
def test_no_warning_where_the_quiz_gives_the_share(cli: Any, tmp_path: Path, fmt: str, share: str) -> None:
    result = _generate(cli, tmp_path, fmt, share)
    assert result.exit_code == 0, result.output
    assert "attncalc: warning:" not in result.stderr, result.stderr
