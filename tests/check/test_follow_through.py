"""Follow-through as a grader marks it: where a carried step's error began (the wrong answer it rests
on, not the first wrong answer in the file), full-precision work after an earlier error, and honest
small whole-number answers that are not taken for copies. Expected values come from numpy formulas
written here from the papers, or are worked out by hand in the comments."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from attncalc.check import check
from attncalc.check.points import degenerate
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS


def by_id(report: Any) -> dict[str, Any]:
    return {r.id: r for r in report.results}


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _mh_heads() -> tuple[list[np.ndarray], int]:
    """Each head's unscaled scores Q_j K_jᵀ of problems/mh-self-attention.toml (row convention)."""
    import tomllib

    g = tomllib.loads(Path(PROBLEMS, "mh-self-attention.toml").read_text())["given"]
    X, WQ, WK = (np.array(g[k], dtype=float) for k in ("X", "W_Q", "W_K"))
    h = g["heads"]
    d_k = WQ.shape[1] // h
    Q, K = X @ WQ, X @ WK
    return [Q[:, j * d_k : (j + 1) * d_k] @ K[:, j * d_k : (j + 1) * d_k].T for j in range(h)], d_k


def test_a_carried_step_began_at_the_error_it_rests_on_not_the_first_in_the_file() -> None:
    """Head 1's scores and head 2's scores are both wrong; head 2's scaled scores follow from head 2's
    wrong scores, so that is where their error began (head 1 feeds nothing into head 2)."""
    scores, d_k = _mh_heads()
    s1, s2 = scores[0].copy(), scores[1].copy()
    s1[0, 0] += 1
    s2[1, 1] += 2
    answers = {
        "head.1.scores": s1.round(3).tolist(),
        "head.2.scores": s2.round(3).tolist(),
        "head.2.scaled_scores": (s2 / math.sqrt(d_k)).round(3).tolist(),
    }
    rep = check(load_problem(Path(PROBLEMS, "mh-self-attention.toml")), answers, "a.toml")
    r = by_id(rep)
    assert r["head.1.scores"].verdict == "wrong" and r["head.2.scores"].verdict == "wrong"
    assert r["head.2.scaled_scores"].verdict == "carried"
    assert r["head.2.scaled_scores"].began_at == "head.2.scores"
    assert "began at head.2.scores" in r["head.2.scaled_scores"].note


def test_a_carried_step_through_carried_steps_names_the_wrong_one() -> None:
    """The chain scores (wrong) → exponentials → weights → context: every carried step began at scores."""
    raw = {"kind": "attention", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]}}
    e = np.array([1.0, 2.0, 3.0])  # the true scores are [1, 2, 2]: the third entry is wrong
    w = np.exp(e) / np.exp(e).sum()
    H = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    answers = {
        "scores": [1, 2, 3],
        "exponentials": np.exp(e).round(3).tolist(),
        "weights": w.round(3).tolist(),
        "context": (w @ H).round(3).tolist(),
    }
    r = by_id(check(parse_problem(raw, "p.toml"), answers, "a.toml"))
    assert r["scores"].verdict == "wrong"
    for step in ("exponentials", "weights", "context"):
        assert r[step].verdict == "carried", (step, r[step].note)
        assert r[step].began_at == "scores"


def test_full_precision_after_an_earlier_error_earns_carried_credit() -> None:
    """A student writes a wrong score, then keeps every later number at full precision and rounds
    only what they write. Their context, from their unrounded weights, differs from the context of
    their written (rounded) weights by more than half a unit: it is still right given their work."""
    keys = [[9, 7], [8, 9], [7, 8]]
    raw = {"kind": "attention", "given": {"query": [0.5, 0.25], "keys": keys}}
    H = np.array(keys, dtype=float)
    true_scores = H @ np.array([0.5, 0.25])  # [6.25, 6.25, 5.5]
    e = true_scores.copy()
    e[2] = 5.0  # the slip: 5 for 5.5
    w = _softmax(e)  # full precision, as the student kept it
    context = w @ H
    from_rounded = w.round(3) @ H
    # the case is sensitive: rounding the weights first moves the context by more than half a unit
    assert np.abs(from_rounded - context).max() > 0.0005
    answers = {
        "scores": e.tolist(),
        "exponentials": np.exp(e).round(3).tolist(),
        "weights": w.round(3).tolist(),
        "context": context.round(3).tolist(),
    }
    r = by_id(check(parse_problem(raw, "p.toml"), answers, "a.toml"))
    assert r["scores"].verdict == "wrong"
    assert r["context"].verdict == "carried", r["context"].note
    assert r["context"].began_at == "scores"


def test_a_slip_after_an_earlier_error_is_still_wrong() -> None:
    """The full-precision allowance does not excuse a later slip: context from the wrong weights, with
    one entry off by 0.1, is wrong."""
    keys = [[9, 7], [8, 9], [7, 8]]
    raw = {"kind": "attention", "given": {"query": [0.5, 0.25], "keys": keys}}
    e = np.array([6.25, 6.25, 5.0])
    w = _softmax(e)
    context = w @ np.array(keys, dtype=float)
    context[0] += 0.1
    answers = {"scores": e.tolist(), "weights": w.round(3).tolist(), "context": context.round(3).tolist()}
    r = by_id(check(parse_problem(raw, "p.toml"), answers, "a.toml"))
    assert r["context"].verdict == "wrong"


