"""A hand chain rounded and carried at the asked decimals earns full marks in Moodle and QTI 2.1 (issue
a student who divides by √d_k exactly, 3/√2 = 2.121 where the mechanism's hand chain takes
3/1.414 = 2.122, and carries it, wrote 8.339 at the exponentials and lost the points; check accepts it
as consistent with the student's own rounded earlier answers). The chains are built here with numpy."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np
import pytest

from attncalc.homework.generate import Options, generate
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.qti import qti_zip

from .test_lms import moodle_grade, moodle_questions
from .test_qti import Package, by_step, maxscore, score


def r3(x: Any) -> np.ndarray:
    """Half away from zero at 3 decimals, as by hand (on the decimal the float prints as)."""
    q = Decimal("0.001")
    return np.vectorize(lambda v: float(Decimal(repr(float(v))).quantize(q, ROUND_HALF_UP)), otypes=[float])(x)


def attention_chain(query: np.ndarray, keys: np.ndarray, subtract_max: bool) -> dict[str, np.ndarray]:
    e = r3(keys @ query)
    s = r3(e / np.sqrt(query.size))  # √d_k exact
    x = r3(np.exp(s - s.max()) if subtract_max else np.exp(s))
    z = r3(x.sum())
    a = r3(x / z)
    return {"scores": e, "scaled_scores": s, "exponentials": x, "exp_sum": z, "weights": a, "context": r3(a @ keys)}


def _earns_everything(d: Any, chain: dict[str, np.ndarray]) -> None:
    pkg = Package(qti_zip([d], seed=0))
    steps = by_step(pkg, pkg.sections[0])
    quiz = moodle_questions(moodle_xml([d], seed=0))
    for step_id, value in chain.items():
        if step_id not in steps:
            continue
        entries = [float(x) for x in np.ravel(value) if np.isfinite(x)]
        assert len(steps[step_id]) == len(entries) == len(quiz[step_id]), step_id
        for item, q, x in zip(steps[step_id], quiz[step_id], entries, strict=True):
            assert score(item, {"RESPONSE": x}) == maxscore(item), (d.problem.title, step_id, x)
            assert moodle_grade(q, x)[0] == 1.0, (d.problem.title, step_id, x)


@pytest.mark.parametrize("subtract_max", [False, True])
def test_every_scaled_dot_variant_earns_full_marks(subtract_max: bool) -> None:
    """generate --kind attention --score scaled-dot --seed 2026 --count 30: 11 variants lost points."""
    res = generate(Options(kind="attention", score="scaled-dot", seed=2026, count=30))
    for raw, d in zip(res.problems, res.derivations, strict=True):
        g = raw["given"]
        query, keys = np.asarray(g["query"], dtype=float), np.asarray(g["keys"], dtype=float)
        _earns_everything(d, attention_chain(query, keys, subtract_max))


def multi_head_chain(g: dict[str, Any], subtract_max: bool) -> dict[str, np.ndarray]:
    """Causal multi-head attention by hand (row convention, Q = X W_Q; heads split the columns)."""
    X = np.asarray(g["X"], dtype=float)
    h = int(g["heads"])
    Q, K, V = (r3(X @ np.asarray(g[w], dtype=float)) for w in ("W_Q", "W_K", "W_V"))
    n, dk = X.shape[0], Q.shape[1] // h
    out: dict[str, np.ndarray] = {"Q": Q, "K": K, "V": V}
    heads = []
    for j in range(h):
        cols = slice(j * dk, (j + 1) * dk)
        s = r3(Q[:, cols] @ K[:, cols].T)
        t = r3(s / np.sqrt(dk))
        m = np.where(np.tril(np.ones((n, n), dtype=bool)), t, -np.inf)
        shifted = m - m.max(axis=1, keepdims=True) if subtract_max else m
        x = r3(np.exp(shifted))
        z = r3(x.sum(axis=1))
        a = r3(x / z[:, None])
        o = r3(a @ V[:, cols])
        heads.append(o)
        p = f"head.{j + 1}."
        out |= {p + "scores": s, p + "scaled_scores": t, p + "masked_scores": m, p + "exponentials": x}
        out |= {p + "exp_sum": z, p + "weights": a, p + "output": o}
    out["output"] = r3(np.hstack(heads) @ np.asarray(g["W_O"], dtype=float))
    return out


@pytest.mark.parametrize("subtract_max", [False, True])
def test_a_causal_multi_head_variant_earns_full_marks(subtract_max: bool) -> None:
    """generate --kind multi-head --mask causal --seed 5 (--dim 4: two heads of d_k = 2)."""
    res = generate(Options(kind="multi-head", dim=4, mask="causal", seed=5, count=3))
    for raw, d in zip(res.problems, res.derivations, strict=True):
        _earns_everything(d, multi_head_chain(raw["given"], subtract_max))


def test_a_slip_made_in_the_hand_chain_earns_its_share_and_its_note() -> None:
    """A student carrying the hand chain (√d_k written 1.414, as the sheets round it) who
    forgets to divide by the sum writes the rounded exponentials as the weights (α = 4.112 where the slip
    on the true values gives 4.113); each such entry earns the slip share with check's note."""
    import dataclasses

    from attncalc.mechanisms import solve

    raw, d = (lambda r: (r.problems[0], r.derivations[0]))(
        generate(Options(kind="multi-head", dim=4, mask="causal", seed=5, count=1))
    )
    p = dataclasses.replace(d.problem, grading=dataclasses.replace(d.problem.grading, slip=0.5))
    d = solve(p)
    g = raw["given"]
    X = np.asarray(g["X"], dtype=float)
    Q, K = (r3(X @ np.asarray(g[w], dtype=float)) for w in ("W_Q", "W_K"))
    quiz = moodle_questions(moodle_xml([d], seed=0))
    pkg = Package(qti_zip([d], seed=0))
    steps = by_step(pkg, pkg.sections[0])
    seen = 0
    for j in range(2):
        cols = slice(2 * j, 2 * j + 2)
        s = r3(r3(Q[:, cols] @ K[:, cols].T) / r3(np.sqrt(2)))
        x = r3(np.exp(np.where(np.tril(np.ones((3, 3), dtype=bool)), s, -np.inf)))
        a = r3(x / r3(x.sum(axis=1))[:, None])
        step = f"head.{j + 1}.weights"
        entries = list(zip(np.ravel(x), np.ravel(a), strict=True))  # a masked weight is asked too: 0
        for q, item, (w, ok) in zip(quiz[step], steps[step], entries, strict=True):
            if abs(w - ok) < 1e-9:
                continue  # the slip changes nothing here (a masked entry, a row of one key)
            fraction, note = moodle_grade(q, float(w))
            assert fraction == 0.5 and note, (step, w, fraction, note)  # this slip's note, or another's it also fits
            assert score(item, {"RESPONSE": float(w)}) == pytest.approx(0.5 * maxscore(item)), (step, w)
            seen += "not divided by their sum" in note
    assert seen >= 3
