"""Bounds that say nothing give no credit. A step is right given the answerer's earlier answers where
it lies within the bounds the interval chain gives over them (each answer standing for every number
it may have been rounded from). Those bounds are a superset, and over a long chain they widen: a
64-step RNN's summed loss of 105.8 was bounded by hundreds, so a loss of 1, 50 or 200 was graded
correct, "consistent with your own rounded earlier answers", with no earlier answer at all or with
the first hidden state answered right. The loss here is worked by the paper's formulas in numpy:
h_t = tanh(W [h_{t−1}; x_t] + b), z_t = W_out h_t + b_out, L = Σ_t −ln softmax(z_t)[target_t]."""

from __future__ import annotations

import numpy as np
import pytest

from attncalc.check import check
from attncalc.parse import parse_problem

from .test_check_slip_fanout import _raw


def _loss_by_hand(raw: dict) -> tuple[float, np.ndarray]:
    g = raw["given"]
    W, b = np.array(g["W"]), np.array(g["b"])
    W_out, b_out = np.array(g["W_out"]), np.array(g["b_out"])
    h = np.zeros(W.shape[0])
    total, first = 0.0, None
    for x, target in zip(np.array(g["x"]), g["targets"], strict=True):
        h = np.tanh(W @ np.concatenate([h, x]) + b)
        first = h if first is None else first
        z = W_out @ h + b_out
        total += -(z[g["vocab"].index(target)] - np.log(np.sum(np.exp(z))))
    return float(total), first


@pytest.fixture(scope="module")
def problem() -> tuple[object, float, list[float]]:
    raw = _raw(64, 4)
    loss, h1 = _loss_by_hand(raw)
    return parse_problem(raw, "rnn.json"), loss, np.round(h1, 3).tolist()


def test_a_loss_far_from_the_truth_is_wrong_with_no_earlier_answer(problem) -> None:
    p, loss, _ = problem
    for far in (1, 50, 200):
        (r,) = check(p, {"loss": far}, "a.json").results
        assert r.verdict == "wrong", (far, loss, r.note)
    (r,) = check(p, {"loss": round(float(loss), 1)}, "a.json").results
    assert r.verdict == "correct", (loss, r.note)


def test_a_loss_far_from_the_truth_is_wrong_after_a_right_hidden_state(problem) -> None:
    p, loss, h1 = problem
    for far in (1, 50, 200):
        verdicts = {r.id: r.verdict for r in check(p, {"1.h": h1, "loss": far}, "a.json").results}
        assert verdicts == {"1.h": "correct", "loss": "wrong"}, (far, loss, verdicts)
    verdicts = {r.id: r.verdict for r in check(p, {"1.h": h1, "loss": round(float(loss), 2)}, "a.json").results}
    assert verdicts == {"1.h": "correct", "loss": "correct"}, verdicts
