"""Kind grpo: every number against an oracle written apart from attncalc.

- TRL's GRPOTrainer loss, written here in torch as TRL 1.16's ``trl/trainer/grpo_trainer.py`` computes it
  (the advantages of ``_generate_and_score_completions`` with ``scale_rewards="group"``: ``nanstd``'s
  Bessel-corrected std, (r − mean) / (std + 1e-4); ``_compute_loss``: ``coef_1 = exp(logp − old)``,
  ``coef_2 = clamp(coef_1, 1 − ε, 1 + ε)``, ``−min(coef_1 · A, coef_2 · A) + β · kl`` with the k3
  ``exp(ref − logp) − (ref − logp) − 1``, and the loss types ``grpo``, ``bnpo`` and ``dapo``). TRL is
  not installed in the test environment, so the trainer itself is not called.
- The DeepSeekMath paper's objective (Shao et al. 2024, eq. 3 with the KL of eq. 4 and the outcome
  advantages of section 4.1.2) in numpy, from the probabilities π = e^(log π).
- The spec's group with binary rewards [1, 0, 0, 1] recomputed by hand, with its exact forms.
Also: seeded random groups, exact against float, bad files refused with one message, JSON labels,
the homework drawer (the slips' arithmetic is in test_grpo_check.py).
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.errors import ProblemError
from attncalc.mechanisms import solve
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS, one_line_refusal, run_cli

EXAMPLE = Path(PROBLEMS, "grpo-four-completions.toml")
CLIPPED = Path(PROBLEMS, "grpo-clipped-tokens.toml")

# the spec's group (problems/grpo-four-completions.toml)
REWARDS = [1, 0, 0, 1]
LOGPROBS = [[-0.5, -1.0], [-0.7], [-1.2, -0.3, -0.4], [-0.2]]
OLD = [[-0.6, -1.0], [-0.6], [-1.0, -0.3, -0.5], [-0.2]]
REF = [[-0.5, -1.1], [-0.8], [-1.2, -0.2, -0.4], [-0.3]]


def problem(**given: Any) -> Any:
    return parse_problem({"kind": "grpo", "given": given}, "g.toml")


def flat(rows: list[list[float]]) -> np.ndarray:
    return np.asarray([x for row in rows for x in row], dtype=float)


# ---------------------------------------------------------------- the oracles
def trl_grpo(
    rewards: list[float],
    logprobs: list[list[float]],
    old: list[list[float]] | None,
    ref: list[list[float]] | None,
    epsilon: float,
    beta: float,
    loss_type: str = "grpo",
    unbiased: bool = True,
    advantage_eps: float = 1e-4,
) -> dict[str, Any]:
    """As TRL's GRPOTrainer computes it (trl 1.16, grpo_trainer.py), for one group on one process: the
    completions padded to one length with a mask, as the trainer holds them."""
    torch = pytest.importorskip("torch", reason="torch computes TRL's GRPO loss")
    f64 = torch.float64
    r = torch.tensor(rewards, dtype=f64)
    mean = r.mean()
    std = r.std(unbiased=unbiased)  # nanstd: Bessel's correction (unbiased=False: the population's, not TRL)
    advantages = (r - mean) / (std + advantage_eps)
    T = max(len(row) for row in logprobs)

    def pad(rows: list[list[float]]) -> Any:
        return torch.tensor([row + [0.0] * (T - len(row)) for row in rows], dtype=f64)

    mask = pad([[1.0] * len(row) for row in logprobs])
    per_token_logps = pad(logprobs)
    old_per_token_logps = pad(old) if old is not None else per_token_logps.detach()
    coef_1 = torch.exp(per_token_logps - old_per_token_logps)
    coef_2 = torch.clamp(coef_1, 1 - epsilon, 1 + epsilon)
    per_token_loss1 = coef_1 * advantages.unsqueeze(1)
    per_token_loss2 = coef_2 * advantages.unsqueeze(1)
    per_token_loss = -torch.min(per_token_loss1, per_token_loss2)
    out: dict[str, Any] = {}
    if ref is not None and beta != 0.0:
        ref_per_token_logps = pad(ref)
        per_token_kl = torch.exp(ref_per_token_logps - per_token_logps) - (ref_per_token_logps - per_token_logps) - 1
        per_token_loss = per_token_loss + beta * per_token_kl
        out["kl"] = per_token_kl[mask.bool()].numpy()
    if loss_type == "grpo":
        per_sequence = (per_token_loss * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)
        loss = per_sequence.mean()
        out["completion_losses"] = per_sequence.numpy()
    elif loss_type == "bnpo":
        loss = (per_token_loss * mask).sum() / mask.sum().clamp(min=1.0)
    else:  # dapo: over num_items_in_batch, the group's tokens on one process
        loss = (per_token_loss * mask).sum() / mask.sum()
    keep = mask.bool()
    out.update(
        mean_reward=float(mean),
        std_reward=float(std),
        advantages=advantages.numpy(),
        ratios=coef_1[keep].numpy(),
        clipped_ratios=coef_2[keep].numpy(),
        surrogate=torch.min(per_token_loss1, per_token_loss2)[keep].numpy(),
        token_losses=per_token_loss[keep].numpy(),
        loss=float(loss),
    )
    return out


def deepseekmath_loss(
    rewards: list[float], logprobs: list[list[float]], old: list[list[float]], ref: list[list[float]] | None,
    epsilon: float, beta: float, ddof: int,
) -> float:  # fmt: skip
    """−J_GRPO of Shao et al. 2024, eq. 3: (1/G) Σ_i (1/|o_i|) Σ_t {min(ρ Â, clip(ρ, 1 − ε, 1 + ε) Â) − β D_KL},
    ρ = π_θ / π_θold, D_KL = π_ref / π_θ − log(π_ref / π_θ) − 1 (eq. 4), Â_i,t = (r_i − mean(r)) / std(r)
    (4.1.2, outcome supervision: every token of o_i takes it)."""
    r = np.asarray(rewards, dtype=float)
    adv = (r - r.mean()) / r.std(ddof=ddof)
    J = 0.0
    for i, row in enumerate(logprobs):
        pi = np.exp(np.asarray(row))
        pi_old = np.exp(np.asarray(old[i]))
        rho = pi / pi_old
        term = np.minimum(rho * adv[i], np.clip(rho, 1 - epsilon, 1 + epsilon) * adv[i])
        if ref is not None:
            q = np.exp(np.asarray(ref[i])) / pi
            term = term - beta * (q - np.log(q) - 1)
        J += term.mean() / len(logprobs)
    return -J


def assert_matches(d: Any, want: dict[str, Any], tol: float = 1e-12) -> None:
    for step, value in want.items():
        np.testing.assert_allclose(np.asarray(d[step], dtype=float), value, rtol=tol, atol=tol, err_msg=step)


# ---------------------------------------------------------------- the worked examples
def test_the_worked_example_against_trl() -> None:
    d = solve(load_problem(EXAMPLE), exact=False)
    assert_matches(d, trl_grpo(REWARDS, LOGPROBS, OLD, REF, 0.2, 0.04, "grpo"))
    assert [s.id for s in d.steps] == ["mean_reward", "std_reward", "advantages", "ratios", "clipped_ratios",
                                       "surrogate", "kl", "token_losses", "completion_losses", "loss"]  # fmt: skip


def test_the_worked_example_by_hand_with_its_exact_forms() -> None:
    """By hand: the mean of [1, 0, 0, 1] is 1/2; the squares (1/2)² four times sum to 1, over n − 1 = 3:
    σ = √(1/3) = √3/3 = 0.57735; A = ±(1/2) / (√3/3 + 1/10000) = ±0.86588. The ratios are e^(0.1),
    e^0, e^(−0.1), e^(−0.2), e^0, e^(0.1), e^0 (0.8187 is inside [0.8, 1.2]: no clip binds), the surrogate
    ρ · A. ref − logprob is 0, −0.1 | −0.1 | 0, 0.1, 0 | −0.1, so KL = e^x − x − 1 is 0 or
    e^(∓0.1) ± 0.1 − 1 (0.0048374, 0.0051709). Each token loss is −(ρ A − 0.04 KL); the completions'
    means, then their mean."""
    import sympy as sp

    d = solve(load_problem(EXAMPLE), exact=True)
    by = {s.id: s for s in d.steps}
    assert by["mean_reward"].exact[()] == sp.Rational(1, 2)
    assert sp.simplify(by["std_reward"].exact[()] - sp.sqrt(3) / 3) == 0
    A = sp.Rational(1, 2) / (sp.sqrt(3) / 3 + sp.Rational(1, 10000))
    for got, sign in zip(by["advantages"].exact, (1, -1, -1, 1), strict=True):
        assert sp.simplify(got - sign * A) == 0
    tenth = sp.Rational(1, 10)
    x = [tenth, 0, -tenth, -2 * tenth, 0, tenth, 0]
    for got, e in zip(by["ratios"].exact, x, strict=True):
        assert sp.simplify(got - sp.exp(e)) == 0
    kx = [0, -tenth, -tenth, 0, tenth, 0, -tenth]
    for got, e in zip(by["kl"].exact, kx, strict=True):
        assert sp.simplify(got - (sp.exp(e) - e - 1)) == 0
    # the numbers, by hand
    a = 0.5 / (math.sqrt(1 / 3) + 1e-4)  # 0.865875...
    assert round(a, 5) == 0.86588
    signs = [1, 1, -1, -1, -1, -1, 1]
    rho = [math.exp(v) for v in (0.1, 0, -0.1, -0.2, 0, 0.1, 0)]
    kl = [math.exp(v) - v - 1 for v in (0, -0.1, -0.1, 0, 0.1, 0, -0.1)]
    assert round(kl[1], 7) == 0.0048374 and round(kl[4], 7) == 0.0051709
    losses = [-(r * s * a - 0.04 * k) for r, s, k in zip(rho, signs, kl, strict=True)]
    means = [(losses[0] + losses[1]) / 2, losses[2], sum(losses[3:6]) / 3, losses[6]]
    np.testing.assert_allclose(d["advantages"], [a, -a, -a, a], rtol=1e-12)
    np.testing.assert_allclose(d["ratios"], rho, rtol=1e-12)
    np.testing.assert_allclose(d["clipped_ratios"], rho, rtol=1e-12)
    np.testing.assert_allclose(d["kl"], kl, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(d["token_losses"], losses, rtol=1e-12)
    np.testing.assert_allclose(d["completion_losses"], means, rtol=1e-12)
    np.testing.assert_allclose(float(d["loss"]), sum(means) / 4, rtol=1e-12)


def test_the_worked_example_against_the_papers_objective() -> None:
    """DeepSeekMath's eq. 3 divides by std(r) alone: with advantage_eps = 0 the two agree, for either std."""
    for std, ddof in (("unbiased", 1), ("population", 0)):
        d = solve(problem(rewards=REWARDS, logprobs=LOGPROBS, old_logprobs=OLD, ref_logprobs=REF, epsilon=0.2,
                          beta=0.04, advantage_eps=0, std=std), exact=False)  # fmt: skip
        want = deepseekmath_loss(REWARDS, LOGPROBS, OLD, REF, 0.2, 0.04, ddof)
        np.testing.assert_allclose(float(d["loss"]), want, rtol=1e-12)


