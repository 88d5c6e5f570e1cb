"""decide.descending, the order top-k and top-p sort the vocabulary in: largest first, values closer
than decide.TIE by their exact values, ties to the earlier index (issue 38: 99,000 logits written to
two decimals, runs of hundreds of equal values, were sorted by comparing fractions pairwise on every
recomputation: 30 s a check).

The expected order is written independently: Python's sort of (−exact value, index)."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from attncalc.mechanisms import decide


def _oracle(exact: list[Fraction]) -> list[int]:
    return sorted(range(len(exact)), key=lambda i: (-exact[i], i))


@pytest.mark.parametrize("seed", range(6))
def test_the_order_is_the_exact_order_with_ties_to_the_earlier_index(seed: int) -> None:
    r = random.Random(seed)
    tiny = Fraction(1, 10**12)  # apart by less than TIE: only the exact values tell them apart
    exact = [Fraction(r.randint(-30, 30), 10) + r.choice([0, 0, 0, tiny, -tiny, 2 * tiny]) for _ in range(400)]
    floats = [float(x) for x in exact]
    assert decide.descending(floats, lambda i: exact[i]) == _oracle(exact)


class _Counted:
    """A fraction that counts the comparisons made with it."""

    made = 0

    def __init__(self, value: Fraction) -> None:
        self.value = value

    def __gt__(self, other: Any) -> bool:
        _Counted.made += 1
        return self.value > other.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Counted) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)


def test_equal_values_are_compared_once_per_distinct_value_not_per_pair() -> None:
    # 6,000 logits with 3 distinct values, each written many times: a run of 2,000 equal floats each.
    # Pairwise sorting compares about 2,000 · log2(2,000) · 2 = 44,000 times a run; grouping by value
    # compares nothing within a run of one value.
    values = [Fraction(k, 4) for k in (3, 1, 2)] * 2000
    counted = [_Counted(v) for v in values]
    _Counted.made = 0
    order = decide.descending([float(v) for v in values], lambda i: counted[i])
    assert order == _oracle(values)
    assert _Counted.made <= 10


def test_near_ties_of_distinct_values_compare_the_distinct_values_only() -> None:
    # one float run holding 3 distinct exact values within 1e-12 of each other, 3,000 entries
    base = Fraction(1, 2)
    values = [base + Fraction(k, 10**13) for k in (0, 2, 1)] * 1000
    counted = [_Counted(v) for v in values]
    _Counted.made = 0
    order = decide.descending([float(v) for v in values], lambda i: counted[i])
    assert order == _oracle(values)
    assert _Counted.made <= 20  # a sort of 3 keys, and the neighbours' equality checked


def test_values_sympy_cannot_tell_apart_keep_the_index_order() -> None:
    sp = pytest.importorskip("sympy")
    a = sp.sqrt(2) / 2
    b = 1 / sp.sqrt(2)  # the same number; sympy writes both alike, and a value compared equal merges
    c = sp.Rational(1, 3)
    exact = [c, a, b, c, a]
    floats = [float(x) for x in exact]
    assert decide.descending(floats, lambda i: exact[i]) == [1, 2, 4, 0, 3]


def test_a_check_orders_each_distinct_distribution_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check reruns the derivation for each answer it weighs; the order of one distribution is
    found once (it was found again on every rerun)."""
    from attncalc.check import check
    from attncalc.mechanisms import decode, solve
    from attncalc.parse import parse_problem

    r = random.Random(7)
    logits = [round(r.uniform(-3, 3), 1) for _ in range(60)] + [1.5] * 40
    body = {
        "title": "t",
        "kind": "decode",
        "strategy": "top-k",
        "given": {"logits": logits, "k": 90, "u": 0.5},
    }
    p = parse_problem(body, "t.json")
    truth = solve(p, exact=False)
    answers = {s.id: np.ones(np.shape(s.value)).tolist() for s in truth.steps if np.asarray(s.value).dtype.kind == "f"}
    calls: list[tuple[float, ...]] = []
    real = decide.descending
    monkeypatch.setattr(
        decide, "descending", lambda values, exact_of: calls.append(tuple(values)) or real(values, exact_of)
    )
    decode.ORDERS.clear()
    decode.EXACT.clear()
    report = check(p, answers, "ones")
    assert report.results and {r.verdict for r in report.results} - {"correct"}
    # the true distribution and those the answerer's own answers give, each once (the runs with a
    # slip on, and the hand chains, sort as floats)
    assert len(calls) >= 2
    assert len(calls) == len(set(calls))


def test_a_rerun_writes_no_tokens_reason_until_a_view_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Top-p wrote each token's reason ("[0.542 < 0.9]") on every rerun: 99,000 numbers formatted a run
    over 99,000 logits (a check answered with 1s took 21 s). They are written when a view asks, the same
    text: the kept step's reason for the token of rank j is [the sum of the j more probable tokens < p]."""
    from attncalc.derivation.arith import Chain
    from attncalc.mechanisms import MECHANISMS, decode_top_p
    from attncalc.parse import parse_problem

    logits = [2.0, 1.0, 0.5, -1.0] + [-2.0] * 400
    p = parse_problem(
        {"kind": "decode", "strategy": "top-p", "given": {"logits": logits, "p": 0.9, "u": 0.5}}, "t.json"
    )
    written: list[str] = []
    real = decode_top_p.fmt
    monkeypatch.setattr(decode_top_p, "fmt", lambda x, d, *a: written.append(x) or real(x, d, *a))
    steps = {s.id: s for s in MECHANISMS["decode"].run(p, Chain("float", 3))}
    assert len(written) < 10, len(written)  # (p itself, and a note's numbers)
    e = np.exp(np.array(logits) - max(logits))
    probs = e / e.sum()
    kept = steps["kept"]
    assert kept.written[0] == "[0 < 0.9]"  # the most probable token: nothing before it
    assert kept.written[1] == f"[{probs[0]:.3f} < 0.9]"  # token 2: the first's probability before it
