"""Kind quantization's numpy path (quantization_floats, for float and hand chains) against its
entry-by-entry loops (which serve exact numbers and check's intervals, and were the float path too):
the same steps, values, explanations and refused slips, over schemes, granularities, bits, slips,
precisions and answers carried in (as check carries them, including 0, ∞ and nan). And the work: a
check of a problem of 100,000 weights reran the loops in every run (tryout 32: 40 to 75 s)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.derivation.arith import Chain, MistakeNotApplicable
from attncalc.mechanisms import quantization, quantization_floats, quantization_math
from attncalc.parse import parse_problem

SLIPS = [None, "per_tensor_for_row", "absmax_power_of_two", "zero_point_sign", "round_half_away", "no_clamp"]


def _problem(rng: np.random.Generator, scheme: str, granularity: str) -> Any:
    rows, cols = int(rng.integers(1, 5)), int(rng.choice([2, 4, 6]))
    # decimals of two places (ties in w / s are common then), a zero, a negative zero, a clamp-prone outlier
    W = np.round(rng.uniform(-2, 2, (rows, cols)), 2)
    W.flat[0] = 0.0
    if rng.random() < 0.3:
        W.flat[-1] = 9.5
    given: dict[str, Any] = {"W": W.tolist(), "bits": int(rng.choice([2, 3, 4, 8])), "scheme": scheme,
                             "granularity": granularity}  # fmt: skip
    if granularity == "group":
        given["group"] = 2
    return parse_problem({"kind": "quantization", "given": given}, "q.toml")


def _run(p: Any, mode: str, decimals: int, slip: str | None, overrides: dict[str, np.ndarray]) -> Any:
    chain = Chain(mode, decimals, mistake=slip, overrides=dict(overrides))
    try:
        return [(s.id, s.value, s.explain) for s in quantization.run(p, chain)]
    except MistakeNotApplicable:
        return "not applicable"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    for (ia, va, ea), (ib, vb, eb) in zip(a, b, strict=True):
        fa, fb = np.asarray(va, dtype=float), np.asarray(vb, dtype=float)
        if ia != ib or ea != eb or fa.shape != fb.shape:
            return False
        if not np.array_equal(fa, fb, equal_nan=True) or not np.array_equal(np.signbit(fa), np.signbit(fb)):
            return False
    return len(a) == len(b)


@pytest.mark.parametrize("scheme", ["absmax", "zeropoint"])
@pytest.mark.parametrize("granularity", ["tensor", "row", "group"])
def test_the_numpy_path_is_the_loops(monkeypatch: pytest.MonkeyPatch, scheme: str, granularity: str) -> None:
    rng = np.random.default_rng(abs(hash((scheme, granularity))) % 2**32)
    for _ in range(12):
        p = _problem(rng, scheme, granularity)
        truth = quantization.run(p, Chain("float", 3))
        values = {s.id: np.asarray(s.value, dtype=float) for s in truth}
        carried: list[dict[str, np.ndarray]] = [{}]
        for step in ("ranges", "scales", "zero_points", "quantized"):
            if step in values:
                for odd in (0.0, np.inf, np.nan, 1.0):
                    v = values[step].copy()
                    v.flat[0] = odd
                    carried.append({step: v})
        for mode, decimals in (("float", 3), ("hand", 2), ("hand", 4)):
            for slip in SLIPS:
                for overrides in carried:
                    fast = _run(p, mode, decimals, slip, overrides)
                    with monkeypatch.context() as m, np.errstate(all="ignore"):
                        m.setattr(quantization_floats, "floats", lambda *a: False)
                        loops = _run(p, mode, decimals, slip, overrides)  # (numpy scalars warn on ∞ here)
                    assert _same(fast, loops), (p.given, mode, decimals, slip, overrides)


def _reference_survey(st: quantization_math.ScaleText, dec: int) -> tuple[bool, bool]:
    """ScaleText's note as it was decided scale by scale: written otherwise than fmt, or a tie."""

    def ties(k: int) -> bool:
        s = float(st.scales[k])
        if not np.isfinite(s) or s == 0:
            return False
        block = st.weights[k * st.size : (k + 1) * st.size]
        zero = st.minima is not None and quantization_math._tie(-float(st.minima[k]) / s)
        return zero or any(np.isfinite(w) and quantization_math._tie(float(w) / s) for w in block)

    from attncalc.derivation.fmt import fmt

    tie = any(ties(k) for k in range(len(st.scales)))
    return tie or any(st(k, dec) != fmt(st.scales[k], dec) for k in range(len(st.scales))), tie