def test_the_clipped_example_against_trl_and_by_hand() -> None:
    """problems/grpo-clipped-tokens.toml: rewards [2, 0.5, 1, 0], mean 7/8, population std √(35/64) =
    0.73951; ρ of o1 t1 is e^0.3 = 1.34986 > 1.2 with A > 0, so its surrogate is 1.2 · A; ρ of o2 t1 is
    e^(−0.3) = 0.74082 < 0.8 with A < 0, so min(0.741 A, 0.8 A) = 0.8 A; no reference: no KL; the
    token mean (TRL's bnpo, and dapo for one group) over 8 tokens."""
    d = solve(load_problem(CLIPPED), exact=False)
    rewards = [2, 0.5, 1, 0]
    lp = [[-0.2, -0.9, -0.4], [-1.5, -0.6], [-0.3], [-0.8, -0.5]]
    old = [[-0.5, -0.9, -0.35], [-1.2, -0.6], [-0.3], [-0.8, -0.2]]
    for loss_type in ("bnpo", "dapo"):
        want = trl_grpo(rewards, lp, old, None, 0.2, 0.0, loss_type, unbiased=False)
        assert_matches(d, want)
    ids = [s.id for s in d.steps]
    assert "kl" not in ids and "completion_losses" not in ids
    std = math.sqrt(sum((r - 0.875) ** 2 for r in rewards) / 4)
    assert round(std, 5) == 0.73951
    a1 = (2 - 0.875) / (std + 1e-4)
    a2 = (0.5 - 0.875) / (std + 1e-4)
    assert float(d["surrogate"][0]) == pytest.approx(1.2 * a1, rel=1e-12)
    assert float(d["surrogate"][3]) == pytest.approx(0.8 * a2, rel=1e-12)
    note = next(s for s in d.steps if s.id == "token_losses").note
    assert "no KL term" in note and "ignored" in note


