"""Grading an answer that is a label (a prediction, a merge, a word's tokens, a draw): correct, carried
from the student's own earlier answers (or a slip named at one of them), or wrong with the usual
slips tried; a table only the student's own labels give its shape (:func:`grade_own_shape`); and
:class:`Context`, what grading one step knows of the others."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..derivation import Argmax, Pick, Step, Tokens
from .answers import UNANSWERED, Answer, Tolerance
from .asked import by_item, by_rank
from .labels import carried_by_slip, label_slip
from .notes import mistake_note
from .report import StepResult
from .runs import Runs
from .slips import began_at
from .tokens import items_match, open_items

Slip = tuple[str, int | None]


@dataclass(frozen=True)
class Context:
    """What grading one step knows of the others: the earlier answers (not correct) it rests on, the
    slips named so far, and the answers by id that are evidence of how the student worked (every
    answer but the wrong ones no slip explains)."""

    above: list[str]
    named: dict[str, tuple[str, int | None]]
    answers: Mapping[str, Answer]


class Evidence(Mapping[str, Answer]):
    """The answers that are evidence of how the student worked, read when asked (only a slip's search
    reads them): every answer but those graded wrong with no slip named. A copy made for each of
    45,000 answers made grading them quadratic."""

    def __init__(self, by_id: dict[str, Answer], status: dict[str, str], named: dict[str, Slip]) -> None:
        self._by_id, self._status, self._named = by_id, status, named

    def _counts(self, k: str) -> bool:
        return self._status.get(k) != "wrong" or k in self._named

    def __getitem__(self, k: str) -> Answer:
        if k in self._by_id and self._counts(k):
            return self._by_id[k]
        raise KeyError(k)

    def __iter__(self) -> Iterator[str]:
        return (k for k in self._by_id if self._counts(k))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def grade_prediction(
    ans: Answer, step: Step, runs: Runs, status: dict[str, str], above: list[str], ctx: Context, tol: Tolerance
) -> StepResult:
    """A label, or a list of labels (item by item where it is asked rank by rank: :mod:`.ranks`)."""
    r = _grade_label(ans, step, runs, status, above, ctx, tol)
    if r.verdict != "wrong" or not by_rank(step):
        return by_item(r, ans, step, None)
    got = runs.get("float", overrides=True, without=frozenset({ans.id})) if above else None
    return by_item(r, ans, step, got[1].get(ans.id) if got else None)


def _grade_label(
    ans: Answer, step: Step, runs: Runs, status: dict[str, str], above: list[str], ctx: Context, tol: Tolerance
) -> StepResult:
    assert isinstance(step, Argmax)
    if isinstance(step, Tokens) and open_items(ans.items):
        return _grade_open_items(ans, step, runs, status, above)
    given = str(ans.values)
    tied = step.tied()
    if given in tied and len(tied) > 1:  # any of the tied tokens is the prediction
        note = f"The probabilities of {', '.join(tied)} tie; any of them is the prediction."
        return StepResult(ans.id, step.title, "correct", given, step.value, [], note, given_shown=given, right=1)
    if given == step.value:
        note = ""
        if isinstance(step, Pick) and step.u is not None:  # a draw: their own running sums may draw another
            own = _own_label(ans, runs)
            if own is not None and own != given:
                note = f"Right; from your own earlier answers the draw u gives {own}."
        return StepResult(ans.id, step.title, "correct", given, step.value, [], note, given_shown=given, right=1)
    followed = _from_own_answers(ans, step, runs, status, above, given)
    if followed is not None:
        return followed
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
        own = _own_label(ans, runs)
        if own is not None and own not in (str(step.value), given):  # their own numbers give another
            note = f"{step.title}, from your own earlier answers: {own}, not {given} (unrounded: {step.value})."
    elif isinstance(step, Pick):  # a draw or a beam search chooses otherwise than by the largest probability
        how = "the draw u" if step.u is not None else "the beam search"
        note = f"{how.capitalize()} gives {step.value}, not {given}."
        own = _own_label(ans, runs)
        if own is not None and own != str(step.value):  # their own numbers choose otherwise than the truth
            note = f"From your own earlier answers {how} gives {own}, not {given} (unrounded: {step.value})."
    else:
        note = f"The largest probability belongs to {step.value}, not {given}."
    return StepResult(ans.id, step.title, "wrong", given, step.value, [[]], note, given_shown=given)


def _from_own_answers(
    ans: Answer, step: Argmax, runs: Runs, status: dict[str, str], above: list[str], given: str
) -> StepResult | None:
    """A label the student's own earlier answers give: carried from a wrong one it rests on (numbers,
    or an earlier label of theirs), or correct when the answers it uses are all right, some only as
    rounded (a hand chain). None when their answers do not give it."""
    mine = runs.get("float", overrides=True)
    theirs = mine[1].get(ans.id) if mine else None
    # the student's own largest probability, or one of their own tied ones
    if isinstance(theirs, Argmax) and (theirs.value == given or given in theirs.tied()) and above:
        began = began_at(ans.id, runs, status, above)
        note = (
            f"Right given your earlier answers; the true answer is {step.value}."
            if isinstance(step, Tokens)
            else f"Right given your earlier answers (the error began at {began}); the true answer is {step.value}."
        )
        return _carried_pick(ans.id, step, given, note, began)
    if above:
        return None
    not_right = frozenset(k for k, v in status.items() if v != "correct")
    if _own_label_gives(ans, runs, given, not_right):
        note = f"Consistent with your own rounded earlier answers; unrounded it is {step.value}."
        return StepResult(ans.id, step.title, "correct", given, step.value, [], note, given_shown=given, right=1)
    # a label resting on an earlier label of theirs that is not right (a drawn token, then the output)
    labels_above = [k for k in not_right if k in runs.labels and _own_label_gives(ans, runs, given, frozenset())]
    began_label = next((k for k in labels_above if not _own_label_gives(ans, runs, given, frozenset({k}))), None)
    if began_label is None:
        return None
    note = f"Right given your earlier answers (the error began at {began_label}); the true answer is {step.value}."
    return _carried_pick(ans.id, step, given, note, began_label)


def _own_label(ans: Answer, runs: Runs) -> str | None:
    """The label the answerer's own earlier answers, as written, give this step (None without any)."""
    if not any(k != ans.id for k in (*runs.overrides, *runs.labels)):
        return None
    got = runs.get("float", overrides=True, without=frozenset({ans.id}))
    theirs = got[1].get(ans.id) if got else None
    return str(theirs.value) if isinstance(theirs, Argmax) else None


