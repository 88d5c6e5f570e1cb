"""`check` names each training slip from an answer computed here
independently with the slip, and not a near miss.

Oracles of the slips: torch.optim.Adam(weight_decay=λ) is Adam with an L2 penalty (the decay through
the gradient); clip_grad_norm_ called on each gradient alone; the Noam and cosine formulas with the
slip written here; the Annotated Transformer's ε/(K − 1) target; 2^(mean loss) and the mean of 1/p_t.
(tests/check/test_slips_both_ways.py audits every slip with answers built by the mechanism itself.)
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for these tests (pip install torch==2.13.0)")
F = torch.nn.functional


def written(x: Any, k: int = 3) -> Any:
    a = np.asarray(x, dtype=float)
    if a.ndim:
        return [written(v, k) for v in a]
    return f"{float(a):.{k}f}"


def grade(problem: Any, step: str, value: Any, k: int = 3) -> Any:
    return check(problem, {step: written(value, k)}, "a.toml").results[0]


def _adamw_tensors() -> tuple[dict[str, Any], Any, Any]:
    raw = tomllib.loads(Path(PROBLEMS, "adamw-clipping.toml").read_text())
    g = raw["given"]
    W = torch.tensor(g["W_out"], dtype=torch.float64, requires_grad=True)
    b = torch.tensor(g["b_out"], dtype=torch.float64, requires_grad=True)
    F.cross_entropy((W @ torch.tensor(g["hidden"], dtype=torch.float64) + b).unsqueeze(0), torch.tensor([1])).backward()
    return raw, W, b


def test_adam_with_an_l2_penalty_is_named_and_adamw_is_not() -> None:
    _raw, W, b = _adamw_tensors()
    W0 = W.detach().clone()
    torch.nn.utils.clip_grad_norm_([W, b], 1.0)
    torch.optim.Adam([W, b], lr=0.1, weight_decay=0.1).step()  # weight_decay in Adam: g + λθ (L2)
    problem = load_problem(PROBLEMS / "adamw-clipping.toml")
    r = grade(problem, "W_out_new", W.detach().numpy(), 4)
    assert r.verdict == "wrong" and r.mistake == "adam_l2", r.note
    assert "through the gradient" in r.note
    # AdamW itself (decoupled) is right; a typo in the L2 answer is not the slip
    _raw, W2, b2 = _adamw_tensors()
    torch.nn.utils.clip_grad_norm_([W2, b2], 1.0)
    torch.optim.AdamW([W2, b2], lr=0.1, weight_decay=0.1).step()
    assert grade(problem, "W_out_new", W2.detach().numpy(), 4).verdict == "correct"
    typo = W.detach().numpy().copy()
    typo[0, 0] += 0.0271
    r = grade(problem, "W_out_new", typo, 4)
    assert r.verdict == "wrong" and r.mistake is None, r.note
    assert not np.allclose(W0.numpy(), W.detach().numpy())


def test_decay_without_the_learning_rate_is_named() -> None:
    raw = tomllib.loads(Path(PROBLEMS, "adamw-clipping.toml").read_text())
    W0 = np.asarray(raw["given"]["W_out"])
    problem = load_problem(PROBLEMS / "adamw-clipping.toml")
    r = grade(problem, "decay", 0.1 * W0)  # λ·θ
    assert r.verdict == "wrong" and r.mistake == "decay_no_lr", r.note
    assert grade(problem, "decay", 0.1 * 0.1 * W0).verdict == "correct"  # lr·λ·θ
    r = grade(problem, "decay", 0.2 * W0)  # 2λθ: no slip of the list
    assert r.verdict == "wrong" and r.mistake is None


def test_clipping_each_gradient_by_its_own_norm_is_named() -> None:
    _raw, W, b = _adamw_tensors()
    torch.nn.utils.clip_grad_norm_([W], 1.0)  # each alone
    torch.nn.utils.clip_grad_norm_([b], 1.0)
    problem = load_problem(PROBLEMS / "adamw-clipping.toml")
    r = grade(problem, "grad_W_out_clipped", W.grad.numpy())
    assert r.verdict == "wrong" and r.mistake == "clip_each", r.note
    _raw, W2, b2 = _adamw_tensors()
    torch.nn.utils.clip_grad_norm_([W2, b2], 1.0)  # together
    assert grade(problem, "grad_W_out_clipped", W2.grad.numpy()).verdict == "correct"


def test_adam_l2_is_named_on_seq2seq_and_not_tried_without_adamw() -> None:
    """[training] of a recurrent kind: the same slip on seq2seq-luong.toml's output layer."""
    raw = tomllib.loads(Path(PROBLEMS, "seq2seq-luong.toml").read_text())
    raw["training"] = {"optimizer": "adamw", "lr": 0.5, "weight_decay": 0.5}
    problem = parse_problem(raw, "s.toml")
    from attncalc.mechanisms import solve

    d = solve(problem, exact=False)
    W = torch.tensor(raw["decoder"]["W_out"], dtype=torch.float64, requires_grad=True)
    W.grad = torch.tensor(np.asarray(d.step("grad_W_out").value, dtype=float))
    params = [W]
    if "b_out" in raw["decoder"]:
        b = torch.tensor(raw["decoder"]["b_out"], dtype=torch.float64, requires_grad=True)
        b.grad = torch.tensor(np.asarray(d.step("grad_b_out").value, dtype=float))
        params.append(b)
    torch.optim.Adam(params, lr=0.5, weight_decay=0.5).step()
    r = grade(problem, "W_out_new", W.detach().numpy())
    assert r.verdict == "wrong" and r.mistake == "adam_l2", r.note
    raw["training"] = {"optimizer": "adam", "lr": 0.5}
    r = grade(parse_problem(raw, "s.toml"), "W_out_new", W.detach().numpy())
    assert r.mistake != "adam_l2"


