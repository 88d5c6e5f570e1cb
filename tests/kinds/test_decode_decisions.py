"""Float decisions of a decode agree with the exact ones.

With exact = false, probabilities [0.2] × 5 and u = 0.6, the running sum 0.2 + 0.2 + 0.2 is
0.6000000000000001 in floats, so "the first F_i > u" picked c; the exact sum is 3/5 = u, which is not
above u, so the hand (and exact mode) pick d. The expectations here come from fractions, not from the
program: Fraction sums decide "above u" exactly.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ..helpers import json_of


def _solve(cli: Any, tmp_path: Path, body: str, exact: bool) -> dict[str, Any]:
    f = tmp_path / "p.toml"
    f.write_text(f'kind = "decode"\n{body}\n[settings]\nexact = {str(exact).lower()}\n')
    return json_of(cli("solve", "-f", "json", str(f)))


def _step(d: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in d["steps"] if s["id"] == step_id)


def _first_above(probs: list[Fraction], u: Fraction) -> int:
    total = Fraction(0)
    for i, p in enumerate(probs):
        total += p
        if total > u:
            return i
    return len(probs) - 1


SAMPLE = 'strategy = "sample"\n[given]\nprobabilities = [0.2, 0.2, 0.2, 0.2, 0.2]\nvocab = ["a", "b", "c", "d", "e"]\nu = 0.6\n'


@pytest.mark.parametrize("exact", [True, False])
def test_a_draw_on_a_boundary_goes_to_the_next_token(cli: Any, tmp_path: Path, exact: bool) -> None:
    assert 0.2 + 0.2 + 0.2 > 0.6  # the float sum that misled the draw
    want = "abcde"[_first_above([Fraction(1, 5)] * 5, Fraction(3, 5))]
    assert want == "d"
    d = _solve(cli, tmp_path, SAMPLE, exact)
    choice = _step(d, "choice")
    assert choice["value"] == want
    assert "boundary F_3" in choice["note"] and "belongs to the next token: d." in choice["note"]
    assert "exactly" in choice["note"]


def test_a_draw_from_logits_on_a_boundary_uses_the_stated_tolerance(cli: Any, tmp_path: Path) -> None:
    """Equal logits: every probability is exactly 1/5, so F_3 = 3/5 = u; the floats have no exact sums
    here (exponentials), so the note says the sums were taken equal to within 1e-9."""
    body = SAMPLE.replace("probabilities = [0.2, 0.2, 0.2, 0.2, 0.2]", "logits = [1, 1, 1, 1, 1]")
    choice = _step(_solve(cli, tmp_path, body, exact=False), "choice")
    assert choice["value"] == "d" and "to within 1e-9" in choice["note"]
    assert _step(_solve(cli, tmp_path, body, exact=True), "choice")["value"] == "d"


def test_a_draw_just_above_a_boundary_is_decided_exactly(cli: Any, tmp_path: Path) -> None:
    """u = 0.6 − 10⁻¹³: within the tolerance of F_3 but exactly below it, so c (exact fractions say so)."""
    body = SAMPLE.replace("u = 0.6", "u = 0.5999999999999")
    want = "abcde"[_first_above([Fraction(1, 5)] * 5, Fraction("0.5999999999999"))]
    assert want == "c"
    for exact in (True, False):
        choice = _step(_solve(cli, tmp_path, body, exact), "choice")
        assert choice["value"] == want and not choice.get("note")


def test_the_top_p_cut_compares_the_exact_running_sum(cli: Any, tmp_path: Path) -> None:
    """p = 0.9 over [0.7, 0.2, 0.1]: the sum before the third token is 0.9 exactly (0.8999999999999999 in
    floats), not below p, so two tokens are kept; and [0.6, 0.3, 0.1] with p = 0.9000000000001 keeps three
    (0.9 < p exactly, though within 1e-9)."""
    body = 'strategy = "top-p"\n[given]\nprobabilities = [0.7, 0.2, 0.1]\nvocab = ["a", "b", "c"]\np = 0.9\n'
    assert 0.7 + 0.2 < 0.9
    for exact in (True, False):
        kept = _step(_solve(cli, tmp_path, body, exact), "kept")
        assert kept["value"] == [1, 1, 0]
        assert "The running sum before c equals p = 0.9 exactly" in kept["note"]
    body = body.replace("[0.7, 0.2, 0.1]", "[0.6, 0.3, 0.1]").replace("p = 0.9", "p = 0.9000000000001")
    assert Fraction("0.6") + Fraction("0.3") < Fraction("0.9000000000001")
    for exact in (True, False):
        assert _step(_solve(cli, tmp_path, body, exact), "kept")["value"] == [1, 1, 1]


def test_greedy_decides_a_near_tie_exactly(cli: Any, tmp_path: Path) -> None:
    """0.33333333333333331 and 1/3 are the same float; exactly, 1/3 is the larger, so b (the float
    argmax took the first, a). With logits the same: softmax keeps their order."""
    first = '"0.33333333333333331", "1/3"'
    assert float(Fraction("0.33333333333333331")) == float(Fraction(1, 3))
    assert Fraction(1, 3) > Fraction("0.33333333333333331")
    body = f'strategy = "greedy"\n[given]\nprobabilities = [{first}, 0.3, "11/30 - 0.33333333333333331"]\nvocab = ["a", "b", "c", "d"]\n'
    for exact in (True, False):
        assert _step(_solve(cli, tmp_path, body, exact), "choice")["value"] == "b"
    logits = 'strategy = "greedy"\n[given]\nlogits = ["0.33333333333333331", "1/3", 0]\nvocab = ["a", "b", "c"]\n'
    for exact in (True, False):
        assert _step(_solve(cli, tmp_path, logits, exact), "choice")["value"] == "b"


def test_top_k_ranks_a_near_tie_exactly(cli: Any, tmp_path: Path) -> None:
    """k = 1 over 0.33333333333333331 and 1/3 (one float): exactly, 1/3 is the larger, so b is kept
    (rounded to 12 decimals they tied and the earlier, a, was kept)."""
    body = (
        'strategy = "top-k"\n[given]\nprobabilities = ["0.33333333333333331", "1/3", 0.3, '
        '"11/30 - 0.33333333333333331"]\nvocab = ["a", "b", "c", "d"]\nk = 1\n'
    )
    assert Fraction(1, 3) > Fraction("0.33333333333333331") > Fraction("0.3")
    for exact in (True, False):
        assert _step(_solve(cli, tmp_path, body, exact), "kept")["value"] == [0, 1, 0, 0]
    logits = 'strategy = "top-k"\n[given]\nlogits = ["0.33333333333333331", "1/3", 0]\nvocab = ["a", "b", "c"]\nk = 1\n'
    for exact in (True, False):
        assert _step(_solve(cli, tmp_path, logits, exact), "kept")["value"] == [0, 1, 0]
    ties = 'strategy = "top-k"\n[given]\nlogits = [1, 2, 2]\nvocab = ["a", "b", "c"]\nk = 1\n'
    for exact in (True, False):  # a true tie still goes to the earlier entry
        assert _step(_solve(cli, tmp_path, ties, exact), "kept")["value"] == [0, 1, 0]
