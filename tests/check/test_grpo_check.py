"""Kind grpo in ``check``: each named slip recognised from answers worked by hand with it (and the two-way
slips the other way round), a typo not taken for a slip, the true answers correct. Every expected
number is recomputed here with math from the formulas (Shao et al. 2024; TRL's GRPOTrainer)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from attncalc.check import check
from attncalc.mechanisms import solve
from attncalc.parse import load_problem

from ..helpers import PROBLEMS

EXAMPLE = Path(PROBLEMS, "grpo-four-completions.toml")
CLIPPED = Path(PROBLEMS, "grpo-clipped-tokens.toml")


# ---------------------------------------------------------------- check: the slips' arithmetic, by hand
def _grade(path: Path, step: str, value: Any) -> Any:
    return check(load_problem(path), {step: value}, "a.toml").results[0]


def _w(values: Any) -> list[str]:
    return [f"{v:.4f}" for v in values]


def test_each_slip_is_named_from_its_own_arithmetic() -> None:
    a = 0.5 / (math.sqrt(1 / 3) + 1e-4)
    # the population's std: √(1/4) = 0.5
    r = _grade(EXAMPLE, "std_reward", "0.5000")
    assert r.mistake == "grpo_std_divisor", r.note
    # advantages not normalised: r − 1/2
    r = _grade(EXAMPLE, "advantages", ["0.5", "-0.5", "-0.5", "0.5"])
    assert r.mistake == "grpo_advantages_not_normalised", r.note
    # the KL's sign: −(ρ A + 0.04 KL)
    rho = [math.exp(v) for v in (0.1, 0, -0.1, -0.2, 0, 0.1, 0)]
    kl = [math.exp(v) - v - 1 for v in (0, -0.1, -0.1, 0, 0.1, 0, -0.1)]
    signs = [1, 1, -1, -1, -1, -1, 1]
    wrong = [-(p * s * a + 0.04 * k) for p, s, k in zip(rho, signs, kl, strict=True)]
    r = _grade(EXAMPLE, "token_losses", _w(wrong))
    assert r.mistake == "grpo_kl_sign", r.note
    # the token mean for the sequence mean: the 7 token losses over 7
    losses = [-(p * s * a - 0.04 * k) for p, s, k in zip(rho, signs, kl, strict=True)]
    r = _grade(EXAMPLE, "loss", f"{sum(losses) / 7:.4f}")
    assert r.mistake == "grpo_normalization_swapped", r.note
    # the clipped example: max for min takes e^0.3 · A at o1 t1, e^(−0.3) · A at o2 t1 and o4 t2
    std = math.sqrt(sum((x - 0.875) ** 2 for x in (2, 0.5, 1, 0)) / 4)
    A = [(x - 0.875) / (std + 1e-4) for x in (2, 0.5, 1, 0)]
    x = [0.3, 0, -0.05, -0.3, 0, 0, 0, -0.3]
    owner = [0, 0, 0, 1, 1, 2, 3, 3]
    ratios = [math.exp(v) for v in x]
    clipped = [min(max(p, 0.8), 1.2) for p in ratios]
    most = [max(p * A[o], c * A[o]) for p, c, o in zip(ratios, clipped, owner, strict=True)]
    r = _grade(CLIPPED, "surrogate", _w(most))
    assert r.mistake == "grpo_max_for_min", r.note
    # the clip on the advantage: min(ρ A, ρ clip(A, 0.8, 1.2)); A_1 = 1.52 is clipped to 1.2
    on_a = [min(p * A[o], p * min(max(A[o], 0.8), 1.2)) for p, o in zip(ratios, owner, strict=True)]
    r = _grade(CLIPPED, "surrogate", _w(on_a))
    assert r.mistake == "grpo_clip_on_advantage", r.note


def test_the_two_way_slips_are_named_the_other_way_too() -> None:
    """The clipped example asks the population's std and the token mean: the unbiased std and the
    sequence mean are the same slips, the other way round."""
    rewards = (2, 0.5, 1, 0)
    squares = sum((x - 0.875) ** 2 for x in rewards)
    r = _grade(CLIPPED, "std_reward", f"{math.sqrt(squares / 3):.4f}")
    assert r.mistake == "grpo_std_divisor", r.note
    std = math.sqrt(squares / 4)
    A = [(x - 0.875) / (std + 1e-4) for x in rewards]
    x = [0.3, 0, -0.05, -0.3, 0, 0, 0, -0.3]
    owner = [0, 0, 0, 1, 1, 2, 3, 3]
    surrogate = [min(math.exp(v) * A[o], min(max(math.exp(v), 0.8), 1.2) * A[o]) for v, o in zip(x, owner, strict=True)]
    per = [[-s for s, o in zip(surrogate, owner, strict=True) if o == i] for i in range(4)]
    sequence = sum(sum(row) / len(row) for row in per) / 4
    assert abs(sequence - sum(-s for s in surrogate) / 8) > 1e-3  # the two means differ here
    r = _grade(CLIPPED, "loss", f"{sequence:.4f}")
    assert r.mistake == "grpo_normalization_swapped", r.note


def test_a_typo_is_not_taken_for_a_slip() -> None:
    r = _grade(EXAMPLE, "std_reward", "0.5747")  # 0.5774 with two digits swapped
    assert r.verdict == "wrong" and r.mistake is None, r.note
    r = _grade(EXAMPLE, "advantages", ["0.8659", "-0.8659", "-0.8695", "0.8659"])
    assert r.verdict == "wrong" and r.mistake is None, r.note


def test_correct_answers_are_correct() -> None:
    for path in (EXAMPLE, CLIPPED):
        d = solve(load_problem(path), exact=False)
        answers = {s.id: np.round(np.asarray(s.value, dtype=float), 4).tolist() for s in d.steps}
        results = check(load_problem(path), answers, "a.toml").results
        assert all(r.verdict == "correct" for r in results), [(r.step, r.verdict, r.note) for r in results]


def test_a_typo_note_names_the_entry_by_its_label() -> None:
    """A typo in the last clipped ratio (o4 t2): ρ = exp(−0.3) = 0.741 clipped to [0.8, 1.2] is 0.8, not
    0.7; the note names the entry as the views and the JSON label it, o4 t2."""
    rho = math.exp(-0.3)
    assert round(rho, 3) == 0.741 and min(max(rho, 0.8), 1.2) == 0.8
    truth = solve(load_problem(CLIPPED))
    assert truth.step("clipped_ratios").rows[-1] == "o4 t2"
    given = [f"{v:.4f}" for v in np.asarray(truth["clipped_ratios"], dtype=float)]
    given[-1] = "0.7"
    r = _grade(CLIPPED, "clipped_ratios", given)
    assert r.verdict == "wrong" and r.wrong_entries == [[7]]
    assert "(o4 t2)" in r.note and r.note.endswith("= 0.8, not 0.7."), r.note


def test_a_note_writes_its_operands_at_the_problems_decimals() -> None:
    """grpo-clipped-tokens asks 4 decimals: σ = √35/8 = 0.73951 is 0.7395. A wrong advantage's note wrote
    it at 3 decimals, "(0.740 + 0.0001)", and its "as written" value from that (-0.5067), not the student's
    0.7395. By hand: A_2 = (0.5 − 0.875)/(0.7395 + 0.0001) = −0.375/0.7396 = −0.50703 → −0.5070."""
    from attncalc.check import check
    from attncalc.parse import load_problem

    from ..helpers import PROBLEMS

    p = load_problem(PROBLEMS / "grpo-clipped-tokens.toml")
    answers = {"mean_reward": "0.875", "std_reward": "0.7395", "advantages": ["1.5211", "-0.5072", "0.1690", "-1.1831"]}
    r = next(r for r in check(p, answers, "a.toml").results if r.id == "advantages")
    assert r.verdict == "wrong" and r.wrong_entries == [[1]]
    assert "(0.5 − 0.875) / (0.7395 + 0.0001) = -0.5070, not -0.5072" in r.note, r.note
    assert "0.740 " not in r.note