@pytest.mark.parametrize(("normalize", "loss_type"), [("sequence", "grpo"), ("token", "bnpo"), ("token", "dapo")])
@pytest.mark.parametrize("with_ref", [True, False])
def test_seeded_groups_against_trl(normalize: str, loss_type: str, with_ref: bool) -> None:
    rng = np.random.default_rng(11)
    for _ in range(6):
        G = int(rng.integers(2, 7))
        lengths = rng.integers(1, 5, G)
        lp = [np.round(rng.uniform(-3, -0.05, n), 3).tolist() for n in lengths]
        old = [np.round(np.minimum(np.asarray(row) + rng.uniform(-0.4, 0.4, len(row)), 0), 3).tolist() for row in lp]
        ref = [np.round(np.minimum(np.asarray(row) + rng.uniform(-0.5, 0.5, len(row)), 0), 3).tolist() for row in lp]
        rewards = np.round(rng.uniform(-1, 2, G), 2).tolist()
        eps, beta = float(rng.choice([0.1, 0.2, 0.28])), float(rng.choice([0.0, 0.04, 0.1]))
        given: dict[str, Any] = {"rewards": rewards, "logprobs": lp, "old_logprobs": old, "epsilon": eps,
                                 "beta": beta, "normalize": normalize}  # fmt: skip
        if with_ref:
            given["ref_logprobs"] = ref
        d = solve(problem(**given), exact=False)
        want = trl_grpo(rewards, lp, old, ref if with_ref else None, eps, beta, loss_type)
        if with_ref and beta == 0:
            want["kl"] = trl_grpo(rewards, lp, old, ref, eps, 1.0, loss_type)["kl"]  # shown, weighted by 0
        assert_matches(d, want, tol=1e-11)


