"""What generate's recurrent drawers refuse, checked on what they write: no GRU variant where the reset
gate before or after W_hn gives the same states (it could not tell a student who put it in the wrong
place), no hidden unit stuck at 0, and stacked layouts whose question sheets say which rows (PyTorch)
or columns (Keras) belong to which gate."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from attncalc import api
from attncalc.mechanisms import solve
from attncalc.parse import parse_problem


def _states(d: Any) -> np.ndarray:
    return np.array([d[i] for i in d.step_ids if i.split(".")[-1] == "h"], dtype=float)


@pytest.mark.parametrize("layout", ["gates", "pytorch"])
def test_gru_variants_tell_reset_before_from_after(layout: str) -> None:
    for v in api.generate(kind="gru", layout=layout, count=12, seed=3):
        flipped = {
            **v.problem,
            "cell": {**v.problem["cell"], "reset": {"after": "before", "before": "after"}[v.problem["cell"]["reset"]]},
        }
        other = solve(parse_problem(flipped, "flipped.toml"), exact=False)
        # shown to 3 decimals, some hidden state differs by more than a unit of the last place
        assert np.abs(_states(v.derivation) - _states(other)).max() > 1e-3


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_no_hidden_unit_stays_zero(kind: str) -> None:
    for v in api.generate(kind=kind, count=12, seed=5, tokens=2):
        h = _states(v.derivation)
        assert (np.abs(h) >= 0.0005).any(axis=0).all(), v.problem["title"]


def test_pytorch_question_sheet_labels_the_gate_rows() -> None:
    v = api.generate(kind="gru", layout="pytorch", count=1)[0]
    sheet = v.derivation.to_markdown(sheet="question")
    assert "the gates' rows stacked r, z, n" in sheet
    for label in ("r1", "r2", "z1", "z2", "n1", "n2"):  # PyTorch's weight_ih rows: W_ir, W_iz, W_in
        assert f"| {label} |" in sheet


def test_keras_question_sheet_labels_the_gate_columns() -> None:
    v = api.generate(kind="lstm", layout="keras", count=1)[0]
    sheet = v.derivation.to_markdown(sheet="question")
    assert "columns side by side i, f, g, o" in sheet  # Keras's kernel: [W_i W_f W_c W_o]
    assert "| i1 | i2 | f1 | f2 | g1 | g2 | o1 | o2 |" in sheet


@pytest.mark.parametrize("cell", ["lstm", "rnn"])
def test_seq2seq_variants_have_no_zero_state_and_no_stuck_unit(cell: str) -> None:
    """Per cell (encoder, decoder): no hidden state all zeros at a step, no unit 0 at every step."""
    for v in api.generate(kind="seq2seq", cell=cell, count=10, seed=123):
        d = v.derivation
        for side in ("encoder", "decoder"):
            ids = [i for i in d.step_ids if i.startswith(side + ".") and i.endswith(".h") and i.count(".") == 2]
            h = np.array([d[i] for i in ids], dtype=float)
            assert (np.abs(h) >= 0.0005).any(axis=1).all(), (v.problem["title"], side)
            assert (np.abs(h) >= 0.0005).any(axis=0).all(), (v.problem["title"], side)


@pytest.mark.parametrize("seed", [2026, 1, 7])
def test_attention_heads_have_no_two_equal_output_rows(seed: int) -> None:
    """Two equal rows of W_out make their labels' logits tie at every step (seed 2026 drew rows A and B
    alike): attention's --head variants redraw them, as the recurrent kinds do."""
    for v in api.generate(kind="attention", head=True, score="scaled-dot", count=6, seed=seed):
        rows = [tuple(r) for r in v.problem["head"]["W_out"]]
        assert len(set(rows)) == len(rows), rows