def noam(t: int, d: int, w: int, factor: float, exponent: float = -1.5) -> float:
    return factor * d**-0.5 * min(t**-0.5, t * w**exponent) if t > 0 else 0.0


NOAM = {
    "kind": "lr-schedule",
    "schedule": "noam",
    "given": {"steps": [4, 10, 25, 100], "d_model": 16, "warmup": 25, "factor": 10},
}


def test_the_warmup_exponent_slip_is_named_from_the_formula_with_minus_one_half() -> None:
    problem = parse_problem(NOAM, "n.toml")
    steps = NOAM["given"]["steps"]
    r = grade(problem, "lr", [noam(t, 16, 25, 10, -0.5) for t in steps])
    assert r.verdict == "wrong" and r.mistake == "warmup_exponent", r.note
    assert grade(problem, "lr", [noam(t, 16, 25, 10) for t in steps]).verdict == "correct"
    swapped = [noam(t, 16, 25, 10) for t in steps][::-1]  # the right rates in the wrong order
    r = grade(problem, "lr", swapped)
    assert r.verdict == "wrong" and r.mistake is None, r.note


def test_the_step_counted_from_zero_is_named_for_noam_and_cosine() -> None:
    problem = parse_problem(NOAM, "n.toml")
    r = grade(problem, "lr", [noam(t - 1, 16, 25, 10) for t in NOAM["given"]["steps"]])
    assert r.verdict == "wrong" and r.mistake == "step_from_zero", r.note

    def cosine(t: int) -> float:  # lr_max 1, warmup 10, total 40
        return t / 10 if t < 10 else 0.5 * (1 + math.cos(math.pi * (t - 10) / 30)) if t <= 40 else 0.0

    raw = {
        "kind": "lr-schedule",
        "schedule": "cosine",
        "given": {"steps": [5, 12, 30, 39], "lr_max": 1, "warmup": 10, "total": 40},
    }
    problem = parse_problem(raw, "c.toml")
    r = grade(problem, "lr", [cosine(t - 1) for t in raw["given"]["steps"]])
    assert r.verdict == "wrong" and r.mistake == "step_from_zero", r.note
    r = grade(problem, "lr", [cosine(t + 1) for t in raw["given"]["steps"]])  # a step ahead: no slip of the list
    assert r.verdict == "wrong" and r.mistake is None, r.note


def test_the_annotated_transformer_smoothing_is_named() -> None:
    problem = load_problem(PROBLEMS / "label-smoothing.toml")
    q = [0.1 / 3, 0.9, 0.1 / 3, 0.1 / 3]  # 1 − ε on "cat", ε/(K − 1) elsewhere
    r = grade(problem, "smoothed_target", q)
    assert r.verdict == "wrong" and r.mistake == "smoothing_k_minus_1", r.note
    r = grade(problem, "smoothed_target", [0.025, 0.925, 0.025, 0.025])
    assert r.verdict == "correct"
    r = grade(problem, "smoothed_target", [0.1 / 3, 0.9, 0.025, 0.025])  # mixed: no one convention
    assert r.verdict == "wrong" and r.mistake is None, r.note


def test_the_perplexity_slips_are_named_from_their_formulas() -> None:
    problem = load_problem(PROBLEMS / "lstm-doc-sequence.toml")
    p = np.array([0.85, 0.78, 0.92, 0.94])
    mean = float(np.mean(-np.log(p)))
    assert grade(problem, "perplexity", math.exp(mean)).verdict == "correct"
    r = grade(problem, "perplexity", 2**mean)
    assert r.verdict == "wrong" and r.mistake == "perplexity_base_2", r.note
    r = grade(problem, "perplexity", float(np.mean(1 / p)))
    assert r.verdict == "wrong" and r.mistake == "mean_of_perplexities", r.note
    r = grade(problem, "perplexity", 2 ** (mean / math.log(2)))  # = exp(mean): the right value, another way
    assert r.verdict == "correct"
    r = grade(problem, "perplexity", float(np.mean(1 / p)) + 0.02)
    assert r.verdict == "wrong" and r.mistake is None, r.note


def test_the_biases_left_out_of_the_norm_is_named() -> None:
    """The norm of W_out's gradient alone (torch.linalg.vector_norm of W.grad; clip_grad_norm_ takes
    W's and b's together): named at grad_norm; the factor from it (1/(‖g_W‖ + 10⁻⁶)) carried; the
    bias clipped by it is named the same; a typo in the norm is not."""
    _raw, W, b = _adamw_tensors()
    norm_w = float(torch.linalg.vector_norm(W.grad))
    norm_all = float(torch.linalg.vector_norm(torch.cat([W.grad.reshape(-1), b.grad.reshape(-1)])))
    assert round(norm_w, 3) != round(norm_all, 3)
    problem = load_problem(PROBLEMS / "adamw-clipping.toml")
    r = grade(problem, "grad_norm", np.asarray(norm_w))
    assert r.verdict == "wrong" and r.mistake == "clip_weights_only", r.note
    assert "biases' gradients were left out of the norm" in r.note
    assert grade(problem, "grad_norm", np.asarray(norm_all)).verdict == "correct"
    assert grade(problem, "grad_norm", np.asarray(norm_w + 0.01)).mistake is None  # a typo
    scale = min(1.0, 1.0 / (norm_w + 1e-6))
    r = grade(problem, "grad_b_out_clipped", b.grad.numpy() * scale)
    assert r.verdict == "wrong" and r.mistake == "clip_weights_only", r.note
