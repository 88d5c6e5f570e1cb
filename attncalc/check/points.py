"""Points for ``attncalc check``: what each step is worth, the share of it an answer earns, and why
follow-through credit is refused.

A problem's optional ``[grading]`` table (:class:`~attncalc.parse.types.Grading`) gives points per
step id, or per group (a pattern with ``*``, ``?`` or ``[...]`` whose points the steps it matches
share equally), ``copies`` points for a step that computes nothing (0 unless said), ``default`` points
for every other step, the ``carried`` share a step earns when it is
right only given the answerer's own earlier answers, whether a wrong matrix earns its right entries
(``partial``), and the ``slip`` share a wrong step earns when its slip is named.

Follow-through cannot be gamed: an answer that is degenerate (all zeros, all entries equal, or a
given copied, where the true value is none of these) earns no partial credit, and no later step whose
value depends on it, however far down, earns carried credit (``[grading] degenerate = "credit"``
gives it back); the notes say why.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from typing import TYPE_CHECKING, Any

import numpy as np

from ..derivation import Arrange, Derivation, Stated
from ..errors import ProblemError
from ..parse.types import Grading

if TYPE_CHECKING:
    from .answers import Answer
    from .report import StepResult
    from .runs import Runs

_PATTERN = set("*?[")
PLAIN_SIZE = 4  # answers of at most this many entries, all −1, 0 or 1, are never "equal" or "copied"


def copy_steps(d: Derivation) -> frozenset[str]:
    """The steps that compute nothing (a head's block of Q, K or V, the heads side by side, a cache's
    rows): worth ``copies`` points, 0 unless the ``[grading]`` table says otherwise."""
    return frozenset(s.id for s in d.steps if isinstance(s, Arrange) and not s.ranked)


def computed_steps(d: Derivation) -> list[str]:
    """The steps a student computes, in order: every step but a value the problem states (a gate
    given under ``[[given.gates]]``), which is shown, not asked, earns nothing and is never unanswered."""
    return [s.id for s in d.steps if not isinstance(s, Stated)]


def step_points(g: Grading, step_ids: list[str], file: str, copies: frozenset[str] = frozenset()) -> dict[str, float]:
    """Every step's points: its own, its group's share, the copies' (a step in ``copies``) or the
    default; an unknown id is bad input."""
    out: dict[str, float] = {}
    groups: list[tuple[str, float, list[str]]] = []
    for key, value in g.points:
        if _PATTERN & set(key):
            matched = [s for s in step_ids if fnmatch.fnmatchcase(s, key)]
            if not matched:
                raise ProblemError(file, f"grading.points.{key}", "matches no step of this problem")
            groups.append((key, value, matched))
        elif key in step_ids:
            out[key] = value
        else:
            import difflib

            close = difflib.get_close_matches(key, step_ids, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ProblemError(file, f"grading.points.{key}", f"not a step of this problem{hint}")
    for _key, value, matched in groups:  # a step named on its own keeps its own points
        free = [s for s in matched if s not in out]
        for s in free:
            out[s] = value / len(free)
    points = {s: out.get(s, g.copies if s in copies else g.default) for s in step_ids}
    _refuse_overflowing_total(g, points, file, copies)
    return points


def _refuse_overflowing_total(g: Grading, points: dict[str, float], file: str, copies: frozenset[str]) -> None:
    """Points whose total is not a finite number (the report's ``out_of`` would be Infinity, which
    is not JSON) are bad input, naming the key that takes the total past the largest double."""
    import math

    if math.isfinite(sum(points.values())):
        return
    named = dict(g.points)
    total = 0.0
    for step, value in points.items():
        total += value
        if not math.isfinite(total):
            key = (
                f"grading.points.{step}" if step in named else "grading.copies" if step in copies else "grading.default"
            )
            if step not in named:  # a group's share: name the group
                key = next((f"grading.points.{k}" for k in named if fnmatch.fnmatchcase(step, k)), key)
            raise ProblemError(
                file,
                key,
                f"the problem's points add up to more than the largest number (about 1.8e308) "
                f"over its {len(points)} steps; give smaller points",
            )


def degenerate(given: np.ndarray, decimals: Any, true_value: Any, givens: dict[str, np.ndarray]) -> str | None:
    """Why an answer is degenerate (all zeros, all equal, a given copied), or None. An answer that is
    the true value's own pattern (a true zero vector) is not."""
    answered = ~np.isnan(given)
    g = given[answered]
    true = np.asarray(true_value, dtype=float)
    if g.size == 0 or true.shape != given.shape:
        return None
    t = true[answered]
    decs = np.asarray(decimals)[answered] if np.ndim(decimals) else np.full(g.shape, int(decimals))
    tol = 0.5 * 10.0 ** -np.maximum(decs, 0) + 1e-12

    def same(a: np.ndarray, b: np.ndarray) -> bool:
        # a masked entry is −∞ in both: equal, though −∞ − (−∞) is not a number
        with np.errstate(invalid="ignore"):
            return bool(np.all((a == b) | (np.abs(a - b) <= tol)))

    if np.all(g == 0) and not same(t, np.zeros_like(t)):
        return "all zeros"
    # a short answer of −1s, 0s and 1s is what honest work on small whole numbers gives (a gate
    # rounded to 1, a row [1, 0] that is also a row of X): not evidence of a copy
    plain = g.size <= PLAIN_SIZE and bool(np.isin(g, (-1.0, 0.0, 1.0)).all())
    if g.size >= 2 and not plain and np.all(g == g[0]) and not same(t, np.full_like(t, t[0])):
        return "all its entries equal"
    if g.size >= 2 and not plain and not same(g, t):
        for name, value in givens.items():
            candidates = [value] if value.shape == given.shape else []
            if given.ndim == 1 and value.ndim == 2 and value.shape[1] == given.size:
                candidates += list(value)  # a row of a given matrix
            for c in candidates:
                if same(g, np.asarray(c, dtype=float)[answered]):
                    return f"copied from the given {name}"
    return None


