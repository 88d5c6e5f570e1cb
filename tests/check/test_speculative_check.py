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


# a close call: ratio_1 = 0.2/0.3 = 2/3 against the draw r_1 = 0.667. Unrounded, 0.667 > 2/3 rejects draft 1
# (n = 0, residual max(0, p_1 − q_1) = [0, 0.2, 0] / 0.2 = [0, 1, 0]: the draw 0.35 picks b). Rounded to 3
# decimals, a_1 = 0.667 and 0.667 ≤ 0.667 accepts it, and r_2 = 0.4 ≤ 0.3/0.6 = 0.5 accepts draft 2 as well:
# n = 2, the residual is p_3 = [0.5, 0.25, 0.25], running sums [0.5, 0.75, 1], and 0.35 picks a.
CLOSE = {
    "title": "close call",
    "kind": "speculative",
    "vocab": ["a", "b", "c"],
    "given": {
        "draft": [[0.3, 0.3, 0.4], [0.2, 0.6, 0.2]],
        "target": [[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.5, 0.25, 0.25]],
        "drafted": ["a", "b"],
        "uniforms": [0.667, 0.4],
        "resample": 0.35,
    },
    "settings": {"decimals": 3},
}
ROUNDED_CHAIN = {
    "ratios": ["0.667", "0.5"],
    "accept_probabilities": ["0.667", "0.5"],
    "accepted": [1, 1],
    "n_accepted": 2,
    "residual": ["0.5", "0.25", "0.25"],
    "residual_cumulative": ["0.5", "0.75", "1"],
    "next_token": "a",
    "output": ["a", "b", "a"],
}


def _close_file(tmp_path: Path) -> Path:
    """CLOSE as a problem file, for the command line."""
    problem = tmp_path / "close.toml"
    problem.write_text(
        'title = "close call"\nkind = "speculative"\nvocab = ["a", "b", "c"]\n[given]\n'
        "draft = [[0.3, 0.3, 0.4], [0.2, 0.6, 0.2]]\n"
        "target = [[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.5, 0.25, 0.25]]\n"
        'drafted = ["a", "b"]\nuniforms = [0.667, 0.4]\nresample = 0.35\n[settings]\ndecimals = 3\n',
        encoding="utf-8",
    )
    return problem


def _close(answers: dict[str, Any]) -> dict[str, Any]:
    return _results(answers, parse_problem(CLOSE, "close.toml"))


def test_the_close_call_by_hand() -> None:
    ratio1 = F(2, 10) / F(3, 10)
    assert F(667, 1000) > ratio1 and round(float(ratio1), 3) == 0.667  # unrounded: rejected
    assert F(4, 10) <= F(3, 10) / F(6, 10)  # draft 2 passes its own test
    assert [
        max(F(0), p - q) for p, q in zip([F(2, 10), F(5, 10), F(3, 10)], [F(3, 10)] * 2 + [F(4, 10)], strict=True)
    ] == [0, F(2, 10), 0]


def test_a_student_following_the_rounded_chain_throughout_is_right_to_the_end() -> None:
    """Their own rounded numbers accept both drafts; the residual p_3, its running sums and the draw that
    follow from them (0.35 < 0.5 picks a; output a, b, a) are right: nothing is wrong, no slip named."""
    by_id = _close(ROUNDED_CHAIN)
    assert {k: r.verdict for k, r in by_id.items()} == dict.fromkeys(ROUNDED_CHAIN, "correct")
    assert "unrounded it is b" in by_id["next_token"].note
    assert all(r.mistake is None for r in by_id.values())


