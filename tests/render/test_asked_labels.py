"""Which labels a question may show: the problem's own labels in their own order (a vocabulary, the
tokens) are given; the same labels in a computed order (decode's probabilities, largest first) would
say which token is most probable before it is asked."""

from __future__ import annotations

from pathlib import Path

from attncalc.mechanisms import solve
from attncalc.parse.top import load_problem
from attncalc.render.asked import labels_give_away

ROOT = Path(__file__).resolve().parents[2]


def _derivation(path: Path):  # type: ignore[no-untyped-def]
    return solve(load_problem(path), exact=False, carry_rounded=False)


def test_the_vocabulary_in_its_own_order_is_shown() -> None:
    d = _derivation(ROOT / "problems" / "decoder-dot.toml")
    for step_id in ("scores", "weights", "logits", "probabilities"):
        assert not labels_give_away(d, d.step(step_id)), step_id


def test_the_vocabulary_sorted_by_probability_is_not_shown(tmp_path: Path) -> None:
    """Logits [-1, 0, 1, 2, 3] over cat, dog, mat, sat, the: sorted largest first the order is the, sat,
    mat, dog, cat, which the sorted and cumulative steps ask; the probabilities stay in vocabulary order."""
    src = (ROOT / "problems" / "decode-top-p.toml").read_text(encoding="utf-8")
    assert "logits = [3, 2, 1, 0, -1]" in src
    path = tmp_path / "reversed.toml"
    path.write_text(src.replace("logits = [3, 2, 1, 0, -1]", "logits = [-1, 0, 1, 2, 3]"), encoding="utf-8")
    d = _derivation(path)
    assert tuple(d.step("sorted").rows) == ("the", "sat", "mat", "dog", "cat")
    assert labels_give_away(d, d.step("sorted")) and labels_give_away(d, d.step("cumulative"))
    for step_id in ("probabilities", "kept", "renormalized"):
        assert not labels_give_away(d, d.step(step_id)), step_id
