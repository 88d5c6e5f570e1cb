"""Answers written to many decimals: the expected value is the true value rounded once (not first to 12
significant digits and then again), and the note writes the operands at the answer's precision; an
answer to fewer decimals never makes the written-out arithmetic false (0.2 · 0.25 is 0.05, not 0.1)."""

from __future__ import annotations

import math
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.derivation.arith import round_half_up
from attncalc.parse import parse_problem

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


def _dpo(decimals: int) -> Any:
    """problems/dpo-two-pairs.toml's pairs with β = 0.2: r_w = [0.5, 0.25], so β r_w_2 = 0.2 · 0.25 = 0.05."""
    given = {"beta": 0.2, "policy_chosen": [-12.5, -8.25], "policy_rejected": [-14.0, -9.0],
             "reference_chosen": [-13.0, -8.5], "reference_rejected": [-13.5, -8.75]}  # fmt: skip
    return parse_problem({"kind": "dpo", "given": given, "settings": {"decimals": decimals}}, "dpo.toml")


@pytest.mark.parametrize("decimals", [1, 4])
def test_a_note_at_one_decimal_writes_true_arithmetic(decimals: int) -> None:
    """An answer written to 1 decimal: 0.05 is 0.1 at its precision, but the line says 0.2 · 0.25 = 0.05
    (the operand 0.25 not rounded to 0.3, the product not rounded to 0.1) and then what that is at 1
    decimal. From the student's own 0.3 the product is 0.2 · 0.3 = 0.06."""
    beta, rw2 = 0.2, -8.25 - (-8.5)
    assert _by_hand(beta * rw2, 2) == "0.05" and _by_hand(beta * rw2, 1) == "0.1"
    r = check(_dpo(decimals), {"chosen_rewards": ["0.1", "0.5"]}, "a.toml").results[0]
    assert r.verdict == "wrong"
    assert "0.2 · 0.25 = 0.05 ≈ 0.1, not 0.5" in r.note, r.note
    assert "0.2 · 0.3" not in r.note and "= 0.1," not in r.note
    own = check(_dpo(decimals), {"chosen_logratios": ["0.5", "0.3"], "chosen_rewards": ["0.1", "0.5"]}, "a.toml")
    note = own.results[1].note
    assert f"0.2 · 0.3 = {_by_hand(beta * 0.3, 2)} ≈ 0.1, not 0.5" in note, note


def test_a_note_keeps_the_answer_precision_when_rounding_is_close() -> None:
    """0.2 · 0.3 = 0.06 written to 2 decimals is exactly 0.06, and −log σ(0.2 · 0.5) = 0.644 is 0.6 to 1
    decimal (off by 7 %): nothing is added. Only a value that rounding to the answer's decimals moves by
    more than a tenth of itself (0.05 to 0.1) gets its truer value beside it."""
    r = check(_dpo(4), {"chosen_logratios": ["0.5", "0.3"], "chosen_rewards": ["0.10", "0.60"]}, "a.toml").results[1]
    assert "0.2 · 0.3 = 0.06, not 0.60" in r.note, r.note
    assert "≈" not in r.note
    loss = math.log1p(math.exp(-0.2 * 0.5))  # −log σ(β h_2), h_2 = 0.5
    assert _by_hand(loss, 1) == "0.6" and abs(0.6 - loss) < 0.1 * loss
    r = check(_dpo(4), {"losses": ["0.6", "0.9"]}, "a.toml").results[0]
    assert f"= {_by_hand(loss, 1)}, not 0.9" in r.note and "≈" not in r.note, r.note
