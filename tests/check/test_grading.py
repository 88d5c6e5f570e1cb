"""Points in check: the [grading] table (points per step or group, carried share, partial credit, the
share of a named slip), its defaults, the score in text and JSON, and follow-through that cannot be
gamed. Every expected score is worked out by hand in the test's docstring or comment."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.parse import parse_problem

from ..helpers import PROBLEMS, run_cli

# the decoder document: s = [1, 1], keys [1, 0], [0, 2], [1, 1]; nine steps (scores .. prediction);
# e = [1, 2, 2], Z = e + 2e² = 17.496, α = [0.155, 0.422, 0.422], c = [0.578, 1.267]
DECODER = {
    "kind": "attention",
    "tokens": ["x1", "x2", "x3"],
    "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]},
    "head": {"combine": "add", "W_out": [[1, 0], [0, 1]], "vocab": ["A", "B"]},
}
# exp_sum written 18 instead of 17.496; the weights and the context then follow from 18:
# e/18 = 0.151, e²/18 = 0.4105 -> 0.411; c = [0.151 + 0.411, 2·0.411 + 0.411] = [0.562, 1.233]
SLIP = {"scores": [1, 2, 2], "exp_sum": "18.000", "weights": ["0.151", "0.411", "0.411"], "context": ["0.562", "1.233"]}


def grade(answers: dict[str, Any], grading: dict[str, Any] | None = None, raw: dict[str, Any] = DECODER) -> Any:
    problem = {**raw, "grading": grading} if grading is not None else raw
    return check(parse_problem(problem, "p.toml"), answers, "a.toml")


def by_id(report: Any) -> dict[str, Any]:
    return {r.id: r for r in report.results}


def test_defaults_every_step_one_point_carried_in_full() -> None:
    """Nine steps, one point each: scores 1, exp_sum 0, weights and context carried 1 each: 3 of 9."""
    rep = grade(SLIP)
    assert [r.verdict for r in rep.results] == ["correct", "wrong", "carried", "carried"]
    assert rep.out_of == 9 and math.isclose(rep.score, 3)


def test_the_answer_key_earns_every_point() -> None:
    key = {
        "scores": [1, 2, 2],
        "exponentials": ["2.718", "7.389", "7.389"],
        "exp_sum": "17.496",
        "weights": ["0.155", "0.422", "0.422"],
        "context": ["0.578", "1.267"],
        "combined": ["1.578", "2.267"],
        "logits": ["1.578", "2.267"],
        "probabilities": ["0.334", "0.666"],
        "prediction": "B",
    }
    rep = grade(key, {"points": {"weights": 4}})
    assert rep.all_correct and math.isclose(rep.score, rep.out_of) and rep.out_of == 12  # 8 steps of 1, weights 4


def test_carried_share() -> None:
    """carried = 0.5: 1 + 0 + 0.5 + 0.5 = 2."""
    assert math.isclose(grade(SLIP, {"carried": 0.5}).score, 2)
    assert math.isclose(grade(SLIP, {"carried": 0}).score, 1)


def test_points_per_step_and_per_group() -> None:
    """default 0; weights 4; "e*" (exponentials, exp_sum) 2 shared: exponentials 1 + exp_sum 0 + weights 4 = 5 of 6.
    With exp_sum named on its own (3), the group's 2 go to exponentials alone: 2 + 0 + 4 of 2 + 3 + 4."""
    answers = {**SLIP, "exponentials": ["2.718", "7.389", "7.389"]}
    rep = grade(answers, {"default": 0, "points": {"weights": 4, "e*": 2}})
    assert rep.out_of == 6 and math.isclose(rep.score, 5)
    points = {r.id: r.points for r in rep.results}
    assert points["exponentials"] == points["exp_sum"] == 1 and points["scores"] == 0
    rep = grade(answers, {"default": 0, "points": {"weights": 4, "e*": 2, "exp_sum": 3}})
    assert rep.out_of == 9 and math.isclose(rep.score, 6)


def test_partial_credit_per_entry() -> None:
    """Weights [0.155, 0.422, 0.5]: two of three entries right, so 2/3 of its point; none with partial = false."""
    answers = {"weights": ["0.155", "0.422", "0.500"]}
    r = by_id(grade(answers))["weights"]
    assert r.verdict == "wrong" and math.isclose(r.credit, 2 / 3)
    assert by_id(grade(answers, {"partial": False}))["weights"].credit == 0
    matrix = {  # a matrix too: self-attention weights of X = I (scores I, rows softmax([1, 0]) and its mirror)
        "kind": "self-attention",
        "score": "dot",
        "given": {"X": [[1, 0], [0, 1]]},
    }
    # e/(1 + e) = 0.731, 1/(1 + e) = 0.269; one entry of four written wrong
    r = by_id(grade({"weights": [["0.731", "0.269"], ["0.269", "0.700"]]}, raw=matrix))["weights"]
    assert r.wrong_entries == [[1, 1]] and math.isclose(r.credit, 3 / 4)


