"""A step whose value the problem states (a gate under [[given.gates]]) is shown, not computed: it
earns no points and is never listed as unanswered, so every computed step right is full marks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..helpers import PROBLEMS


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _encoder_answers() -> dict[str, list[float]]:
    """lstm-doc-encoder's computed steps by the LSTM equations in numpy, from the numbers in the
    problem file (its stated gates copied here by hand), each rounded to the problem's 2 decimals."""
    x = np.array([[0.8, 0.2, 0.1, 0.9], [0.9, 0.8, 0.7, 0.3], [0.3, 0.9, 0.6, 0.8]])
    w_f4 = np.array([[0.5, 0.2, 0.1, 0.3], [0.1, 0.4, 0.6, 0.2], [0.3, 0.1, 0.5, 0.4], [0.2, 0.6, 0.1, 0.3]])
    w_f = np.hstack([w_f4, w_f4])
    b_f = np.array([-0.5, -0.8, 0.2, -0.6])
    gates = [
        {"i": [0.8, 0.7, 0.3, 0.9], "c_tilde": [0.4, 0.3, 0.8, 0.2], "o": [0.6, 0.8, 0.4, 0.7]},
        {
            "f": [0.72, 0.65, 0.45, 0.83],
            "i": [0.85, 0.79, 0.61, 0.74],
            "c_tilde": [0.6, 0.7, 0.4, 0.8],
            "o": [0.68, 0.72, 0.59, 0.81],
        },
        {
            "f": [0.78, 0.71, 0.66, 0.85],
            "i": [0.64, 0.89, 0.75, 0.82],
            "c_tilde": [0.2, 0.8, 0.7, 0.6],
            "o": [0.73, 0.86, 0.69, 0.91],
        },
    ]
    h, c = np.zeros(4), np.zeros(4)
    out: dict[str, np.ndarray] = {}
    for t, g in enumerate(gates, start=1):
        if t == 1:
            hx = np.concatenate([h, x[0]])
            out["1.hx"], out["1.f_pre"] = hx, w_f @ hx + b_f
            f = _sigmoid(out["1.f_pre"])
            out["1.f"] = f
        else:
            f = np.array(g["f"])
        i, ct, o = np.array(g["i"]), np.array(g["c_tilde"]), np.array(g["o"])
        out[f"{t}.retained"], out[f"{t}.new"] = f * c, i * ct
        c = f * c + i * ct
        out[f"{t}.c"], out[f"{t}.tanh_c"] = c, np.tanh(c)
        h = o * np.tanh(c)
        out[f"{t}.h"] = h
    return {k: [round(float(v), 2) for v in a] for k, a in out.items()}


def _write(tmp_path: Path, answers: dict[str, list[float]]) -> Path:
    lines = ['problem = "lstm-doc-encoder.toml"']
    lines += [f'"{k}" = [{", ".join(f"{v:.2f}" for v in a)}]' for k, a in answers.items()]
    f = tmp_path / "answers.toml"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f


def test_every_computed_step_right_is_full_marks(cli: Any, tmp_path: Path) -> None:
    """18 computed steps (29 in the derivation, 11 gates stated by the file: 3 at step 1, 4 at
    steps 2 and 3): all right is 18 / 18 and nothing is unanswered."""
    answers = _encoder_answers()
    assert len(answers) == 18
    result = cli(
        "check",
        "--problems",
        str(PROBLEMS),
        str(PROBLEMS / "lstm-doc-encoder.toml"),
        str(_write(tmp_path, answers)),
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    report = data[0] if isinstance(data, list) else data
    assert report["summary"] == {"correct": 18, "carried": 0, "wrong": 0}
    assert report["score"] == {"points": 18.0, "out_of": 18.0}
    assert report["unanswered"] == []


def test_a_stated_step_is_not_unanswered_but_a_computed_one_is(cli: Any, tmp_path: Path) -> None:
    answers = _encoder_answers()
    del answers["2.c"]
    result = cli(
        "check",
        "--problems",
        str(PROBLEMS),
        str(PROBLEMS / "lstm-doc-encoder.toml"),
        str(_write(tmp_path, answers)),
        "--format",
        "json",
    )
    data = json.loads(result.stdout)
    report = data[0] if isinstance(data, list) else data
    assert report["unanswered"] == ["2.c"]
    assert report["score"]["out_of"] == 18.0
