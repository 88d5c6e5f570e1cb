"""Answers files (and [answers] tables) from anyone: a grade or one line naming the file and the key.

The expected losses come from a one-line numpy formula, never from attncalc.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ..helpers import PROBLEMS, one_line_refusal

SOFTMAX = 'kind = "softmax"\n[given]\nlogits = [2, 1, 0.1]\ntarget = 0\n'


@pytest.mark.parametrize(
    ("answers", "key", "words"),
    [
        ("probabilities = []\n", "probabilities", "empty list"),  # IndexError
        ("probabilities = [[]]\n", "probabilities", "rows are empty"),  # IndexError
        ("probabilities = [[], []]\n", "probabilities", "rows are empty"),
        ("answers = 1.5\n", "answers", "expected a table"),  # 'not a step of this problem'
        ("answers = true\n", "answers", "expected a table"),
    ],
)
def test_malformed_answers_are_one_line(cli: Any, tmp_path: Path, answers: str, key: str, words: str) -> None:
    (tmp_path / "p.toml").write_text(SOFTMAX)
    a = tmp_path / "a.toml"
    a.write_text(answers)
    err = one_line_refusal(cli("check", str(tmp_path / "p.toml"), str(a)), str(a), key)
    assert words in err


@pytest.mark.parametrize("value", ["1.5", "3", "true", '"x"', "[1, 2]"])
@pytest.mark.parametrize("command", ["solve", "check"])
def test_a_problems_answers_that_are_not_a_table(cli: Any, tmp_path: Path, value: str, command: str) -> None:
    """answers = 1.5 (or an integer, or a boolean) at the top of a problem was a TypeError, under solve too."""
    p = tmp_path / "p.toml"
    p.write_text(f"answers = {value}\n" + SOFTMAX)
    err = one_line_refusal(cli(command, str(p)), str(p), "answers")
    assert "expected a table of keys" in err


def test_a_wrong_loss_gets_its_slip_written_out(cli: Any, tmp_path: Path) -> None:
    """A wrong loss for the softmax example was a TypeError in the slip note (the chain holds [L])."""
    (tmp_path / "p.toml").write_text(SOFTMAX)
    (tmp_path / "a.toml").write_text("loss = 0.9\n")
    result = cli("check", "-f", "json", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"))
    assert result.exit_code == 1, result.output
    z = np.array([2, 1, 0.1])
    loss = -np.log(np.exp(z[0]) / np.exp(z).sum())
    assert f"= {loss:.1f}, not 0.9" in result.stdout  # at the answer's own precision (one decimal)


def test_a_loss_from_the_answerers_own_probabilities_is_carried(cli: Any, tmp_path: Path) -> None:
    """With a wrong probability before it, the loss computed from it is carried, not wrong: the chain's
    [L] is compared in the step's shape (before, it never matched the answerer's own chain)."""
    (tmp_path / "p.toml").write_text(SOFTMAX)
    (tmp_path / "a.toml").write_text(
        f"probabilities = [0.5, 0.3, 0.2]\nloss = {-np.log(0.5):.3f}\n"  # -ln 0.5: from the wrong p_0
    )
    result = cli("check", "-f", "json", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"))
    import json

    verdicts = {r["id"]: r["verdict"] for r in json.loads(result.stdout)["results"]}
    assert verdicts == {"probabilities": "wrong", "loss": "carried"}


def test_whole_numbers_alone_are_judged_at_the_problems_decimals(cli: Any, tmp_path: Path) -> None:
    """weights = [0, 0, 0] passed "to 0 decimals" for [0.155, 0.422, 0.422]: a file of whole numbers only
    is judged at the problem's decimals (3). Whole numbers that are the true values still pass: the
    decoder's scores are s·h_i = [1·1 + 1·0, 1·0 + 1·2, 1·1 + 1·1] = [1, 2, 2]."""
    zeros = tmp_path / "zeros.toml"
    zeros.write_text("weights = [0, 0, 0]\n")
    result = cli("check", str(PROBLEMS / "decoder-dot.toml"), str(zeros), "-f", "json")
    assert result.exit_code == 1 and json.loads(result.stdout)["results"][0]["verdict"] == "wrong"
    scores = tmp_path / "scores.toml"
    scores.write_text("scores = [1, 2, 2]\n")
    result = cli("check", str(PROBLEMS / "decoder-dot.toml"), str(scores), "-f", "json")
    assert result.exit_code == 0 and json.loads(result.stdout)["results"][0]["verdict"] == "correct"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("", ""),  # an empty file graded "0 correct, all correct" and exited 0
        ("[answers]\n", ""),
        ("scores = {}\n", "scores"),
        ('encoder.1.h = [1, 2]\n"encoder.1.h" = [0, 0]\n', "encoder.1.h"),  # the second silently won
    ],
)
def test_an_answers_file_that_answers_nothing_or_twice_is_refused(
    cli: Any, tmp_path: Path, text: str, key: str
) -> None:
    f = tmp_path / "a.toml"
    f.write_text(text)
    problem = "seq2seq-luong.toml" if "encoder" in text else "decoder-dot.toml"
    line = one_line_refusal(cli("check", str(PROBLEMS / problem), str(f)), str(f), key)
    assert "no answers" in line or "empty table" in line or "twice" in line


