"""Grading hand calculations step by step (the library behind ``attncalc check``).

For every answered step the verdict is, in this order:

* ``correct``: each entry matches the true value at the precision it was written in (0.155 is
  judged to 3 decimals), or matches the hand chain in which every intermediate was rounded to that
  precision and carried forward, as the reference documents do;
* ``carried``: it differs from the truth but is right given the answerer's own earlier answers:
  inside the bounds the step's formula gives over every number the earlier answers, as written,
  may have been rounded from (:meth:`~attncalc.check_runs.Runs.interval`, interval arithmetic), or
  the step recomputed from them in the hand chain, or the chain of a slip named at one of them: the
  error began at an earlier answer this step depends on (the answers a step depends on are found
  from the computation, :meth:`~attncalc.check_runs.Runs.descendants`); a slip already named at an
  earlier step, made again here, is carried too (charged once);
* ``wrong``: neither. Then the usual slips are tried (:func:`attncalc.mistakes.every_mistake`, each a
  switch in the mechanisms; only those the computation consults) and the one whose recomputation
  gives the answer at its precision is named (:mod:`attncalc.check_slips`), once; failing that, the
  wrong entries are written out from the answerer's own numbers ("e_2 = 0.6·0.42 + … = 0.365,
  not 0.312"), naming a single miscomputed product where one explains the difference.

Each step then earns a share of its points (:mod:`attncalc.grading`, the problem's ``[grading]``):
a carried step the ``carried`` share unless it lies below a degenerate earlier answer, a wrong one
its right entries (``partial``) or the ``slip`` share for a named slip. docs/grading.md states the
rules for a TA, with an example each.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import check_budget, grading
from .arith import Chain
from .check_answers import (
    SLACK,
    UNANSWERED,
    UNANSWERED_DECIMALS,
    Answer,
    Tolerance,
    close_all,
    flatten_ids,
    load_answers,
    parse_answers,
)
from .check_notes import fmt_nested, given_text, hand_chain_note, mistake_note, nested_list, rounded_list, slip_note
from .check_picks import Context, grade_own_shape, grade_prediction
from .check_prepared import Prepared
from .check_report import Report, StepResult
from .check_runs import RUN_FAILURES, Runs
from .check_slips import alike_slips, began_at, named_slip, slip_carried, within_rounding, wrong_ancestors
from .derivation import Count, Derivation, Step
from .fmt import fmt_array
from .mechanisms import MECHANISMS, solve
from .parse import Problem

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


def check(
    problem: Problem,
    raw_answers: dict[str, Any],
    answers_file: str,
    tolerance: Tolerance | None = None,
    key_prefix: str = "",
    prepared: Prepared | None = None,
) -> Report:
    """Grade answers (raw table keyed by step id) against a problem. ``prepared`` (the problem's
    :class:`~attncalc.check_prepared.Prepared`, made once) keeps the work no answer changes across
    checks; the report is the same with it or without it."""
    tol = tolerance or Tolerance()
    if prepared is not None and prepared.problem is not problem:
        raise ValueError("check: prepared is another problem's")
    truth = prepared.truth if prepared is not None else solve(problem, exact=False, carry_rounded=False)
    answers = parse_answers(
        raw_answers, truth, answers_file, key_prefix, own_shapes=lambda labels: _shapes(problem, labels)
    )
    check_budget.refuse_costly(answers, truth, answers_file, tol)  # before any run: the ceiling on its work
    points = grading.step_points(problem.grading, truth.step_ids, problem.path, grading.copy_steps(truth))
    # a value the problem states (a gate given as numbers) is not computed: no points, not unanswered
    computed = grading.computed_steps(truth)
    points = {k: (v if k in computed else 0.0) for k, v in points.items()}
    runs = Runs(problem, answers, prepared)
    by_id = {a.id: a for a in answers}
    givens = {i.name: np.asarray(i.value, dtype=float) for i in truth.inputs}
    results: list[StepResult] = []
    status: dict[str, str] = {}
    named: dict[str, tuple[str, int | None]] = {}  # the slip named at each wrong answer that has one
    flawed: dict[str, str] = {}  # earlier answers that are degenerate (all zeros, all equal, copied): why
    below: dict[str, tuple[str, str]] = {}  # earlier answers resting on one of them: which, and why
    for ans in answers:
        step = truth.step(ans.id)
        above = wrong_ancestors(ans.id, runs, status)  # the earlier answers, not correct, this step rests on
        # the earlier answers that are evidence for or against a slip: not those wrong with nothing
        # named (a typo in another head says nothing of how this step was worked)
        evidence = {k: a for k, a in by_id.items() if status.get(k) != "wrong" or k in named}
        if isinstance(ans.values, str):
            r = grade_prediction(ans, step, runs, status, above, Context(above, named, evidence), tol)
        elif np.shape(ans.values) != np.shape(step.value):  # a table of the student's own labels' shape
            r = grade_own_shape(ans, step, runs, status, tol, named)
        else:
            r = _grade(ans, step, truth, runs, tol, status, Context(above, named, evidence))
        status[ans.id] = r.verdict
        why = None
        # only an unexplained wrong answer can be degenerate: a named slip, or an answer right given the
        # answerer's own work, is honest work even when it comes out [0.5, 0.5]
        numbers = not isinstance(ans.values, str) and np.shape(ans.values) == np.shape(step.value)
        if r.verdict == "wrong" and r.mistake is None and numbers:
            why = grading.degenerate(np.asarray(ans.values, dtype=float), ans.decimals, step.value, givens)
        # (a correct step earns its right entries whatever it rests on: award reads this only for the others)
        rests = None
        if r.verdict != "correct":
            rests = grading.rests_on(ans, runs, flawed, below) if problem.grading.degenerate == "no-credit" else None
        if rests is not None:
            below[ans.id] = rests
        r = grading.award(r, problem.grading, points[ans.id], why, rests)
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
    shown_given = ans.written if ans.written is not None else given_text(given, decs)
    finest = max((int(x) for x in decs.flat if x >= 0), default=0)
    # 0.000014 for an answer written 0.000001; shown: 1.000 for 0.99997, 0.6 for 0.6
    expected, shown_expected = _expected(runs, ans.id, true, max(truth.decimals, finest))
    given_list = nested_list(given)
    if isinstance(step, Count) and step.whole is not None:  # every digit, in groups: 124,439,808
        shown_expected = f"{step.whole:,}"
        expected = step.whole  # and exact integers in JSON
        if float(given).is_integer():
            given_list = int(given)

    open_ = np.array(np.isnan(given), dtype=bool)  # entries written "?": not graded, so they match anything
    size = int(given.size)

    def matches(target: np.ndarray | None, units: float = 0.5, chain_decimals: int | None = None) -> np.ndarray:
        """Entries of the answer that are ``target`` as written. A hand chain rounded to
        ``chain_decimals`` is matched only by entries written to at most that many decimals: 0.500
        is not the 1-decimal chain's 0.5 (a student who wrote three decimals worked to three)."""
        if target is None or target.shape != given.shape:
            return open_.copy()
        hit = close_all(tol, given, target, decs, units)
        if chain_decimals is not None:
            hit &= ~((decs >= 0) & (decs > chain_decimals))
        return np.asarray(open_ | hit, dtype=bool)

    def within(bounds: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
        """Entries inside the bounds the step's formula gives over the answerer's earlier answers,
        widened by half a unit of the entry's own last decimal (0 for an exact form)."""
        if bounds is None or bounds[0].shape != given.shape:
            return open_.copy()
        lo, hi = bounds
        half = np.where(decs >= 0, 0.5 * 10.0 ** -np.clip(decs, 0, None), 0.0) * (1 + 1e-9) + 1e-12
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(lo) & np.isfinite(hi) & (given >= lo - half) & (given <= hi + half)
        return np.asarray(open_ | ok, dtype=bool)

    precisions = sorted({int(x) for x in decs.flat if x >= 0})
    shifts: tuple[str | None, ...] = (None, *SHIFTS) if runs.shifts_matter else (None,)

    # an answerer who kept full precision after an earlier error: the later steps recomputed from the
    # wrong answers alone (the carried and correct ones left out, so recomputed unrounded)
    unrounded = frozenset(
        k for k, v in status.items() if v != "wrong"
    )  # (wrong answers: their right entries unrounded)

    # slips named at answers this step rests on: their chains, at any precision, carry them on
    carried_slips = list(dict.fromkeys(ctx.named[k] for k in ctx.above if k in ctx.named))
    hand_only: list[tuple[str | None, int]] = []  # the hand chains (shift, decimals) matching every entry
    # per entry, what it matched (the true value, or a hand chain (shift, decimals)): for a note when
    # the entries of one answer match different chains
    seen: list[tuple[tuple[str | None, int] | None, np.ndarray]] = []

    def agree(overrides: bool) -> tuple[np.ndarray, bool]:
        """Entries matching the true (or the answerer's own) chain, exact or hand-rounded; and whether
        one variant (the maximum subtracted or not, as the answerer chose) matches every entry."""
        # the answerer's own chains are the shared ones when no answer of theirs comes before this step
        own = overrides and runs.own_numbers_reach(ans.id)
        best = np.zeros(given.shape, dtype=bool)
        whole = False
        for maybe in shifts:  # exponentials with or without the maximum subtracted are both right
            hit = matches(true) if maybe is None and not overrides else np.zeros(given.shape, dtype=bool)
            hit |= matches(runs.value(ans.id, "float", overrides=own, shift=maybe))
            if not overrides:
                seen.append((None, hit.copy()))
            elif own and not hit.all():  # anywhere the answerer's numbers, as written, can take the step
                hit |= within(runs.interval(ans.id, shift=maybe))
            # from the answerer's own answers only the entries matched count: once all are, no other chain can add one
            enough = overrides and bool(hit.all())
            if overrides and unrounded and not enough:
                hit |= matches(runs.value(ans.id, "float", overrides=own, shift=maybe, without=unrounded, patched=True))
            for k in precisions if not enough else ():
                chain = matches(runs.value(ans.id, "hand", k, overrides=own, shift=maybe), chain_decimals=k)
                if not overrides and chain.all():
                    hand_only.append((maybe, k))
                if not overrides:
                    seen.append(((maybe, k), chain))
                hit |= chain
            if maybe is None or hit.sum() > best.sum():  # judge entries by the variant followed most
                best = hit
            whole = whole or bool(hit.all())
            if overrides and best.all():
                break
        if own and not best.all() and tol.plain:
            hit = within_rounding(ans.id, runs, given, decs, open_, unrounded)
            best, whole = best | hit, whole or bool(hit.all())
        if overrides and carried_slips and not best.all():
            hit, slip_whole = slip_carried(ans.id, runs, matches, precisions, carried_slips, ctx.answers, tol)
            if (
                slip_whole
            ):  # a slip carried on gives the whole step: entries of it mixed with another chain's are neither's
                best, whole = best | hit, True
        return best, whole

    answered = int((~open_).sum())
    if matches(true).all():  # the truth as written: correct, with nothing to add (agree would find the same)
        return StepResult(
            ans.id,
            step.title,
            "correct",
            nested_list(given),
            expected,
            [],
            "",
            given_shown=shown_given,
            expected_shown=shown_expected,
            right=answered,
            entries=size,
        )
    ok, ok_whole = agree(overrides=False)
    if ok_whole:
        exact_truth = matches(true).all() or any(
            matches(runs.value(ans.id, "float", shift=maybe)).all() for maybe in SHIFTS
        )
        note = (
            ""
            if exact_truth
            else f"{hand_chain_note(runs.problem, hand_only, step, seen, open_)}; unrounded it is {fmt_nested(expected)}."
        )
        return StepResult(
            ans.id,
            step.title,
            "correct",
            given_list,
            expected,
            [],
            note,
            given_shown=shown_given,
            expected_shown=shown_expected,
            right=answered,
            entries=size,
        )

    mine, mine_whole = agree(overrides=True)

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

    earlier_wrong = ctx.above  # only the answers this step's value depends on
    if mine_whole or (ok | mine).all():
        if not earlier_wrong:
            note = "Consistent with your own rounded earlier answers."
            return StepResult(
                ans.id,
                step.title,
                "correct",
                given_list,
                expected,
                [],
                note,
                given_shown=shown_given,
                expected_shown=shown_expected,
                right=answered,
                entries=size,
            )
        began = began_at(ans.id, runs, status, earlier_wrong) or earlier_wrong[0]
        note = f"Right given your earlier answers; the error began at {began}."
        return carried(note, began, mine & ~ok)

    bad = ~(ok | mine)
    # for later steps recomputed unrounded: this answer's right entries at their true value
    runs.patched[ans.id] = np.where(ok | open_, true, given)
    wrong_entries = [[int(i) for i in idx] for idx in zip(*np.nonzero(bad), strict=True)] if given.ndim else [[]]
    skip = {ctx.named[k] for k in ctx.above if k in ctx.named}  # a slip is said once, where it happened
    # a slip the student already showed elsewhere explains this step before any other that gives the
    # same numbers (fp32 for bf16 and a cache not doubled both double a cache: the first was charged)
    charged = set(ctx.named.values()) - skip
    found = named_slip(ans, runs, matches, precisions, skip, ctx.answers, tol, only=charged) if charged else None
    if found is None:
        found = named_slip(ans, runs, matches, precisions, skip, ctx.answers, tol)
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
    else:
        note = slip_note(ans, step, runs, bad, truth.decimals)
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


def _shapes(problem: Problem, labels: dict[str, str]) -> dict[str, tuple[int, ...]]:
    """The steps' shapes worked from the answered labels (a merge the student chose): {} if no run."""
    chain = Chain("float", labels=labels)
    try:
        with np.errstate(all="ignore"):
            MECHANISMS[problem.kind].run(problem, chain)
    except RUN_FAILURES:
        return {}
    return {k: np.shape(v) for k, v in chain.computed.items()}


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
