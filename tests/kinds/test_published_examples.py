"""Worked examples from published sources, typed in and compared: moe (a routing example and the
Switch Transformer's balance loss), speculative (Leviathan et al.'s expected tokens per pass and the
accept/reject rule) and grpo (a published group-relative advantage). The kinds dpo, quantization,
contrastive and accounting have theirs beside their other tests (tests/kinds/test_dpo.py,
test_quantization.py, test_contrastive.py, test_accounting.py).

Every expectation is the source's number, or a one-line formula from the source recomputed here
(numpy, math, fractions, sympy), never attncalc's output."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from attncalc.check import check
from attncalc.mechanisms import solve
from attncalc.parse import parse_problem

from ..helpers import solve_raw

# ---------------------------------------------------------------- moe: a routing example

# https://www.ainiketan.in/papers/09-mixture-of-experts-2017/sections/05-worked-example/
# ("Outrageously Large Neural Networks ... 5. Worked example — routing a batch of tokens through
# 4 experts"): 4 experts, k = 2, h = x · W_g.
AINIKETAN_X = [[1.0, 0.2], [0.3, 0.8], [0.1, 0.5], [0.6, 0.1]]
AINIKETAN_W_G = [[1.0, 0.5, -0.5, 0.2], [-0.2, 0.8, 1.0, -0.3]]
# the page's logits, as it prints them (token 3: its first two, by the same arithmetic)
AINIKETAN_H1 = [0.96, 0.66, -0.30, 0.14]
AINIKETAN_H2 = [0.14, 0.79, 0.65, -0.18]
AINIKETAN_H3_START = [0.00, 0.45]


def _ainiketan(exact: bool) -> Any:
    # the page gives no expert weights: four identity experts (2 × 2) stand in; only the router is compared
    experts = [[[1, 0], [0, 1]]] * 4
    g = {"X": AINIKETAN_X, "W_router": AINIKETAN_W_G, "experts": experts, "top_k": 2}
    return solve_raw({"kind": "moe", "given": g}, exact=exact)


def test_moe_routing_example_from_ainiketan() -> None:
    """ainiketan.in, "Outrageously Large Neural Networks (Shazeer et al. 2017) — 5. Worked example —
    routing a batch of tokens through 4 experts"
    (https://www.ainiketan.in/papers/09-mixture-of-experts-2017/sections/05-worked-example/):
    tokens x1 = [1.0, 0.2], x2 = [0.3, 0.8], x3 = [0.1, 0.5], x4 = [0.6, 0.1]; W_g (2 × 4); the page's
    logits h(x1) = [0.96, 0.66, −0.30, 0.14] and h(x2) = [0.14, 0.79, 0.65, −0.18]; with k = 2 token 1
    goes to experts 1 and 2, token 2 to experts 2 and 3. The gates (softmax over the two chosen, as
    Mixtral renormalises) are recomputed here from the published logits."""
    for exact in (False, True):
        d = _ainiketan(exact)
        logits = np.asarray(d["logits"], dtype=float)
        np.testing.assert_allclose(logits[0], AINIKETAN_H1, atol=1e-12)
        np.testing.assert_allclose(logits[1], AINIKETAN_H2, atol=1e-12)
        np.testing.assert_allclose(logits[2, :2], AINIKETAN_H3_START, atol=1e-12)
        top = np.asarray(d["top_k"])
        assert top[0].tolist() == [1, 2]
        assert top[1].tolist() == [2, 3]
        gates = np.asarray(d["gates"], dtype=float)
        h1, h2 = np.array(AINIKETAN_H1), np.array(AINIKETAN_H2)
        g1 = np.exp(h1[[0, 1]]) / np.exp(h1[[0, 1]]).sum()  # e^0.96 / (e^0.96 + e^0.66), ...
        g2 = np.exp(h2[[1, 2]]) / np.exp(h2[[1, 2]]).sum()  # e^0.79 / (e^0.79 + e^0.65), ...
        np.testing.assert_allclose(gates[0], g1, atol=1e-12)
        np.testing.assert_allclose(gates[1], g2, atol=1e-12)
    # token 3's experts 2 and 3 tie exactly (0.1 · 0.5 + 0.5 · 0.8 = 0.1 · (−0.5) + 0.5 · 1.0 = 0.45):
    # decided exactly, the tie goes to the lower number
    assert np.asarray(_ainiketan(True)["top_k"])[2].tolist() == [2, 3]


# ---------------------------------------------------------------- moe: the Switch Transformer's loss

I4 = [[1 if i == j else 0 for j in range(4)] for i in range(4)]


def _switch(X: list[list[int]]) -> Any:
    g = {"X": X, "W_router": I4, "experts": [[[1], [0], [0], [0]]] * 4, "top_k": 1, "renormalize": False,
         "aux_coef": 0.01}  # fmt: skip
    return solve_raw({"kind": "moe", "given": g}, exact=True)


def test_switch_loss_is_alpha_at_perfect_balance() -> None:
    """Fedus, Zoph, Shazeer, "Switch Transformers" (JMLR 23, 2022, https://jmlr.org/papers/v23/21-0998.html),
    eq. 4-6: loss = α · N · Σ_i f_i · P_i, "minimized under a uniform distribution", α = 10^-2; and
    torchedup.dev: the loss without α "equals 1.0 at perfect balance". Four tokens x_i = e_i, W = I:
    token i's logits are e_i, so its argmax is expert i (f_i = 1/4) and each expert's mean probability
    is (e + 3 · 1) / (4 (e + 3)) = 1/4: the loss is α · 4 · 4 · (1/4 · 1/4) = α exactly."""
    d = _switch(I4)
    assert np.asarray(d["top_k"]).ravel().tolist() == [1, 2, 3, 4]
    loss = np.asarray(d.step("load_balancing_loss").exact, dtype=object).ravel()[0]
    assert sp.simplify(sp.sympify(loss) - sp.Rational(1, 100)) == 0
    P = d.step("mean_probability").exact
    assert all(sp.simplify(p - sp.Rational(1, 4)) == 0 for p in np.asarray(P, dtype=object).ravel())


def test_switch_loss_is_larger_when_routing_collapses() -> None:
    """The same router with every token x = e_1: all go to expert 1 (f = [1, 0, 0, 0]) and P_1 =
    e / (e + 3), so the loss is α · 4 · e / (e + 3) ≈ 0.0190, above the balanced α."""
    d = _switch([[1, 0, 0, 0]] * 4)
    assert np.asarray(d["top_k"]).ravel().tolist() == [1, 1, 1, 1]
    by_hand = sp.Rational(1, 100) * 4 * sp.E / (sp.E + 3)
    loss = np.asarray(d.step("load_balancing_loss").exact, dtype=object).ravel()[0]
    assert sp.simplify(sp.sympify(loss) - by_hand) == 0
    assert float(d["load_balancing_loss"]) > 0.01
    assert math.isclose(float(d["load_balancing_loss"]), 0.04 * math.e / (math.e + 3), rel_tol=1e-12)


# ---------------------------------------------------------------- speculative: Leviathan et al. 2023


def _speculative(draft: Any, target: Any, drafted: Any, uniforms: Any, resample: Any, vocab: Any) -> Any:
    raw = {"kind": "speculative", "vocab": vocab,
           "given": {"draft": draft, "target": target, "drafted": drafted, "uniforms": uniforms, "resample": resample}}  # fmt: skip
    return solve(parse_problem(raw, "s.toml"), exact=False)


def test_speculative_expected_tokens_of_leviathan_table_2() -> None:
    """Leviathan, Kalman, Matias, "Fast Inference from Transformers via Speculative Decoding" (ICML 2023,
    https://arxiv.org/abs/2211.17192), eq. (1): with a constant acceptance rate α the expected tokens
    per target pass are (1 − α^(γ+1)) / (1 − α); Table 2: T5-XXL drafted by T5-small on EnDe, α = 0.75,
    γ = 7. Each position here has q = [0.5, 0.5] and p = [0.75, 0.25]: Σ_x min(p, q) = 0.5 + 0.25 = 0.75."""
    gamma = 7
    d = _speculative([[0.5, 0.5]] * gamma, [[0.75, 0.25]] * (gamma + 1), ["a"] * gamma, [0.1] * gamma, 0.5,
                     ["a", "b"])  # fmt: skip
    alpha = Fraction(3, 4)
    np.testing.assert_allclose(np.asarray(d["acceptance_rates"], dtype=float), [0.75] * gamma, atol=1e-12)
    eq1 = (1 - alpha ** (gamma + 1)) / (1 - alpha)
    assert math.isclose(float(eq1), 3.599548339843750, rel_tol=1e-15)  # (1 − 0.75^8) / 0.25
    assert math.isclose(float(d["expected_tokens"]), float(eq1), rel_tol=1e-12)
    # the kind's 1 + Σ_j Π_(i≤j) α_i is eq. (1) when every α_i is α: a geometric sum
    per_position = 1 + sum(math.prod([alpha] * j) for j in range(1, gamma + 1))
    assert per_position == eq1


def test_speculative_accept_reject_rule_of_crackedaicode() -> None:
    """crackedaicode.com, "Speculative Decoding Accept/Reject": accept x with probability
    α(x) = min(1, p(x) / q(x)); on a rejection sample from normalize(max(0, p − q)). One case by hand:
    q = [0.6, 0.3, 0.1], p = [0.3, 0.5, 0.2], drafted a: α = min(1, 0.3 / 0.6) = 0.5; r = 0.7 > 0.5
    rejects; max(0, p − q) = [0, 0.2, 0.1], normalised [0, 2/3, 1/3]; the draw 0.5 lands on b."""
    d = _speculative([[0.6, 0.3, 0.1]], [[0.3, 0.5, 0.2], [1, 0, 0]], ["a"], [0.7], 0.5, ["a", "b", "c"])
    assert math.isclose(float(np.asarray(d["accept_probabilities"], dtype=float)[0]), 0.5, rel_tol=1e-12)
    assert np.asarray(d["accepted"]).tolist() == [0]
    np.testing.assert_allclose(np.asarray(d["residual"], dtype=float), [0, 2 / 3, 1 / 3], atol=1e-12)
    assert str(np.asarray(d["next_token"]).ravel()[0]) == "b"


# ---------------------------------------------------------------- grpo: group-relative advantages

# deep-ml.com problem #224 "Group Relative Advantage for GRPO" (https://www.deep-ml.com/problems/224),
# also ai.adomicarts.com practice/reinforcement_learning_22: "Mean = 0.5, Std = 0.5"
DEEPML_REWARDS = [0.0, 1.0, 0.0, 1.0]
DEEPML_ADVANTAGES = [-1.0, 1.0, -1.0, 1.0]


def _grpo(std: str) -> Any:
    given = {"rewards": DEEPML_REWARDS, "logprobs": [[-1.0]] * 4, "std": std, "advantage_eps": 0}
    return parse_problem({"kind": "grpo", "given": given}, "g.toml")


def test_grpo_advantages_of_deep_ml_224() -> None:
    """deep-ml.com #224 "Group Relative Advantage for GRPO" (https://www.deep-ml.com/problems/224; also
    https://ai.adomicarts.com/practice/reinforcement_learning_22): rewards [0, 1, 0, 1] give advantages
    [−1, 1, −1, 1], "Mean = 0.5, Std = 0.5" (the population std). TRL's GRPOTrainer divides by torch's
    unbiased std, √(1/3) = 0.57735, which gives ±0.5 / √(1/3) = ±√3/2 = ±0.8660."""
    pop = solve(_grpo("population"), exact=True)
    assert float(pop["mean_reward"]) == 0.5
    assert float(pop["std_reward"]) == 0.5
    assert np.asarray(pop["advantages"], dtype=float).tolist() == DEEPML_ADVANTAGES
    unbiased = solve(_grpo("unbiased"), exact=True)
    half_root3 = math.sqrt(3) / 2
    np.testing.assert_allclose(np.asarray(unbiased["advantages"], dtype=float),
                               [-half_root3, half_root3, -half_root3, half_root3], atol=1e-12)  # fmt: skip
    exact = np.asarray(unbiased.step("advantages").exact, dtype=object).ravel()
    assert all(sp.simplify(a - s * sp.sqrt(3) / 2) == 0 for a, s in zip(exact, (-1, 1, -1, 1), strict=True))


def test_grpo_published_answer_to_the_unbiased_question_is_the_divisor_slip() -> None:
    """A student who gives deep-ml's [−1, 1, −1, 1] where the problem asks for the unbiased std (TRL's)
    has taken the population's divisor: the named slip, not plain wrong."""
    report = check(_grpo("unbiased"), {"advantages": ["-1.0000", "1.0000", "-1.0000", "1.0000"]}, "a.toml")
    r = report.results[0]
    assert r.verdict == "wrong"
    assert r.mistake == "grpo_std_divisor", r.note