def test_the_scale_note_is_decided_as_scale_by_scale() -> None:
    """Scales as answered or true (widened where rounding them changes a line, ties, 0, ∞, tiny, huge),
    at 0 to 12 decimals: the numpy survey says what the scale-by-scale decision says."""
    rng = np.random.default_rng(32)
    for _ in range(300):
        k, size = int(rng.integers(1, 6)), int(rng.integers(1, 4))
        weights = np.round(rng.uniform(-3, 3, k * size), int(rng.integers(1, 4)))
        levels = int(rng.choice([1, 3, 7, 127, 255]))
        scales = np.abs(np.round(rng.uniform(0, 3, k), 2)) / levels
        scales[rng.random(k) < 0.1] = rng.choice([0.0, np.inf, 1e-14, 1e13, 1 / 150, 1e-320, 5e-324])
        minima = None if rng.random() < 0.5 else np.minimum(weights.reshape(k, size).min(axis=1), 0)
        lo, hi = (-levels, levels) if minima is None else (0, 2 * levels)
        for dec in (0, 1, 2, 3, 6, 12):
            st = quantization_math.ScaleText(scales, weights, minima, lo, hi)
            fresh = quantization_math.ScaleText(scales, weights, minima, lo, hi)
            assert st._survey(dec) == _reference_survey(fresh, dec), (scales, weights, minima, dec)


def test_a_check_of_many_weights_does_not_round_entry_by_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """W of 500 × 2, 4-bit zero point in groups of 1 (1,000 scales), two scalar steps answered wrong:
    check's few dozen float and hand reruns round and write no weight and no scale one by one (they
    rounded 2,000 numbers and wrote 1,000 scales a run: about 50,000 roundings in all)."""
    counts = {"round": 0, "text": 0}
    round_one, text_one = quantization_math.Rounder.round, quantization_math.ScaleText._text

    def counted_round(self: Any, v: Any) -> Any:
        counts["round"] += 1
        return round_one(self, v)

    def counted_text(self: Any, k: int, dec: int) -> str:
        counts["text"] += 1
        return text_one(self, k, dec)

    monkeypatch.setattr(quantization_math.Rounder, "round", counted_round)
    monkeypatch.setattr(quantization_math.ScaleText, "_text", counted_text)
    rng = np.random.default_rng(4)
    W = np.round(rng.uniform(-1, 1, (500, 2)), 2).tolist()
    p = parse_problem(
        {
            "kind": "quantization",
            "given": {"W": W, "bits": 4, "scheme": "zeropoint", "granularity": "group", "group": 1},
        },
        "q.toml",
    )
    results = check(p, {"max_error": 1, "mse": 1}, "a.toml").results
    assert [r.verdict for r in results if r.id in ("max_error", "mse")] == ["wrong", "wrong"]
    # (the true derivation, in exact numbers, rounds each weight and zero point once: 2,000)
    assert counts["round"] <= 2000 and counts["text"] < 100, counts


def test_a_subnormal_scale_answered_with_the_integers_is_graded() -> None:
    """Tryout 33: scales answered 1e-320 (or 5e-324) beside answered integers put w / s past any double
    in the scale's written form (Python's floor and round raise on it): a traceback, a 500 on the
    page. Now graded: both steps wrong (0.5 / 1e-320 is no integer of [-127, 127])."""
    from attncalc.parse import load_problem

    from ..helpers import PROBLEMS

    p = load_problem(PROBLEMS / "quantization-absmax-rows.toml")
    for tiny in (1e-320, 5e-324, -1e-320):
        answers = {"scales": [tiny, tiny], "quantized": [[1, 2, 3, 4], [1, 2, 3, 4]]}
        verdicts = {r.id: r.verdict for r in check(p, answers, "a.toml").results}
        assert verdicts == {"scales": "wrong", "quantized": "wrong"}, (tiny, verdicts)
