"""What grading a problem needs that no answer changes, worked out once and kept for every check of it.

``check`` runs the problem's mechanism many ways (:mod:`attncalc.check.runs`): the truth, the hand
chain at each precision written, with and without the row maximum subtracted, with each usual slip
switched on, and with each step's value disturbed (to find which steps depend on it). Only the runs
that carry the answerer's own numbers depend on the answers; the others are the same for every
answerer of the problem. A :class:`Prepared` problem keeps those (bounded), so that a server grading
many answerers' work on the same problem computes them once (``attncalc serve`` keeps one per served
problem). It holds nothing of any answerer: a check given a :class:`Prepared` returns exactly the
report a check without one returns (each run is looked up by every setting it was made with).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..derivation.arith import SlipProbe
from .runs import Run, Runs

if TYPE_CHECKING:
    from ..derivation import Derivation
    from ..parse import Problem

KEPT = 20_000  # step values kept per problem (a few MB at most), in the runs made without the answerer's numbers


class Prepared:
    """One problem made ready for grading: its float truth (as ``check`` solves it), the slips its
    computation consults, and a bounded, thread-safe store of the runs and dependencies that no
    answer changes. Build it once per problem and pass it to :func:`attncalc.check.check`."""

    def __init__(self, problem: Problem, kept: int = KEPT) -> None:
        from ..mechanisms import solve

        self.problem = problem
        self.truth: Derivation = solve(problem, exact=False, carry_rounded=False)
        self.kept = kept
        self.probe = SlipProbe()  # recorded by the truth run, made once, here (a probe is not shared by runs)
        self._store: OrderedDict[tuple[Any, ...], tuple[Any, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        self._truth: tuple[tuple[Any, ...], Run | None] | None = None
        Runs(problem, [], self)  # makes the truth run, with the probe (see truth_run)

    def truth_run(self, key: tuple[Any, ...], make: Callable[[], Run | None]) -> Run | None:
        """The truth run (the one the probe records; made once, when the problem is prepared, and always kept)."""
        if self._truth is None:
            self._truth = (key, make())
        assert key == self._truth[0]
        return self._truth[1]

    def run(self, key: tuple[Any, ...], make: Callable[[], Run | None]) -> Run | None:
        """The run made with the settings ``key`` (no answer among them), made by ``make`` when not kept."""
        got = self._kept(("run", *key), make, lambda r: 1 + (len(r[0]) if r is not None else 0))
        assert got is None or isinstance(got, tuple)
        return got

    def descendants(self, step_id: str, stop: str | None, make: Callable[[], frozenset[str]]) -> frozenset[str]:
        """The steps that depend on ``step_id``, found by runs ending at ``stop`` (made by ``make`` when not kept)."""
        got = self._kept(("descendants", step_id, stop), make, lambda d: 1 + len(d) // 8)
        assert isinstance(got, frozenset)
        return got

    def view(self, key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
        """What ``make`` shows of the truth for ``key`` (the true value rounded as an answer's
        precision asks, and formatted): the same for every answerer. The caller copies what it may change."""
        return self._kept(("view", *key), make, lambda v: 1 + len(str(v)) // 64)

    def _kept(self, key: tuple[Any, ...], make: Callable[[], Any], weigh: Callable[[Any], int]) -> Any:
        with self._lock:
            found = self._store.get(key)
            if found is not None:
                self._store.move_to_end(key)
                return found[0]
        got = make()  # outside the lock: two threads may both make it, and make the same
        weight = weigh(got)
        with self._lock:
            if key not in self._store:
                self._store[key] = (got, weight)
                self._weight += weight
                while self._weight > self.kept and len(self._store) > 1:
                    _, (_, w) = self._store.popitem(last=False)
                    self._weight -= w
        return got