def test_small_whole_number_answers_are_not_taken_for_copies() -> None:
    x = {"x": np.array([[1.0, 0.0], [0.0, 1.0]])}
    # [1, 0] is a row of x, but honest work on −1/0/1 numbers gives it: not a copy, not "all equal"
    assert degenerate(np.array([1.0, 0.0]), 3, [0.462, 0.1], x) is None
    assert degenerate(np.array([1.0, 1.0]), 3, [0.462, 0.1], x) is None
    assert degenerate(np.array([-1.0, 1.0, 0.0]), 3, [0.2, 0.3, 0.4], {"b": np.array([-1.0, 1.0, 0.0])}) is None
    # larger numbers copied from a given still are, and all zeros still is degenerate
    assert degenerate(np.array([2.0, 3.0]), 3, [0.5, 0.1], {"x": np.array([[2.0, 3.0]])}) == "copied from the given x"
    assert degenerate(np.array([0.7, 0.7, 0.7]), 3, [0.2, 0.3, 0.5], {}) == "all its entries equal"
    assert degenerate(np.array([0.0, 0.0]), 3, [0.5, 0.1], x) == "all zeros"
    # five entries of −1/0/1 equal to a given is a copy again
    v = np.array([1.0, 0.0, -1.0, 1.0, 0.0])
    assert degenerate(v, 3, [0.1, 0.2, 0.3, 0.4, 0.5], {"b": v.copy()}) == "copied from the given b"


# An LSTM step by hand (gates layout, x_1 = [-1, 1], h_0 = c_0 = 0): every gate reads [h_0; x_1] =
# [0, 0, -1, 1], so each pre-activation is the last two columns of its W times x_1 plus its bias.
LSTM = {
    "kind": "lstm",
    "settings": {"decimals": 3},
    "given": {
        "x": [[-1, 1]],
        "W_i": [[0, -1, 1, 1], [-1, 0, 0, -1]],
        "b_i": [0, 0],
        "W_f": [[1, 1, 1, 0], [-1, 0, 0, -1]],
        "b_f": [-1, 1],
        "W_c": [[-1, 1, 0, -1], [1, 0, 1, -1]],
        "b_c": [-1, 1],
        "W_o": [[1, 0, 1, 1], [-1, -1, 0, 0]],
        "b_o": [0, 1],
        "W_out": [[0, -1], [-1, 1], [-1, 0]],
        "vocab": ["A", "B", "C"],
        "targets": ["B"],
    },
    "cell": {"layout": "gates"},
}


def test_full_precision_after_an_error_keeps_the_right_entries_unrounded() -> None:
    """c̃_1 has one wrong entry (−0.764 for tanh(−1) = −0.762) and one right one (tanh(−1) too, written
    −0.762). The student carries on at full precision from their c̃ = [−0.764, tanh(−1)]; their logits
    are right for that, though not for c̃ as written (−0.762 rounded)."""
    g = LSTM["given"]
    hx = np.array([0.0, 0.0, -1.0, 1.0])

    def sig(z: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-z))

    i = sig(np.array(g["W_i"]) @ hx + g["b_i"])
    o = sig(np.array(g["W_o"]) @ hx + g["b_o"])
    c_true = np.tanh(np.array(g["W_c"]) @ hx + g["b_c"])  # [tanh(-1), tanh(-1)]

    def onward(c_tilde: np.ndarray) -> dict[str, np.ndarray]:
        new = i * c_tilde
        c = new  # f ⊙ c_0 = 0
        h = o * np.tanh(c)
        return {"1.new": new, "1.c": c, "1.tanh_c": np.tanh(c), "1.h": h, "1.logits": np.array(g["W_out"]) @ h}

    mine = onward(np.array([-0.764, c_true[1]]))  # the student's own work, unrounded
    as_written = onward(np.array([-0.764, -0.762]))
    # the case is sensitive: from the written c̃ the logits round differently
    assert not np.array_equal(mine["1.logits"].round(3), as_written["1.logits"].round(3))
    answers = {"1.c_tilde": [-0.764, -0.762], **{k: v.round(3).tolist() for k, v in mine.items()}}
    r = by_id(check(parse_problem(LSTM, "p.toml"), answers, "a.toml"))
    assert r["1.c_tilde"].verdict == "wrong"
    assert r["1.logits"].verdict == "carried", r["1.logits"].note


def test_a_named_slip_is_honest_work_not_a_degenerate_answer() -> None:
    """The output gate without its bias: o_pre = W_o·[h_0; x_1] = [1·(−1) + 1·1, 0] = [0, 0], all zeros,
    but named as the slip it is, so it is not refused credit as degenerate, and neither is o = [0.5, 0.5]
    that follows from it."""
    answers = {"1.o_pre": [0, 0], "1.o": ["0.500", "0.500"]}
    r = by_id(check(parse_problem({**LSTM, "grading": {"slip": 0.5}}, "p.toml"), answers, "a.toml"))
    assert r["1.o_pre"].verdict == "wrong" and r["1.o_pre"].mistake == "no_bias"
    assert "degenerate" not in r["1.o_pre"].note.lower() and "No partial credit" not in r["1.o_pre"].note
    assert r["1.o"].verdict == "carried" and "No carried credit" not in r["1.o"].note
