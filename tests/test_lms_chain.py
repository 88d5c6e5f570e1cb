"""A hand chain rounded and carried at the asked decimals earns full marks in Moodle and QTI 2.1 (issue
28's tryout: a student who divides by √d_k exactly, 3/√2 = 2.121 where the mechanism's hand chain takes
3/1.414 = 2.122, and carries it, wrote 8.339 at the exponentials and lost the points; check accepts it
as consistent with the student's own rounded earlier answers). The chains are built here with numpy."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np
import pytest

from attncalc.generate import Options, generate
from attncalc.render.moodle import moodle_xml
from attncalc.render.qti import qti_zip

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
def test_every_scaled_dot_variant_of_the_tryout_earns_full_marks(subtract_max: bool) -> None:
    """generate --kind attention --score scaled-dot --seed 2026 --count 30: 11 variants lost points."""
    res = generate(Options(kind="attention", score="scaled-dot", seed=2026, count=30))
    for raw, d in zip(res.problems, res.derivations, strict=True):
        g = raw["given"]
        query, keys = np.asarray(g["query"], dtype=float), np.asarray(g["keys"], dtype=float)
        _earns_everything(d, attention_chain(query, keys, subtract_max))
