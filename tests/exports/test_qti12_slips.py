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


@pytest.mark.parametrize("fmt", ["qti12", "ilias", "newquizzes"])
def test_without_a_share_a_qti12_format_notes_that_slips_and_their_chains_earn_0(
    cli: Any, tmp_path: Path, fmt: str
) -> None:
    """check carries a slip's later entries at full marks; QTI 1.2 accepts the key and hand chains only: a
    TA is told so whether or not a share is asked (a note without one)."""
    result = _generate(cli, tmp_path, fmt)
    notes = [line for line in result.stderr.splitlines() if line.startswith(f"attncalc: note: --format {fmt}")]
    assert len(notes) == 1 and "the later entries worked from it earn 0 there" in notes[0], result.stderr
    assert "later entries worked from a slip earn 0" in _generate(cli, tmp_path / "s", fmt, "0.5").stderr


def test_no_such_note_where_the_format_follows_slips(cli: Any, tmp_path: Path) -> None:
    assert "earn 0 there" not in _generate(cli, tmp_path, "qti").stderr
