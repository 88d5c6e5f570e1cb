"""Grading an answer that is a label (a prediction, a merge, a word's tokens, a draw): correct, carried
from the student's own earlier answers (or a slip named at one of them), or wrong with the usual
slips tried; a table only the student's own labels give its shape (:func:`grade_own_shape`); and
:class:`Context`, what grading one step knows of the others."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .check_answers import Answer, Tolerance
from .check_labels import carried_by_slip, label_slip
from .check_notes import mistake_note
from .check_report import StepResult
from .check_runs import Runs
from .check_slips import began_at
from .derivation import Argmax, Pick, Step, Tokens


@dataclass(frozen=True)
class Context:
    """What grading one step knows of the others: the earlier answers (not correct) it rests on, the
    slips named so far, and the answers by id that are evidence of how the student worked (every
    answer but the wrong ones no slip explains)."""

    above: list[str]
    named: dict[str, tuple[str, int | None]]
    answers: dict[str, Answer]


def grade_prediction(
    ans: Answer, step: Step, runs: Runs, status: dict[str, str], above: list[str], ctx: Context, tol: Tolerance
) -> StepResult:
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
    # the student's own largest probability, or one of their own tied ones
    if isinstance(theirs, Argmax) and (theirs.value == given or given in theirs.tied()) and above:
        began = began_at(ans.id, runs, status, above)
        note = (
            f"Right given your earlier answers; the true answer is {step.value}."
            if isinstance(step, Tokens)
            else f"Right for your probabilities; the true prediction is {step.value}."
        )
        return _carried_pick(ans.id, step, given, note, began)
    # steps that hold tokens (kind bpe): the usual slips are tried on them too (a draw's or a beam's
    # label is left to its own note)
    tokens = isinstance(step, Tokens)
    earlier = list(dict.fromkeys(ctx.named[k] for k in above if k in ctx.named)) if tokens else []
    carried_slip = carried_by_slip(ans, runs, earlier) if earlier else None
    if carried_slip is not None:  # the slip named at an earlier answer, carried on
        began = began_at(ans.id, runs, status, above)
        note = f"Right given your earlier answers (the slip at {began} carried on); the true answer is {step.value}."
        return _carried_pick(ans.id, step, given, note, began)
    slip = label_slip(ans, str(step.value), runs, set(earlier), ctx.answers, tol) if tokens else None
    if slip is not None:
        ctx.named[ans.id] = slip
        note = f"It looks like {mistake_note(slip[0], slip[1], runs.problem, ans.id)}; the true answer is {step.value}."
        return StepResult(
            ans.id, step.title, "wrong", given, step.value, [[]], note, mistake=slip[0], given_shown=given
        )
    if tokens:  # a merge, a word's tokens: what the step gives (its note says how)
        note = f"{step.title}: {step.value}, not {given}." + (f" {step.note}" if step.note else "")
    elif isinstance(step, Pick):  # a draw or a beam search chooses otherwise than by the largest probability
        how = "the draw u" if step.u is not None else "the beam search"
        note = f"{how.capitalize()} gives {step.value}, not {given}."
    else:
        note = f"The largest probability belongs to {step.value}, not {given}."
    return StepResult(ans.id, step.title, "wrong", given, step.value, [[]], note, given_shown=given)


def _carried_pick(step_id: str, step: Any, given: Any, note: str, began: str | None) -> StepResult:
    """A chosen token (a prediction, a merge) right given the student's own earlier answers."""
    return StepResult(
        step_id, step.title, "carried", given, step.value, [], note, began_at=began, given_shown=given, carried_right=1
    )


def grade_own_shape(ans: Answer, step: Step, runs: Runs, status: dict[str, str], tol: Tolerance) -> StepResult:
    """A table whose shape only the student's own earlier labels give (after a wrong merge, the pair
    counts of the student's words): never correct; carried when every entry is the step worked from
    the student's own answers at the precision written, else wrong."""
    given = np.asarray(ans.values, dtype=float)
    decs = np.broadcast_to(np.asarray(ans.decimals), given.shape)
    own = runs.value(ans.id, "float", overrides=True, without=frozenset({ans.id}))
    true_shape = np.shape(step.value)
    given_list, expected = given.tolist(), np.asarray(step.value, dtype=float).tolist()
    labels = [k for k, v in status.items() if v != "correct" and runs.is_label(k)]
    began = labels[-1] if labels else None
    size = int(given.size)
    shown = ans.written if ans.written is not None else given_list
    if own is not None and np.shape(own) == given.shape and began is not None:
        own = np.asarray(own, dtype=float)
        if all(
            np.isnan(g) or tol.close(float(g), float(o), int(d))
            for g, o, d in zip(given.ravel(), own.ravel(), decs.ravel(), strict=True)
        ):
            note = (
                f"Right given your earlier answers (your {began}); worked from the true ones it has "
                f"{_entries(true_shape)}."
            )
            return StepResult(
                ans.id, step.title, "carried", given_list, expected, [], note, began_at=began,
                given_shown=shown, carried_right=size, entries=size,
            )  # fmt: skip
    mine = f"; from your own earlier answers it has {_entries(np.shape(own))}" if own is not None else ""
    note = f"This has {_entries(given.shape)}; worked from the true answers it has {_entries(true_shape)}{mine}."
    return StepResult(ans.id, step.title, "wrong", given_list, expected, [[]], note, given_shown=shown, entries=size)


def _entries(shape: tuple[int, ...]) -> str:
    n = int(np.prod(shape)) if shape else 1
    return f"{n} {'entry' if n == 1 else 'entries'}"
