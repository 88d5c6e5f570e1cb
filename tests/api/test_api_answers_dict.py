"""``attncalc.check(problem, dict)`` reads the dict as an answers file's table is read: ``student`` and
``problem`` are the file's keys (checked, never graded as steps), ``{"answers": {...}}`` is the table
under ``[answers]``; the same dict written to a file grades the same."""

from __future__ import annotations

from pathlib import Path

import pytest

import attncalc
from attncalc.errors import ProblemError

from ..helpers import PROBLEMS

PROBLEM = str(PROBLEMS / "decoder-dot.toml")
# decoder-dot: s = [1, 2, 2] (query [1, 1] against keys [1, 0], [0, 2], [1, 1], by hand)
SCORES = [1, 2, 2]


@pytest.mark.parametrize(
    "answers",
    [
        {"student": "alice", "scores": SCORES},
        {"student": 12345, "problem": "elsewhere.toml", "scores": SCORES},
        {"answers": {"scores": SCORES}},
    ],
)
def test_a_dict_is_read_as_a_file_is(tmp_path: Path, answers: dict[str, object]) -> None:
    by_dict = attncalc.check(PROBLEM, answers)
    assert [r.id for r in by_dict.results] == ["scores"] and by_dict.results[0].verdict == "correct"
    f = tmp_path / "a.toml"
    lines = [f"{k} = {v!r}" if not isinstance(v, dict) else "" for k, v in answers.items()]
    if "answers" in answers:
        lines = ["[answers]", f"scores = {SCORES!r}"]
    f.write_text("\n".join(x.replace("'", '"') for x in lines) + "\n", encoding="utf-8")
    by_file = attncalc.check(PROBLEM, str(f))
    assert (by_dict.score, by_dict.out_of) == (by_file.score, by_file.out_of)


@pytest.mark.parametrize("student", ["", "\u3164", "a\nb", 1.5])
def test_a_dict_student_is_checked_as_a_files(student: object) -> None:
    with pytest.raises(ProblemError, match="<answers>: student: expected "):
        attncalc.check(PROBLEM, {"student": student, "scores": SCORES})


def test_a_dict_of_only_a_student_answers_nothing() -> None:
    with pytest.raises(ProblemError, match="no answers to check"):
        attncalc.check(PROBLEM, {"student": "alice"})


def test_float32_answers_are_read_as_the_digits_they_show() -> None:
    """A float32 (what a PyTorch tensor's .numpy() gives) of 10.107 was read as 10.107000350952148, its
    bits in float64, and graded wrong. The exact values by hand: scores q·k = [1, 2]; exponentials e, e²
    = [2.718, 7.389]; their sum 10.107."""
    import numpy as np

    import attncalc

    problem = {"kind": "attention", "score": "dot", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2]]}}
    answers = {
        "scores": np.array([1, 2], dtype=np.float16),
        "exponentials": np.array([2.718, 7.389], dtype=np.float32),
        "exp_sum": np.float32(10.107),
    }
    rep = attncalc.check(problem, answers)
    assert [r.verdict for r in rep.results] == ["correct"] * 3, [r.note for r in rep.results]
    assert rep.results[2].given == 10.107
