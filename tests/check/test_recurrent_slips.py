"""The named recurrent and seq2seq slips: each answers file is built with the slip by the numpy oracle
(tests/cell_oracles.py, the papers' formulas with the slip written in), rounded to 3 decimals as a
student writes; check must call it wrong, name the slip and say it with the step's own indices."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.parse import parse_problem

from ..cell_oracles import run_recurrent, run_seq2seq

LSTM: dict[str, Any] = {
    "kind": "lstm",
    "given": {
        "x": [[1, 0.5], [-0.5, 1]],
        "h0": [0.2, -0.4],
        "c0": [0.5, -0.3],
        "W_f": [[0.5, -0.2, 0.3, 0.1], [0.1, 0.4, -0.3, 0.2]],
        "W_i": [[0.2, 0.1, -0.4, 0.5], [-0.3, 0.2, 0.1, 0.4]],
        "W_c": [[0.4, -0.5, 0.2, 0.3], [0.1, 0.3, -0.2, 0.6]],
        "W_o": [[-0.1, 0.2, 0.5, -0.3], [0.3, 0.1, 0.2, 0.2]],
        "b_f": [0.1, -0.2],
        "b_i": [0.3, 0.1],
        "b_c": [-0.1, 0.2],
        "b_o": [0.2, -0.1],
        "W_out": [[1, -0.5], [0.5, 1], [-1, 0.5]],
        "vocab": ["A", "B", "C"],
        "targets": ["B", "C"],
    },
}
# PyTorch's layout (r, z, n stacked; the reset gate after W_hn h + b_hn), both biases non-zero
GRU: dict[str, Any] = {
    "kind": "gru",
    "given": {
        "x": [[1, -0.5], [0.5, 0.5]],
        "h0": [0.3, -0.6],
        "weight_ih": [[0.5, -0.2], [0.1, 0.4], [0.2, 0.1], [-0.3, 0.2], [0.4, -0.5], [0.1, 0.3]],
        "weight_hh": [[0.3, 0.1], [-0.3, 0.2], [-0.4, 0.5], [0.1, 0.4], [0.2, 0.3], [-0.2, 0.6]],
        "bias_ih": [0.1, -0.2, 0.3, 0.1, -0.1, 0.2],
        "bias_hh": [0.2, 0.1, -0.1, 0.2, 0.3, -0.2],
    },
    "cell": {"layout": "pytorch"},
}
RNN: dict[str, Any] = {
    "kind": "rnn",
    "given": {"x": [[1, 0.5], [0, -1]], "h0": [0.5, 0.25], "W": [[0.5, -0.5, 1, 0], [0.25, 0.5, 0, 1]], "b": [0, 0.1]},
}
_GRU_CELL = {
    "W_r": [[0.5, -0.2, 0.3, 0.1], [0.1, 0.4, -0.3, 0.2]],
    "W_z": [[0.2, 0.1, -0.4, 0.5], [-0.3, 0.2, 0.1, 0.4]],
    "W_h": [[0.4, -0.5, 0.2, 0.3], [0.1, 0.3, -0.2, 0.6]],
}
_OUT = {"W_out": [[1, -0.5], [0.5, 1], [-1, 0.5]], "vocab": ["I", "am", "here"], "targets": ["I", "am"]}
BAHDANAU: dict[str, Any] = {
    "kind": "seq2seq",
    "encoder": {"cell": "gru", "x": [[1, 0], [0, 1], [0.5, 0.5]], **_GRU_CELL},
    "decoder": {
        "cell": "gru",
        "attention": "bahdanau",
        "inputs": [[1, 0], [0, 1]],
        "W_r": [[0.5, -0.2, 0.3, 0.1, 0.2, -0.1], [0.1, 0.4, -0.3, 0.2, 0.1, 0.3]],
        "W_z": [[0.2, 0.1, -0.4, 0.5, -0.2, 0.1], [-0.3, 0.2, 0.1, 0.4, 0.3, -0.3]],
        "W_h": [[0.4, -0.5, 0.2, 0.3, 0.5, 0.2], [0.1, 0.3, -0.2, 0.6, -0.4, 0.1]],
        "W_q": [[1, 0.5], [-0.5, 1]],
        "W_k": [[0.5, 1], [1, -0.5]],
        "v": [1, -1],
        **_OUT,
    },
}
LUONG: dict[str, Any] = {
    "kind": "seq2seq",
    "encoder": {"cell": "gru", "x": [[1, 0], [0, 1], [0.5, 0.5]], **_GRU_CELL},
    "decoder": {
        "cell": "gru",
        "attention": "luong",
        "inputs": [[1, 0], [0, 1]],
        **_GRU_CELL,
        "W_att": [[1, 0.5, -0.5, 0.2], [0.3, -1, 0.4, 0.5]],
        **_OUT,
    },
}


def r3(x: Any) -> Any:
    """As a student writes it: 3 decimals, as strings (so the precision is kept)."""
    return [f"{v:.3f}" for v in np.ravel(x)] if np.ndim(x) else f"{float(x):.3f}"


def grade(raw: dict[str, Any], answers: dict[str, Any]) -> dict[str, Any]:
    return {r.id: r for r in check(parse_problem(raw, "p.toml"), answers, "a.toml").results}


def built(raw: dict[str, Any], slip: str | None, t: int, name: str, row: int | None = None) -> np.ndarray:
    steps = run_seq2seq(raw, slip, row) if raw["kind"] == "seq2seq" else run_recurrent(raw, slip, row)
    value = np.asarray(steps[t - 1][name], dtype=float)
    truth = run_seq2seq(raw) if raw["kind"] == "seq2seq" else run_recurrent(raw)
    assert not np.allclose(value, truth[t - 1][name], atol=2e-3), "the slip must change this step"
    return value


CASES = [
    # (problem, slip, time step, oracle name, step id, words the note must contain)
    (LSTM, "sigmoid_for_tanh", 1, "c_tilde", "1.c_tilde", "σ was used where the candidate needs tanh"),
    (GRU, "sigmoid_for_tanh", 2, "h_tilde", "2.h_tilde", "σ was used where the candidate needs tanh"),
    (RNN, "sigmoid_for_tanh", 1, "h", "1.h", "σ was used where the candidate needs tanh"),
    (LSTM, "tanh_for_sigmoid", 1, "f", "1.f", "tanh was used for a gate, which needs σ"),
    (GRU, "tanh_for_sigmoid", 1, "z", "1.z", "tanh was used for a gate, which needs σ"),
    (LSTM, "hx_swapped", 1, "hx", "1.hx", "[x_1; h_0] was used for [h_0; x_1]"),
    (LSTM, "hx_swapped", 2, "o_pre", "2.o_pre", "[x_2; h_1] was used for [h_1; x_2]"),
    (RNN, "hx_swapped", 1, "h_pre", "1.h_pre", "[x_1; h_0] was used for [h_0; x_1]"),
    (LSTM, "no_bias", 1, "i_pre", "1.i_pre", "the bias was left out"),
    (GRU, "no_bias", 1, "r_pre", "1.r_pre", "the bias was left out"),
    (LSTM, "forget_not_applied", 1, "c", "1.c", "c_1 = c_0 + i_1 ⊙ c̃_1 instead of f_1 ⊙ c_0 + i_1 ⊙ c̃_1"),
    (LSTM, "no_tanh_c", 2, "h", "2.h", "h_2 = o_2 ⊙ c_2 was used instead of o_2 ⊙ tanh(c_2)"),
    (GRU, "gru_update_swapped", 1, "h", "1.h", "h = z ⊙ h̃ + (1 − z) ⊙ h_0 was used, but this GRU computes h = (1 − z)"),
    (GRU, "reset_swapped", 1, "h_tilde", "1.h_tilde", "applied before the product, W_h [r ⊙ h; x]"),
    (BAHDANAU, "bahdanau_current_state", 1, "scores", "decoder.1.scores", "scored with s_1"),
    (BAHDANAU, "bahdanau_current_state", 2, "weights", "decoder.2.weights", "instead of s_1"),
    (LUONG, "luong_logits_from_h", 2, "logits", "decoder.2.logits", "computed from h_2 instead of the attentional"),
]


@pytest.mark.parametrize(("raw", "slip", "t", "name", "step", "words"), CASES, ids=[f"{c[1]}-{c[4]}" for c in CASES])
def test_each_slip_is_named(raw: dict[str, Any], slip: str, t: int, name: str, step: str, words: str) -> None:
    r = grade(raw, {step: r3(built(raw, slip, t, name))})[step]
    assert r.verdict == "wrong" and r.mistake == slip, (r.mistake, r.note)
    assert words in r.note, r.note


def test_reset_swapped_the_other_way() -> None:
    """A GRU that resets before (the gates layout's default), answered with the reset after."""
    raw = {
        "kind": "gru",
        "given": {"x": [[1, -0.5]], "h0": [0.3, -0.6], **_GRU_CELL, "b_h": [0.2, -0.1]},
        "cell": {"reset": "before"},
    }
    r = grade(raw, {"1.h_tilde": r3(built(raw, "reset_swapped", 1, "h_tilde"))})["1.h_tilde"]
    assert r.mistake == "reset_swapped" and "applied after the product" in r.note and "applies it before" in r.note


@pytest.mark.parametrize("raw", [LSTM, LUONG], ids=["lstm", "seq2seq"])
def test_softmax_over_the_wrong_vocabulary_row(raw: dict[str, Any]) -> None:
    """The loss (and p − y) read off another entry's row: named, with the entry taken and the target."""
    prefix = "decoder." if raw["kind"] == "seq2seq" else ""
    labels = (raw.get("given") or raw["decoder"])["vocab"]
    targets = (raw.get("given") or raw["decoder"])["targets"]
    wrong = (labels.index(targets[0]) + 1) % len(labels)
    answers = {
        f"{prefix}1.loss": r3(built(raw, "wrong_vocab_row", 1, "loss", wrong)),
        f"{prefix}1.grad_logits": r3(built(raw, "wrong_vocab_row", 1, "grad_logits", wrong)),
    }
    res = grade(raw, answers)
    for step in answers:
        assert res[step].mistake == "wrong_vocab_row", res[step].note
        assert (
            f"the probability of {labels[wrong]} was used instead of that of the target {targets[0]}" in res[step].note
        )


def test_a_slip_costs_one_step() -> None:
    """σ for tanh in c̃_1, then c_1 and h_1 computed correctly from it: carried, not wrong."""
    slipped = run_recurrent(LSTM, "sigmoid_for_tanh")[0]
    good = run_recurrent(LSTM)[0]
    written = np.array([float(x) for x in r3(slipped["c_tilde"])])  # carried on as written
    c = good["f"] * np.array([0.5, -0.3]) + good["i"] * written
    h = good["o"] * np.tanh(np.array([float(x) for x in r3(c)]))
    res = grade(LSTM, {"1.c_tilde": r3(slipped["c_tilde"]), "1.c": r3(c), "1.h": r3(h)})
    assert res["1.c_tilde"].mistake == "sigmoid_for_tanh"
    assert res["1.c"].verdict == res["1.h"].verdict == "carried"
    assert res["1.h"].began_at == "1.c_tilde"


def test_the_true_values_name_no_slip() -> None:
    """The oracle's true values are all correct (the oracle and attncalc agree)."""
    truth = run_recurrent(LSTM)
    answers = {f"{t}.{k}": r3(truth[t - 1][k]) for t in (1, 2) for k in ("f", "c_tilde", "c", "h", "loss")}
    assert all(r.verdict == "correct" for r in grade(LSTM, answers).values())
