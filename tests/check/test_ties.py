"""Tied output probabilities: generate rejects such draws; check accepts any of the tied tokens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from attncalc.check import check
from attncalc.homework.generate import Options, generate
from attncalc.parse import parse_problem

# W_out rows 2 and 3 are the same, so z_B = z_C and p_B = p_C; z_A = 0 < z_B = u_1 + u_2.
TIED = {
    "title": "tied",
    "kind": "attention",
    "score": "dot",
    "tokens": ["x1", "x2", "x3"],
    "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]},
    "head": {"combine": "add", "W_out": [[0, 0], [1, 1], [1, 1]], "vocab": ["A", "B", "C"]},
}


def _tied_probabilities() -> np.ndarray:
    s = np.array([1.0, 1.0])
    H = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    a = np.exp(H @ s) / np.exp(H @ s).sum()
    u = s + a @ H
    z = np.array([[0, 0], [1, 1], [1, 1.0]]) @ u
    return np.exp(z) / np.exp(z).sum()


def test_check_accepts_either_tied_token_and_says_they_tie() -> None:
    p = _tied_probabilities()
    assert p[1] == p[2] and p[0] < p[1]
    problem = parse_problem(TIED, "tied.toml")
    for token in ("B", "C"):
        report = check(problem, {"prediction": token}, "a.toml")
        (result,) = report.results
        assert result.verdict == "correct", (token, result.note)
        assert "tie" in result.note and "B" in result.note and "C" in result.note
    (wrong,) = check(problem, {"prediction": "A"}, "a.toml").results
    assert wrong.verdict == "wrong"


def test_check_cli_exit_0_for_the_other_tied_token(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(
        'kind = "attention"\nscore = "dot"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2], [1, 1]]\n'
        '[head]\ncombine = "add"\nW_out = [[0, 0], [1, 1], [1, 1]]\nvocab = ["A", "B", "C"]\n',
        encoding="utf-8",
    )
    (tmp_path / "a.toml").write_text('prediction = "C"\n', encoding="utf-8")
    result = cli("check", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"), "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["verdict"] == "correct"


def test_generate_rejects_draws_whose_prediction_would_tie(cli: Any, tmp_path: Path) -> None:
    """A large seeded --head run: no variant's top two probabilities tie (at the decimals asked for), and
    the tie rejections are counted and reported."""
    opts = Options(kind="attention", score="dot", head=True, count=40, seed=7, values="int", decimals=3)
    res = generate(opts)
    for d in res.derivations:
        p = np.sort(np.asarray(d.step("probabilities").value, dtype=float))[::-1]
        assert p[0] - p[1] >= 1e-3
    reason = "top probabilities tie (no single prediction)"
    assert res.rejected[reason] > 0
    result = cli("generate", "--head", "--count", "40", "--seed", "7", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert f"{res.rejected[reason]} {reason}" in result.stderr


def test_solve_says_the_prediction_is_a_tie(cli: Any, tmp_path: Path) -> None:
    """The worked derivation does not present B as the only answer when p_B = p_C: it names the tie."""
    (tmp_path / "p.json").write_text(json.dumps(TIED), encoding="utf-8")
    text = cli("solve", str(tmp_path / "p.json"), "--width", "100").stdout
    assert "Prediction: B (a tie: B, C are equally likely" in text
    md = cli("solve", str(tmp_path / "p.json"), "-f", "markdown").stdout
    assert "a tie: B, C are equally likely" in md


def test_attention_table_marks_every_tied_weight(cli: Any, tmp_path: Path) -> None:
    # keys rows 2 and 3 give s·h = 2 both (by hand: 0 + 2 and 1 + 1), so α_2 = α_3 is the largest weight
    path = tmp_path / "tied.json"
    path.write_text(json.dumps(TIED))
    out = cli("solve", str(path), "--width", "80").stdout
    marked = [line.split()[1] for line in out.splitlines() if line.rstrip().endswith("◀ most")]
    assert marked == ["x2", "x3"]