def test_without_old_logprobs_every_ratio_is_one() -> None:
    d = solve(problem(rewards=[1, 0], logprobs=[[-0.5], [-1.0, -2.0]]), exact=False)
    np.testing.assert_array_equal(d["ratios"], [1, 1, 1])
    assert_matches(d, trl_grpo([1, 0], [[-0.5], [-1.0, -2.0]], None, None, 0.2, 0.04))


def test_exact_and_float_agree() -> None:
    for p in (
        load_problem(EXAMPLE),
        load_problem(CLIPPED),
        problem(rewards=[3, 1, 2], logprobs=[[-1.5], [-0.25, -2], [-1]], old_logprobs=[[-1.25], [-0.5, -2], [-1.5]],
                ref_logprobs=[[-1], [-0.5, -1.75], [-1]], epsilon="1/4", beta=0.5, normalize="token"),
        problem(rewards=[1, 1, 1], logprobs=[[-1.5], [-0.25], [-1]]),  # every advantage 0
    ):  # fmt: skip
        exact, flt = solve(p, exact=True), solve(p, exact=False)
        assert "Exact forms stop" not in " ".join(exact.notes)
        for s in flt.steps:
            assert s.exact is None
            np.testing.assert_allclose(np.asarray(exact[s.id], dtype=float), np.asarray(s.value, dtype=float),
                                       rtol=1e-12, atol=1e-15, err_msg=s.id)  # fmt: skip
        assert any(s.exact is not None for s in exact.steps)


