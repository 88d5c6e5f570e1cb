"""`attncalc check` on the online softmax: the five slips students make with it, each
named from an answer built with it and not named for a typo or a different error. The slipped answers
are computed here from the slip's own definition (math.exp on the example's numbers), not by attncalc."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.derivation.arith import round_half_up
from attncalc.parse import load_problem

from ..helpers import PROBLEMS

e = math.exp
ROW = "online-softmax-row.toml"  # scores [1, 3, 2, 5, 4, 0], blocks of 2
QK = "online-softmax-qk.toml"  # Q [[1, 2], [3, -1]], K [[1, 0], [0, 1], [2, 1], [1, 3], [1, 1]]
MAT = "online-softmax-matrix-v.toml"  # scores [[1, 3, 2, 5], [4, 0, 3, 1]], V [[1, 0], [0, 2], [1, 1], [2, 0]]

# the example by hand: row [1, 3, 2, 5, 4, 0]
L1 = 1 + e(-2)  # block 1: m = 3, P = [e⁻², 1]
L2 = L1 * e(-2) + e(-3) + 1  # block 2: m = 5, r = e⁻², P = [e⁻³, 1]
L3 = L2 + e(-1) + e(-5)  # block 3: m = 5, r = 1, P = [e⁻¹, e⁻⁵]

# the matrix example by hand, row 1 [1, 3 | 2, 5] and row 2 [4, 0 | 3, 1]; V rows v1..v4
V = np.array([[1, 0], [0, 2], [1, 1], [2, 0]], dtype=float)
P1 = np.array([[e(-2), 1], [1, e(-4)]])  # m_1 = [3, 4]
O1 = P1 @ V[:2]
R2 = np.array([e(-2), 1.0])  # m_2 = [5, 4]
P2 = np.array([[e(-3), 1], [e(-1), e(-3)]])
O2 = O1 * R2[:, None] + P2 @ V[2:]
Lm = P1.sum(axis=1) * R2 + P2.sum(axis=1)


def w(x: Any) -> Any:
    """Numbers as a student writes them to 3 decimals (strings keep the precision)."""
    a = np.asarray(x, dtype=float)
    if a.ndim:
        return [w(v) for v in a]
    return f"{round_half_up(float(a), 3):.3f}"


def grade(name: str, answers: dict[str, Any]) -> dict[str, Any]:
    rep = check(load_problem(PROBLEMS / name), answers, "a.toml")
    return {r.id: r for r in rep.results}


SLIPPED = [
    # the old sum not rescaled: l_2 = l_1 + Σ P_2
    (ROW, "2.sum", L1 + e(-3) + 1, "online_sum_not_rescaled"),
    # the rescale with its sign flipped: exp(m_2 − m_1) = e²
    (ROW, "2.rescale", e(2), "online_rescale_flipped"),
    # L = ln l without the maximum
    (ROW, "logsumexp", math.log(L3), "logsumexp_no_max"),
    # the old output not rescaled: O_2 = O_1 + P_2 V_2
    (MAT, "2.output", O1 + P2 @ V[2:], "online_output_not_rescaled"),
    # the final division by l forgotten: O = O_last
    (MAT, "output", O2, "online_output_not_divided"),
    # the scores computed first (Q, K with scaled-dot): the 1/√d_k left out, Q Kᵀ alone
    (QK, "scores", np.array([[1, 2, 4, 7, 3], [3, -1, 5, 0, 2]]), "no_scale"),
]


@pytest.mark.parametrize(("name", "step", "value", "slip"), SLIPPED, ids=[s[3] for s in SLIPPED])
def test_an_answer_built_with_the_slip_is_named(name: str, step: str, value: Any, slip: str) -> None:
    r = grade(name, {step: w(value)})[step]
    assert r.verdict == "wrong" and r.mistake == slip, (r.verdict, r.mistake, r.note)


OTHER = [
    # a typo in the true sum (1.203 typed 1.230), and the slip's sum with a typo
    (ROW, "2.sum", [1.230]),
    (ROW, "2.sum", [L1 + e(-3) + 1 + 0.271]),
    # the old sum rescaled twice (l_1 · r² + Σ P_2): another error, not the slip
    (ROW, "2.sum", [L1 * e(-4) + e(-3) + 1]),
    # the rescale exp(m_1 + m_2)... a different wrong number, and e² with a typo
    (ROW, "2.rescale", [e(8)]),
    (ROW, "2.rescale", [e(2) + 0.271]),
    # L = m + log10 l, and ln l with a typo
    (ROW, "logsumexp", [5 + math.log10(L3)]),
    (ROW, "logsumexp", [math.log(L3) + 0.271]),
    # one row built with the slip, the other row wrong in another way: the rows contradict the slip
    (MAT, "2.output", [(O1 + P2 @ V[2:])[0], O2[1] + 0.5]),
    (MAT, "output", [O2[0], O2[1] / Lm[1] + 0.271]),
    # the slip's output with a typo in one entry
    (MAT, "output", [[O2[0, 0] + 0.271, O2[0, 1]], O2[1]]),
]


@pytest.mark.parametrize(("name", "step", "value"), OTHER)
def test_other_wrong_answers_are_not_taken_for_a_slip(name: str, step: str, value: Any) -> None:
    v = np.asarray(value, dtype=float).reshape(-1) if name == ROW else np.asarray(value, dtype=float)
    answer = w(v[0]) if name == ROW else w(v)
    r = grade(name, {step: answer})[step]
    assert r.verdict == "wrong", r.note
    assert r.mistake is None, (r.mistake, r.note)


def test_the_true_answers_are_correct_and_a_slip_carried_on_is_not_named_again() -> None:
    """Every step answered right: all correct. The flipped rescale answered at 2.rescale and the sum
    worked from it (l_1 · e² + Σ P_2): the rescale is named, the sum follows from it (carried)."""
    truth = {
        "1.max": "3", "1.rescale": "0", "1.sum": w(L1), "2.max": "5", "2.rescale": w(e(-2)), "2.sum": w(L2),
        "3.rescale": "1", "3.sum": w(L3), "logsumexp": w(5 + math.log(L3)),
    }  # fmt: skip
    got = grade(ROW, truth)
    assert all(r.verdict == "correct" for r in got.values()), {k: (r.verdict, r.note) for k, r in got.items()}
    # (1.sum is not answered: its true value, times the answered 7.389)
    flipped = grade(ROW, {"2.rescale": w(e(2)), "2.sum": w(L1 * round_half_up(e(2), 3) + e(-3) + 1)})
    assert flipped["2.rescale"].mistake == "online_rescale_flipped"
    assert flipped["2.sum"].verdict == "carried" and flipped["2.sum"].mistake is None, flipped["2.sum"].note


def test_a_slip_carried_through_the_later_blocks_is_named_once() -> None:
    """The old sum not rescaled at block 2, then carried on honestly: 2.sum is named, 3.sum, the
    logsumexp and the weights follow from it (carried), from the slipped l = 1 + e⁻² + e⁻³ + 1 + e⁻¹ + e⁻⁵."""
    l2 = L1 + e(-3) + 1
    l3 = l2 + e(-1) + e(-5)
    lse = 5 + math.log(l3)
    answers = {
        "1.sum": w(L1), "2.sum": w(l2), "3.sum": w(l3), "logsumexp": w(lse),
        "weights": w([e(s - lse) for s in (1, 3, 2, 5, 4, 0)]),
    }  # fmt: skip
    got = grade(ROW, answers)
    assert got["1.sum"].verdict == "correct"
    assert got["2.sum"].mistake == "online_sum_not_rescaled"
    for sid in ("3.sum", "logsumexp", "weights"):
        assert got[sid].verdict == "carried" and got[sid].mistake is None, (sid, got[sid].note)
