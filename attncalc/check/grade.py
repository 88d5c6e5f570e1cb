"""Grading hand calculations step by step (the library behind ``attncalc check``).

For every answered step the verdict is, in this order:

* ``correct``: each entry matches the true value at the precision it was written in (0.155 is
  judged to 3 decimals), or matches the hand chain in which every intermediate was rounded to that
  precision and carried forward, as the reference documents do;
* ``carried``: it differs from the truth but is right given the answerer's own earlier answers:
  inside the bounds the step's formula gives over every number the earlier answers, as written,
  may have been rounded from (:meth:`~attncalc.check.runs.Runs.interval`, interval arithmetic), or
  the step recomputed from them in the hand chain, or the chain of a slip named at one of them: the
  error began at an earlier answer this step depends on (the answers a step depends on are found
  from the computation, :meth:`~attncalc.check.runs.Runs.descendants`); a slip already named at an
  earlier step, made again here, is carried too (charged once);
* ``wrong``: neither. Then the usual slips are tried (:func:`attncalc.kinds.mistakes.every_mistake`, each a
  switch in the mechanisms; only those the computation consults) and the one whose recomputation
  gives the answer at its precision is named (:mod:`attncalc.check.slips`), once; failing that, the
  wrong entries are written out from the answerer's own numbers ("e_2 = 0.6·0.42 + … = 0.365,
  not 0.312"), naming a single miscomputed product where one explains the difference.

Each step then earns a share of its points (:mod:`attncalc.check.points`, the problem's ``[grading]``):
a carried step the ``carried`` share unless it lies below a degenerate earlier answer, a wrong one
its right entries (``partial``) or the ``slip`` share for a named slip. docs/grading.md states the
rules for a TA, with an example each.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Count, Derivation, Step
from ..derivation.arith import Chain
from ..derivation.fmt import fmt_array
from ..mechanisms import MECHANISMS, solve
from ..parse import Problem
from ..render.asked import pair_merge, pair_slots
from .agree import Agreement, Entries, agree
from .answers import (
    SLACK,
    UNANSWERED,
    UNANSWERED_DECIMALS,
    Answer,
    Tolerance,
    flatten_ids,
    load_answers,
    parse_answers,
)
from .asked import by_place
from .budget import refuse_costly, slip_fanout
from .notes import (
    fmt_nested,
    given_text,
    hand_chain_note,
    mistake_note,
    nested_list,
    rounded_list,
    slip_note,
    transposed_hint,
)
from .picks import Context, Evidence, grade_own_shape, grade_prediction
from .points import award, computed_steps, copy_steps, degenerate, rests_on, step_points
from .prepared import Prepared
from .quiet import overflow_quiet
from .report import Report, StepResult
from .runs import RUN_FAILURES, Runs
from .slips import alike_slips, began_at, named_slip, wrong_ancestors
from .units import exact_miss, unit_hint

__all__ = [
    "SLACK",
    "UNANSWERED",
    "UNANSWERED_DECIMALS",
    "Answer",
    "Report",
    "StepResult",
    "Tolerance",
    "check",
    "flatten_ids",
    "load_answers",
    "parse_answers",
]

SHIFTS = ("never", "always")


# ------------------------------------------------------------------------------ grading


@overflow_quiet
def check(
    problem: Problem,
    raw_answers: dict[str, Any],
    answers_file: str,
    tolerance: Tolerance | None = None,
    key_prefix: str = "",
    prepared: Prepared | None = None,
) -> Report:
    """Grade answers (raw table keyed by step id) against a problem. ``prepared`` (the problem's
    :class:`~attncalc.check.prepared.Prepared`, made once) keeps the work no answer changes across
    checks; the report is the same with it or without it."""
    tol = tolerance or Tolerance()
    if prepared is not None and prepared.problem is not problem:
        raise ValueError("check: prepared is another problem's")
    truth = prepared.truth if prepared is not None else solve(problem, exact=False, carry_rounded=False)
    answers = parse_answers(
        raw_answers, truth, answers_file, key_prefix, own_shapes=lambda labels: _shapes(problem, labels)
    )
    made: list[Runs] = []

    def slips() -> int:  # (a label answered otherwise: the slips tried on it, from the truth run's probe)
        made.append(Runs(problem, answers, prepared))
        return made[0].slips_consulted

    # before grading: the ceiling on its work
    refuse_costly(answers, truth, answers_file, tol, slips, lambda: slip_fanout(problem))
    points = step_points(problem.grading, truth.step_ids, problem.path, copy_steps(truth))
    # a value the problem states (a gate given as numbers) is not computed: no points, not unanswered
    computed = computed_steps(truth)
    asked = set(computed)
    points = {k: (v if k in asked else 0.0) for k, v in points.items()}
    runs = made[0] if made else Runs(problem, answers, prepared)
    by_id = {a.id: a for a in answers}
    givens = {i.name: np.asarray(i.value, dtype=float) for i in truth.inputs}
    results: list[StepResult] = []
    status: dict[str, str] = {}
    not_correct: dict[str, str] = {}  # (of status: wrong_ancestors reads these, not every answer graded)
    named: dict[str, tuple[str, int | None]] = {}  # the slip named at each wrong answer that has one
    flawed: dict[str, str] = {}  # earlier answers that are degenerate (all zeros, all equal, copied): why
    below: dict[str, tuple[str, str]] = {}  # earlier answers resting on one of them: which, and why
    for ans in answers:
        step = truth.step(ans.id)
        above = wrong_ancestors(ans.id, runs, not_correct)  # the earlier answers, not correct, this step rests on
        # the earlier answers that are evidence for or against a slip: not those wrong with nothing
        # named (a typo in another head says nothing of how this step was worked)
        evidence = Evidence(by_id, status, named)
        if isinstance(ans.values, str):
            r = grade_prediction(ans, step, runs, status, above, Context(above, named, evidence), tol)
        elif np.shape(ans.values) != np.shape(step.value):  # a table of the student's own labels' shape
            r = grade_own_shape(ans, step, runs, status, tol, named)
        else:
            r = _grade(ans, step, truth, runs, tol, status, Context(above, named, evidence))
        if pair_merge(truth, step) > 1:  # a bpe pair table after merge 1: over the places the quiz asks
            r = by_place(
                r, ans, step, pair_slots(truth, step), _own(runs, ans) if r.verdict == "wrong" and above else None
            )
        status[ans.id] = r.verdict
        if r.verdict != "correct":
            not_correct[ans.id] = r.verdict
        why = None
        # only an unexplained wrong answer can be degenerate: a named slip, or an answer right given the
        # answerer's own work, is honest work even when it comes out [0.5, 0.5]
        numbers = not isinstance(ans.values, str) and np.shape(ans.values) == np.shape(step.value)
        if r.verdict == "correct" and numbers:
            # for later steps recomputed unrounded: a right answer stands at its true value, never
            # recomputed from a wrong earlier answer that would give another (the answerer's own n
            # decides where their residual is taken, not the n an earlier slip would have given)
            runs.patched[ans.id] = np.asarray(step.value, dtype=float)
            runs.settled.add(ans.id)
            if _discrete(ans, step):
                runs.decided[ans.id] = np.asarray(ans.values, dtype=float)
        if r.verdict == "wrong" and r.mistake is None and numbers:
            why = degenerate(np.asarray(ans.values, dtype=float), ans.decimals, step.value, givens)
        # (a correct step earns its right entries whatever it rests on: award reads this only for the others)
        rests = None
        if r.verdict != "correct":
            rests = rests_on(ans, runs, flawed, below) if problem.grading.degenerate == "no-credit" else None
        if rests is not None:
            below[ans.id] = rests
        r = award(r, problem.grading, points[ans.id], why, rests)
        if why is not None:
            flawed[ans.id] = why
        results.append(r)
    return Report(problem.path, answers_file, results, round(sum(points.values()), 9), tuple(computed))


def _grade(
    ans: Answer, step: Step, truth: Derivation, runs: Runs, tol: Tolerance, status: dict[str, str], ctx: Context
) -> StepResult:
    given = np.asarray(ans.values, dtype=float)
    decs = np.asarray(ans.decimals)
    true = np.asarray(step.value, dtype=float)
    shown_given, expected, shown_expected, given_list = _shown(ans, step, truth, runs, given, decs, true)
    # entries written "?": not graded, so they match anything
    entries = Entries(given, decs, tol, ans.scale, decision=_decisions(given, true))
    open_, matches = entries.open_, entries.matches
    size = int(given.size)

    answered = int((~open_).sum())
    off = exact_miss(ans, step)
    if off is not None:  # a whole number float64 cannot tell from the count (past 2^53), and not the count
        return StepResult(
            ans.id, step.title, "wrong", given_list, expected, [[]], off,
            given_shown=shown_given, expected_shown=shown_expected, right=0, entries=size,
        )  # fmt: skip

    def correct(note: str, written: Any = given_list) -> StepResult:
        return StepResult(
            ans.id, step.title, "correct", written, expected, [], note,
            given_shown=shown_given, expected_shown=shown_expected, right=answered, entries=size,
        )  # fmt: skip

    if matches(true).all():  # the truth as written: correct, with nothing to add (agree would find the same)
        return correct("", nested_list(given))
    agreement = _agreement(ans, runs, true, entries, ctx, status)
    ok, ok_whole = agree(agreement, overrides=False)
    if ok_whole:
        return correct(_rounded_note(agreement, step, expected))

    mine, mine_whole = agree(agreement, overrides=True)

    def carried(note: str, began: str, carried_entries: np.ndarray, mistake: str | None = None) -> StepResult:
        """The step right given the answerer's earlier answers (``carried_entries``: those right only so)."""
        return StepResult(
            ans.id,
            step.title,
            "carried",
            given_list,
            expected,
            [],
            note,
            began_at=began,
            mistake=mistake,
            given_shown=shown_given,
            expected_shown=shown_expected,
            right=int((ok & ~open_).sum()),
            carried_right=int((carried_entries & ~open_).sum()),
            entries=size,
        )

    by_truth = False  # decisions judged by the true chain: the wrong entries written out from true numbers
    if entries.decision:  # decisions: the answerer's own chain's entries or the true one's, never some of each
        mine = entries.join(mine, ok)  # (on a tie their own: the entry wrong is where they left it)
        ok = ok & mine
        # an entry wrong by the true chain that their numbers as written give: said from the true numbers
        # (only where an answer of theirs comes before it: else their numbers are the true ones)
        if not mine.all() and runs.own_numbers_reach(ans.id):
            own = runs.value(ans.id, "float", overrides=True, without=frozenset({ans.id}), stop_after=ans.id)
            by_truth = own is not None and own.shape == given.shape and bool(np.all(own[~mine] == given[~mine]))
    earlier_wrong = ctx.above  # only the answers this step's value depends on
    if mine_whole or (ok | mine).all():
        if not earlier_wrong:
            return correct("Consistent with your own rounded earlier answers.")
        began = began_at(ans.id, runs, status, earlier_wrong) or earlier_wrong[0]
        note = f"Right given your earlier answers; the error began at {began}."
        return carried(note, began, mine & ~ok)

    bad = ~(ok | mine)
    # for later steps recomputed unrounded: this answer's right entries at their true value
    runs.patched[ans.id] = np.where(ok | open_, true, given)
    wrong_entries = [[int(i) for i in idx] for idx in zip(*np.nonzero(bad), strict=True)] if given.ndim else [[]]
    skip, found = _find_slip(agreement)
    named = found[0] if found is not None else None
    first = _first_named(ctx, found[0]) if found is not None else None
    if found is not None and first is not None:  # the same misconception, already charged elsewhere
        (name, arg), slip_value = found
        runs.patched[ans.id] = np.where(ok | open_, true, np.where(matches(slip_value), slip_value, given))
        note = (
            f"The same slip as at {first}: {mistake_note(name, arg, runs.problem, ans.id)}; it is charged once, there."
        )
        return carried(note, first, ~ok, mistake=name)
    if found is not None:
        (name, arg), slip_value = found
        ctx.named[ans.id] = (name, arg)
        # later steps recomputed unrounded take the slip's own value where the answer is the slip's
        runs.patched[ans.id] = np.where(ok | open_, true, np.where(matches(slip_value), slip_value, given))
        note = f"It looks like {mistake_note(name, arg, runs.problem, ans.id)}."
        alike = alike_slips(ans, runs, (name, arg), slip_value, skip)
        if alike:  # the answer cannot tell them apart: each is said
            others = " or ".join(mistake_note(n, a, runs.problem, ans.id) for n, a in alike)
            note = note[:-1] + f"; or {others}: here {'both give' if len(alike) == 1 else 'each gives'} these numbers."
        note += unit_hint(ans, step)  # a memory answer with its unit: the true size in that unit, too
    else:
        note = (
            slip_note(ans, step, runs, bad, truth.decimals, patched=by_truth or any(k in ctx.named for k in ctx.above))
            + _own_numbers(ctx, runs, ans, bad, true)
            + unit_hint(ans, step)
            + transposed_hint(matches, true)
        )
    return StepResult(
        ans.id,
        step.title,
        "wrong",
        given_list,
        expected,
        wrong_entries,
        note,
        mistake=named[0] if named else None,
        given_shown=shown_given,
        expected_shown=shown_expected,
        right=int((ok & ~open_).sum()),
        carried_right=int((mine & ~ok & ~open_).sum()),
        entries=size,
    )