def test_a_long_run_of_digits_is_refused_at_once_not_after_minutes() -> None:
    """An answer of 200,000 digits (a 200 KB file, inside every size limit): counting its decimals
    with the decimal patterns backtracked for minutes (on the page too, holding a worker). It is
    refused by its length before any pattern reads it. A hang guard (an alarm after 120 s, the
    backtracking took far longer) turns the old behaviour into a failure, not a stuck run."""
    import signal

    from attncalc.check import check
    from attncalc.errors import ProblemError
    from attncalc.parse.top import load_problem

    def hung(*_: Any) -> None:
        raise TimeoutError("the long answer was still being read after 120 s")

    p = load_problem(PROBLEMS / "decoder-dot.toml")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    try:
        with pytest.raises(ProblemError, match="longer than 200 characters"):
            check(p, {"scores": ["1" * 200_000, 2, 2]}, "a.toml")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("text", ["1e9999999999999999999", "1/1e-9999999999999999999"])
def test_an_exponent_past_what_decimal_holds_is_one_line(cli: Any, tmp_path: Path, text: str) -> None:
    """An exponent of 19 digits was a decimal.InvalidOperation traceback (and a 500 on the page): it is
    refused as out of range, as 1e401 is, whether written as a string or a bare TOML/JSON number."""
    from attncalc.parse.formats import read_json

    (tmp_path / "p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"))
    (tmp_path / "a.toml").write_text(f'exp_sum = "{text}"\n')
    result = cli("check", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"))
    assert result.exit_code == 2 and "exp_sum: the exponent is out of range" in result.stderr
    (tmp_path / "b.toml").write_text("exp_sum = 1e9999999999999999999\n")
    result = cli("check", str(tmp_path / "p.toml"), str(tmp_path / "b.toml"))
    assert result.exit_code == 2 and "exp_sum: the exponent is out of range" in result.stderr
    assert read_json("body", '{"exp_sum": 1e9999999999999999999}') == {"exp_sum": "1e9999999999999999999"}


@pytest.mark.parametrize(
    ("problem", "key", "true", "written"),
    [
        # CS336's handout, by hand (a list of token lists is the words' JSON form: numbers in it are not)
        ("bpe-cs336.toml", "6.words", ("low e r", "w i d est", "ne west"), "[[1, 2]]"),
        ("decoder-dot.toml", "prediction", ("'B'",), '[["zzz"]]'),  # the argmax of the file's own logits row
        ("decode-top-k.toml", "choice", ("cat",), '[["zzz"]]'),
    ],
)
def test_a_format_error_names_no_true_value(
    cli: Any, tmp_path: Path, problem: str, key: str, true: Any, written: str
) -> None:
    """A list of lists where text is expected: the message says what is expected in general words,
    with no example taken from the step's value (it was "such as 'low, low e r, w i d est, ne west'")."""
    a = tmp_path / "a.toml"
    a.write_text(f'"{key}" = {written}\n')
    err = one_line_refusal(cli("check", str(PROBLEMS / problem), str(a)), str(a), key)
    assert "such as" not in err
    for piece in true:
        assert piece not in err, err