def _own_label_gives(ans: Answer, runs: Runs, given: str, leave: frozenset[str]) -> bool:
    """Whether the answerer's own earlier answers, as written (this one and ``leave`` left out), give
    this label."""
    if not any(k != ans.id and k not in leave for k in (*runs.overrides, *runs.labels)):
        return False
    got = runs.get("float", overrides=True, without=leave | {ans.id})
    theirs = got[1].get(ans.id) if got else None
    return isinstance(theirs, Argmax) and (theirs.value == given or given in theirs.tied())


def _grade_open_items(ans: Answer, step: Tokens, runs: Runs, status: dict[str, str], above: list[str]) -> StepResult:
    """A list of tokens with some items written "?", as numbers with some entries "?" are graded: the
    answered items against the true ones (correct: the share answered earns), else against the
    student's own earlier answers (carried), else wrong. No slip is named from part of a list."""
    assert ans.items is not None
    items, truth = list(ans.items), list(step.labels)
    size = len(truth)
    answered = sum(1 for x in items if x != UNANSWERED)
    if items_match(ans.items, step.labels):
        return StepResult(
            ans.id, step.title, "correct", str(ans.values), step.value, [], "",
            given_shown=items, expected_shown=truth, right=answered, entries=size,
        )  # fmt: skip
    mine = runs.get("float", overrides=True) if above else None
    theirs = mine[1].get(ans.id) if mine else None
    if isinstance(theirs, Tokens) and items_match(ans.items, theirs.labels):
        began = began_at(ans.id, runs, status, above)
        note = f"Right given your earlier answers; the true answer is {step.value}."
        return StepResult(
            ans.id, step.title, "carried", str(ans.values), step.value, [], note, began_at=began,
            given_shown=items, expected_shown=truth, carried_right=answered, entries=size,
        )  # fmt: skip
    wrong = [[i] for i, (g, t) in enumerate(zip(items, truth, strict=False)) if g != UNANSWERED and g != t]
    note = f"{step.title}: {step.value}, not {ans.values}." + (f" {step.note}" if step.note else "")
    if len(items) != size:
        note = f"This lists {len(items)} items; the step has {size}."
        return StepResult(
            ans.id, step.title, "wrong", str(ans.values), step.value, [[]], note, given_shown=str(ans.values)
        )
    right = sum(1 for g, t in zip(items, truth, strict=True) if g != UNANSWERED and g == t)
    return StepResult(
        ans.id, step.title, "wrong", str(ans.values), step.value, wrong, note,
        given_shown=items, expected_shown=truth, entries=size, right=right if by_rank(step) else 0,
    )  # fmt: skip


