"""A small summary value a student must match keeps three significant digits (docs/guide/numbers.md):
moe's load-balancing loss with aux_coef = 0.01 (0.0121 at 3 decimals printed 0.012) and quantization's
MSE (0.000693 at 4 decimals printed 0.0007). The values are recomputed here with numpy from the papers'
formulas; the printed text is read back and must show >= 3 significant digits and be that value
rounded. The answer key written so still grades right, as does the value at the sheet's decimals."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.derivation.fmt import significant_places
from attncalc.homework.generate import answer_key
from attncalc.mechanisms import solve
from attncalc.parse import parse_problem

# problems/moe-switch.toml at 3 decimals: top-1, E = 2, aux_coef = 0.01
SWITCH: dict[str, Any] = {
    "kind": "moe",
    "given": {
        "X": [[1, 0], [0, 1], [1, 1], [2, 1]],
        "W_router": [[1, -1], [0, 1]],
        "experts": [[[1, 2], [0, 1]], [[-1, 0], [1, 1]]],
        "top_k": 1,
        "renormalize": False,
        "capacity_factor": 1,
        "aux_coef": 0.01,
    },
    "settings": {"decimals": 3},
}
# a 4-bit zero-point quantization per group of 2 (a drawn variant's weights)
QUANT: dict[str, Any] = {
    "kind": "quantization",
    "given": {
        "W": [[-0.2, -1.0, 0.5, -1.9], [1.8, -0.4, -1.2, -1.8], [-1.9, -2.0, -1.6, 2.5]],
        "bits": 4,
        "scheme": "zeropoint",
        "granularity": "group",
        "group": 2,
    },
    "settings": {"decimals": 4},
}


def switch_loss() -> float:
    """Hugging Face's load_balancing_loss_func times aux_coef: E · Σ_e f_e · P_e, f_e the share of the
    tokens whose top-1 choice is e, P_e the mean router probability (Fedus et al. 2021, eq. 4)."""
    g = SWITCH["given"]
    Z = np.asarray(g["X"], dtype=float) @ np.asarray(g["W_router"], dtype=float)
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    E = P.shape[1]
    f = np.bincount(P.argmax(axis=1), minlength=E) / len(P)
    return float(g["aux_coef"] * E * np.sum(f * P.mean(axis=0)))


def quant_mse() -> float:
    """Zero-point quantization per group: s = (max − min) / (2^b − 1) over [min(w, 0), max(w, 0)],
    z = round(−min / s), q = clamp(round(w / s) + z, 0, 2^b − 1), w' = (q − z) s; the mean of (w − w')²."""
    g = QUANT["given"]
    blocks = np.asarray(g["W"], dtype=float).reshape(-1, g["group"])
    top = 2 ** g["bits"] - 1
    errors = []
    for b in blocks:
        lo, hi = min(b.min(), 0.0), max(b.max(), 0.0)
        s = (hi - lo) / top
        z = np.round(-lo / s)
        q = np.clip(np.round(b / s) + z, 0, top)
        errors.append(b - (q - z) * s)
    return float(np.mean(np.concatenate(errors) ** 2))


def significant(text: str) -> int:
    return len(text.lstrip("-").replace(".", "").lstrip("0"))


def printed(text: str, symbol: str) -> str:
    """The value on the step's last line "symbol = …" of the terminal text."""
    return re.findall(rf"^\s*{re.escape(symbol)} = (\S+)\s*$", text, flags=re.M)[-1]


@pytest.mark.parametrize(
    ("raw", "truth", "symbol", "step"),
    [(SWITCH, switch_loss, "L_aux", "load_balancing_loss"), (QUANT, quant_mse, "MSE", "mse")],
)
def test_a_small_loss_prints_three_significant_digits(raw: Any, truth: Any, symbol: str, step: str) -> None:
    want = truth()
    assert 0 < want < 0.1 and round(want, raw["settings"]["decimals"]) * 10 ** raw["settings"]["decimals"] < 100
    d = solve(parse_problem(raw, "p.toml"))
    for text in (printed(d.to_text(width=100), symbol), d.to_json()["steps"][-1]["shown"]):
        places = len(text.split(".")[1])
        assert significant(text) >= 3, text
        assert abs(float(text) - want) <= 0.5 * 10.0**-places + 1e-15, (text, want)
    assert [s["id"] for s in d.to_json()["steps"]][-1] == step
    assert "to keep 3 significant digits" in d.to_text(width=100)
    assert "to keep 3 significant digits" in d.to_markdown(sheet="solution")
    # the answers sheet (and the key) write it so too
    answers = d.to_markdown(sheet="answers")
    line = next(x for x in answers.splitlines() if x.startswith(f"| {step} "))
    assert significant(line.rsplit("|", 2)[-2].strip()) >= 3, line


def test_the_key_written_with_more_digits_and_the_sheets_decimals_both_grade_right() -> None:
    problem = parse_problem(SWITCH, "p.toml")
    key = answer_key(solve(problem))
    assert key["load_balancing_loss"] == f"{switch_loss():.4f}"  # 0.0121: four decimals, three digits
    report = check(problem, key, "a.toml")
    assert all(r.verdict == "correct" for r in report.results), [(r.id, r.verdict, r.note) for r in report.results]
    at_3 = f"{switch_loss():.3f}"  # what the question sheet asks: 3 decimals
    (r,) = check(problem, {"load_balancing_loss": at_3}, "a.toml").results
    assert r.verdict == "correct", r.note
    wrong = f"{switch_loss() + 0.001:.3f}"
    (r,) = check(problem, {"load_balancing_loss": wrong}, "a.toml").results
    assert r.verdict == "wrong"


def test_carried_values_keep_the_sheets_decimals() -> None:
    """--carry rounds every step to the decimals: more places would only show zeros."""
    d = solve(parse_problem(SWITCH, "p.toml"), carry_rounded=True)
    shown = json.loads(json.dumps(d.to_json()))["steps"][-1]["shown"]
    assert len(shown.split(".")[1]) <= 3


def test_the_places_rule() -> None:
    assert significant_places(0.0099366, 3, 3) == 5  # 0.00994
    assert significant_places(0.0121, 3, 3) == 4
    assert significant_places(2.169, 3, 3) == 3  # a value of 1 or more: the decimals
    assert significant_places(0.334, 3, 3) == 3
    assert significant_places(np.array([0.0, 0.04]), 4, 3) == 4  # zeros are not counted
    assert significant_places(0.0099366, 3, 0) == 3  # a step not kept to significant digits
    assert significant_places(np.array([0.0, 2.0]), 3, 3) == 3
