"""Kind dpo: every number against an oracle written apart from attncalc. The losses are written here
from the papers (marked where each comes from): Rafailov et al. 2023, eq. 7, for the sigmoid loss;
Azar et al. 2023 for IPO; the hinge max(0, 1 − β h) of SLiC as TRL's ``dpo_loss`` writes it; cDPO's
label smoothing −(1 − ε) log σ(β h) − ε log σ(−β h). ``torch.nn.functional.logsigmoid`` is the oracle
for log σ, and torch's autograd for the gradient weights (−∂l/∂h). TRL itself is not installed in the
test environment, so its ``dpo_loss`` is not called: its formulas are the ones written below.
Also: a case worked by hand with its exact forms, a published example typed in, exact against float,
bad files refused with one message, the slips' arithmetic, JSON labels."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.errors import ProblemError
from attncalc.mechanisms import solve
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS, one_line_refusal, run_cli

EXAMPLE = Path(PROBLEMS, "dpo-two-pairs.toml")


def problem(**given: Any) -> Any:
    return parse_problem({"kind": "dpo", "given": given}, "d.toml")


# ---------------------------------------------------------------- the oracle, written from the papers
def log_sigmoid(x: np.ndarray) -> np.ndarray:
    """log σ(x) = −log(1 + e^(−x)), numpy's logaddexp (no overflow)."""
    return -np.logaddexp(0.0, -np.asarray(x, dtype=float))


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))


def oracle(pc: Any, pr: Any, rc: Any, rr: Any, beta: float, loss: str = "sigmoid", eps: float = 0.0) -> dict[str, Any]:
    """Rafailov et al. 2023, eq. 7 (and TRL's dpo_loss for ipo and hinge, cDPO for ε), per pair."""
    pc, pr, rc, rr = (np.asarray(v, dtype=float) for v in (pc, pr, rc, rr))
    chosen, rejected = pc - rc, pr - rr
    h = chosen - rejected
    if loss == "sigmoid":
        losses = -(1 - eps) * log_sigmoid(beta * h) - eps * log_sigmoid(-beta * h)
    elif loss == "ipo":
        losses = (h - 1 / (2 * beta)) ** 2
    else:
        losses = np.maximum(0.0, 1 - beta * h)
    out = {
        "chosen_logratios": chosen,
        "rejected_logratios": rejected,
        "logits": h,
        "losses": losses,
        "loss": losses.mean(),
        "chosen_rewards": beta * chosen,
        "rejected_rewards": beta * rejected,
        "reward_margins": beta * chosen - beta * rejected,
        "reward_accuracy": np.mean(beta * chosen > beta * rejected),
    }
    if loss == "sigmoid":
        out["gradient_weights"] = beta * ((1 - eps) * sigmoid(-beta * h) - eps * sigmoid(beta * h))
    return out


def assert_matches(d: Any, want: dict[str, Any], tol: float = 1e-12) -> None:
    for step, value in want.items():
        np.testing.assert_allclose(np.asarray(d[step], dtype=float), value, rtol=tol, atol=tol, err_msg=step)
    assert ("gradient_weights" in [s.id for s in d.steps]) == ("gradient_weights" in want)


# ---------------------------------------------------------------- the worked example and seeded batches
def test_the_worked_example_against_the_papers_formula() -> None:
    d = solve(load_problem(EXAMPLE), exact=False)
    want = oracle([-12.5, -8.25], [-14.0, -9.0], [-13.0, -8.5], [-13.5, -8.75], 0.1)
    assert_matches(d, want)


