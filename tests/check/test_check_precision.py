"""Answers written to many decimals: the expected value is the true value rounded once (not first to 12
significant digits and then again), and the note writes the operands at the answer's precision."""

from __future__ import annotations

import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.derivation.arith import round_half_up

from ..helpers import PROBLEMS


def _layer_residual1() -> np.ndarray:
    """x + MultiHead(x) of problems/layer-encoder.toml, written from the paper (two heads of d_k = 2)."""
    r = tomllib.loads((PROBLEMS / "layer-encoder.toml").read_text())
    X = np.array(r["given"]["X"], dtype=float)
    a = {k: np.array(v, dtype=float) for k, v in r["self_attention"].items()}
    Q, K, V = X @ a["W_Q"], X @ a["W_K"], X @ a["W_V"]
    heads = []
    for h in range(2):
        s = slice(2 * h, 2 * h + 2)
        S = Q[:, s] @ K[:, s].T / np.sqrt(2)
        A = np.exp(S - S.max(axis=1, keepdims=True))
        heads.append(A / A.sum(axis=1, keepdims=True) @ V[:, s])
    return X + np.concatenate(heads, axis=1) @ a["W_O"] + a["b_O"]


def _by_hand(x: float, decimals: int) -> str:
    return str(Decimal(x).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


@pytest.mark.parametrize(
    ("x", "decimals", "want"),
    [
        (3.003366813946857, 10, "3.0033668139"),  # 12 significant digits first made it 3.0033668140
        (1.234567890123449, 13, "1.2345678901234"),
        (0.1 + 0.2, 3, "0.300"),
        (0.16449999999999998, 3, "0.165"),  # binary noise of 0.1645 is still absorbed at ordinary decimals
        (2.675, 2, "2.68"),
        (1.0000000000000002, 15, "1.000000000000000"),
        (0.30000000000000004, 17, "0.30000000000000004"),  # past a double's digits: its exact decimal
    ],
)
def test_round_half_up_rounds_once(x: float, decimals: int, want: str) -> None:
    assert f"{round_half_up(x, decimals):.{decimals}f}" == want


def test_many_decimals_expected_is_the_true_value_rounded_once(cli: Any, tmp_path: Path) -> None:
    res = _layer_residual1()
    mean = res.mean(axis=1)
    assert _by_hand(float(mean[1]), 10) == "3.0033668139"  # 3.003366813946857…
    answers = tmp_path / "a.toml"
    answers.write_text(
        'problem = "layer-encoder.toml"\n'
        f'"norm1.mean" = [{_by_hand(float(mean[0]), 10)}, 3.0033668149, {_by_hand(float(mean[2]), 10)}]\n'
    )
    text = " ".join(cli("check", "--problems", str(PROBLEMS), str(answers), "--width", "200").stdout.split())
    assert "3.0033668139" in text and "3.0033668140" not in text
    assert "= 3.0033668139, not 3.0033668149" in text
    # the operands at the answer's precision (10 decimals), not the problem's 3
    ops = " + ".join(_by_hand(float(v), 10) for v in res[1])
    assert f"μ_2 (suis) = ({ops}) / 4" in text, text  # (named by its row's token, as the views name it)