def test_a_named_slip_earns_its_share() -> None:
    """Weights equal to the exponentials (not normalised): no entry right, the slip named: slip = 0.5 earns half."""
    answers = {"weights": ["2.718", "7.389", "7.389"]}
    assert by_id(grade(answers))["weights"].mistake == "not_normalised"
    assert by_id(grade(answers))["weights"].credit == 0
    assert math.isclose(by_id(grade(answers, {"slip": 0.5}))["weights"].credit, 0.5)


@pytest.mark.parametrize(
    ("weights", "context", "why"),
    [
        (["0.000", "0.000", "0.000"], ["0.000", "0.000"], "all zeros"),
        # all equal: c = 0.333·[1, 0] + 0.333·[0, 2] + 0.333·[1, 1] = [0.666, 0.999]
        (["0.333", "0.333", "0.333"], ["0.666", "0.999"], "all its entries equal"),
    ],
)
def test_degenerate_answers_earn_no_follow_through(weights: list[str], context: list[str], why: str) -> None:
    """The context is right given the weights, but the weights are degenerate: carried, no credit, and the note
    says why; an honest slip (SLIP) still earns its carried point."""
    rep = grade({"weights": weights, "context": context})
    r = by_id(rep)["context"]
    assert r.verdict == "carried" and r.credit == 0
    assert f"No carried credit: this rests on your weights, which is {why}" in r.note
    assert rep.score == 0
    assert by_id(grade(SLIP))["context"].credit == 1


def test_an_answer_copied_from_the_givens() -> None:
    """context = [0, 2] is the key h_2 copied; combined = s + c = [1, 3] follows from it: no carried credit."""
    r = by_id(grade({"context": ["0.000", "2.000"], "combined": ["1.000", "3.000"]}))
    assert r["context"].verdict == "wrong"
    assert r["combined"].verdict == "carried" and r["combined"].credit == 0
    assert "rests on your context, which is copied from the given keys" in r["combined"].note


def test_a_degenerate_answer_earns_no_partial_credit() -> None:
    """[0.155, 0.155, 0.155]: its first entry is right, but all entries are equal: no partial credit."""
    r = by_id(grade({"weights": ["0.155", "0.155", "0.155"]}))["weights"]
    assert r.verdict == "wrong" and r.credit == 0 and "No partial credit: the answer is all its entries equal" in r.note


def test_a_true_pattern_is_not_degenerate() -> None:
    """Weights that truly are equal (equal scores) are not degenerate: the carried context keeps its credit."""
    raw = {"kind": "attention", "given": {"query": [1, 1], "keys": [[1, 0], [0, 1]]}}  # e = [1, 1], α = [0.5, 0.5]
    # exp_sum written 5 (true 2e = 5.437): weights e/5 = 0.544 each are carried, and equal like the truth
    rep = grade({"exp_sum": "5.000", "weights": ["0.544", "0.544"], "context": ["0.544", "0.544"]}, raw=raw)
    assert by_id(rep)["weights"].credit == 1 and by_id(rep)["context"].credit == 1


def test_dotted_step_ids_in_points(tmp_path: Path, cli: Any) -> None:
    """TOML dotted keys (1.h = 5) name recurrent steps; the score shows in text and JSON."""
    problem = tmp_path / "p.toml"
    problem.write_text(
        'kind = "rnn"\n[given]\nx = [[1, 0]]\nW = [[0.5, 0, 1, 0], [0, 0.5, 0, 1]]\n'
        "[grading]\ndefault = 0\n[grading.points]\n1.h = 5\n'1.h_*' = 1\n",
        encoding="utf-8",
    )
    # h_1 = tanh(W [0, 0, 1, 0]) = tanh([1, 0]) = [0.762, 0]
    (tmp_path / "a.toml").write_text("1.h_pre = [1, 0]\n1.h = [0.762, 0]\n", encoding="utf-8")
    result = cli("check", str(problem), str(tmp_path / "a.toml"), "--format", "json")
    data = json.loads(result.stdout)
    assert data["score"] == {"points": 6.0, "out_of": 6.0}
    text = cli("check", str(problem), str(tmp_path / "a.toml"), "--width", "100").stdout
    assert "score 6 / 6" in text


