"""check on kind moe: each named slip both ways. An answer built here with numpy from the slip's own
definition is named; the same answer with one entry mistyped, and the true answer with one entry
mistyped, are not (the arithmetic is worked out instead). The examples are moe-mixtral.toml (top-2,
renormalised) and moe-switch.toml (top-1, the probability as the gate, a capacity)."""

from __future__ import annotations

import tomllib
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.parse import load_problem

from ..helpers import PROBLEMS
from ..kinds.test_moe import router

MIXTRAL, SWITCH = PROBLEMS / "moe-mixtral.toml", PROBLEMS / "moe-switch.toml"


def _given(path: Any) -> dict[str, Any]:
    return dict(tomllib.loads(path.read_text())["given"])


GM, GS = _given(MIXTRAL), _given(SWITCH)
RM, RS = router(GM), router(GS)


def _softmax_columns(Z: np.ndarray) -> np.ndarray:
    e = np.exp(Z)
    return e / e.sum(axis=0, keepdims=True)  # each expert's column over the tokens


def _chosen(P: np.ndarray, top: np.ndarray) -> np.ndarray:
    return np.take_along_axis(P, top - 1, axis=1)


# slip -> (file, step, the step's value under the slip, the answers given before it: the true ones)
BUILT: dict[str, tuple[Any, str, Any, dict[str, Any]]] = {
    "moe_softmax_over_tokens": (MIXTRAL, "probabilities", _softmax_columns(RM["logits"]), {}),
    "moe_gates_not_renormalised": (MIXTRAL, "gates", _chosen(RM["probabilities"], RM["top_k"]), {}),
    "moe_gates_renormalised": (SWITCH, "gates", np.ones((4, 1)), {}),  # one chosen probability over itself
    "moe_loss_without_e": (
        MIXTRAL,
        "load_balancing_loss",
        GM["aux_coef"] * float((RM["fraction"] * RM["mean_probability"]).sum()),
        {},
    ),
    "moe_fraction_from_probabilities": (MIXTRAL, "fraction", RM["probabilities"].mean(axis=0), {}),
}


def written(x: Any) -> Any:
    a = np.asarray(x, dtype=float)
    return [written(v) for v in a] if a.ndim else f"{float(a):.4f}"


def typo(x: Any) -> Any:
    a = np.round(np.array(x, dtype=float), 4)
    flat = a.reshape(-1).copy()
    flat[-1] = round(flat[-1] + 0.271, 4)
    return flat.reshape(a.shape)


def _result(path: Any, step: str, value: Any, before: dict[str, Any]) -> Any:
    answers = {**{k: written(v) for k, v in before.items()}, step: written(value)}
    results = check(load_problem(path), answers, "a.toml").results
    return next(r for r in results if r.id == step)


@pytest.mark.parametrize("slip", sorted(BUILT))
def test_work_built_with_the_slip_is_named(slip: str) -> None:
    path, step, value, before = BUILT[slip]
    r = _result(path, step, value, before)
    assert r.verdict == "wrong" and r.mistake == slip, (r.verdict, r.mistake, r.note)


@pytest.mark.parametrize("slip", sorted(BUILT))
def test_a_typo_is_not_taken_for_the_slip(slip: str) -> None:
    path, step, value, before = BUILT[slip]
    truth = (RM if path == MIXTRAL else RS)[step]
    for answer in (typo(value), typo(truth)):
        r = _result(path, step, answer, before)
        assert r.verdict == "wrong" and r.mistake is None, (slip, r.mistake, r.note)


def test_the_true_answers_are_all_right() -> None:
    for path, ref in ((MIXTRAL, RM), (SWITCH, RS)):
        answers = {k: written(v) for k, v in ref.items()}
        results = check(load_problem(path), answers, "a.toml").results
        assert all(r.verdict == "correct" for r in results), [(r.id, r.verdict, r.note) for r in results]


def test_gates_follow_through_from_a_students_top_k() -> None:
    """A student who picked experts 1 and 3 for token 1 (the truth: by its logits x_1 · W_router =
    [1, 0, −1.25, 0.5], experts 1 then 4) has gates from those two: p_11 / (p_11 + p_13)."""
    P = RM["probabilities"]
    top = RM["top_k"].copy()
    top[0] = [1, 3]
    gates = RM["gates"].copy()
    gates[0] = [P[0, 0] / (P[0, 0] + P[0, 2]), P[0, 2] / (P[0, 0] + P[0, 2])]
    answers = {"probabilities": written(P), "top_k": written(top), "gates": written(gates)}
    results = {r.id: r for r in check(load_problem(MIXTRAL), answers, "a.toml").results}
    assert results["top_k"].verdict == "wrong"
    assert results["gates"].verdict != "wrong", results["gates"].note


def test_output_follows_through_from_a_students_kept_flags() -> None:
    """moe-switch.toml: a student who kept token 4 (flags 1, 1, 1, 1) sums its gate · output: 0.9526 · [2, 5]."""
    kept = np.ones((4, 1))
    out = RS["output"].copy()
    out[3] = RS["gates"][3, 0] * RS["expert_outputs"][3, 0]
    answers = {"capacity": "2", "kept": written(kept), "output": written(out)}
    results = {r.id: r for r in check(load_problem(SWITCH), answers, "a.toml").results}
    assert results["kept"].verdict == "wrong"
    assert results["output"].verdict != "wrong", results["output"].note


def test_expert_outputs_are_answered_as_a_list_of_matrices() -> None:
    """n × top_k × d_out: each token's list of its chosen experts' rows; another shape is one message."""
    from attncalc.errors import ProblemError

    results = check(load_problem(SWITCH), {"expert_outputs": written(RS["expert_outputs"])}, "a.toml").results
    assert results[0].verdict == "correct", results[0].note
    with pytest.raises(ProblemError) as e:
        check(load_problem(SWITCH), {"expert_outputs": written(RS["expert_outputs"][:, 0])}, "a.toml")
    assert e.value.key == "expert_outputs" and "4 matrices of 1×2" in str(e.value), str(e.value)
    with pytest.raises(ProblemError) as e:
        check(load_problem(SWITCH), {"expert_outputs": [[[1, 2]], [[1, 1], [0, 0]], [[1, 3]], [[2, 5]]]}, "a.toml")
    assert "different shapes" in str(e.value), str(e.value)


def test_top_1_columns_written_as_plain_lists_are_read_as_the_columns() -> None:
    """Switch (top-1): top_k, gates and kept are one column per token (4×1); written as a plain list of 4
    they are the same entries, graded, not refused as another shape (the numpy router gives them)."""
    answers = {
        "top_k": [int(k) for k in RS["top_k"][:, 0]],
        "gates": [f"{g:.4f}" for g in RS["gates"][:, 0]],
        "kept": [int(k) for k in RS["kept"][:, 0]],
    }
    results = {r.id: r for r in check(load_problem(SWITCH), answers, "a.toml").results}
    assert {k: r.verdict for k, r in results.items()} == dict.fromkeys(answers, "correct")
    wrong = {**answers, "top_k": [2, 2, 1, 1]}
    r = {r.id: r for r in check(load_problem(SWITCH), wrong, "a.toml").results}["top_k"]
    assert r.verdict == "wrong" and r.wrong_entries == [[0, 0]], r.note