# ---------------------------------------------------------------- bad files
BASE: dict[str, Any] = {"rewards": [1, 0], "logprobs": [[-1.0, -0.5], [-2.0]]}


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        ({"rewards": [1]}, "given.rewards", "at least 2"),
        ({"rewards": [1, 0, 1]}, "given.logprobs", "but given.rewards has 3"),
        ({"logprobs": [-1.0, -0.5]}, "given.logprobs", "completion 1"),
        ({"logprobs": [[-1.0], []]}, "given.logprobs[2]", "empty"),
        ({"logprobs": [[-1.0], ["x"]]}, "given.logprobs[2]", ""),
        ({"old_logprobs": [[-1.0], [-2.0]]}, "given.old_logprobs[1]", "has 1 tokens"),
        ({"ref_logprobs": [[-1.0, -0.5]]}, "given.ref_logprobs", "1 completions"),
        ({"ref_logprobs": [[-1.0, 0.5], [-2.0]]}, "given.ref_logprobs[1]", "token 2 is 0.5"),
        ({"logprobs": [[-1.0, -0.5], [float("nan")]]}, "given.logprobs[2]", ""),
        ({"epsilon": 0}, "given.epsilon", "greater than 0"),
        ({"epsilon": 1}, "given.epsilon", "less than 1"),
        ({"beta": -0.1}, "given.beta", "0 or more"),
        ({"advantage_eps": -1e-4}, "given.advantage_eps", "0 or more"),
        ({"rewards": [1, 1], "advantage_eps": 0}, "given.advantage_eps", "0 by 0"),
        ({"std": "sample"}, "given.std", ""),
        ({"normalize": "batch"}, "given.normalize", ""),
        ({"logprobs": [[-0.5] * 40, [-0.5] * 30]}, "given.logprobs", "at most 64"),
    ],
)
def test_bad_files_are_refused_naming_the_key(change: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ProblemError) as e:
        problem(**{**BASE, **change})
    assert key in str(e.value) and words in str(e.value), str(e.value)


def test_a_bad_file_exits_2_with_one_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('kind = "grpo"\n[given]\nrewards = [1, 0]\nlogprobs = [[-1.0], [-2.0]]\nepsilon = 1.5\n')
    one_line_refusal(run_cli("solve", str(f)), "bad.toml", "given.epsilon")


# ---------------------------------------------------------------- JSON
def test_json_labels_and_steps(cli: Any) -> None:
    out = json.loads(cli("solve", str(EXAMPLE), "--format", "json").stdout)
    by = {s["id"]: s for s in out["steps"]}
    tokens = ["o1 t1", "o1 t2", "o2 t1", "o3 t1", "o3 t2", "o3 t3", "o4 t1"]
    for step in ("ratios", "clipped_ratios", "surrogate", "kl", "token_losses"):
        assert by[step]["labels"] == tokens, step
        assert len(by[step]["value"]) == 7
    assert by["advantages"]["labels"] == ["o1", "o2", "o3", "o4"]
    assert by["completion_losses"]["labels"] == ["o1", "o2", "o3", "o4"]
    for step in ("mean_reward", "std_reward", "loss"):
        assert "labels" not in by[step] and isinstance(by[step]["value"], float), step
    assert by["mean_reward"]["value"] == 0.5
    assert by["std_reward"]["value"] == pytest.approx(math.sqrt(1 / 3))


# ---------------------------------------------------------------- homework
def test_drawn_groups_are_fit_and_a_quiz_keeps_one_shape() -> None:
    from attncalc.homework.grpo import DRAWER
    from attncalc.homework.options import Options

    shapes = set()
    for number in range(1, 13):
        raw = DRAWER.draw(Options(kind="grpo", tokens=4, seed=9, one_shape=True), random.Random(number), number)
        g = raw["given"]
        assert len(g["rewards"]) == 4 and len(g["logprobs"]) == 4
        assert all(x < 0 for row in g["logprobs"] + g["old_logprobs"] for x in row)
        shapes.add((tuple(len(row) for row in g["logprobs"]), "ref_logprobs" in g, g.get("std"), g.get("normalize")))
    assert len(shapes) == 1
    varied = {
        tuple(len(row) for row in DRAWER.draw(Options(kind="grpo", tokens=4), random.Random(n), n)["given"]["logprobs"])
        for n in range(1, 13)
    }
    assert len(varied) > 1


def test_the_std_step_names_its_divisor_as_its_formula_does() -> None:
    """The group has G completions: the unbiased divisor is G − 1 in both the formula and the words."""
    for unbiased, divisor in ((True, "G − 1"), (False, "G")):
        d = solve(load_problem(EXAMPLE), exact=False)
        if not unbiased:
            d = solve(problem(rewards=REWARDS, logprobs=LOGPROBS, std="population"), exact=False)
        step = d.step("std_reward")
        assert f"divided by {divisor}:" in step.explain, step.explain
        assert "n − 1" not in step.explain and "by n:" not in step.explain
