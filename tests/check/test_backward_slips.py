"""check names the backward-pass slips, each tested both ways.

Every slipped answer is built here from PyTorch autograd's values (tests/kinds/test_oracle_backward.py's
torch_grads) and the slip's formula written out in numpy: the Jacobian's off-diagonal terms dropped
(dS' = A ∘ dA), dV = A dO (no transpose), dK = dS Q (no transpose), the 1/√d_k left out or applied
twice, dX from the query path only, and masked entries given gradient (dA passed through). Named when
the answer was built with the slip; not named for the same answer with a typo, nor for another error.
"""

from __future__ import annotations

import math
import tomllib
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.derivation.arith import round_half_up
from attncalc.mechanisms import solve
from attncalc.parse import load_problem

from ..helpers import PROBLEMS
from ..kinds.test_oracle_backward import torch_grads

ONE = PROBLEMS / "backward-one-head-causal.toml"
TWO = PROBLEMS / "backward-two-heads.toml"


def written(x: Any) -> Any:
    a = np.asarray(x, dtype=float)
    if a.ndim:
        return [written(v) for v in a]
    return f"{round_half_up(float(a), 3):.3f}"


def slipped(slip: str) -> tuple[Any, str, np.ndarray, np.ndarray]:
    """(problem, step id, the answer built with the slip, the true value), all from torch and numpy."""
    path = TWO if slip in ("grad_K_no_transpose", "grad_scale_twice") else ONE
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    g = raw["given"]
    t = torch_grads(g)
    A, dA, dO = t["head.1.weights"], t["head.1.grad_weights"], t["head.1.grad_output"]
    dSp, dS = t["head.1.grad_scaled_scores"], t["head.1.grad_scores"]
    d_k = len(t["head.1.Q"][0])
    allowed = np.tril(np.ones(A.shape, dtype=bool)) if g.get("mask") == "causal" else np.ones(A.shape, dtype=bool)
    step, value, truth = {
        "jacobian_diagonal_only": ("head.1.grad_scaled_scores", A * dA, dSp),
        "grad_V_no_transpose": ("head.1.grad_V", A @ dO, t["head.1.grad_V"]),
        "grad_K_no_transpose": ("head.1.grad_K", dS @ t["head.1.Q"], t["head.1.grad_K"]),
        "grad_no_scale": ("head.1.grad_scores", dSp, dS),
        "grad_scale_twice": ("head.1.grad_scores", dSp / d_k, dS),
        "grad_X_query_path_only": ("grad_X", t["grad_Q"] @ np.asarray(g["W_Q"], dtype=float).T, t["grad_X"]),
        "masked_given_gradient": ("head.1.grad_scaled_scores", np.where(allowed, dSp, dA), dSp),
    }[slip]
    assert math.isclose(float(np.max(np.abs(value - truth))), 0.0, abs_tol=1e-3) is False, "the slip changes the step"
    return load_problem(path), step, value, truth


SLIPS = [
    "jacobian_diagonal_only",
    "grad_V_no_transpose",
    "grad_K_no_transpose",
    "grad_no_scale",
    "grad_scale_twice",
    "grad_X_query_path_only",
    "masked_given_gradient",
]


@pytest.mark.parametrize("slip", SLIPS)
def test_an_answer_built_with_the_slip_is_named(slip: str) -> None:
    problem, step, value, _ = slipped(slip)
    r = check(problem, {step: written(value)}, "a.toml").results[0]
    assert (r.verdict, r.mistake) == ("wrong", slip), r.note


@pytest.mark.parametrize("slip", SLIPS)
def test_the_slip_with_a_typo_or_another_error_is_not_named(slip: str) -> None:
    problem, step, value, truth = slipped(slip)
    typo = np.array(value, dtype=float)
    typo.reshape(-1)[int(np.argmax(np.abs(typo.reshape(-1))))] += 0.271  # one entry mistyped
    other = np.array(truth, dtype=float)
    other.reshape(-1)[-1] += 0.5  # the true value with one entry wrong: no slip gives it
    for answer in (typo, other):
        r = check(problem, {step: written(answer)}, "a.toml").results[0]
        assert r.verdict == "wrong" and r.mistake is None, (r.mistake, r.note)


@pytest.mark.parametrize("slip", ["jacobian_diagonal_only", "grad_V_no_transpose", "grad_X_query_path_only"])
def test_in_full_work_the_slip_is_named_once_and_the_steps_after_it_are_carried(slip: str) -> None:
    """Every step answered from the start, right up to the slip; then the slip; then the later steps
    worked on from the slipped value (recomputed here with numpy). The steps before it are the
    program's own rounded values, which test_oracle_backward.py holds to PyTorch."""
    problem, step, value, _ = slipped(slip)
    raw = tomllib.loads(ONE.read_text(encoding="utf-8"))

    d = solve(problem, exact=False)
    answers: dict[str, Any] = {}
    for sid in d.step_ids:
        if sid == step:
            break
        if "masked" not in sid:  # −∞ is not a number an answers file holds
            answers[sid] = written(d[sid])
    answers[step] = written(value)
    if slip == "jacobian_diagonal_only":  # dS = dS' / √2 from the slipped dS'
        answers["head.1.grad_scores"] = written(value / math.sqrt(2))
    elif slip == "grad_V_no_transpose":  # dV feeds dW_V = Xᵀ dV
        answers["grad_V"] = written(value)
        answers["grad_W_V"] = written(np.asarray(raw["given"]["X"], dtype=float).T @ value)
    results = {r.id: r for r in check(problem, answers, "a.toml").results}
    assert (results[step].verdict, results[step].mistake) == ("wrong", slip)
    named = [r.id for r in results.values() if r.mistake is not None]
    assert named == [step], named
    later = [k for k in answers if list(answers).index(k) > list(answers).index(step)]
    for k in later:
        assert results[k].verdict == "carried", (k, results[k].verdict, results[k].note)