def test_the_worked_example_by_hand_with_its_exact_forms() -> None:
    """By hand: chosen logratios −12.5 + 13 = 1/2 and −8.25 + 8.5 = 1/4, rejected −14 + 13.5 = −1/2 and
    −9 + 8.75 = −1/4, so h = 1 and 1/2, β h = 1/10 and 1/20; l = log(1 + e^(−β h)); the rewards
    1/20, 1/40 and −1/20, −1/40; w = (1/10) / (1 + e^(β h))."""
    import sympy as sp

    d = solve(load_problem(EXAMPLE), exact=True)
    by = {s.id: s for s in d.steps}
    assert list(by["chosen_logratios"].exact) == [sp.Rational(1, 2), sp.Rational(1, 4)]
    assert list(by["logits"].exact) == [1, sp.Rational(1, 2)]
    want = [sp.log(1 + sp.exp(-sp.Rational(1, 10))), sp.log(1 + sp.exp(-sp.Rational(1, 20)))]
    for got, w in zip(by["losses"].exact, want, strict=True):
        assert sp.simplify(got - w) == 0
    assert sp.simplify(by["loss"].exact[()] - (want[0] + want[1]) / 2) == 0
    assert list(by["chosen_rewards"].exact) == [sp.Rational(1, 20), sp.Rational(1, 40)]
    assert by["reward_accuracy"].exact[()] == 1
    w0 = sp.Rational(1, 10) / (1 + sp.exp(sp.Rational(1, 10)))
    assert sp.simplify(by["gradient_weights"].exact[0] - w0) == 0
    # the numbers: ln(1 + e^−0.1) = ln 1.9048374 = 0.6443967, ln(1 + e^−0.05) = ln 1.9512294 = 0.6684596
    np.testing.assert_allclose(d["losses"], [0.6443967, 0.6684596], atol=1e-7)
    np.testing.assert_allclose(float(d["loss"]), (0.6443967 + 0.6684596) / 2, atol=1e-7)


def test_a_published_example() -> None:
    """prof.lexailabs.com/practice/dpo-loss, "Example 1": policy_chosen = [−1.0], policy_rejected =
    [−2.0], ref_chosen = [−1.5], ref_rejected = [−2.5], β = 0.1 gives 0.6931 (= −log σ(0)): both
    logratio differences are 1, so h = 0."""
    d = solve(problem(beta=0.1, policy_chosen=[-1.0], policy_rejected=[-2.0], reference_chosen=[-1.5],
                      reference_rejected=[-2.5]), exact=False)  # fmt: skip
    assert float(d["logits"][0]) == 0
    assert round(float(d["loss"]), 4) == 0.6931
    assert float(d["reward_accuracy"]) == 0  # a tie is not a win


# cDPO's smoothing belongs to the sigmoid loss (refused with the others: tested below)
@pytest.mark.parametrize(("loss", "eps"), [("sigmoid", 0.0), ("sigmoid", 0.2), ("ipo", 0.0), ("hinge", 0.0)])
def test_seeded_batches_against_the_papers_formulas(loss: str, eps: float) -> None:
    rng = np.random.default_rng(7)
    for _ in range(5):
        n = int(rng.integers(1, 6))
        pc, pr, rc, rr = (np.round(rng.uniform(-30, -1, n), 3) for _ in range(4))
        beta = float(rng.choice([0.05, 0.1, 0.5, 2.0]))
        given: dict[str, Any] = {"beta": beta, "policy_chosen": pc.tolist(), "policy_rejected": pr.tolist(),
                                 "reference_chosen": rc.tolist(), "reference_rejected": rr.tolist(), "loss": loss}  # fmt: skip
        if eps:
            given["label_smoothing"] = eps
        d = solve(problem(**given), exact=False)
        assert_matches(d, oracle(pc, pr, rc, rr, beta, loss, eps), tol=1e-10)


def test_token_lists_are_summed_per_sequence() -> None:
    pc = [[-1.5, -2.25], [-0.5, -1, -2]]
    rr = [[-2, -1.5], [-1, -1.75]]
    d = solve(problem(beta=0.5, policy_chosen=pc, policy_rejected=[-4.0, -3.0], reference_chosen=[-4.0, -3.5],
                      reference_rejected=rr, label_smoothing=0.1), exact=False)  # fmt: skip
    sums_c = [sum(row) for row in pc]  # −3.75, −3.5
    sums_r = [sum(row) for row in rr]  # −3.5, −2.75
    np.testing.assert_allclose(d["policy_chosen_sum"], sums_c)
    np.testing.assert_allclose(d["reference_rejected_sum"], sums_r)
    ids = [s.id for s in d.steps]
    assert "policy_rejected_sum" not in ids and "reference_chosen_sum" not in ids
    assert_matches(d, oracle(sums_c, [-4.0, -3.0], [-4.0, -3.5], sums_r, 0.5, eps=0.1))


