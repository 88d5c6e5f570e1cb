"""Kinds moe and grpo: a written-out line whose rounded numbers give another last digit than the shown
(unrounded) result says "as written: …", as the other kinds' lines do. Every value here is worked by
hand from the paper formulas with numpy (softmax, the top-2 gates renormalised, Mixtral; the group
advantage (r − μ) / (σ + ε), Shao et al. 2024) and then from the line's own rounded numbers."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.render.hand_eval import Unreadable, evaluate

from ..helpers import PROBLEMS


def _r(x: float, places: int) -> str:
    return str(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _solve(cli: Any, name: str) -> str:
    out = cli("solve", str(Path(PROBLEMS, name)))
    assert out.exit_code == 0, out.output
    return " ".join(out.stdout.split())  # lines wrapped by the terminal width read as one


def test_moe_lines_say_what_their_numbers_give(cli: Any) -> None:
    """Token 3 of moe-mixtral: z = [1.25, 2, −1.25, −0.5], p = softmax(z); its top two are p_2 = 0.628 and
    p_1 = 0.296 (3 decimals): g = 0.628 / 0.924 = 0.67965 → 0.680 as written, the true gate 0.679.
    P_4 = (0.292 + 0.037 + 0.052 + 0.553) / 4 = 0.2335 → 0.234 as written, the true mean 0.233."""
    X = np.array([[1, 0], [0, 1], [1, 1], [2, -1]], dtype=float)
    Wr = np.array([[1, 0, -1.25, 0.5], [0.25, 2, 0, -1]])
    z = X @ Wr
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    shown = [_r(v, 3) for v in p[2]]
    assert shown[1] == "0.628" and shown[0] == "0.296"
    gate = p[2, 1] / (p[2, 1] + p[2, 0])
    assert _r(gate, 3) == "0.679" and _r(0.628 / (0.628 + 0.296), 3) == "0.680"
    col = [float(_r(v, 3)) for v in p[:, 3]]
    assert col == [0.292, 0.037, 0.052, 0.553]
    as_written = sum(Decimal(_r(v, 3)) for v in p[:, 3]) / 4  # 0.2335 exactly, half up
    assert _r(p[:, 3].mean(), 3) == "0.233" and str(as_written.quantize(Decimal("0.001"), ROUND_HALF_UP)) == "0.234"
    text = _solve(cli, "moe-mixtral.toml")
    assert "g[3,1] = 0.628 / (0.628 + 0.296) = 0.679 (as written: 0.680)" in text
    assert "P_4 = (0.292 + 0.037 + 0.052 + 0.553) / 4 = 0.233 (as written: 0.234)" in text
    assert "g[1,1] = 0.481 / (0.481 + 0.292) = 0.622 (" not in text  # 0.481 / 0.773 = 0.6223: no remark


def test_grpo_advantages_say_what_their_numbers_give(cli: Any) -> None:
    """Rewards [1, 0, 0, 1]: μ = 0.5, σ = √(1/3) (n − 1) = 0.57735 → 0.5774; A = 0.5 / (σ + 0.0001) =
    0.86588 → 0.8659, while 0.5 / (0.5774 + 0.0001) = 0.86580 → 0.8658 as written."""
    r = np.array([1.0, 0, 0, 1])
    sigma = r.std(ddof=1)
    assert _r(sigma, 4) == "0.5774"
    a = (r - r.mean()) / (sigma + 1e-4)
    assert _r(a[0], 4) == "0.8659" and _r(0.5 / (0.5774 + 0.0001), 4) == "0.8658"
    text = _solve(cli, "grpo-four-completions.toml")
    assert "A_1 (o1) = (1 − 0.5) / (0.5774 + 0.0001) = 0.8659 (as written: 0.8658)" in text


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("0.646·0.5 + 0.354·(-1)", 0.646 * 0.5 - 0.354),
        ("(1 − 0.417) / (0.492 + 0.0001)", (1 - 0.417) / 0.4921),
        ("4·(0.667·0.255 + 0.333·0.745)", 4 * (0.667 * 0.255 + 0.333 * 0.745)),
        ("exp(-1.25) / (exp(1) + exp(0))", np.exp(-1.25) / (np.e + 1)),
        ("√((0.25 + 0.25) / 3)", np.sqrt(0.5 / 3)),
        ("max(0, 0.3 − 0.1) / 0.3", 0.2 / 0.3),
        ("2^3 − -1", 9.0),
    ],
)
def test_a_line_is_read_as_its_arithmetic(line: str, value: float) -> None:
    assert evaluate(line) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("line", ["the largest of p_1", "[0.5 ≤ 0.75]", "0.3 + …", "__import__('os')", "1 +", "(1"])
def test_a_line_that_is_not_arithmetic_is_unreadable(line: str) -> None:
    with pytest.raises(Unreadable):
        evaluate(line)
