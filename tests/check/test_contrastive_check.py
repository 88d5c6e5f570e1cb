"""check on kind contrastive: each named slip both ways. An answer built here with numpy from the
slip's own definition is named; the same answer with one entry mistyped, and the true answer with one
entry mistyped, are not (the arithmetic is worked out instead). The example is contrastive-clip.toml."""

from __future__ import annotations

import tomllib
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS

FILE = PROBLEMS / "contrastive-clip.toml"
G = tomllib.loads(FILE.read_text())["given"]
Q, K, TAU = np.array(G["queries"], dtype=float), np.array(G["keys"], dtype=float), float(G["temperature"])


def unit(X: np.ndarray) -> np.ndarray:
    return X / np.sqrt((X**2).sum(axis=1, keepdims=True))


def softmax(Z: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(Z)
    return e / e.sum(axis=axis, keepdims=True)


S = unit(Q) @ unit(K).T
Z = S / TAU
ROWS = -np.log(np.diag(softmax(Z, 1)))  # −ln P_ii, P the softmax of each row
COLS = -np.log(np.diag(softmax(Z, 0)))  # −ln of the column softmax's diagonal

# slip -> (step, the step's value under the slip, the answers given before it: the true ones)
BUILT: dict[str, tuple[str, Any, dict[str, Any]]] = {
    "contrastive_no_temperature": ("logits", S, {}),
    "contrastive_temperature_multiplied": ("logits", S * TAU, {}),
    "contrastive_rows_not_normalised": ("normalized_keys", K, {}),
    "softmax_wrong_axis": ("row_probabilities", softmax(Z, 0), {}),
    "contrastive_sum_for_mean": ("row_loss", ROWS.sum(), {}),
}
TRUE = {
    "logits": Z,
    "normalized_keys": unit(K),
    "row_probabilities": softmax(Z, 1),
    "row_loss": ROWS.mean(),
    "loss": (ROWS.mean() + COLS.mean()) / 2,
}


def written(x: Any) -> Any:
    a = np.asarray(x, dtype=float)
    return [written(v) for v in a] if a.ndim else f"{float(a):.3f}"


def typo(x: Any) -> Any:
    a = np.round(np.array(x, dtype=float), 3)
    flat = a.reshape(-1).copy()
    flat[-1] = round(flat[-1] + 0.271, 3)
    return flat.reshape(a.shape)


def _result(step: str, value: Any, before: dict[str, Any]) -> Any:
    answers = {**{k: written(v) for k, v in before.items()}, step: written(value)}
    results = check(load_problem(FILE), answers, "a.toml").results
    return next(r for r in results if r.id == step)


@pytest.mark.parametrize("slip", sorted(BUILT))
def test_work_built_with_the_slip_is_named(slip: str) -> None:
    step, value, before = BUILT[slip]
    r = _result(step, value, before)
    assert r.verdict == "wrong" and r.mistake == slip, (r.verdict, r.mistake, r.note)


@pytest.mark.parametrize("slip", sorted(BUILT))
def test_a_typo_is_not_taken_for_the_slip(slip: str) -> None:
    step, value, before = BUILT[slip]
    for answer in (typo(value), typo(TRUE[step])):
        r = _result(step, answer, before)
        assert r.verdict == "wrong" and r.mistake is None, (slip, r.mistake, r.note)


def test_the_two_directions_summed_at_the_loss_are_named() -> None:
    """The row and column losses right, their sum given for the loss: a sum for the mean."""
    before = {"row_loss": ROWS.mean(), "column_loss": COLS.mean()}
    r = _result("loss", ROWS.mean() + COLS.mean(), before)
    assert r.mistake == "contrastive_sum_for_mean", r.note
    r = _result("loss", typo(ROWS.mean() + COLS.mean()), before)
    assert r.mistake is None, r.note


def test_the_true_answers_are_all_right() -> None:
    answers = {
        "logits": written(Z),
        "row_probabilities": written(softmax(Z, 1)),
        "row_losses": written(ROWS),
        "row_loss": written(ROWS.mean()),
        "column_probabilities": written(softmax(Z, 0).T),
        "column_losses": written(COLS),
        "column_loss": written(COLS.mean()),
        "loss": written(TRUE["loss"]),
    }
    results = check(load_problem(FILE), answers, "a.toml").results
    assert all(r.verdict == "correct" for r in results), [(r.id, r.verdict, r.note) for r in results]


def test_slips_that_change_nothing_are_not_tried() -> None:
    """τ = 1: the temperature slips change nothing; normalize = false: nothing to leave unnormalised."""
    raw = {"kind": "contrastive", "given": {**G, "temperature": 1, "normalize": False}}
    p = parse_problem(raw, "t1.toml")
    S1 = Q @ K.T
    r = check(p, {"logits": written(S1 + 0.5)}, "a.toml").results[0]
    assert r.mistake is None, r.note


def test_column_probabilities_in_the_logits_orientation_are_told_they_are_the_transpose() -> None:
    """docs/interface.md lays the column softmax out with row j = column j of the logits; the softmax over
    axis 0 of Z written as it stands is every entry's transpose: wrong (not symmetric here), and said so;
    the same table with one entry off is wrong with no such hint."""
    laid_out = softmax(Z, 0).T
    assert not np.allclose(laid_out, laid_out.T)
    r = _result("column_probabilities", softmax(Z, 0), {})
    assert r.verdict == "wrong" and "transpose of the answer" in r.note, r.note
    r = _result("column_probabilities", typo(softmax(Z, 0)), {})
    assert "transpose" not in r.note
    assert _result("column_probabilities", laid_out, {}).verdict == "correct"
