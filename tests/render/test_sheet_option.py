"""--sheet question/answers with the text or JSON view: refused (exit 2, one line), never answers printed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS

DOT = str(PROBLEMS / "decoder-dot.toml")


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("sheet", ["question", "answers"])
def test_question_and_answers_sheets_are_refused_for_text_and_json(
    cli: Any, tmp_path: Path, fmt: str, sheet: str
) -> None:
    """The decoder document's weights (1/(1+2e) = 0.155, e/(1+2e) = 0.422) must not appear; exit 2."""
    result = cli("solve", DOT, "-f", fmt, "--sheet", sheet)
    assert result.exit_code == 2
    assert result.stdout == ""
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and f"--sheet {sheet}" in err and "markdown" in err
    assert "0.155" not in result.output and "0.422" not in result.output
    out = tmp_path / "x.out"
    assert cli("solve", DOT, "-f", fmt, "--sheet", sheet, "-o", str(out)).exit_code == 2
    assert not out.exists()


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_solution_sheet_is_the_text_and_json_view(cli: Any, fmt: str) -> None:
    """--sheet solution (the default) with text/JSON is the full derivation, as before."""
    result = cli("solve", DOT, "-f", fmt, "--sheet", "solution")
    assert result.exit_code == 0 and "0.155" in result.stdout
