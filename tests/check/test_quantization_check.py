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


def test_a_note_that_follows_a_slipped_scale_writes_it_as_the_verdict_took_it() -> None:
    """absmax 8-bit of [[1.2, −0.5, −4.3, 1.2], [−3.1, 0.8, 2.4, 5.4]] with the scale divided by 2^7:
    5.4/128 = 0.0421875, written 0.0422. w'[1,1] = 28 · 0.0421875 = 1.18125 is accepted as 1.1813; the
    note for a typo at w'[1,4] (the same 28) writes the same number, not 28 · 0.0422 = 1.1816."""
    slipped = F("5.4") / 128
    assert slipped == F("0.0421875") and 28 * slipped == F("1.18125") and 28 * F("0.0422") == F("1.1816")
    problem = {
        "kind": "quantization",
        "given": {"W": [[1.2, -0.5, -4.3, 1.2], [-3.1, 0.8, 2.4, 5.4]], "bits": 8, "scheme": "absmax",
                  "granularity": "tensor"},
        "settings": {"decimals": 4},
    }  # fmt: skip
    answers = {
        "scales": "0.0422",
        "quantized": [[28, -12, -101, 28], [-73, 19, 56, 127]],
        "dequantized": [["1.1813", "-0.5064", "-4.2622", "1.1913"], ["-3.0806", "0.8018", "2.3632", "5.3594"]],
    }
    by_id = {r.id: r for r in check(parse_problem(problem, "q.toml"), answers, "a.toml").results}
    r = by_id["dequantized"]
    assert r.wrong_entries == [[0, 3]], r.note
    assert "= 1.1813, not 1.1913" in r.note, r.note
    assert "1.1816" not in r.note


def test_a_wrong_output_from_rounded_weights_is_told_what_its_line_gives_as_written() -> None:
    """x = [1, 1, 1, 1]: ŷ_2 = 3483/635 = 5.48504 (5.4850); the rounded weights of its line sum to
    5.4851 (−3.1039 + 0.8079 + 2.3811 + 5.4), which the note says beside the true value."""
    assert F(3483, 635) == 127 * F(27, 635) + (-73 + 19 + 56) * F(27, 635)
    assert F("-3.1039") + F("0.8079") + F("2.3811") + F("5.4") == F("5.4851")
    problem = {
        "kind": "quantization",
        "given": {"W": [[1.2, -0.5, -4.3, 1.2], [-3.1, 0.8, 2.4, 5.4]], "bits": 8, "scheme": "absmax",
                  "granularity": "tensor", "x": [1, 1, 1, 1]},
        "settings": {"decimals": 4},
    }  # fmt: skip
    r = check(parse_problem(problem, "q.toml"), {"output_dequantized": ["-2.4236", "5.4851"]}, "a.toml").results[0]
    assert r.verdict == "wrong"
    assert r.note.endswith("= 5.4850 (as written: 5.4851), not 5.4851."), r.note


HF = [F("1.2"), F("-0.5"), F("-4.3"), F("1.2"), F("-3.1"), F("0.8"), F("2.4"), F("5.4")]


def test_codes_from_two_scales_are_one_chains_and_the_wrong_code_is_said_from_the_true_scale() -> None:
    """8-bit absmax of the Hugging Face tutorial's vector: s = 5.4/127, q = round(w/s) = [28, −12, −101, 28,
    −73, 19, 56, 127]. The scale written 0.043 (right to 3 decimals) gives −4.3/0.043 = −100, −3.1/0.043 =
    −72.09 → −72 and 5.4/0.043 = 125.58 → 126. Codes [.., −100, .., −73, .., 127] take q[1,3] from the
    rounded scale and the rest from the true one: the true chain (7 of 8) wins, q[1,3] is the wrong code,
    and its note works it from the true scale (−101), never "−100, not −100"."""
    s = max(abs(w) for w in HF) / 127
    true = [round(w / s) for w in HF]
    assert true == [28, -12, -101, 28, -73, 19, 56, 127]
    rounded = [round(w / F("0.043")) for w in HF]
    assert rounded[2] == -100 and rounded[4] == -72 and rounded[7] == 126
    problem = {
        "kind": "quantization",
        "given": {"W": [[float(w) for w in HF]], "bits": 8, "scheme": "absmax", "granularity": "tensor"},
        "settings": {"decimals": 3},
    }
    mixed = [28, -12, -100, 28, -73, 19, 56, 127]
    answers = {"scales": "0.043", "quantized": [mixed]}
    by_id = {r.id: r for r in check(parse_problem(problem, "q.toml"), answers, "a.toml").results}
    r = by_id["quantized"]
    assert r.verdict == "wrong" and r.wrong_entries == [[0, 2]], r.note
    assert "= -101, not -100." in r.note, r.note
    assert "-100, not -100" not in r.note


def test_the_per_tensor_slip_finds_the_tensors_range_once(monkeypatch: Any) -> None:
    """Tryout 30: under the slip per_tensor_for_row every group's range is the whole tensor's, and it
    was searched again for every group (a 200 × 490 zeropoint tensor in groups of 7: 14,000 searches
    of 98,000 entries, 264 s for one answer wrong). Found once now; the ranges are the tensor's own:
    min(W, 0) = -2.7 and max(W, 0) = 2.4 for this W, by eye."""
    import numpy as np

    from attncalc.derivation.arith import Chain
    from attncalc.mechanisms import MECHANISMS
    from attncalc.mechanisms import quantization as q

    W = [[-2.5, 1.5, -2.3, 0.6], [-0.4, 2.4, 2.1, 0.1], [1.4, 2.2, -2.7, 0.2]]
    raw = {
        "kind": "quantization",
        "given": {"W": W, "bits": 8, "scheme": "zeropoint", "granularity": "group", "group": 2},
    }
    p = parse_problem(raw, "q.toml")
    whole: list[int] = []
    for name in ("largest", "smallest"):
        real = getattr(q, name)

        def counted(xs: Any, real: Any = real) -> Any:
            whole.append(len(xs) >= 12)  # (the whole tensor, 12 entries, and 0)
            return real(xs)

        monkeypatch.setattr(q, name, counted)
    # (in exact numbers: float chains find ranges in numpy, tests/kinds/test_quantization_floats.py)
    chain = Chain("exact", mistake="per_tensor_for_row")
    with np.errstate(all="ignore"):
        MECHANISMS["quantization"].run(p, chain)
    # the tensor's min and max once each, and the largest error over all 12 errors (6 groups: 13 before)
    assert sum(whole) == 3
    ranges = np.asarray(chain.computed["ranges"], dtype=float).reshape(-1, 2)
    assert ranges.shape == (6, 2) and np.allclose(ranges, [[-2.7, 2.4]] * 6)
