"""``check`` does bounded work. It tries only the slips the problem's
computation consults, a run made for one answered step stops after it, and runs that cannot differ
are one run. Counted, not timed: how many times the mechanism runs and how far."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc.derivation.arith import Chain, round_array, round_half_up
from attncalc.kinds.mistakes import MISTAKES
from attncalc.parse import parse_problem

A = [[0.8, 0.2, -0.5], [0.1, 0.9, 0.3], [-0.4, 0.6, 0.7], [0.5, -0.5, 0.2]]
B = [[0.7, 0.2, 0.1], [0.2, 0.9, -0.3], [0.3, -0.1, 0.8]]
SIM = {"kind": "similarity", "measure": ["dot", "cosine"], "given": {"A": A, "B": B}}


@pytest.fixture
def chains(monkeypatch: pytest.MonkeyPatch) -> list[Chain]:
    """Every chain made while the test runs, and the steps each one finished."""
    made: list[Chain] = []
    init, finish = Chain.__init__, Chain.finish

    def counting_init(self: Chain, *a: Any, **k: Any) -> None:
        init(self, *a, **k)
        self.finished = []  # type: ignore[attr-defined]
        made.append(self)

    def counting_finish(self: Chain, step_id: str, x: np.ndarray) -> np.ndarray:
        self.finished.append(step_id)  # type: ignore[attr-defined]
        return finish(self, step_id, x)

    monkeypatch.setattr(Chain, "__init__", counting_init)
    monkeypatch.setattr(Chain, "finish", counting_finish)
    return made


def _dots_with_a_slip() -> list[list[float]]:
    dots = np.array(A) @ np.array(B).T  # a_i · b_j, numpy
    dots[0, 0] += 0.5  # one entry wrong
    return [[round_half_up(float(v), 3) for v in row] for row in dots]


def test_only_the_slips_the_computation_consults_are_tried(chains: list[Chain]) -> None:
    report = attncalc.check(parse_problem(SIM, "sim.toml"), {"dots": _dots_with_a_slip()})
    assert report.results[0].verdict == "wrong"
    tried = {str(c.mistake) for c in chains if c.mistake is not None and c.mistake in MISTAKES}
    assert tried <= {"norm_squared", "cosine_one_norm", "distance_squared"}, tried
    assert len(chains) <= 12, len(chains)  # every slip of every kind tried both ways made over 100


def test_runs_for_the_first_step_stop_after_it(chains: list[Chain]) -> None:
    attncalc.check(parse_problem(SIM, "sim.toml"), {"dots": _dots_with_a_slip()})
    to_the_end = [c for c in chains if "cosines" in c.finished]  # type: ignore[attr-defined]
    # the derivation, the truth the answers are graded against, and the answerer's own chain whose
    # operands the note writes out ("a_1·b_1 = 0.8·0.7 + … = 0.62, not 1.12")
    assert len(to_the_end) <= 3, len(to_the_end)


def test_rounding_whole_arrays_is_round_half_up_entry_by_entry() -> None:
    """The hand chain's numpy rounding gives the very floats of round_half_up (which formats each number
    to 12 significant digits and rounds half up): on ties, next to ties, products of 1- and 2-decimal
    numbers, and over many magnitudes."""
    rng = np.random.default_rng(7)
    for decimals in range(0, 9):
        ties = (rng.integers(-(10**6), 10**6, 500) + 0.5) / 10**decimals
        values = np.concatenate(
            [
                ties,
                np.nextafter(ties, np.inf),
                np.nextafter(ties, -np.inf),
                ties * (1 + 3e-12),
                (rng.integers(-99, 99, 500) / 10) * (rng.integers(-99, 99, 500) / 100),
                rng.normal(size=500) * 10.0 ** rng.integers(-6, 10, 500),
                [0.0, -0.0, 0.0625, 0.1645, -0.88245, 2.5, -2.5, 1e-300, np.inf, -np.inf],
            ]
        )
        fast = round_array(values, decimals)
        slow = np.array([round_half_up(float(v), decimals) for v in values])
        assert np.array_equal(fast, slow) and not np.signbit(fast[fast == 0]).any()


def test_rounding_arrays_with_no_entry_near_a_tie_is_round_half_up_too() -> None:
    """An array with no entry near a tie (most of the hand chain's) skips the tie work: the floats are
    still round_half_up's, for each number alone and for rows of numbers away from ties."""
    rng = np.random.default_rng(11)
    for decimals in range(0, 9):
        values = np.concatenate(
            [
                (rng.integers(-99, 99, 300) / 10) * (rng.integers(-99, 99, 300) / 100),
                rng.normal(size=300) * 10.0 ** rng.integers(-6, 10, 300),
                (rng.integers(-(10**6), 10**6, 300) + 0.5) / 10**decimals,  # ties, each in its own array
                [0.0, -0.0, -1e-300, 1e12, np.inf, -np.inf, np.nan],
            ]
        )
        slow = np.array([round_half_up(float(v), decimals) for v in values])
        one_by_one = np.array([round_array(np.array([v]), decimals)[0] for v in values])
        assert np.array_equal(one_by_one, slow, equal_nan=True)
        assert not np.signbit(one_by_one[one_by_one == 0]).any()
        finite = values[np.isfinite(values)]
        scaled = np.abs(finite) * 10.0**decimals
        away = finite[np.abs(scaled - np.floor(scaled) - 0.5) > 1e-3]
        for row in np.array_split(away, 40):
            assert np.array_equal(
                round_array(row, decimals), np.array([round_half_up(float(v), decimals) for v in row])
            )