def test_log_sigma_and_the_gradient_weights_against_torch() -> None:
    torch = pytest.importorskip("torch", reason="torch is the oracle for log σ and the gradient")
    F = torch.nn.functional
    rng = np.random.default_rng(3)
    pc, pr, rc, rr = (np.round(rng.uniform(-40, -1, 6), 2) for _ in range(4))
    for beta, eps in ((0.1, 0.0), (0.5, 0.25), (3.0, 0.1)):
        d = solve(problem(beta=beta, policy_chosen=pc.tolist(), policy_rejected=pr.tolist(),
                          reference_chosen=rc.tolist(), reference_rejected=rr.tolist(), label_smoothing=eps),
                  exact=False)  # fmt: skip
        h = torch.tensor((pc - rc) - (pr - rr), dtype=torch.float64, requires_grad=True)
        losses = -(1 - eps) * F.logsigmoid(beta * h) - eps * F.logsigmoid(-beta * h)
        losses.sum().backward()
        assert h.grad is not None
        np.testing.assert_allclose(d["losses"], losses.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(float(d["loss"]), float(losses.detach().mean()), rtol=1e-12)
        # the weight a pair's gradient carries is −∂l/∂h
        np.testing.assert_allclose(d["gradient_weights"], -h.grad.numpy(), rtol=1e-12)


def test_exact_and_float_agree() -> None:
    for given in (
        {"loss": "ipo"},
        {"loss": "hinge", "beta": 2},
        {"label_smoothing": 0.25},
        {"policy_chosen": [[-1.25, -11.25], [-8, -0.25]]},
    ):
        raw = {"beta": 0.1, "policy_chosen": [-12.5, -8.25], "policy_rejected": [-14.0, -9.0],
               "reference_chosen": [-13.0, -8.5], "reference_rejected": [-13.5, -8.75], **given}  # fmt: skip
        p = problem(**raw)
        exact, flt = solve(p, exact=True), solve(p, exact=False)
        assert not exact.notes or "Exact forms stop" not in " ".join(exact.notes)
        for s in flt.steps:
            np.testing.assert_allclose(np.asarray(exact[s.id], dtype=float), np.asarray(s.value, dtype=float),
                                       rtol=1e-12, err_msg=s.id)  # fmt: skip


# ---------------------------------------------------------------- bad files
BASE = {"beta": 0.1, "policy_chosen": [-1.0, -2.0], "policy_rejected": [-2.0, -3.0],
        "reference_chosen": [-1.5, -2.0], "reference_rejected": [-2.5, -3.5]}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        ({"beta": 0}, "given.beta", "greater than 0"),
        ({"beta": -0.1}, "given.beta", "greater than 0"),
        ({"policy_rejected": [-2.0]}, "given.policy_rejected", ""),
        ({"label_smoothing": 0.7}, "given.label_smoothing", "0 to 0.5"),
        ({"loss": "ipo", "label_smoothing": 0.1}, "given.label_smoothing", "sigmoid"),
        ({"loss": "kto"}, "given.loss", ""),
        ({"policy_chosen": [[-1.0, -0.5], -2.0]}, "given.policy_chosen", "pair 2"),
        ({"policy_chosen": [[-1.0], []]}, "given.policy_chosen[2]", "empty"),
        ({"policy_chosen": [[-1.0, -0.5]]}, "given.policy_chosen", ""),
        ({"reference_chosen": [[-1.0, "x"], [-2.0]]}, "given.reference_chosen[1]", ""),
    ],
)
def test_bad_files_are_refused_naming_the_key(change: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ProblemError) as e:
        problem(**{**BASE, **change})
    assert key in str(e.value) and words in str(e.value), str(e.value)