def _carried_pick(step_id: str, step: Any, given: Any, note: str, began: str | None) -> StepResult:
    """A chosen token (a prediction, a merge) right given the student's own earlier answers."""
    return StepResult(
        step_id, step.title, "carried", given, step.value, [], note, began_at=began, given_shown=given, carried_right=1
    )


def grade_own_shape(
    ans: Answer, step: Step, runs: Runs, status: dict[str, str], tol: Tolerance, named: dict[str, Slip]
) -> StepResult:
    """A table whose shape only the student's own earlier labels give (after a wrong merge, the pair
    counts of the student's words): never correct; carried when every entry is the step worked from
    the student's own answers at the precision written (with a slip named earlier, carried on: it is
    charged once, there), else wrong, with the entries that differ said."""
    given = np.asarray(ans.values, dtype=float)
    decs = np.broadcast_to(np.asarray(ans.decimals), given.shape)
    true_shape = np.shape(step.value)
    given_list, expected = given.tolist(), np.asarray(step.value, dtype=float).tolist()
    labels = [k for k, v in status.items() if v != "correct" and runs.is_label(k)]
    began = labels[-1] if labels else None
    size = int(given.size)
    shown = ans.written if ans.written is not None else given_list

    def fits(value: Any) -> bool:
        return (
            value is not None
            and np.shape(value) == given.shape
            and all(
                np.isnan(g) or tol.close(float(g), float(o), int(d))
                for g, o, d in zip(given.ravel(), np.asarray(value, dtype=float).ravel(), decs.ravel(), strict=True)
            )
        )

    def carried(note: str, at: str, mistake: str | None = None) -> StepResult:
        return StepResult(
            ans.id, step.title, "carried", given_list, expected, [], note, began_at=at, mistake=mistake,
            given_shown=shown, carried_right=size, entries=size,
        )  # fmt: skip

    own = runs.value(ans.id, "float", overrides=True, without=frozenset({ans.id}))
    longer = f"worked from the true ones it has {_entries(true_shape)}"
    if began is not None and fits(own):
        return carried(f"Right given your earlier answers (your {began}); {longer}.", began)
    firsts: dict[Slip, str] = {}
    for k, slip in named.items():  # each slip named so far, at the first step it was named
        firsts.setdefault(slip, k)
    for (name, arg), first in firsts.items():
        if fits(runs.value(ans.id, "float", overrides=True, mistake=name, arg=arg, without=frozenset({ans.id}))):
            note = f"The same slip as at {first}: {mistake_note(name, arg, runs.problem, ans.id)}; it is charged once, there."
            return carried(note, first, name)
    if own is not None and np.shape(own) == given.shape:
        mine = np.asarray(own, dtype=float)
        off = [
            i for i, (g, o) in enumerate(zip(given.ravel(), mine.ravel(), strict=True)) if not np.isnan(g) and g != o
        ]
        said = "; ".join(
            f"entry {i + 1}: your own earlier answers give {mine.ravel()[i]:g}, not {given.ravel()[i]:g}"
            for i in off[:3]
        )
        note = f"{said[0].upper()}{said[1:]}{' …' if len(off) > 3 else ''}."
    else:
        mine_n = f"; from your own earlier answers it has {_entries(np.shape(own))}" if own is not None else ""
        note = f"This has {_entries(given.shape)}; {longer.replace('ones', 'answers')}{mine_n}."
    return StepResult(ans.id, step.title, "wrong", given_list, expected, [[]], note, given_shown=shown, entries=size)


def _entries(shape: tuple[int, ...]) -> str:
    n = int(np.prod(shape)) if shape else 1
    return f"{n} {'entry' if n == 1 else 'entries'}"
