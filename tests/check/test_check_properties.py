"""Property tests for check: true answers are always accepted; one slip costs one step."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from attncalc.check import check
from attncalc.parse import parse_problem

halves = st.integers(-6, 6).map(lambda k: k / 2)


@st.composite
def dot_problems(draw: Any) -> dict[str, Any]:
    n, d = draw(st.integers(2, 5)), draw(st.integers(1, 4))
    q = draw(st.lists(halves, min_size=d, max_size=d))
    K = draw(st.lists(st.lists(halves, min_size=d, max_size=d), min_size=n, max_size=n))
    return {"kind": "attention", "score": "dot", "given": {"query": q, "keys": K}}


def rnd(x: Any, k: int) -> Any:
    """Round half up to k decimals, as written by hand (Decimal keeps the trailing zeros)."""
    q = Decimal(1).scaleb(-k)
    return np.vectorize(lambda v: Decimal(repr(float(v))).quantize(q, rounding=ROUND_HALF_UP), otypes=[object])(
        np.asarray(x, dtype=float)
    )


def hand_chain(raw: dict[str, Any], k: int, bump: tuple[int, float] | None = None) -> dict[str, Any]:
    """The decoder steps by hand with numpy, every step rounded to k and carried."""
    q = np.asarray(raw["given"]["query"], dtype=float)
    K = np.asarray(raw["given"]["keys"], dtype=float)
    e = rnd(K @ q, k)
    ex = rnd(np.exp(e.astype(float)), k)
    if bump is not None:
        ex[bump[0]] = rnd(float(ex[bump[0]]) + bump[1], k).item()
    Z = rnd(ex.astype(float).sum(), k)
    assume(float(Z) > 0)  # every exponential rounds to 0 at k decimals: no hand chain to carry
    w = rnd(ex.astype(float) / float(Z), k)
    c = rnd(w.astype(float) @ K, k)
    return {
        "scores": e.tolist(),
        "exponentials": ex.tolist(),
        "exp_sum": Z.item(),
        "weights": w.tolist(),
        "context": c.tolist(),
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dot_problems(), st.integers(2, 6), st.booleans())
def test_true_answers_rounded_are_all_correct(raw: dict[str, Any], k: int, carried: bool) -> None:
    """The truth rounded once, or the hand chain rounded and carried, to 2..6 decimals: all correct."""
    problem = parse_problem(raw, "p.toml")
    if carried:
        answers = hand_chain(raw, k)
        assume(answers["exp_sum"] != 0)  # every exponential rounded to 0: the hand chain divides 0 by 0
    else:
        q = np.asarray(raw["given"]["query"], dtype=float)
        K = np.asarray(raw["given"]["keys"], dtype=float)
        e = K @ q
        w = np.exp(e - e.max()) / np.exp(e - e.max()).sum()
        answers = {
            "scores": rnd(e, k).tolist(),
            "exponentials": rnd(np.exp(e), k).tolist(),
            "exp_sum": rnd(np.exp(e).sum(), k).item(),
            "weights": rnd(w, k).tolist(),
            "context": rnd(w @ K, k).tolist(),
        }
    rep = check(problem, answers, "a.toml")
    assert rep.all_correct, [(r.id, r.note) for r in rep.results if r.verdict != "correct"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dot_problems(), st.integers(2, 4), st.data())
def test_one_changed_exponential_is_wrong_and_the_rest_carried(raw: dict[str, Any], k: int, data: Any) -> None:
    """Bump one exponential: that entry is wrong, exp_sum and weights are carried from it."""
    problem = parse_problem(raw, "p.toml")
    n = len(raw["given"]["keys"])
    j = data.draw(st.integers(0, n - 1))
    answers = hand_chain(raw, k, bump=(j, 1.0))
    e = np.asarray(answers["scores"], dtype=float)
    shifted = np.exp(e - e.max())  # a student may subtract the maximum first: that sum is also right
    assume(rnd(shifted.sum(), k).item() != answers["exp_sum"])
    # and the bumped answer is not also one slip away from the shifted exponentials (with tied
    # scores, [1, 0, 0] is one entry off both [0, 0, 0] and the shifted [1, 1, 0]: which entry is
    # wrong is then a matter of reading)
    assume(np.sum(rnd(shifted, k) != np.asarray(answers["exponentials"])) > 1)
    rep = check(problem, answers, "a.toml")
    r = {x.id: x for x in rep.results}
    assert r["scores"].verdict == "correct"
    assert r["exponentials"].verdict == "wrong" and r["exponentials"].wrong_entries == [[j]]
    assert r["exp_sum"].verdict == "carried" and r["exp_sum"].began_at == "exponentials"
    assert r["weights"].verdict in ("carried", "correct")  # a +1 bump can vanish in rounding only if weights agree
    if r["weights"].verdict == "carried":
        assert r["weights"].began_at == "exponentials"