def test_a_bad_file_exits_2_with_one_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('kind = "dpo"\n[given]\nbeta = 0\npolicy_chosen = [-1]\npolicy_rejected = [-2]\n'
                 "reference_chosen = [-1]\nreference_rejected = [-2]\n")  # fmt: skip
    one_line_refusal(run_cli("solve", str(f)), "bad.toml", "given.beta")


# ---------------------------------------------------------------- check: the slips' arithmetic, by hand
def _grade(step: str, value: Any) -> Any:
    return check(load_problem(EXAMPLE), {step: value}, "a.toml").results[0]


def test_each_slip_is_named_from_its_own_arithmetic() -> None:
    """Answers to the worked example worked with each slip (h = 1 and 0.5, β = 0.1)."""
    # β left out: −log σ(h) = log(1 + e^−1) = 0.3133, log(1 + e^−0.5) = 0.4741
    r = _grade("losses", [f"{math.log1p(math.exp(-1)):.4f}", f"{math.log1p(math.exp(-0.5)):.4f}"])
    assert r.mistake == "dpo_beta_left_out", r.note
    # the reference not subtracted: the chosen logratios are the policy's log-probabilities
    r = _grade("chosen_logratios", ["-12.5", "-8.25"])
    assert r.mistake == "dpo_reference_not_subtracted", r.note
    # chosen and rejected swapped: h = r_l − r_w = −1, −0.5
    r = _grade("logits", ["-1", "-0.5"])
    assert r.mistake == "dpo_chosen_rejected_swapped", r.note
    # σ for log σ: −σ(0.1) = −0.5250, −σ(0.05) = −0.5125
    r = _grade("losses", [f"{-1 / (1 + math.exp(-0.1)):.4f}", f"{-1 / (1 + math.exp(-0.05)):.4f}"])
    assert r.mistake == "dpo_sigma_for_log_sigma", r.note


def test_a_typo_is_not_taken_for_a_slip() -> None:
    r = _grade("losses", ["0.6444", "0.6658"])  # 0.6685 with two digits swapped
    assert r.verdict == "wrong" and r.mistake is None, r.note
    r = _grade("logits", ["1", "0.75"])
    assert r.verdict == "wrong" and r.mistake is None, r.note


def test_correct_answers_are_correct() -> None:
    d = solve(load_problem(EXAMPLE), exact=False)
    answers = {s.id: np.round(np.asarray(s.value, dtype=float), 4).tolist() for s in d.steps}
    results = check(load_problem(EXAMPLE), answers, "a.toml").results
    assert all(r.verdict == "correct" for r in results), [(r.step, r.verdict, r.note) for r in results]


# ---------------------------------------------------------------- JSON
def test_json_labels_and_steps(cli: Any) -> None:
    out = json.loads(cli("solve", str(EXAMPLE), "--format", "json").stdout)
    by = {s["id"]: s for s in out["steps"]}
    assert list(by) == ["chosen_logratios", "rejected_logratios", "logits", "losses", "loss", "chosen_rewards",
                        "rejected_rewards", "reward_margins", "reward_accuracy", "gradient_weights"]  # fmt: skip
    assert by["losses"]["labels"] == ["pair 1", "pair 2"] and isinstance(by["losses"]["value"], list)
    assert by["chosen_logratios"]["value"] == [0.5, 0.25]
    assert "labels" not in by["loss"] and "labels" not in by["reward_accuracy"]
    acc = by["reward_accuracy"]["value"]  # a share, not a count: a float even when whole
    assert acc == 1.0 and isinstance(acc, float)
    assert by["loss"]["value"] == pytest.approx((math.log1p(math.exp(-0.1)) + math.log1p(math.exp(-0.05))) / 2)