def _own_numbers(ctx: Context, runs: Runs, ans: Answer, bad: np.ndarray, true: np.ndarray) -> str:
    """For wrong entries written out from earlier answers of the student's that carry a named slip,
    where those give another value than the truth: which, so that a number that follows the slip is not
    taken for the true one ("" when none; a typo earlier shows in the numbers the line writes out)."""
    slipped = [k for k in ctx.above if k in ctx.named]
    if not slipped:
        return ""
    own = runs.value(ans.id, "float", overrides=True)
    if (
        own is None
        or own.shape != true.shape
        or np.allclose(own[bad], true[bad], rtol=1e-9, atol=1e-12, equal_nan=True)
    ):
        return ""
    return f" That follows your own {', '.join(slipped)}, with the slip named there."


def _shown(
    ans: Answer, step: Step, truth: Derivation, runs: Runs, given: np.ndarray, decs: np.ndarray, true: np.ndarray
) -> tuple[Any, Any, str, Any]:
    """The answer as shown, the expected value (for JSON) and as shown, and the answer for JSON."""
    shown_given = ans.written if ans.written is not None else given_text(given, decs)
    finest = max((int(x) for x in decs.flat if x >= 0), default=0)
    # 0.000014 for an answer written 0.000001; shown: 1.000 for 0.99997, 0.6 for 0.6
    expected, shown_expected = _expected(runs, ans.id, true, max(truth.decimals, finest))
    given_list = nested_list(given)
    if isinstance(step, Count) and step.whole is not None:  # every digit, in groups: 124,439,808
        shown_expected = f"{step.whole:,}"
        expected = step.whole  # and exact integers in JSON
        if ans.exact is not None:
            given_list = ans.exact
        elif float(given).is_integer():
            given_list = int(given)
    return shown_given, expected, shown_expected, given_list


