"""What ``attncalc check`` finds: one result per answered step, and the report of one answers file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..views import ReportViews
from .answers import UNANSWERED


def points_text(x: float) -> str:
    """Points as people write them: 7.5, 10, 3.33."""
    return f"{round(x, 2):g}"


@dataclass(frozen=True)
class StepResult:
    id: str
    title: str
    verdict: str  # correct | carried | wrong
    given: Any
    expected: Any
    wrong_entries: list[list[int]]
    note: str = ""
    mistake: str | None = None
    began_at: str | None = None
    given_shown: Any = None  # the answer as written (strings)
    expected_shown: Any = None  # the true value at the answer's precision (strings: 1.000 for 0.99997)
    entries: int = 1  # entries of the step (1 for a number or a prediction)
    right: int = 0  # answered entries that match the truth (or the hand chain)
    carried_right: int = 0  # answered entries right only given the answerer's earlier answers
    points: float = 0.0  # what the step is worth ([grading])
    credit: float = 0.0  # the share of its points it earned, 0 to 1
    implied: int = 0  # entries not written that stand answered (a bpe pair table's places past the pairs: 0)

    @property
    def answered(self) -> int:
        """Entries answered (not written "?")."""
        shown = self.given_shown if self.given_shown is not None else self.given
        flat = np.ravel(np.asarray(shown, dtype=object)) if isinstance(shown, list) else [shown]
        return sum(1 for x in flat if x != UNANSWERED) + self.implied

    @property
    def earned(self) -> float:
        return self.points * self.credit


@dataclass(frozen=True, repr=False)
class Report(ReportViews):
    """The grades of one answers file; ``to_json()`` and ``to_text()`` are what ``attncalc check`` prints."""

    problem: str
    answers: str
    results: list[StepResult] = field(default_factory=list)
    out_of: float = 0.0  # the points of every step of the problem, answered or not
    step_ids: tuple[str, ...] = ()  # every step of the problem, in order (the gradebook's columns)
    student: str | None = None  # who handed the answers in (student = "..." in the answers file)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<Report {self.answers} on {self.problem}: {s['correct']} correct, "
            f"{s['carried']} carried, {s['wrong']} wrong; score {points_text(self.score)}"
            f" / {points_text(self.out_of)}>"
        )

    # IPython prefers a class's own __repr__ to an inherited _repr_pretty_: name it here too
    _repr_pretty_ = ReportViews._repr_pretty_

    @property
    def summary(self) -> dict[str, int]:
        counts = {"correct": 0, "carried": 0, "wrong": 0}
        for r in self.results:
            counts[r.verdict] += 1
        return counts

    @property
    def score(self) -> float:
        """The points earned: each step's points times the share it earned."""
        return round(sum(r.earned for r in self.results), 9)

    @property
    def all_correct(self) -> bool:
        return all(r.verdict == "correct" for r in self.results)

    @property
    def first_error(self) -> str | None:
        for r in self.results:
            if r.verdict == "wrong":
                return r.id
        return None