# ---------------------------------------------------------------- homework
def test_drawn_log_probabilities_are_below_zero_and_the_token_lists_sum_to_a_pair() -> None:
    import random

    from attncalc.homework.dpo import DRAWER
    from attncalc.homework.options import Options

    seen_tokens = 0
    for seed in range(40):
        for number in (1, 2, 3):
            raw = DRAWER.draw(Options(tokens=3), random.Random(seed), number)
            for key in ("policy_chosen", "policy_rejected", "reference_chosen", "reference_rejected"):
                value = raw["given"][key]
                assert len(value) == 3
                for entry in value:
                    tokens = entry if isinstance(entry, list) else [entry]
                    seen_tokens += isinstance(entry, list)
                    assert all(t < 0 for t in tokens), (seed, number, key, value)
    assert seen_tokens > 0  # the third variants give token lists


def test_ipo_from_token_lists_says_it_uses_the_sums() -> None:
    """IPO's h from the summed token log-probabilities (Azar et al.), with a note on TRL's per-token mean;
    the loss from the sums: h = (−3.75 + 4) − (−4 + 3.5) = 0.75, (0.75 − 1/(2 · 0.5))² = 0.0625."""
    d = solve(problem(beta=0.5, policy_chosen=[[-1.5, -2.25]], policy_rejected=[-4.0], reference_chosen=[-4.0],
                      reference_rejected=[-3.5], loss="ipo"), exact=False)  # fmt: skip
    losses = next(s for s in d.steps if s.id == "losses")
    assert float(d["losses"][0]) == 0.0625
    assert "token count" in losses.note
    plain = solve(problem(**{**BASE, "loss": "ipo"}), exact=False)
    assert next(s for s in plain.steps if s.id == "losses").note == ""


def test_a_long_token_list_is_written_as_its_count() -> None:
    tokens = [-0.5] * 9  # nine tokens: −4.5
    d = solve(problem(beta=0.1, policy_chosen=[tokens, [-1.0, -2.0]], policy_rejected=[-6.0, -4.0],
                      reference_chosen=[-5.0, -3.5], reference_rejected=[-5.5, -3.0]), exact=False)  # fmt: skip
    step = next(s for s in d.steps if s.id == "policy_chosen_sum")
    assert step.written == ("Σ of 9 tokens", "(-1) + (-2)")
    np.testing.assert_allclose(d["policy_chosen_sum"], [-4.5, -3.0])


def test_trls_per_token_ipo_is_worked_from_the_mean_log_probabilities() -> None:
    """docs/guide/kinds.md: TRL's loss_type="ipo" divides each response's summed log-probabilities
    (policy and reference) by its token count; attncalc sums. Given the means as numbers, attncalc's
    steps are TRL's. TRL's form written here with numpy: h = (mean π_w − mean ref_w) − (mean π_l − mean ref_l),
    l = (h − 1/(2β))², rewards β · (mean π − mean ref)."""
    beta = 0.5
    tokens = {
        "policy_chosen": [[-1.5, -2.25, -0.75], [-0.5]],
        "policy_rejected": [[-2.0, -3.0], [-1.25, -0.25, -1.0, -0.5]],
        "reference_chosen": [[-1.75, -2.0, -1.0], [-0.75]],
        "reference_rejected": [[-1.5, -2.75], [-1.0, -0.5, -1.25, -0.25]],
    }
    mean = {k: np.asarray([np.mean(t) for t in v]) for k, v in tokens.items()}
    chosen = mean["policy_chosen"] - mean["reference_chosen"]
    rejected = mean["policy_rejected"] - mean["reference_rejected"]
    h = chosen - rejected
    trl = {"logits": h, "losses": (h - 1 / (2 * beta)) ** 2, "chosen_rewards": beta * chosen}
    d = solve(problem(beta=beta, loss="ipo", **{k: v.tolist() for k, v in mean.items()}), exact=False)
    for step, value in trl.items():
        np.testing.assert_allclose(np.asarray(d[step], dtype=float), value, rtol=1e-12, atol=1e-12, err_msg=step)
    summed = solve(problem(beta=beta, loss="ipo", **tokens), exact=False)  # the token lists: the sums, not TRL's
    assert not np.allclose(np.asarray(summed["losses"], dtype=float), trl["losses"])
    assert "token count" in next(s for s in summed.steps if s.id == "losses").note
