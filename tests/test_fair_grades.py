"""The rules of a fair TA, each on a case rebuilt from a described failure; every expected verdict and
score is worked out by hand in the test (the true values from the problem's formulas, not from check)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attncalc.check import check
from attncalc.parse.top import load_problem

ROOT = Path(__file__).resolve().parent.parent


def _grade(problem: str | Path, answers: dict[str, Any], extra: str = "", tmp: Path | None = None) -> Any:
    path = Path(problem)
    if not path.is_absolute():
        path = ROOT / problem
    if extra:
        assert tmp is not None
        copy = tmp / path.name
        copy.write_text(path.read_text(encoding="utf-8") + "\n" + extra, encoding="utf-8")
        path = copy
    return check(load_problem(path), answers, "answers.toml")


def _verdicts(report: Any) -> dict[str, str]:
    return {r.id: r.verdict for r in report.results}


# decoder-dot: s = [1, 1], keys [1, 0], [0, 2], [1, 1]: the true scores are [1, 2, 2]. A student who
# writes all zeros, then works on from them: exp(0) = 1, Z = 3, weights 1/3, context = (1/3)·Σ h_i =
# [2/3, 1] = [0.667, 1.000], u = s + c = [1.667, 2.000], logits = u (W_out is I), softmax:
# exp(1.667)/(exp(1.667) + exp(2)) = 1/(1 + e^0.333) = 0.418, 0.582; the prediction B is also the truth's.
DEGENERATE = {
    "scores": [0, 0, 0],
    "exponentials": [1, 1, 1],
    "exp_sum": 3,
    "weights": ["0.333", "0.333", "0.333"],
    "context": ["0.667", "1.000"],
    "combined": ["1.667", "2.000"],
    "logits": ["1.667", "2.000"],
    "probabilities": ["0.418", "0.582"],
    "prediction": "B",
}


def test_degenerate_answer_earns_no_follow_through_however_far_down() -> None:
    """All zeros where the scores are [1, 2, 2]: the seven steps after it are right from it (carried),
    but none earns credit; only the prediction, right in itself, earns its point: 1 of 9."""
    r = _grade("problems/decoder-dot.toml", DEGENERATE)
    v = _verdicts(r)
    assert v["scores"] == "wrong"
    for step in ("exponentials", "exp_sum", "weights", "context", "combined", "logits", "probabilities"):
        assert v[step] == "carried", step
        res = next(x for x in r.results if x.id == step)
        assert res.earned == 0, step
        assert "degenerate" in res.note and "scores" in res.note, step
    assert v["prediction"] == "correct"
    assert r.score == 1 and r.out_of == 9


def test_degenerate_credit_setting_gives_follow_through_back(tmp_path: Path) -> None:
    """[grading] degenerate = "credit": the seven carried steps earn their point, the scores none: 8 of 9."""
    r = _grade("problems/decoder-dot.toml", DEGENERATE, '[grading]\ndegenerate = "credit"\n', tmp_path)
    assert r.score == 8 and r.out_of == 9
