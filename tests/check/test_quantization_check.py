"""Kind quantization in ``check``: a wrong entry written out from the answerer's own earlier answers says
so when those carry a slip (the number it shows is not the true one). The numbers are worked here by
hand with Fraction: q = clamp(round(w / s) + z, 0, 255) rounded half to even, w' = (q − z) · s."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

from attncalc.check import check
from attncalc.parse import parse_problem

W = [F("-0.66"), F("0.13"), F("1.04"), F("-0.29")]
PROBLEM: dict[str, Any] = {
    "kind": "quantization",
    "given": {"W": [[float(w) for w in W]], "bits": 8, "scheme": "zeropoint", "granularity": "row"},
    "settings": {"decimals": 3},
}


def test_a_note_that_follows_a_slipped_zero_point_says_so() -> None:
    """s = (1.04 + 0.66) / 255 = 1/150; the zero point's sign flipped gives z = round(−0.66 · 150) = −99.
    From it: q = [0, 0, 57, 0], w' = (q + 99) / 150 = [0.66, 0.66, 1.04, 0.66], |e| = [1.32, 0.53, 0,
    0.95]: max 1.32, written to the answer's one decimal 1.3. The true max error is 1/300."""
    s = (max(W) - min(W)) / 255
    z = round(min(W) / s)
    assert s == F(1, 150) and z == -99
    q = [min(max(round(w / s) + z, 0), 255) for w in W]
    assert q == [0, 0, 57, 0]
    worst = max(abs(w - (qi - z) * s) for w, qi in zip(W, q, strict=True))
    assert worst == F("1.32")
    answers = {"zero_points": [-99], "max_error": "0.5"}
    by_id = {r.id: r for r in check(parse_problem(PROBLEM, "q.toml"), answers, "a.toml").results}
    assert by_id["zero_points"].mistake == "zero_point_sign"
    note = by_id["max_error"].note
    assert "= 1.3, not 0.5." in note, note
    assert "That follows your own zero_points, with the slip named there." in note, note


def test_a_note_from_right_earlier_answers_adds_nothing() -> None:
    """With the zero point right (99) the max error's note is the true value: nothing added."""
    answers = {"zero_points": [99], "max_error": "0.5"}
    note = {r.id: r for r in check(parse_problem(PROBLEM, "q.toml"), answers, "a.toml").results}["max_error"].note
    assert "follows your own" not in note and "not 0.5" in note, note