def test_accept_flags_from_two_chains_are_neither_chains() -> None:
    """accepted = [1, 0]: flag 1 as the rounded chain gives it, flag 2 as the unrounded one (which had
    stopped at 1). No run gives both: their own 0.667 accepts draft 1 and then 0.4 ≤ 0.5 draft 2, so
    flag 2 is the one wrong; n = 1 and the residual at position 2 follow from their flags (carried):
    max(0, p_2 − q_2) = [0.1, 0, 0.2] / 0.3 = [1/3, 0, 2/3], sums [1/3, 1/3, 1], and 0.35 picks c."""
    residual = [
        max(F(0), p - q) / F(3, 10)
        for p, q in zip([F(3, 10), F(3, 10), F(4, 10)], [F(2, 10), F(6, 10), F(2, 10)], strict=True)
    ]
    assert residual == [F(1, 3), 0, F(2, 3)]
    assert F(1, 3) <= F(35, 100) < F(1, 3) + F(2, 3)  # the draw lands in c's stretch
    answers = {
        **ROUNDED_CHAIN,
        "accepted": [1, 0],
        "n_accepted": 1,
        "residual": ["0.333", "0", "0.667"],
        "residual_cumulative": ["0.333", "0.333", "1"],
        "next_token": "c",
        "output": ["a", "c"],
    }
    by_id = _close(answers)
    r = by_id["accepted"]
    assert r.verdict == "wrong" and r.wrong_entries == [[1]], r.note
    assert r.right == 0 and r.carried_right == 1
    for k in ("n_accepted", "residual", "residual_cumulative", "next_token", "output"):
        assert by_id[k].verdict == "carried", (k, by_id[k].note)


def test_a_wrong_output_after_the_rounded_chain_names_no_slip_it_did_not_make() -> None:
    """Ratios right as written, output a, b, c (the drawn token miscopied): inverting the ratios would
    also give a, b, ... from the same answers, but so do their own numbers without it; it is a typo."""
    by_id = _close({**ROUNDED_CHAIN, "output": ["a", "b", "c"]})
    r = by_id["output"]
    assert r.verdict == "wrong" and r.mistake is None, r.note
    assert "inverted" not in r.note


def test_the_accept_test_is_written_true_as_written(cli: Any, tmp_path: Path) -> None:
    """0.667 against a_1 = 2/3: the line reads [0.667 ≤ 0.6667] = 0, not the false [0.667 ≤ 0.667] = 0."""
    problem = _close_file(tmp_path)
    for extra in ((), ("--exact",)):
        out = cli("solve", str(problem), *extra).stdout
        assert "accepted_1 (a) = [0.667 ≤ 0.6667] = 0" in out, out
        assert "[0.667 ≤ 0.667]" not in out


def test_an_output_from_a_wrong_drawn_token_is_carried_not_correct() -> None:
    """The true chain throughout (n = 0, residual [0, 1, 0], sums [0, 1, 1]: the draw 0.35 picks b), then the
    drawn token miscopied as c and the output written from it, c: the output is carried from next_token."""
    answers = {"accepted": [0, 0], "n_accepted": 0, "residual": ["0", "1", "0"], "residual_cumulative": ["0", "1", "1"],
               "next_token": "c", "output": ["c"]}  # fmt: skip
    by_id = _close(answers)
    assert by_id["next_token"].verdict == "wrong"
    r = by_id["output"]
    assert r.verdict == "carried" and r.began_at == "next_token", r.note


def test_a_wrong_draw_is_told_what_the_answerers_own_sums_draw() -> None:
    """Their own rounded sums [0.5, 0.75, 1] draw a for u = 0.35 (unrounded: b); c is wrong, and the note
    says what their numbers give."""
    r = _close({**ROUNDED_CHAIN, "next_token": "c", "output": ["a", "b", "c"]})["next_token"]
    assert r.verdict == "wrong"
    assert "From your own earlier answers the draw u gives a, not c (unrounded: b)." in " ".join(r.note.split())


def test_solve_carry_shows_the_choice_its_own_numbers_make(cli: Any, tmp_path: Path) -> None:
    """solve --carry works from 0.667 ≤ 0.667: both drafts accepted, the residual p_3, sums 0.5, 0.75, 1, and
    the draw 0.35 picks a: the view, its table and its headline say a, b, a (JSON's value stays the truth)."""
    problem = _close_file(tmp_path)
    out = cli("solve", str(problem), "--carry", "--width", "100").stdout
    assert "the first running sum above u picks a" in out
    assert "output = a, b, a" in out
    assert "Output: a b a" in out
    assert "picks b" not in out


def test_the_true_draw_against_the_answerers_own_sums_is_right_and_says_what_theirs_draw() -> None:
    """The rounded chain's sums [0.5, 0.75, 1] draw a for u = 0.35; b, the unrounded draw, is still right,
    and the note says their own sums give a (the output from their own flags then follows b)."""
    r = _close({**ROUNDED_CHAIN, "next_token": "b", "output": ["a", "b", "b"]})["next_token"]
    assert r.verdict == "correct"
    assert r.note == "Right; from your own earlier answers the draw u gives a.", r.note
