"""How `attncalc check` finds the problem an answers file belongs to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

PROBLEM = 'kind = "attention"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2], [1, 1]]\n'


def test_problem_on_the_command_line_wins_over_the_answers_files_own(cli: Any, tmp_path: Path) -> None:
    """check P ANSWERS grades against P even when ANSWERS names another (here missing) problem."""
    (tmp_path / "p.toml").write_text(PROBLEM, encoding="utf-8")
    # scores by hand: s·h_i = [1, 2, 2]; weights e^e_i / sum
    w = np.exp([1.0, 2.0, 2.0]) / np.exp([1.0, 2.0, 2.0]).sum()
    answers = tmp_path / "sub" / "a.toml"
    answers.parent.mkdir()
    answers.write_text(
        f'problem = "../missing/nowhere.toml"\nscores = [1, 2, 2]\nweights = [{w[0]:.3f}, {w[1]:.3f}, {w[2]:.3f}]\n',
        encoding="utf-8",
    )
    result = cli("check", str(tmp_path / "p.toml"), str(answers), "--format", "json")
    assert result.exit_code == 0, result.output
    assert "nowhere" not in result.stdout and json.loads(result.stdout)["summary"]["correct"] == 2
    # ...and says so, since the two may disagree, without repeating the path the file wrote
    assert result.stderr.startswith(
        f"attncalc: note: {answers} names a problem not found in its folder (problem =); graded against "
    )
    assert "nowhere" not in result.stderr and result.stderr.count("\n") == 1


def test_no_note_when_the_answers_file_names_the_same_problem(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(PROBLEM, encoding="utf-8")
    (tmp_path / "a.toml").write_text('problem = "p.toml"\nscores = [1, 2, 2]\n', encoding="utf-8")
    result = cli("check", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"))
    assert result.exit_code == 0 and result.stderr == ""


def test_an_answers_file_naming_no_problem_says_how_to_name_one(cli: Any, tmp_path: Path) -> None:
    """check ANSWERS without problem = and without PROBLEM: one line saying the problem is missing, exit 2."""
    answers = tmp_path / "answers.toml"
    answers.write_text("scores = [1, 2, 2]\nweights = [0.155, 0.422, 0.422]\n", encoding="utf-8")
    result = cli("check", str(answers))
    assert result.exit_code == 2
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1
    assert str(answers) in err and "no problem named" in err
    assert 'problem = "path/to/problem.toml"' in err and "attncalc check PROBLEM ANSWERS" in err
    assert "unknown key" not in err and "Traceback" not in result.output


def test_a_problem_file_missing_its_kind_still_says_so(cli: Any, tmp_path: Path) -> None:
    """A problem file without kind (it has [given]) keeps its own message, not the answers one."""
    p = tmp_path / "p.toml"
    p.write_text(PROBLEM.replace('kind = "attention"\n', ""), encoding="utf-8")
    result = cli("check", str(p))
    assert result.exit_code == 2 and "kind: missing" in result.stderr
