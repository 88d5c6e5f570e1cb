"""Grading hand calculations step by step (the library behind ``attncalc check``).

For every answered step the verdict is, in this order:

* ``correct``: each entry matches the true value at the precision it was written in (0.155 is
  judged to 3 decimals), or matches the hand chain in which every intermediate was rounded to that
  precision and carried forward, as the reference documents do;
* ``carried``: it differs from the truth but is right given the answerer's own earlier answers
  (the step recomputed from them, in floats or in the hand chain): the error began earlier;
* ``wrong``: neither. Then the usual slips are tried (:data:`attncalc.arith.MISTAKES`, each a
  switch in the mechanisms) and the one that reproduces the answer is named; failing that, the
  wrong entries are written out from the answerer's own numbers ("e_2 = 0.6·0.42 + … = 0.365,
  not 0.312"), naming a single miscomputed product where one explains the difference.

Each step then earns a share of its points (:mod:`attncalc.grading`, the problem's ``[grading]``):
a carried step the ``carried`` share unless it rests on a degenerate earlier answer, a wrong one
its right entries (``partial``) or the ``slip`` share for a named slip.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import grading
from .arith import MISTAKES
from .check_answers import (
    SLACK,
    UNANSWERED,
    UNANSWERED_DECIMALS,
    Answer,
    Tolerance,
    flatten_ids,
    load_answers,
    parse_answers,
)
from .check_notes import _fmt_nested, _given_text, _nested, _rounded, _slip_note, mistake_note
from .check_report import Report, StepResult
from .check_runs import Runs
from .derivation import Argmax, Derivation, Pick, Step
from .mechanisms import solve
from .problem import Problem
from .render.fmt import fmt_array

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
) -> Report:
    """Grade answers (raw table keyed by step id) against a problem."""
    tol = tolerance or Tolerance()
    truth = solve(problem, exact=False, carry_rounded=False)
    answers = parse_answers(raw_answers, truth, answers_file, key_prefix)
    points = grading.step_points(problem.grading, truth.step_ids, problem.path, grading.copy_steps(truth))
    runs = Runs(problem, answers)
    givens = {i.name: np.asarray(i.value, dtype=float) for i in truth.inputs}
    results: list[StepResult] = []
    status: dict[str, str] = {}
    flawed: dict[str, str] = {}  # earlier answers that are degenerate (all zeros, all equal, copied): why
    for ans in answers:
        step = truth.step(ans.id)
        if isinstance(ans.values, str):
            r = _grade_prediction(ans, step, runs, status)
        else:
            r = _grade(ans, step, truth, runs, tol, status)
        status[ans.id] = r.verdict
        why = None
        # only an unexplained wrong answer can be degenerate: a named slip, or an answer right given the
        # answerer's own work, is honest work even when it comes out [0.5, 0.5]
        if r.verdict == "wrong" and r.mistake is None and not isinstance(ans.values, str):
            why = grading.degenerate(np.asarray(ans.values, dtype=float), ans.decimals, step.value, givens)
        r = grading.award(r, problem.grading, points[ans.id], why, grading.rests_on(ans, runs, flawed))
        if why is not None:
            flawed[ans.id] = why
        results.append(r)
    return Report(problem.path, answers_file, results, round(sum(points.values()), 9), tuple(truth.step_ids))


def _grade_prediction(ans: Answer, step: Step, runs: Runs, status: dict[str, str]) -> StepResult:
    assert isinstance(step, Argmax)
    given = str(ans.values)
    tied = step.tied()
    if given in tied and len(tied) > 1:  # any of the tied tokens is the prediction
        note = f"The probabilities of {', '.join(tied)} tie; any of them is the prediction."
        return StepResult(ans.id, step.title, "correct", given, step.value, [], note, given_shown=given, right=1)
    if given == step.value:
        return StepResult(ans.id, step.title, "correct", given, step.value, [], given_shown=given, right=1)
    mine = runs.get("float", overrides=True)
    theirs = mine[1].get(ans.id) if mine else None
    if isinstance(theirs, Argmax) and theirs.value == given:
        began = _began_at(ans.id, runs, status)
        note = f"Right for your probabilities; the true prediction is {step.value}."
        return StepResult(
            ans.id,
            step.title,
            "carried",
            given,
            step.value,
            [],
            note,
            began_at=began,
            given_shown=given,
            carried_right=1,
        )
    if isinstance(step, Pick):  # a draw or a beam search chooses otherwise than by the largest probability
        how = "the draw u" if step.u is not None else "the beam search"
        note = f"{how.capitalize()} gives {step.value}, not {given}."
    else:
        note = f"The largest probability belongs to {step.value}, not {given}."
    return StepResult(ans.id, step.title, "wrong", given, step.value, [[]], note, given_shown=given)


def _grade(
    ans: Answer, step: Step, truth: Derivation, runs: Runs, tol: Tolerance, status: dict[str, str]
) -> StepResult:
    given = np.asarray(ans.values, dtype=float)
    decs = np.asarray(ans.decimals)
    true = np.asarray(step.value, dtype=float)
    shown_given = ans.written if ans.written is not None else _given_text(given, decs)
    finest = max((int(x) for x in decs.flat if x >= 0), default=0)
    expected = _rounded(true, max(truth.decimals, finest))  # 0.000014 for an answer written 0.000001
    shown_expected = fmt_array(true, max(truth.decimals, finest))  # 1.000 for 0.99997, 0.6 for 0.6

    open_ = np.array(np.isnan(given), dtype=bool)  # entries written "?": not graded, so they match anything
    size = int(given.size)

    def matches(target: np.ndarray | None, units: float = 0.5, chain_decimals: int | None = None) -> np.ndarray:
        """Entries of the answer that are ``target`` as written. A hand chain rounded to
        ``chain_decimals`` is matched only by entries written to at most that many decimals: 0.500
        is not the 1-decimal chain's 0.5 (a student who wrote three decimals worked to three)."""
        if target is None or target.shape != given.shape:
            return open_.copy()
        out = open_.copy()
        for idx in np.ndindex(*given.shape):
            if open_[idx] or (chain_decimals is not None and int(decs[idx]) >= 0 and int(decs[idx]) > chain_decimals):
                continue
            out[idx] = tol.close(float(given[idx]), float(target[idx]), int(decs[idx]), units)
        return out

    precisions = sorted({int(x) for x in decs.flat if x >= 0})
    shifts: tuple[str | None, ...] = (None, *SHIFTS)

    # an answerer who kept full precision after an earlier error: the later steps recomputed from the
    # wrong answers alone (the carried and correct ones left out, so recomputed unrounded)
    unrounded = frozenset(
        k for k, v in status.items() if v != "wrong"
    )  # (wrong answers: their right entries unrounded)

    def agree(overrides: bool) -> tuple[np.ndarray, bool]:
        """Entries matching the true (or the answerer's own) chain, exact or hand-rounded; and whether
        one variant (the maximum subtracted or not, as the answerer chose) matches every entry."""
        best = np.zeros(given.shape, dtype=bool)
        whole = False
        for maybe in shifts:  # exponentials with or without the maximum subtracted are both right
            hit = matches(true) if maybe is None and not overrides else np.zeros(given.shape, dtype=bool)
            hit |= matches(runs.value(ans.id, "float", overrides=overrides, shift=maybe))
            if overrides and unrounded:
                hit |= matches(
                    runs.value(ans.id, "float", overrides=True, shift=maybe, without=unrounded, patched=True)
                )
            for k in precisions:
                hit |= matches(runs.value(ans.id, "hand", k, overrides=overrides, shift=maybe), chain_decimals=k)
            if maybe is None or hit.sum() > best.sum():  # judge entries by the variant followed most
                best = hit
            whole = whole or bool(hit.all())
        return best, whole

    ok, ok_whole = agree(overrides=False)
    answered = int((~open_).sum())
    if ok_whole:
        exact_truth = matches(true).all() or any(
            matches(runs.value(ans.id, "float", shift=maybe)).all() for maybe in SHIFTS
        )
        note = (
            ""
            if exact_truth
            else (
                "Matches the hand chain (every step rounded and carried forward); unrounded it is "
                f"{_fmt_nested(expected)}."
            )
        )
        return StepResult(
            ans.id,
            step.title,
            "correct",
            _nested(given),
            expected,
            [],
            note,
            given_shown=shown_given,
            expected_shown=shown_expected,
            right=answered,
            entries=size,
        )

    mine, mine_whole = agree(overrides=True)
    earlier_wrong = [k for k, v in status.items() if v != "correct"]
    if mine_whole or (ok | mine).all():
        if not earlier_wrong:
            note = "Consistent with your own rounded earlier answers."
            return StepResult(
                ans.id,
                step.title,
                "correct",
                _nested(given),
                expected,
                [],
                note,
                given_shown=shown_given,
                expected_shown=shown_expected,
                right=answered,
                entries=size,
            )
        began = _began_at(ans.id, runs, status) or earlier_wrong[0]
        note = f"Right given your earlier answers; the error began at {began}."
        return StepResult(
            ans.id,
            step.title,
            "carried",
            _nested(given),
            expected,
            [],
            note,
            began_at=began,
            given_shown=shown_given,
            expected_shown=shown_expected,
            right=int((ok & ~open_).sum()),
            carried_right=int((mine & ~ok & ~open_).sum()),
            entries=size,
        )

    bad = ~(ok | mine)
    # for later steps recomputed unrounded: this answer's right entries at their true value
    runs.patched[ans.id] = np.where(ok | open_, true, given)
    wrong_entries = [[int(i) for i in idx] for idx in zip(*np.nonzero(bad), strict=True)] if given.ndim else [[]]
    named = _named_mistake(ans.id, given, true, runs, matches)
    if named is not None:
        note = f"It looks like {mistake_note(named[0], named[1], runs.problem, ans.id)}."
    else:
        note = _slip_note(ans, step, runs, bad, truth.decimals)
    return StepResult(
        ans.id,
        step.title,
        "wrong",
        _nested(given),
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


def _began_at(step_id: str, runs: Runs, status: dict[str, str]) -> str | None:
    """The wrong earlier answer a carried step rests on: the first one whose leaving out changes the
    step recomputed from the answerer's answers (the carried ones left out too, so that an error
    reaches this step through them). Not simply the first error in the file: a slip in head 1 is not
    where head 2's error began."""
    wrong = [k for k, v in status.items() if v == "wrong"]
    if not wrong:
        return None
    carried = frozenset(k for k, v in status.items() if v == "carried")
    base = grading.own_value(step_id, runs, carried)
    if base is None:
        return wrong[0]
    for w in wrong:
        other = grading.own_value(step_id, runs, carried | {w})
        if other is not None and not grading.same_value(base, other):
            return w
    return wrong[0]


def _mistake_args(problem: Problem, name: str) -> list[int | None]:
    """The arguments a slip is tried with: every vocabulary row for ``wrong_vocab_row``, else none."""
    if name != "wrong_vocab_row":
        return [None]
    out = problem.recurrent.output if problem.recurrent else (problem.seq2seq.output if problem.seq2seq else None)
    return list(range(out.W_out.shape[0])) if out is not None and out.targets is not None else []


def _named_mistake(
    step_id: str, given: np.ndarray, true: np.ndarray, runs: Runs, matches: Any
) -> tuple[str, int | None] | None:
    """The first usual slip that changes this step and reproduces the answer (and its argument)."""
    for name in MISTAKES:
        for arg in _mistake_args(runs.problem, name):
            for overrides in (True, False):
                v = runs.value(step_id, "float", overrides=overrides, mistake=name, arg=arg)
                plain = runs.value(step_id, "float", overrides=overrides)
                if v is None or plain is None or v.shape != true.shape:
                    continue
                answered = ~np.isnan(given)
                if np.allclose(v[answered], plain[answered], rtol=1e-9, atol=1e-12):  # no difference where answered
                    continue
                if matches(v, units=1.0).all():
                    return name, arg
    return None
