"""Kind speculative in ``check``: a step judged on the answers it rests on (the answerer's own right
accepted flags and n decide where the residual is taken, not the n an earlier slip would give), every
wrong entry written out with its arithmetic even when another answer stops the draw, and a value taken
as it is said once. Every expected number is worked here by hand from Leviathan et al. 2023,
Algorithm 1, with Fraction."""

from __future__ import annotations

import tomllib
from fractions import Fraction as F
from pathlib import Path
from typing import Any

from attncalc.check import check
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS

EXAMPLE = Path(PROBLEMS, "speculative-two-drafts.toml")

# the example by hand: q_2 = [0.1, 0.6, 0.2, 0.1], p_2 = [0.3, 0.3, 0.3, 0.1]; with n = 1 the residual is
# max(0, p_2 − q_2) = [0.2, 0, 0.1, 0] over 0.3
RESIDUAL = [F(2, 10) / F(3, 10), F(0), F(1, 10) / F(3, 10), F(0)]
# the ratios inverted, q/p: 0.4/0.3 and 0.6/0.3; min(1, ·) accepts both
INVERTED = [F(4, 10) / F(3, 10), F(6, 10) / F(3, 10)]


def _results(answers: dict[str, Any], problem: Any = None) -> dict[str, Any]:
    p = load_problem(EXAMPLE) if problem is None else problem
    return {r.id: r for r in check(p, answers, "a.toml").results}


def test_the_residual_is_judged_at_the_answerers_own_right_n() -> None:
    """Inverted ratios (a named slip) would accept both drafts and take the residual at p_3 (0.25 each),
    but the answerer's own accepted = [1, 0] and n = 1 are right: their residual is judged at position
    2, [2/3, 0, 1/3, 0], so 0.4 (a) and 0.2 (c) are both wrong, b and d right: half the step."""
    assert RESIDUAL == [F(2, 3), 0, F(1, 3), 0]
    answers = {
        "ratios": [f"{float(x):.4f}" for x in INVERTED],
        "accept_probabilities": [1, 1],
        "accepted": [1, 0],
        "n_accepted": 1,
        "residual": ["0.4", "0", "0.2", "0"],
    }
    by_id = _results(answers)
    assert by_id["ratios"].mistake == "speculative_ratio_inverted"
    assert by_id["accepted"].verdict == "correct" and by_id["n_accepted"].verdict == "correct"
    r = by_id["residual"]
    assert r.verdict == "wrong"
    assert r.wrong_entries == [[0], [2]], r.note
    assert r.right == 2 and r.credit == 0.5  # b and d of the four entries
    assert "not 0.2" in r.note and "not 0.4" in r.note


def test_a_typo_gets_its_arithmetic_beside_a_residual_slip() -> None:
    """The residual not normalised, [0.2, 0, 0.1, 0] (running sums 0.2, 0.2, 0.3, 0.3: none passes the
    draw 0.35, so the answerer's numbers draw nothing), and a typo α_2 = 0.56: the typo is still written
    out, α_2 = min(0.3, 0.1) + min(0.3, 0.6) + min(0.3, 0.2) + min(0.1, 0.1) = 0.7."""
    alpha2 = min(F(3, 10), F(1, 10)) + min(F(3, 10), F(6, 10)) + min(F(3, 10), F(2, 10)) + min(F(1, 10), F(1, 10))
    assert alpha2 == F(7, 10)
    answers = {
        "ratios": ["0.75", "0.5"],
        "accept_probabilities": ["0.75", "0.5"],
        "accepted": [1, 0],
        "n_accepted": 1,
        "residual": ["0.2", "0", "0.1", "0"],
        "acceptance_rates": ["0.9", "0.56"],
    }
    by_id = _results(answers)
    assert by_id["residual"].mistake == "speculative_residual_not_normalised"
    r = by_id["acceptance_rates"]
    assert r.verdict == "wrong" and r.mistake is None
    assert r.note.startswith("α_2 = min(0.3, 0.1) + min(0.3, 0.6)"), r.note
    assert r.note.endswith("= 0.7, not 0.56."), r.note


