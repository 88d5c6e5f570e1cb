"""The backward's own scale slips: the 1/√d_k left out of the
backward (dS = dS') or applied twice (dS = dS' / d_k) is named once, at head.1.grad_scores, with the
backward's own name (grad_no_scale, grad_scale_twice; not the forward's no_scale / dk_not_sqrt, whose
notes speak of the forward scores), and the steps after it, worked on from the answerer's own dS,
are carried. A typo in dS is not named.

Every value from the slip on is recomputed here with numpy from the answers before it (dS from dS',
dQ = dS K, dK = dSᵀ Q, dW = Xᵀ d·, dX's three paths); the steps before the slip are the program's own
rounded values, which tests/kinds/test_oracle_backward.py holds to PyTorch autograd.
"""

from __future__ import annotations

import math
import tomllib
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.mechanisms import solve
from attncalc.parse import load_problem

from .test_backward_slips import ONE, written

STEP = "head.1.grad_scores"


def full_work(scale: str) -> tuple[dict[str, Any], list[str]]:
    """Every step answered, the backward's 1/√d_k replaced by ``scale`` from the answerer's dS' on;
    the ids from the slip on."""
    raw = tomllib.loads(ONE.read_text(encoding="utf-8"))["given"]
    X, W_Q, W_K, W_V = (np.asarray(raw[k], dtype=float) for k in ("X", "W_Q", "W_K", "W_V"))
    d = solve(load_problem(ONE), exact=False)
    answers: dict[str, Any] = {}
    for sid in d.step_ids:
        if sid == STEP:
            break
        if "masked" not in sid:  # −∞ is not a number an answers file holds
            answers[sid] = written(d[sid])
    dSp = np.asarray(d["head.1.grad_scaled_scores"], dtype=float)
    Q, K = X @ W_Q, X @ W_K
    d_k = Q.shape[1]
    dS = {"none": dSp, "twice": dSp / d_k, "right": dSp / math.sqrt(d_k)}[scale]
    dQ, dK = dS @ K, dS.T @ Q
    dV = np.asarray(d["head.1.grad_V"], dtype=float)
    later = {
        STEP: dS,
        "head.1.grad_Q": dQ,
        "head.1.grad_K": dK,
        "grad_Q": dQ,
        "grad_K": dK,
        "grad_V": dV,
        "grad_W_Q": X.T @ dQ,
        "grad_W_K": X.T @ dK,
        "grad_W_V": X.T @ dV,
        "grad_X_Q": dQ @ W_Q.T,
        "grad_X_K": dK @ W_K.T,
        "grad_X_V": dV @ W_V.T,
        "grad_X": dQ @ W_Q.T + dK @ W_K.T + dV @ W_V.T,
    }
    assert list(later) == [s for s in d.step_ids if list(d.step_ids).index(s) >= list(d.step_ids).index(STEP)]
    answers.update({k: written(v) for k, v in later.items()})
    return answers, list(later)


@pytest.mark.parametrize(("scale", "slip"), [("none", "grad_no_scale"), ("twice", "grad_scale_twice")])
def test_the_backward_scale_slip_is_named_once_and_the_rest_carried(scale: str, slip: str) -> None:
    answers, later = full_work(scale)
    results = {r.id: r for r in check(load_problem(ONE), answers, "a.toml").results}
    named = [(r.id, r.mistake) for r in results.values() if r.mistake is not None]
    assert named == [(STEP, slip)], named
    assert results[STEP].verdict == "wrong"
    for k in later[1:]:
        if k in ("grad_V", "grad_W_V", "grad_X_V"):  # the values' path does not pass through dS
            assert results[k].verdict == "correct", (k, results[k].verdict)
        else:
            assert results[k].verdict == "carried", (k, results[k].verdict, results[k].note)


def test_a_typo_in_the_scores_gradient_is_not_named() -> None:
    answers, _ = full_work("right")
    typo = np.array(answers[STEP], dtype=float)
    typo[2, 0] += 0.271
    answers[STEP] = written(typo)
    results = {r.id: r for r in check(load_problem(ONE), answers, "a.toml").results}
    assert results[STEP].verdict == "wrong" and results[STEP].mistake is None, results[STEP].note
    assert [r.id for r in results.values() if r.mistake is not None] == []
