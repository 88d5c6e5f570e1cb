"""A blank submission in the gradebook (`check --format csv`): an answers file that answers nothing
(every step "?", or no step at all) is a student who scored 0 of the total, with a note on stderr;
it does not make the run exit 2. Alone and outside a gradebook it is still refused (exit 2). And
`check --format csv -o -` writes the gradebook to standard output, as `solve -o -` does."""

from __future__ import annotations

import csv
import io
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS

DOT = PROBLEMS / "decoder-dot.toml"
# every step of the decoder document, as its answer key lists them (problems/answers/decoder-dot.toml);
# the problem has no [grading] table, so each step is worth 1 point (docs/interface.md, [grading])
STEPS = [k for k in tomllib.loads((PROBLEMS / "answers" / DOT.name).read_text()) if k != "problem"]
RIGHT = "weights = [0.155, 0.422, 0.422]\n"  # softmax([1, 2, 2]) rounded to 3 decimals by hand


def _file(folder: Path, name: str, student: str, body: str) -> str:
    path = folder / name
    path.write_text(f'problem = "{DOT.name}"\nstudent = "{student}"\n{body}', encoding="utf-8")
    return str(path)


@pytest.fixture
def klass(tmp_path: Path) -> list[str]:
    folder = tmp_path / "subs"
    folder.mkdir()
    return [
        _file(folder, "carol.toml", "carol", RIGHT),
        _file(folder, "alice.toml", "alice", 'scores = ["?", "?", "?"]\nexp_sum = "?"\n'),
        _file(folder, "bob.toml", "bob", ""),
        _file(folder, "dan.toml", "dan", "[answers]\n"),
    ]


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff"), newline="")))


def _book(cli: Any, files: list[str], layout: str) -> tuple[Any, list[list[str]]]:
    result = cli("check", "--problems", str(PROBLEMS), *files, "--format", "csv", "--gradebook", layout)
    return result, _rows(result.stdout)


def test_step_count_is_the_problems() -> None:
    assert len(STEPS) == 9  # scores ... prediction: the document's nine steps


def test_plain_blank_files_score_zero_of_the_total(cli: Any, klass: list[str]) -> None:
    result, rows = _book(cli, klass, "plain")
    assert result.exit_code == 0, result.output  # carol's one answer is right; the blanks add nothing wrong
    head = rows[0]
    by_student = {r[head.index("student")]: r for r in rows[1:]}
    assert set(by_student) == {"carol", "alice", "bob", "dan"}
    for name in ("alice", "bob", "dan"):
        row = by_student[name]
        assert float(row[head.index("score")]) == 0.0
        assert float(row[head.index("out_of")]) == len(STEPS)
        assert row[head.index("error")] == ""
        assert all(row[head.index(s)] == "" for s in STEPS)  # no step answered
    assert float(by_student["carol"][head.index("score")]) == 1.0
    for name in ("alice.toml", "bob.toml", "dan.toml"):
        notes = [ln for ln in result.stderr.splitlines() if name in ln]
        assert len(notes) == 1 and "nothing answered" in notes[0] and f"0 / {len(STEPS)}" in notes[0]
        assert "error" not in notes[0]


def test_canvas_blank_score_is_zero_not_empty(cli: Any, klass: list[str]) -> None:
    result, rows = _book(cli, klass, "canvas")
    assert result.exit_code == 0, result.output
    assert rows[1][0] == "Points Possible" and float(rows[1][-1]) == len(STEPS)
    scores = {r[0]: r[-1] for r in rows[2:]}
    assert {k: float(v) for k, v in scores.items()} == {"carol": 1.0, "alice": 0.0, "bob": 0.0, "dan": 0.0}


def test_moodle_blank_grade_is_zero_not_no_grade(cli: Any, klass: list[str]) -> None:
    result, rows = _book(cli, klass, "moodle")
    assert result.exit_code == 0, result.output
    grades = {r[0]: r[1] for r in rows[1:]}
    assert grades["alice"] != "-" and float(grades["alice"]) == 0.0
    assert float(grades["bob"]) == 0.0 and float(grades["dan"]) == 0.0
    feedback = {r[0]: r[2] for r in rows[1:]}
    assert feedback["alice"] == f"0 / {len(STEPS)}: nothing answered"  # not a reason it could not be graded


def test_unreadable_file_still_exits_two_beside_a_blank(cli: Any, klass: list[str], tmp_path: Path) -> None:
    broken = tmp_path / "subs" / "eve.toml"
    broken.write_text("weights = [0.1,\n", encoding="utf-8")  # not TOML
    result, rows = _book(cli, [*klass, str(broken)], "moodle")
    assert result.exit_code == 2
    assert rows[-1][1] == "-"  # the unreadable file keeps "no grade"
    assert float(rows[2][1]) == 0.0  # alice, blank: 0


def test_blank_file_alone_outside_a_gradebook_is_refused(cli: Any, klass: list[str]) -> None:
    for path in klass[1:3]:
        result = cli("check", "--problems", str(PROBLEMS), path)
        assert result.exit_code == 2
        assert Path(path).name in result.stderr and "Traceback" not in result.output


def test_csv_dash_output_is_standard_output(
    cli: Any, klass: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--problems", str(PROBLEMS), klass[0], "--format", "csv", "-o", "-")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "-").exists()
    rows = _rows(result.stdout)
    assert rows[0][:4] == ["file", "problem", "score", "out_of"] and float(rows[1][2]) == 1.0
    assert "wrote" not in result.stderr


@pytest.mark.parametrize("written", ['""', "5", '"   "'])
def test_a_file_refused_for_its_problem_key_keeps_its_students_row(cli: Any, tmp_path: Path, written: str) -> None:
    """problem = "" (or a number) with student = "s19": the row was named by the file name "a", so the
    LMS could not place the student's failed submission; it is the student's row, with the reason."""
    import csv
    import io

    (tmp_path / "a.toml").write_text(f'problem = {written}\nstudent = "s19"\nscores = [1, 2, 2]\n', encoding="utf-8")
    result = cli("check", "--problems", str(PROBLEMS), str(tmp_path / "a.toml"), "-f", "csv", "--gradebook", "moodle")
    assert result.exit_code == 2
    rows = list(csv.reader(io.StringIO(result.stdout.lstrip("\ufeff"))))
    assert rows[1][0] == "s19" and "problem" in rows[1][2]