HAND_DECIMALS = 12  # the most decimals a hand chain is worked at (a calculator shows 10 to 12 digits)


def _agreement(
    ans: Answer, runs: Runs, true: np.ndarray, entries: Entries, ctx: Context, status: dict[str, str]
) -> Agreement:
    """What agree needs: the precisions written, the variants (the maximum subtracted or not), the
    answers left unrounded and the slips carried on from the answers this step rests on."""
    # (a hand chain at each precision written, up to HAND_DECIMALS: more digits than a calculator shows
    # are a number copied from a computer, matched by the float chain; answers copied in full made a
    # hand chain at each of 13 to 20 decimals, with every slip, 280 runs of an encoder layer)
    precisions = sorted({int(x) for x in entries.decs.flat if 0 <= x <= HAND_DECIMALS})
    shifts: tuple[str | None, ...] = (None, *SHIFTS) if runs.shifts_matter else (None,)
    # an answerer who kept full precision after an earlier error: the later steps recomputed from the
    # wrong answers (their right entries unrounded) and the right ones at their true value, the
    # carried ones (and right labels) left out, so recomputed unrounded
    unrounded = frozenset(k for k, v in status.items() if v != "wrong" and k not in runs.patched)
    recompute = any(v != "wrong" for v in status.values())
    # slips named at answers this step rests on: their chains, at any precision, carry them on
    carried_slips = list(dict.fromkeys(ctx.named[k] for k in ctx.above if k in ctx.named))
    return Agreement(ans, runs, true, entries, ctx, shifts, precisions, unrounded, carried_slips, recompute)


