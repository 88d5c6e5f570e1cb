"""The commented [answers] of every attention template are right for its score: uncommented, `check`
accepts them. The expected weights are recomputed here with numpy from the template's inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest


def softmax(e: np.ndarray) -> np.ndarray:
    return np.exp(e) / np.exp(e).sum()


q, K = np.array([1.0, 1.0]), np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
WEIGHTS = {
    "dot": softmax(K @ q),
    "scaled-dot": softmax(K @ q / np.sqrt(2)),
    "general": softmax(K @ np.eye(2) @ q),
    "additive": softmax(np.array([np.array([1, -1]) @ np.tanh(q + np.array([[1, 1], [0, 1]]) @ k) for k in K])),
    "concat": softmax(
        np.array([np.ones(2) @ np.tanh(np.array([[1, 0, 1, 0], [0, 1, 0, 1]]) @ np.r_[q, k]) for k in K])
    ),
}


@pytest.mark.parametrize("score", list(WEIGHTS))
def test_template_answers_are_right(cli: Any, tmp_path: Path, score: str) -> None:
    text = cli("new", "attention", "--score", score).stdout
    want = "[" + ", ".join(f"{w:.3f}" for w in WEIGHTS[score]) + "]"
    assert f"# weights = {want}" in text
    problem = tmp_path / "p.toml"
    problem.write_text(text.replace("# [answers]\n# weights", "[answers]\nweights"), encoding="utf-8")
    result = cli("check", str(problem), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["correct"] == 1