def rests_on(
    ans: Answer, runs: Runs, flawed: dict[str, str], below: dict[str, tuple[str, str]] | None = None
) -> tuple[str, str] | None:
    """The degenerate earlier answer (its id and why) this step lies below, if any: one whose value the
    step's depends on in the computation, directly or through any steps between (answered or not:
    follow-through from a degenerate answer is refused however far down), or through an earlier answer
    in ``below`` that rests on one (a prediction the true computation keeps, but the student's own
    hidden state, worked from all-zero gates, moves)."""
    for fid, why in flawed.items():
        if ans.id in runs.descendants(fid):
            return fid, why
    for k, rest in (below or {}).items():
        if ans.id in runs.descendants(k):
            return rest
    return None


def award(r: StepResult, g: Grading, points: float, flawed: str | None, rests: tuple[str, str] | None) -> StepResult:
    """The step's points and the share it earned, with a note where credit was refused."""
    share = r.answered / r.entries if r.entries else 0.0
    notes = []
    if r.verdict == "correct":
        credit = r.right / r.entries
    elif r.verdict == "carried":
        credit = 0.0 if rests else g.carried * share
        if not rests and g.partial and r.entries > 1:  # each entry on its own: one equal to the truth earns it all
            credit = (r.right + g.carried * max(r.answered - r.right, 0)) / r.entries
    else:
        credit = 0.0
        carried = 0.0 if rests else g.carried * r.carried_right
        if g.partial and flawed is None and r.entries > 1:  # each entry on its own, as an LMS item is
            credit = (r.right + carried) / r.entries
        if r.mistake is not None and g.slip > 0:
            # a slip costs the entries it changes: they earn the slip share each, the others what they earn
            # (as the LMS items, one per entry, grade them); the slip share is a floor for the whole step
            changed = max(r.answered - r.right - r.carried_right, 0)
            each = credit + g.slip * changed / r.entries if g.partial and flawed is None and r.entries > 1 else 0.0
            credit = max(credit, each, g.slip * share)
    if rests and (r.verdict == "carried" or r.carried_right):
        fid, why = rests
        notes.append(
            f"No carried credit: this rests on your {fid}, which is {why}; a degenerate answer earns no follow-through."
        )
    if flawed is not None and r.verdict == "wrong" and g.partial and r.entries > 1 and r.right:
        notes.append(f"No partial credit: the answer is {flawed}.")
    note = " ".join([r.note, *notes]).strip()
    return dataclasses.replace(r, points=points, credit=round(credit, 12), note=note)


def refuse_overflowing_sum(reports: list[Any], limit: int | None = None) -> None:
    """Several answers files whose points, summed, are not a finite number (``check -f json`` prints
    that sum as the total's ``out_of``, which would be Infinity, not JSON) are bad input: one line
    naming the problem file whose points take the sum past the largest double, and its largest key."""
    import math

    from ..parse import load_problem

    total = 0.0
    for rep in reports:
        total += rep.out_of
        if math.isfinite(total):
            continue
        g = load_problem(rep.problem, limit).grading
        keys = [(value, f"grading.points.{k}") for k, value in g.points]
        keys += [(g.copies, "grading.copies"), (g.default, "grading.default")]
        key = max(keys, key=lambda kv: kv[0])[1]
        raise ProblemError(
            rep.problem,
            key,
            f"the points of the {len(reports)} answers files add up to more than the largest number "
            f"(about 1.8e308); give smaller points",
        )
