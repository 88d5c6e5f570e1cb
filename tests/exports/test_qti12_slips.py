"""QTI 1.2 gives a number full marks or none (Canvas classic's ranges, ILIAS's one range, New Quizzes'
answers with a margin): a named slip ``check`` gives the ``--slip-share`` earns 0 there, and ``generate``
says so in one warning line on standard error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def _generate(cli: Any, tmp_path: Path, fmt: str, *share: str) -> Any:
    out = tmp_path / fmt
    args = ("generate", "--kind", "attention", "--out", str(out), "--count", "1", "--seed", "5", "--format", fmt)
    return cli(*args, *(("--slip-share", *share) if share else ()))


@pytest.mark.parametrize("fmt", ["qti12", "ilias", "newquizzes"])
def test_a_slip_share_with_a_qti12_format_is_warned_once(cli: Any, tmp_path: Path, fmt: str) -> None:
    result = _generate(cli, tmp_path, fmt, "0.5")
    assert result.exit_code == 0, result.output
    warning = [line for line in result.stderr.splitlines() if line.startswith("attncalc: warning:")]
    assert len(warning) == 1, result.stderr
    assert f"--format {fmt} gives a named slip 0" in warning[0] and "check gives it 0.5" in warning[0], warning[0]


@pytest.mark.parametrize(("fmt", "share"), [("qti12", ()), ("qti12", ("0",)), ("qti", ("0.5",)), ("moodle", ("0.5",))])
def test_no_such_warning_without_a_share_or_where_the_format_gives_it(
    cli: Any, tmp_path: Path, fmt: str, share: tuple[str, ...]
) -> None:
    result = _generate(cli, tmp_path, fmt, *share)
    assert result.exit_code == 0, result.output
    assert "attncalc: warning:" not in result.stderr, result.stderr


def test_ilias_notes_that_a_slips_later_entries_earn_0_without_a_share(cli: Any, tmp_path: Path) -> None:
    """check carries a slip's later entries at full marks; ILIAS keeps one range a number (the key's), so a
    TA is told even without a share; Canvas's formats list those values (no note needed there)."""
    notes = [
        line
        for line in _generate(cli, tmp_path, "ilias").stderr.splitlines()
        if "attncalc: note: --format ilias" in line
    ]
    assert len(notes) == 1 and "the later entries worked from it earn 0 too" in notes[0], notes
    for fmt in ("qti12", "newquizzes", "qti"):
        assert "earn 0" not in _generate(cli, tmp_path / fmt, fmt).stderr
    warned = _generate(cli, tmp_path / "s", "qti12", "0.5").stderr
    assert "the later entries worked from it are accepted, as check carries them, where 4 or more" in warned
