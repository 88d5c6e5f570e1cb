"""Steps graded entry by entry as a quiz asks them (``[grading] partial``: each entry its own question in an
LMS quiz, so that the quiz and ``check`` total alike).

A list of labels asked rank by rank (bpe's words after a merge, its learned merges and vocabulary, a beam
search's kept beams, speculative decoding's output; :func:`attncalc.reports.lms._choices`): an item equal
to the true one at its rank is right, one equal to what the student's own earlier answers give there is
carried, any other wrong. An encoded word (bpe's ``encode.i``) is one answer, as the quiz asks it: its
tokens are a cut of one word, not items of their own.

A bpe pair table after merge 1 (:func:`by_place`): asked at every adjacent place of the corpus's words
(:func:`attncalc.render.asked.pair_slots`, so that the number of fields does not say how many pairs there
are), each place past the student's last pair answered 0, as the page and the quiz ask it."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from ..derivation import Argmax, Tokens
from .answers import UNANSWERED, Answer
from .report import StepResult


def by_rank(step: Any) -> bool:
    """Whether a label step is a list asked rank by rank (its labels its items, its value their list)."""
    if not isinstance(step, Argmax) or len(step.labels) < 2 or str(step.value) in step.labels:
        return False
    return not re.fullmatch(r"encode\.[0-9]+", step.id)


def _items(ans: Answer, step: Argmax) -> list[str] | None:
    """The answer's items, one a rank, or None where they cannot be told apart (a token holding ", ")."""
    if isinstance(step, Tokens):
        return list(ans.items) if ans.items is not None else None
    if any(", " in label for label in step.labels):
        return None
    return str(ans.values).split(", ")


def by_item(r: StepResult, ans: Answer, step: Any, own: Any) -> StepResult:
    """``r`` (the list graded whole) with its items counted: ``right`` those equal to the true item at their
    rank, ``carried_right`` those that are not but equal the student's own (``own``: the step worked from
    their earlier answers, or None), the others its wrong entries. A list of another length, or one
    already graded item by item (some items "?"), is left as it is."""
    if r.verdict == "correct" or r.entries > 1 or not by_rank(step):
        return r
    items, truth = _items(ans, step), list(step.labels)
    if items is None or len(items) != len(truth) or UNANSWERED in items:
        return r
    mine = list(getattr(own, "labels", ()) or ())
    theirs = mine if len(mine) == len(truth) and isinstance(own, Argmax) else [None] * len(truth)
    right = [g == t for g, t in zip(items, truth, strict=True)]
    carried = [not ok and g == o for g, o, ok in zip(items, theirs, right, strict=True)]
    if r.verdict == "carried":  # (the whole list is the student's own: every item not true is carried)
        carried = [not ok for ok in right]
    wrong = [[i] for i, (ok, c) in enumerate(zip(right, carried, strict=True)) if not ok and not c]
    return dataclasses.replace(
        r,
        given_shown=items,
        expected_shown=truth,
        entries=len(truth),
        right=sum(right),
        carried_right=sum(carried),
        wrong_entries=wrong if r.verdict == "wrong" and wrong else r.wrong_entries,
    )


def by_place(r: StepResult, ans: Answer, step: Any, slots: int, own: np.ndarray | None) -> StepResult:
    """``r`` (a bpe pair table after merge 1) over its ``slots`` places: the student's counts, then 0 at each
    place past their last pair (answered, though not written); the true counts, then 0. A place is right
    where the two agree, carried where it is what the student's own earlier answers give (``own``, padded
    with 0, or the whole table where ``r`` is carried), else wrong."""
    given = np.ravel(np.asarray(ans.values, dtype=float))
    truth = np.ravel(np.asarray(step.value, dtype=float))
    if slots <= truth.size or given.size > slots or r.entries != given.size:
        return r
    written = np.flatnonzero(~np.isnan(given))
    length = int(written[-1]) + 1 if written.size else 0  # the student's table: up to their last count

    def padded(x: np.ndarray, n: int) -> np.ndarray:
        return np.concatenate([x[:n], np.zeros(max(0, slots - n))])

    mine = np.concatenate([given[:length], np.zeros(slots - length)])
    true = padded(truth, truth.size)
    answered = ~np.isnan(mine)
    right = answered & (mine == true)
    if r.verdict == "carried":
        carried = answered & ~right
    else:
        carried = np.zeros(slots, dtype=bool)
        if own is not None:
            theirs = np.ravel(np.asarray(own, dtype=float))
            if theirs.size <= slots:
                carried = answered & ~right & (mine == padded(theirs, theirs.size))
    wrong = [[int(i)] for i in np.flatnonzero(answered & ~right & ~carried) if i < given.size]
    return dataclasses.replace(
        r,
        entries=slots,
        right=int(right.sum()),
        carried_right=int(carried.sum()),
        implied=slots - given.size + int(np.isnan(given[length:]).sum()),
        wrong_entries=wrong if r.verdict == "wrong" and wrong else r.wrong_entries,
    )