def _rounded_note(a: Agreement, step: Step, expected: Any) -> str:
    """For an answer right along a hand-rounded chain: which chain, and the value unrounded ("" when
    it is the true value as written)."""
    matches, runs = a.e.matches, a.runs
    exact_truth = matches(a.true).all() or any(
        matches(runs.value(a.ans.id, "float", shift=maybe)).all() for maybe in SHIFTS
    )
    if exact_truth:
        return ""
    return f"{hand_chain_note(runs.problem, a.hand_only, step, a.seen, a.e.open_)}; unrounded it is {fmt_nested(expected)}."


def _find_slip(a: Agreement) -> tuple[set[Any], Any]:
    """The slips said already at the answers this step rests on (said once, where they happened), and
    the named slip that gives this answer's numbers (None if none)."""
    ans, runs, ctx, tol = a.ans, a.runs, a.ctx, a.e.tol
    skip = {ctx.named[k] for k in ctx.above if k in ctx.named}  # a slip is said once, where it happened
    # a slip the student already showed elsewhere explains this step before any other that gives the
    # same numbers (fp32 for bf16 and a cache not doubled both double a cache: the first was charged)
    charged = set(ctx.named.values()) - skip
    found = named_slip(ans, runs, a.e.matches, a.precisions, skip, ctx.answers, tol, only=charged) if charged else None
    if found is None:
        found = named_slip(ans, runs, a.e.matches, a.precisions, skip, ctx.answers, tol)
    return skip, found


