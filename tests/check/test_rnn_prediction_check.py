"""`check` of the `attncalc new rnn` template with a wrong prediction and later steps answered.

"2.prediction" = "-inf" (or any wrong label) beside later answers raised a KeyError traceback: the
steps resting on a wrong answer were looked for by moving its number, and a prediction has none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ..helpers import run_cli


def _template(cli: Any, tmp_path: Path) -> Path:
    result = cli("new", "rnn")
    assert result.exit_code == 0
    p = tmp_path / "rnn.toml"
    p.write_text(result.stdout, encoding="utf-8")
    return p


def _by_hand() -> tuple[np.ndarray, list[str], list[float]]:
    """The template's forward pass: h_t = tanh(W [h_(t−1); x_t] + b), logits W_out h_t, predictions by
    argmax, losses −ln softmax(logits)[target] (targets b, <eos>)."""
    x = np.array([[1, 0], [0, 1]], dtype=float)
    W = np.array([[0.5, -0.5, 1, 0], [0.25, 0.5, 0, 1]])
    b = np.array([0, 0.1])
    W_out = np.array([[1, 0], [0, 1], [1, -1]], dtype=float)
    vocab = ["a", "b", "<eos>"]
    targets = [1, 2]
    h = np.zeros(2)
    hs, predictions, losses = [], [], []
    for t in range(2):
        h = np.tanh(W @ np.concatenate([h, x[t]]) + b)
        hs.append(h)
        logits = W_out @ h
        predictions.append(vocab[int(np.argmax(logits))])
        losses.append(float(-(logits[targets[t]] - np.log(np.exp(logits).sum()))))
    return np.array(hs), predictions, losses


@pytest.mark.parametrize("prediction", ['"-inf"', '"a"', "5"])
def test_a_wrong_prediction_before_later_answers_is_a_verdict(cli: Any, tmp_path: Path, prediction: str) -> None:
    p = _template(cli, tmp_path)
    hs, predictions, losses = _by_hand()
    assert prediction.strip('"') != predictions[1]
    a = tmp_path / "a.toml"
    a.write_text(
        f'"2.prediction" = {prediction}\n"2.h" = [{hs[1][0]:.3f}, {hs[1][1]:.3f}]\n"2.loss" = {losses[1]:.3f}\n',
        encoding="utf-8",
    )
    result = run_cli("check", str(p), str(a), "-f", "json")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    verdicts = {r["id"]: r["verdict"] for r in json.loads(result.stdout)["results"]}
    assert verdicts == {"2.prediction": "wrong", "2.h": "correct", "2.loss": "correct"}


def test_the_right_prediction_is_correct(cli: Any, tmp_path: Path) -> None:
    p = _template(cli, tmp_path)
    _, predictions, _ = _by_hand()
    a = tmp_path / "a.toml"
    a.write_text(f'"1.prediction" = "{predictions[0]}"\n"2.prediction" = "{predictions[1]}"\n', encoding="utf-8")
    result = cli("check", str(p), str(a), "-f", "json")
    assert result.exit_code == 0, result.output
