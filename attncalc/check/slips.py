"""Which answers a step rests on, and which usual slip (if any) an answer shows.

* A step's verdict rests only on the earlier answers its value depends on
  (:meth:`~attncalc.check.runs.Runs.descendants`, found from the computation itself): a wrong head-1
  answer never makes a head-2 step ``carried``.
* A slip is named only when the step recomputed with it gives the answer at the answer's own
  precision (in floats or in the hand chain), from the answerer's own earlier answers, or from the
  start when every earlier answer the step rests on agrees with that slip's chain. The step's own
  answer never feeds its own recomputation. A slip already named at an answer the step rests on is
  not named again: the step is ``carried`` when it follows from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..kinds.mistakes import every_mistake
from ..parse.data import output_layer_of

if TYPE_CHECKING:
    from ..parse import Problem
    from .answers import Answer, Tolerance
    from .runs import Runs

Slip = tuple[str, "int | None"]
Matcher = Callable[..., np.ndarray]


def wrong_ancestors(step_id: str, runs: Runs, status: dict[str, str]) -> list[str]:
    """The earlier answers, not correct, that this step's value depends on (in the file's step order).
    A step with no number in the computation (an RNN's prediction, a label) cannot be moved to see
    what follows from it: nothing is counted as resting on it."""
    truth = runs.get("float")
    numeric = truth[0] if truth is not None else {}
    return [k for k, v in status.items() if v != "correct" and k in numeric and step_id in runs.descendants(k)]


def began_at(step_id: str, runs: Runs, status: dict[str, str], above: list[str]) -> str | None:
    """The wrong answer a carried step rests on: among the wrong answers it depends on, the first
    whose leaving out changes the step recomputed from the answerer's answers (the carried ones left
    out too, so that an error reaches this step through them); else the first of them."""
    wrong = [k for k in above if status.get(k) == "wrong"]
    if not wrong:
        return above[0] if above else None
    carried = frozenset(k for k, v in status.items() if v == "carried")
    base = own_value(step_id, runs, carried)
    if base is None:
        return wrong[0]
    for w in wrong:
        other = own_value(step_id, runs, carried | {w})
        if other is not None and not same_value(base, other):
            return w
    return wrong[0]


def own_value(step_id: str, runs: Runs, without: frozenset[str]) -> Any:
    """The step recomputed from the answerer's answers, leaving out those in ``without`` (a label for
    a prediction, else an array), or None."""
    label = runs.is_label(step_id)  # a prediction's label is read off the run's steps: a whole run
    got = runs.get("float", overrides=True, without=without, stop_after=None if label else step_id, light=not label)
    if got is None or step_id not in got[1]:
        return None
    value = got[1][step_id].value
    return value if label else np.asarray(got[0][step_id], dtype=float)


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return bool(a == b)
    return bool(np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True))


def mistake_args(problem: Problem, name: str) -> list[int | None]:
    """The arguments a slip is tried with: those the kind's mechanism gives through its optional
    ``slip_args(problem, name)`` hook (accounting: the other ZeRO stages, both directions of GiB for GB),
    every vocabulary row for ``wrong_vocab_row``, else none."""
    from ..mechanisms import MECHANISMS

    hook = getattr(MECHANISMS[problem.kind], "slip_args", None) if problem.kind in MECHANISMS else None
    found = hook(problem, name) if hook is not None else None  # a kind's own slips' arguments (accounting's)
    if found is not None:
        return list(found)
    if name != "wrong_vocab_row":
        return [None]
    out = output_layer_of(problem)
    return list(range(out.W_out.shape[0])) if out is not None and out.targets is not None else []


def fits(ans: Answer, target: np.ndarray | None, tol: Tolerance, units: float = 1.0) -> bool:
    """Every answered entry of ``ans`` is ``target`` at the precision it was written with."""
    if target is None:
        return False
    given = np.asarray(ans.values, dtype=float)
    target = np.asarray(target, dtype=float)
    if target.shape != given.shape:
        target = target.reshape(given.shape) if target.size == given.size else target
        if target.shape != given.shape:
            return False
    decs = np.asarray(ans.decimals)
    scale = ans.scale if tol.plain else 1.0  # a count written in GiB: to ±0.5 of its last place in GiB
    for idx in np.ndindex(*given.shape):
        g = float(given[idx])
        if np.isnan(g):
            continue
        if not tol.close(g, float(target[idx]), int(decs[idx] if decs.ndim else decs), units * scale):
            return False
    return True


def slip_chain_values(
    runs: Runs, step_id: str, slip: Slip, precisions: list[int], overrides: bool
) -> list[tuple[np.ndarray | None, int | None]]:
    """The step recomputed with the slip: in floats, then in the hand chain at each precision; from
    the answerer's earlier answers (never the step's own) or from the start."""
    name, arg = slip
    own = frozenset({step_id}) if overrides else frozenset()
    stop = step_id if overrides else None
    out: list[tuple[np.ndarray | None, int | None]] = [
        (runs.value(step_id, "float", overrides=overrides, mistake=name, arg=arg, without=own, stop_after=stop), None)
    ]
    for k in precisions:
        v = runs.value(step_id, "hand", k, overrides=overrides, mistake=name, arg=arg, without=own, stop_after=stop)
        out.append((v, k))
    return out


def slip_trials(
    step_id: str, runs: Runs, skip: set[Slip], only: set[Slip] | None = None
) -> Iterator[tuple[Slip, bool]]:
    """Each usual slip that can change this step (those in ``skip`` left out; only those in ``only``
    when given), in the list's order, to be tried from the answerer's own earlier answers (True),
    then from the start (False)."""
    for name in every_mistake():
        if not runs.slip_reaches(name, step_id):
            continue
        for arg in mistake_args(runs.problem, name):
            if (name, arg) not in skip and (only is None or (name, arg) in only):
                yield (name, arg), True
                yield (name, arg), False


def _slip_runs(
    ans: Answer, runs: Runs, skip: set[Slip], only: set[Slip] | None = None
) -> Iterator[tuple[Slip, bool, np.ndarray | None]]:
    """:func:`slip_trials` with the step recomputed with each (never from the step's own answer)."""
    for (name, arg), overrides in slip_trials(ans.id, runs, skip, only):
        own = frozenset({ans.id}) if overrides else frozenset()
        stop = ans.id if overrides else None
        v = runs.value(ans.id, "float", overrides=overrides, mistake=name, arg=arg, without=own, stop_after=stop)
        yield (name, arg), overrides, v


def named_slip(
    ans: Answer,
    runs: Runs,
    matches: Matcher,
    precisions: list[int],
    skip: set[Slip],
    answers: Mapping[str, Answer],
    tol: Tolerance,
    only: set[Slip] | None = None,
) -> tuple[Slip, np.ndarray] | None:
    """The first usual slip that changes this step and reproduces the answer at its precision, with
    the slip's (unrounded) value of the step; None when no slip fits. ``only``: try just these."""
    given = np.asarray(ans.values, dtype=float)
    answered = ~np.isnan(given)

    decs = np.asarray(ans.decimals)

    def whole(ends: list[np.ndarray | None]) -> bool:
        """The answer within the step's values from the ends of what the answers behind it stand for."""
        if any(e is None or np.shape(e) != given.shape for e in ends):
            return False
        stacked = np.stack([np.asarray(e, dtype=float) for e in ends])
        half = np.where(decs >= 0, 0.5 * 10.0 ** -np.clip(decs, 0, None), 0.0) * (1 + 1e-9) + 1e-12
        with np.errstate(invalid="ignore"):
            inside = (given >= stacked.min(axis=0) - half) & (given <= stacked.max(axis=0) + half)
        return bool((inside | ~answered).all())

    for slip, overrides, v in _slip_runs(ans, runs, skip, only):
        plain = runs.value(ans.id, "float", overrides=overrides)
        if v is None or plain is None or v.shape != given.shape or plain.shape != given.shape:
            continue
        if np.allclose(v[answered], plain[answered], rtol=1e-9, atol=1e-12):  # no difference where answered
            continue
        hit = matches(v)
        if not hit.all():
            for value, k in slip_chain_values(runs, ans.id, slip, precisions, overrides)[1:]:
                hit |= matches(value, chain_decimals=k)
        if not hit.all():
            continue
        if not overrides and not agrees_above(ans.id, slip, runs, answers, tol, still=whole):
            continue
        return slip, v
    return None


def alike_slips(ans: Answer, runs: Runs, slip: Slip, value: np.ndarray, skip: set[Slip]) -> list[Slip]:
    """The other usual slips that give this step the same numbers as ``slip`` (its value ``value``),
    from the answerer's own earlier answers or from the start: with d_k = 2 and d_model = 4, √d_model
    and d_k are both 2, and the answer cannot tell the two slips apart."""
    out: list[Slip] = []
    answered = ~np.isnan(np.asarray(ans.values, dtype=float))
    for other, _, v in _slip_runs(ans, runs, skip | {slip}):
        if other in out or v is None or v.shape != value.shape:
            continue
        if np.allclose(v[answered], value[answered], rtol=1e-9):
            out.append(other)
    return out


def agrees_above(
    step_id: str,
    slip: Slip,
    runs: Runs,
    answers: Mapping[str, Answer],
    tol: Tolerance,
    still: Callable[[list[np.ndarray | None]], bool] | None = None,
) -> bool:
    """Every earlier answer the step depends on agrees with the slip's chain (a slip from the start
    is not said when the answerer's own earlier work shows it was not made). A step the slip's chain
    does not take is no evidence either way: masked scores written right, then the exponentials of
    the scores before the mask, is the mask applied late. With ``still`` (naming a slip, not standing
    for the answerer's numbers), the earlier answers that disagree may stay: the slip's chain, those
    answers taken in, must still give the step's answer for some unrounded numbers behind them
    (``still`` says whether the chain's values with every such answer half a unit lower, as written,
    and half a unit higher allow it). A typo carried through the online softmax's running maximum,
    which the result does not depend on, says nothing about the logsumexp's maximum left out."""
    name, arg = slip
    disagree: set[str] = set()
    for k, a in answers.items():
        if k == step_id:
            break
        if isinstance(a.values, str) or step_id not in runs.descendants(k):
            continue
        v = runs.value(k, "float", mistake=name, arg=arg)
        if v is None:  # a step the slip's chain does not take (no masked scores when the mask comes late)
            continue
        if fits(a, v, tol):
            continue
        decs = [int(d) for d in np.ravel(np.asarray(a.decimals)) if int(d) >= 0]
        if any(fits(a, runs.value(k, "hand", d, mistake=name, arg=arg), tol) for d in sorted(set(decs))):
            continue
        if still is None:
            return False
        disagree.add(k)
    if not disagree:
        return True
    assert still is not None
    others = frozenset(runs.overrides) - disagree
    ends = [
        runs.value(step_id, "float", overrides=True, mistake=name, arg=arg, without=others, stop_after=step_id, nudge=n)
        for n in (-1, 0, 1)
    ]
    return still(ends)


def slip_carried(
    ans_id: str,
    runs: Runs,
    matches: Matcher,
    precisions: list[int],
    slips: list[Slip],
    answers: Mapping[str, Answer],
    tol: Tolerance,
) -> tuple[np.ndarray, bool]:
    """Entries matching the chain of a slip named at an earlier answer this step rests on (in floats,
    or rounded at the answer's precisions): a slip carried on at any precision. A chain from the
    start stands for the answerer's work only when every earlier answer the step depends on agrees
    with it (a second wrong answer it does not explain leaves the step not carried); a chain from
    the answerer's own earlier answers, the slip made where it is consulted after them, needs no
    such agreement: RMSNorm's mean subtracted at norm2 only, its normalized step (x − μ)/√ms from
    the answerer's own ms, follows from the slip named at norm2.mean_square."""
    best: np.ndarray | None = None
    whole = False
    for slip in slips:
        from_start = agrees_above(ans_id, slip, runs, answers, tol)
        hit: np.ndarray | None = None
        chains = slip_chain_values(runs, ans_id, slip, precisions, overrides=False) if from_start else []
        chains += slip_chain_values(runs, ans_id, slip, precisions, overrides=True)
        for value, k in chains:
            m = matches(value) if k is None else matches(value, chain_decimals=k)
            hit = m if hit is None else hit | m
        if hit is None:
            continue
        whole = whole or bool(hit.all())
        best = hit if best is None else best | hit
    return (best if best is not None else matches(None)), whole


def within_rounding(
    step_id: str, runs: Runs, given: np.ndarray, decs: np.ndarray, open_: np.ndarray, unrounded: frozenset[str]
) -> np.ndarray:
    """Entries right for some unrounded numbers behind the answerer's wrong earlier entries: between
    the step recomputed from those entries half a unit of their last decimal lower and higher (and
    as written), give or take half a unit of the entry's own last decimal; the answers not wrong
    (``unrounded``), and the right entries of wrong ones, stand at their true value, as an answerer
    who kept full precision has them. One who kept 1.13172 and wrote 1.132 has 1/1.13172 = 0.884,
    while 1/1.132 = 0.883: both are theirs. Each end is a point the unrounded numbers can reach, so
    nothing outside their range is taken."""
    ends = [runs.value(step_id, "float", overrides=True, without=unrounded, patched=True, nudge=n) for n in (-1, 0, 1)]
    if any(e is None or e.shape != given.shape for e in ends):
        return open_.copy()
    stacked = np.stack([np.asarray(e, dtype=float) for e in ends])
    with np.errstate(invalid="ignore"):
        low, high = stacked.min(axis=0), stacked.max(axis=0)
        half = np.where(decs >= 0, 0.5 * 10.0 ** -np.clip(decs, 0, None), 0.0) * (1 + 1e-9) + 1e-12
        ok = np.isfinite(low) & np.isfinite(high) & (given >= low - half) & (given <= high + half)
    return np.asarray(open_ | ok, dtype=bool)