def test_a_value_taken_as_it_is_is_said_once() -> None:
    """Both drafts accepted (r = [0.5, 0.4]: 0.5 ≤ 0.75, 0.4 ≤ 0.5): the residual is p_3 itself, 0.25
    each; a wrong 0.4 is told 0.25, not "0.25 = 0.3" (rounded again to the answer's one decimal)."""
    raw = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    raw["given"]["uniforms"] = [0.5, 0.4]
    assert F(4, 10) <= F(1, 2) and F(5, 10) <= F(3, 4)
    by_id = _results({"residual": ["0.4", "0.25", "0.25", "0.25"]}, parse_problem(raw, "p.toml"))
    note = by_id["residual"].note
    assert "= 0.25, not 0.4" in note, note
    assert "0.3" not in note, note


# three drafts: ratio_2 = 0.4 / 0.7 = 4/7 ≈ 0.5714 < r_2 = 0.6 (rejected, n = 1); rounded to one decimal
# it is 0.6 ≤ 0.6, and a 1-decimal hand chain accepts every draft and takes p_4 itself as the residual
THREE = {
    "title": "Three drafts",
    "kind": "speculative",
    "vocab": ["a", "b", "c", "d"],
    "given": {
        "draft": [[0.4, 0.3, 0.2, 0.1], [0.1, 0.7, 0.1, 0.1], [0.25, 0.25, 0.25, 0.25]],
        "target": [[0.3, 0.4, 0.2, 0.1], [0.3, 0.4, 0.2, 0.1], [0.1, 0.2, 0.5, 0.2], [0.1, 0.5, 0.2, 0.2]],
        "drafted": ["a", "b", "c"],
        "uniforms": [0.5, 0.6, 0.3],
        "resample": 0.35,
    },
    "settings": {"decimals": 4},
}
P4 = ["0.1", "0.5", "0.2", "0.2"]


def _three(answers: dict[str, Any]) -> dict[str, Any]:
    return _results(answers, parse_problem(THREE, "three.toml"))


def test_a_hand_chain_that_accepts_a_draft_the_answerer_rightly_rejected_credits_nothing_after() -> None:
    """accepted = [1, 0, 0] and n = 1 are right (4/7 < 0.6); the 1-decimal chain's 0.6 ≤ 0.6 accepts
    draft 2 and gives p_4 as the residual, a decision the answerer's own answers contradict: p_4 as the
    residual is wrong, and [0.1, 0, 0.2, 0] has 0.1 and 0.2 wrong (true residual [2/3, 0, 1/3, 0])."""
    ratio2 = F(4, 10) / F(7, 10)
    assert ratio2 < F(6, 10) and round(float(ratio2), 1) == 0.6
    assert F(3, 10) / F(4, 10) >= F(5, 10)  # draft 1 accepted
    residual = [
        max(F(0), p - q) / F(3, 10)
        for p, q in zip([F(3, 10), F(4, 10), F(2, 10), F(1, 10)], [F(1, 10), F(7, 10), F(1, 10), F(1, 10)], strict=True)
    ]
    assert residual == [F(2, 3), 0, F(1, 3), 0]
    base = {
        "ratios": ["0.75", "0.5714", "2"],
        "accept_probabilities": ["0.75", "0.5714", "1"],
        "accepted": [1, 0, 0],
        "n_accepted": 1,
    }
    by_id = _three({**base, "residual": P4})
    assert by_id["accepted"].verdict == "correct" and by_id["n_accepted"].verdict == "correct"
    r = by_id["residual"]
    assert r.verdict == "wrong", r.note
    assert "hand chain" not in r.note
    r = _three({**base, "residual": ["0.1", "0", "0.2", "0"]})["residual"]
    assert r.verdict == "wrong"
    assert r.wrong_entries == [[0], [2]], r.note
    assert r.right == 2


def test_an_answerer_whose_own_n_follows_the_hand_chain_is_followed_through() -> None:
    """accepted = [1, 1, 1] and n = 3, as the 1-decimal rounding makes them (0.6 ≤ 0.6): the residual
    p_4 follows from their own n, so it is not marked wrong."""
    answers = {"accepted": [1, 1, 1], "n_accepted": 3, "residual": P4}
    by_id = _three(answers)
    assert by_id["accepted"].verdict == "wrong"
    assert by_id["n_accepted"].verdict == "carried"
    assert by_id["residual"].verdict in ("correct", "carried"), by_id["residual"].note
    rounded = {**answers, "ratios": ["0.8", "0.6", "2"], "accept_probabilities": ["0.8", "0.6", "1"]}
    by_id = _three(rounded)
    assert by_id["n_accepted"].verdict != "wrong"
    assert by_id["residual"].verdict in ("correct", "carried"), by_id["residual"].note