@pytest.mark.parametrize(
    ("grading", "message"),
    [
        (
            "[grading.points]\nweightz = 1",
            "p.toml: grading.points.weightz: not a step of this problem (did you mean 'weights'?)",
        ),
        ("[grading.points]\n'z*' = 1", "p.toml: grading.points.z*: matches no step of this problem"),
        ("[grading]\ncarried = 2", "p.toml: grading.carried: must be from 0 to 1"),
        ('[grading]\npartial = "yes"', "p.toml: grading.partial: expected true or false"),
        ("[grading.points]\nweights = -1", "p.toml: grading.points.weights: must not be negative"),
        ("[grading]\ncredit = 1", "p.toml: grading.credit: unknown key"),
    ],
)
def test_bad_grading_is_one_line_exit_2(cli: Any, tmp_path: Path, grading: str, message: str) -> None:
    problem = tmp_path / "p.toml"
    problem.write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8") + "\n" + grading + "\n")
    (tmp_path / "a.toml").write_text("weights = [0.155, 0.422, 0.422]\n")
    result = cli("check", str(problem), str(tmp_path / "a.toml"))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"attncalc: error: {tmp_path / message}"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_json_schema_describes_grading(cli: Any) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(cli("schema", "lstm").stdout)
    validator = jsonschema.Draft202012Validator(schema)
    good = {"kind": "lstm", "given": {"x": [1]}, "grading": {"points": {"1.h": 2}, "carried": 0.5, "partial": False}}
    assert not list(validator.iter_errors(good))
    bad = {"kind": "lstm", "given": {"x": [1]}, "grading": {"partial": "yes", "extra": 1}}
    assert len(list(validator.iter_errors(bad))) == 2


@pytest.mark.parametrize("kind", ["attention", "lstm"])
def test_the_templates_grading_block_works_uncommented(cli: Any, kind: str) -> None:
    """`attncalc new` shows [grading] commented out; uncommented it parses, and its group shares its points."""
    import tomllib

    lines = cli("new", kind).stdout.splitlines()
    start = lines.index("# [grading]")
    block = "\n".join(line[2:].split("  #")[0] for line in lines[start : start + 8])
    raw = tomllib.loads("\n".join(lines[:start]) + "\n" + block)
    problem = parse_problem(raw, "t.toml")
    assert problem.grading.carried == 0.5 and problem.grading.partial is True
    rep = check(problem, {}, "a.toml")
    if kind == "lstm":  # 14 steps a time step (hx, 4 gates and their pre-activations, retained, new, c, tanh_c,
        # h): time step 2's share 6 points, time step 1's have 1 each: 6 + 14
        assert len(rep.step_ids) == 28 and math.isclose(rep.out_of, 20)
    else:
        assert math.isclose(rep.out_of, 4 + len(rep.step_ids) - 1)


def test_a_masked_answer_is_judged_without_a_warning(tmp_path: Path) -> None:
    """Causal self-attention's masked scores with one slip: −∞ above the diagonal in the answer and in
    the truth compare equal (no "invalid value" RuntimeWarning on the terminal), and the wrong entry is
    still the one named. Truth (hand): X W_Q = X, X W_K swaps columns; S'[1,1] = x₁·k₁/√2 = 0."""
    answers = tmp_path / "a.toml"
    answers.write_text(
        'masked_scores = [["0.5", "-inf", "-inf", "-inf"], ["0.707", "0", "-inf", "-inf"],'
        ' ["0.707", "0.707", "1.414", "-inf"], ["0", "1.414", "1.414", "0"]]\n',
        encoding="utf-8",
    )
    result = run_cli("check", str(PROBLEMS / "causal-self-attention.toml"), str(answers), "--width", "100")
    assert result.returncode == 1
    assert "RuntimeWarning" not in result.stderr and "invalid value" not in result.stderr
    assert "S'[1,1] = 0, not 0.5" in result.stdout


def test_a_copied_matrix_with_masked_entries_is_found() -> None:
    """An answer that is a given matrix copied, −∞ entries and all, is a copy (−∞ equals −∞)."""
    from attncalc.check.points import degenerate

    inf = float("inf")
    given = np.array([[1.0, -inf], [2.0, 3.0]])
    truth = np.array([[0.5, -inf], [1.5, 2.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert degenerate(given.copy(), 3, truth, {"M": given}) == "copied from the given M"
        assert degenerate(np.array([[0.4, -inf], [1.5, 2.5]]), 3, truth, {"M": given}) is None