def _shapes(problem: Problem, labels: dict[str, str]) -> dict[str, tuple[int, ...]]:
    """The steps' shapes worked from the answered labels (a merge the student chose): {} if no run."""
    chain = Chain("float", labels=labels)
    try:
        with np.errstate(all="ignore"):
            MECHANISMS[problem.kind].run(problem, chain)
    except RUN_FAILURES:
        return {}
    return {k: np.shape(v) for k, v in chain.computed.items()}


def _discrete(ans: Answer, step: Step) -> bool:
    """A step of decisions or counts (accept flags, a number accepted, a chosen index): its right
    value whole numbers, and the answer whole numbers too (2 for 2, not 1.9996 to 3 decimals)."""
    value = np.asarray(step.value, dtype=float)
    given = np.asarray(ans.values, dtype=float)
    return (
        value.size > 0
        and given.shape == value.shape
        and bool(np.all(np.isfinite(value)))
        and bool(np.all(value == np.round(value)))
        and bool(np.all(given == value))
    )


def _decisions(given: np.ndarray, true: np.ndarray) -> bool:
    """Several entries, each a whole number as the true ones are (accept flags, chosen experts, integer
    codes): decided together by one chain, never entry by entry from several."""
    answered = given[~np.isnan(given)]
    with np.errstate(invalid="ignore"):
        return (
            true.size > 1
            and bool(np.all(np.isfinite(true)))
            and bool(np.all(true == np.round(true)))
            and bool(np.all(answered == np.round(answered)))
        )


def _first_named(ctx: Context, slip: tuple[str, int | None]) -> str | None:
    """The earlier answer where this slip was named (charged), anywhere in the file, or None."""
    return next((k for k, v in ctx.named.items() if v == slip), None)


def _expected(runs: Runs, step_id: str, true: np.ndarray, decimals: int) -> tuple[Any, str]:
    """The true value rounded to ``decimals`` (nested lists, for JSON) and as shown: the same for
    every answerer, so a prepared problem keeps them (each report gets lists of its own)."""

    def make() -> tuple[Any, str]:
        return rounded_list(true, decimals), fmt_array(true, decimals)

    if runs.shared is None:
        return make()
    lists, shown = runs.shared.view(("expected", step_id, decimals), make)
    return _copied(lists), shown


def _copied(x: Any) -> Any:
    return [_copied(v) for v in x] if isinstance(x, list) else x


def _own(runs: Runs, ans: Answer) -> np.ndarray | None:
    """The step's numbers worked from the student's own earlier answers (this one left out), or None:
    read at the step (one run, check/wide.py, serves every step)."""
    return runs.value(ans.id, "float", overrides=True, without=frozenset({ans.id}), stop_after=ans.id)
