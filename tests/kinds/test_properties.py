"""Property tests: for random shapes and values, the invariants of attention hold."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attncalc import kinds

from ..helpers import solve_raw

small = st.integers(-9, 9).map(lambda k: k / 2)  # halves: exact-friendly and varied
wide = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


def mat(rows: int, cols: int, elems: Any = small) -> Any:
    return st.lists(st.lists(elems, min_size=cols, max_size=cols), min_size=rows, max_size=rows)


@st.composite
def attention_problems(draw: Any, elems: Any = small) -> dict[str, Any]:
    n, d = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    score = draw(st.sampled_from(["dot", "scaled-dot", "general", "additive", "concat"]))
    given: dict[str, Any] = {"query": draw(st.lists(elems, min_size=d, max_size=d)), "keys": draw(mat(n, d, elems))}
    a = draw(st.integers(1, 3))
    if score == "general":
        given["W"] = draw(mat(d, d))
    elif score == "additive":
        given.update(W_q=draw(mat(a, d)), W_k=draw(mat(a, d)), v=draw(st.lists(small, min_size=a, max_size=a)))
    elif score == "concat":
        given.update(W=draw(mat(a, 2 * d)), v=draw(st.lists(small, min_size=a, max_size=a)))
    return {"kind": "attention", "score": score, "given": given}


def numpy_scores(raw: dict[str, Any]) -> np.ndarray:
    """An independent one-line formula for each score (column convention)."""
    g = {k: np.asarray(v, dtype=float) for k, v in raw["given"].items()}
    q, K = g["query"], g["keys"]
    return {
        "dot": lambda: K @ q,
        "scaled-dot": lambda: K @ q / np.sqrt(K.shape[1]),
        "general": lambda: K @ g["W"].T @ q,
        "additive": lambda: np.tanh(g["W_q"] @ q + K @ g["W_k"].T) @ g["v"],
        "concat": lambda: np.tanh(np.hstack([np.tile(q, (len(K), 1)), K]) @ g["W"].T) @ g["v"],
    }[raw["score"]]()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(attention_problems(wide))
def test_weights_sum_to_one_and_match_numpy(raw: dict[str, Any]) -> None:
    """Weights are finite, sum to 1, and equal softmax(scores) of an independent numpy formula."""
    raw["settings"] = {"exact": False}
    d = solve_raw(raw)
    w = np.asarray(d.step("weights").value)
    e = numpy_scores(raw)
    ref = np.exp(e - e.max()) / np.exp(e - e.max()).sum()
    assert np.all(np.isfinite(w))
    assert abs(w.sum() - 1) < 1e-12
    assert np.allclose(w, ref, rtol=0, atol=1e-12)
    c = np.asarray(d.step("context").value)
    assert np.allclose(c, ref @ np.asarray(raw["given"]["keys"], dtype=float), rtol=1e-12, atol=1e-9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(attention_problems())
def test_exact_and_float_agree(raw: dict[str, Any]) -> None:
    """In exact mode every step's float is its exact form evaluated, and matches the float-only run."""
    exact = solve_raw(raw, exact=True)
    floats = solve_raw(raw, exact=False)
    for s_exact, s_float in zip(exact.steps, floats.steps, strict=True):
        assert s_exact.id == s_float.id
        assert np.allclose(s_exact.value, s_float.value, rtol=1e-12, atol=1e-12)
        if s_exact.exact is not None:
            ev = np.vectorize(lambda e: float(e.evalf(30)), otypes=[float])(s_exact.exact)
            assert np.allclose(ev, s_exact.value, rtol=1e-14, atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=8))
def test_softmax_never_overflows(z: list[float]) -> None:
    """Any finite logits, however large, give finite probabilities summing to 1."""
    d = solve_raw({"kind": "softmax", "given": {"logits": z}, "settings": {"exact": False}})
    p = np.asarray(d.step("probabilities").value)
    assert np.all(np.isfinite(p)) and abs(p.sum() - 1) < 1e-12
    zz = np.asarray(z)
    assert np.allclose(p, np.exp(zz - zz.max()) / np.exp(zz - zz.max()).sum(), rtol=0, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(mat(n, 3), st.just(n))), st.booleans())
def test_self_attention_rows_sum_to_one_and_respect_the_mask(xn: Any, causal: bool) -> None:
    """Every row of A sums to 1; with a causal mask nothing above the diagonal gets weight."""
    X, n = xn
    given_: dict[str, Any] = {"X": X}
    if causal:
        given_["mask"] = "causal"
    d = solve_raw({"kind": "self-attention", "given": given_})
    A = np.asarray(d.step("weights").value)
    assert np.allclose(A.sum(axis=1), 1, atol=1e-12)
    if causal:
        assert np.all(A[np.triu_indices(n, 1)] == 0)
    assert [s.id for s in d.steps] == [i for i, _ in kinds.entry("self-attention").load("step_ids") if i in d.step_ids]
