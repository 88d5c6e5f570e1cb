"""The problem a class is graded against comes only from the grader: a student's file, found in a
folder of submissions or sorting first among `subs/*.toml`, is never taken for it.

A student could drop a problem-shaped file (`kind = ...`, their own numbers, an `[answers]` table)
named to sort first: `check --problems hw subs/*.toml` took it for PROBLEM and graded the whole class
against it. Now such a file is refused as an answers file (its row says why) and the rest are graded
against the problem each names.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from ..helpers import one_line_refusal

PROBLEM = 'kind = "attention"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2], [1, 1]]\n'
# by hand: the true scores s_i = q·k_i = [1·1 + 1·0, 1·0 + 1·2, 1·1 + 1·1] = [1, 2, 2]
TRUE = "scores = [1, 2, 2]\n"
# the student's own key: keys [[5, 0], [0, 5], [1, 1]] give q·k_i = [5, 5, 2]
FORGED = (
    'kind = "attention"\nstudent = "mallory"\n[given]\nquery = [1, 1]\nkeys = [[5, 0], [0, 5], [1, 1]]\n'
    "[answers]\nscores = [5, 5, 2]\n"
)
REFUSED = "a problem file, not an answers file"


def _rows(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout.lstrip("\ufeff"))))


@pytest.fixture
def klass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """hw/p.toml, the grader's problem; subs/: alice (the true scores), bob (the forged key's scores),
    and 0000.toml, a student's problem file that sorts first."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hw").mkdir()
    (tmp_path / "hw" / "p.toml").write_text(PROBLEM, encoding="utf-8")
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "0000.toml").write_text(FORGED, encoding="utf-8")
    (subs / "alice.toml").write_text(f'problem = "p.toml"\nstudent = "alice"\n{TRUE}', encoding="utf-8")
    (subs / "bob.toml").write_text('problem = "p.toml"\nstudent = "bob"\nscores = [5, 5, 2]\n', encoding="utf-8")
    return tmp_path


def _graded_against_hw(result: Any) -> None:
    """Every student's row graded against hw/p.toml (alice right, bob wrong), the forged file's row refused."""
    assert result.exit_code == 2, result.output  # the refused file counts as one that could not be read
    rows = {r["student"]: r for r in _rows(result.stdout)}
    assert rows["alice"]["problem"] == "hw/p.toml" and rows["alice"]["scores"] == "correct"
    assert rows["bob"]["problem"] == "hw/p.toml" and rows["bob"]["scores"] == "wrong"
    assert rows["mallory"]["score"] == "" and REFUSED in rows["mallory"]["error"]
    assert "subs/0000.toml" not in {r["problem"] for r in rows.values()}
    assert "Traceback" not in result.output


@pytest.mark.parametrize("given", [["subs/0000.toml", "subs/alice.toml", "subs/bob.toml"], ["subs"], ["subs/"]])
def test_a_student_file_is_never_the_key_with_problems(cli: Any, klass: Path, given: list[str]) -> None:
    """`subs/*.toml` as the shell expands it, and the folder itself."""
    result = cli("check", "--problems", "hw", *given, "--format", "csv")
    _graded_against_hw(result)
    assert "graded against subs/0000.toml" not in result.stderr
    assert result.stderr.count(REFUSED) == 1


@pytest.mark.parametrize("layout", ["canvas", "moodle"])
def test_a_student_file_is_never_the_key_in_an_lms_gradebook(cli: Any, klass: Path, layout: str) -> None:
    result = cli("check", "--problems", "hw", "subs", "--format", "csv", "--gradebook", layout)
    assert result.exit_code == 2 and REFUSED in result.stderr
    lines = result.stdout.lstrip("\ufeff").splitlines()
    score = {"canvas": -1, "moodle": 1}[layout]
    # alice right and bob wrong: graded against hw/p.toml (against the forged key it is the other way)
    alice = next(next(csv.reader([x])) for x in lines if "alice" in x)
    bob = next(next(csv.reader([x])) for x in lines if "bob" in x)
    assert float(alice[score]) > float(bob[score])


def test_a_folder_is_answers_files_without_problems(cli: Any, klass: Path) -> None:
    """Without --problems, a folder given first is answers files too: its first file is no key. (Each
    file's problem = is then read in its own folder, where p.toml is not: those rows are refused too.)"""
    result = cli("check", "subs", "--format", "csv")
    rows = {r["student"]: r for r in _rows(result.stdout)}
    assert result.exit_code == 2 and REFUSED in rows["mallory"]["error"]
    assert all(r["problem"] != "subs/0000.toml" and r["score"] == "" for r in rows.values())
    assert "graded against subs/0000.toml" not in result.stderr


def test_the_documented_forms_keep_their_problem(cli: Any, klass: Path) -> None:
    """PROBLEM typed first: graded against it, with or without --problems (inside the --problems folder),
    before a folder of answers too."""
    for args in (
        ["hw/p.toml", "subs/alice.toml"],
        ["--problems", "hw", "hw/p.toml", "subs/alice.toml"],
        ["hw/p.toml", "subs/alice.toml", "subs/bob.toml"],
    ):
        result = cli("check", *args, "--format", "csv")
        rows = {r["student"]: r for r in _rows(result.stdout)}
        assert rows["alice"]["problem"] == "hw/p.toml" and rows["alice"]["scores"] == "correct", result.output
    result = cli("check", "hw/p.toml", "subs", "--format", "csv")
    rows = {r["student"]: r for r in _rows(result.stdout)}
    assert rows["alice"]["scores"] == "correct" and rows["bob"]["scores"] == "wrong"
    assert REFUSED in rows["mallory"]["error"]  # a problem file among the answers, never graded as one


def test_a_problem_outside_the_problems_folders_is_no_key_for_others(cli: Any, klass: Path) -> None:
    """With --problems, a problem file outside the --problems folders grades only its own [answers]
    when given alone (a report of it; the documented `check PROBLEM`); in a gradebook, or with files
    after it, it is refused (it would give a student full marks, or grade others)."""
    (klass / "own.toml").write_text(FORGED.replace('student = "mallory"\n', ""), encoding="utf-8")
    alone = cli("check", "--problems", "hw", "own.toml", "-f", "json")
    assert alone.exit_code == 0, alone.output  # its own answers, against its own numbers: no one else's
    line = one_line_refusal(cli("check", "--problems", "hw", "subs/0000.toml", "-f", "csv"), "subs/0000.toml")
    assert REFUSED in line and "--problems folder" in line
    result = cli("check", "--problems", "hw", "subs/0000.toml", "subs/alice.toml", "-f", "json")
    data = json.loads(result.stdout)  # (a class: 0000.toml not read, alice graded against the set's problem)
    assert result.exit_code == 2 and REFUSED in result.stderr, result.stderr
    assert [(s["answers"], s["problem"]) for s in data["submissions"]] == [("subs/alice.toml", "hw/p.toml")]
    assert [u["answers"] for u in data["not_read"]] == ["subs/0000.toml"] and REFUSED in data["not_read"][0]["reason"]
    text = cli("check", "--problems", "hw", "subs/0000.toml", "subs/alice.toml").stdout
    assert "subs/0000.toml   not read: a problem file" in text and "; 1 not read" in text, text


def test_a_folder_without_answers_files_is_refused(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("not an answers file", encoding="utf-8")
    line = one_line_refusal(cli("check", str(tmp_path / "empty")), "empty")
    assert "no answers files" in line
