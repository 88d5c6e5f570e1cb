"""The ceiling on what one ``attncalc check`` of an answers file may cost, checked before grading.

Grading an answer that is the true value as written costs a comparison. Grading one that is not
recomputes the step from the answerer's own earlier answers, with the usual slips, in the hand chain
at each precision written, and finds which later steps depend on it: runs of the problem's mechanism,
each as long as the problem's derivation. So the work grows with the steps answered otherwise than
the true value, times the problem's size (its steps, and the numbers they compute); an answers file
whose work passes :data:`MAX_WORK` (or
whose answered entries pass :data:`MAX_ANSWERED`) is refused up front, in one line naming the file
and the limit, before anything is recomputed (exit 2; the practice page answers it as bad input,
422). The counts are of work, not time: the same file is refused on every machine.

A step answered with a label or tokens otherwise than the truth costs more: each usual slip is tried
on it in a whole run of its own (:func:`label_runs`), and a BPE run's work is mostly the words it
rewrites at each merge (:func:`size` counts the characters of tokens written). A slip tried with
several arguments (``wrong_vocab_row``: every vocabulary row) runs once per argument: a step answered
with numbers costs a quarter of the size more for each (:func:`slip_fanout`, :func:`number_units`).

The limits admit a worked example many times over: every count of a 100-word, 50-merge BPE problem
answered wrong (51 steps of a problem of 498 units: 25,398; about 3 s of one core), or 16 of its token
steps (16 × 5 × 498 = 39,840; 6 to 10 s), or every step of an 8-head, 12-token backward pass (145 ×
166 = 24,070), or of a 256-token self-attention (10 × 2,566 = 25,660; about 9 s). They refuse every
step answered wrong of that BPE problem (498 × (51 + 5 × 122) = 329,178 units; with its tokens
altered it took 2 minutes and 4 GB), of a 32-head, 45-token backward pass (529 × 1,745 = 923,105
units), which took minutes and gigabytes, or of a 64-token, 8-head encoder layer with d_ff = 256 (91 ×
3,921 = 356,811; about 50 s of one core).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ProblemError

if TYPE_CHECKING:
    from ..derivation import Derivation
    from ..parse import Problem
    from .answers import Answer, Tolerance

MAX_ANSWERED = 1_000_000  # answered entries (numbers, and labels counted one each) in one answers file
MAX_WORK = 40_000  # answered steps not the true value as written, times the problem's size (size())


def answered_entries(answers: list[Answer]) -> int:
    """The entries answered (an entry written "?" is not; a label is one)."""
    total = 0
    for a in answers:
        if isinstance(a.values, str):
            total += 1
        else:
            total += int(np.count_nonzero(~np.isnan(np.asarray(a.values, dtype=float))))
    return total


def as_written(ans: Answer, truth: Derivation, tol: Tolerance) -> bool:
    """Whether every answered entry is the true value at the precision it was written with (the first
    test ``check`` makes, after which a step costs nothing more)."""
    from .answers import close_all

    step = truth.step(ans.id)
    if isinstance(ans.values, str):
        return ans.values == str(step.value)
    given = np.asarray(ans.values, dtype=float)
    true = np.asarray(step.value, dtype=float)
    if true.shape != given.shape:
        return False
    decs = np.asarray(ans.decimals)
    units = 0.5 * (ans.scale if tol.plain else 1.0)  # a count written in GiB: to half its last place in GiB
    return bool((np.isnan(given) | close_all(tol, given, true, decs, units)).all())


def size(truth: Derivation) -> int:
    """What one run of the problem's mechanism costs, in units: a unit per step, and per thousand
    numbers the derivation computes, each entry of a product counting its multiplications (an entry of
    Q = X W_Q with d_model = 64 counts 64: a 64-token layer's feed-forward products are most of its run),
    and per thousand characters of tokens its token steps write (a BPE merge rewrites every word: the
    words as they stand after each merge are most of a BPE run)."""
    from ..derivation import Product, Tokens

    numbers = 0
    for s in truth.steps:
        if isinstance(s, Tokens):
            numbers += sum(len(t) for t in s.labels)
        if isinstance(s.value, str):
            continue
        n = int(np.size(s.value))
        if isinstance(s, Product) and np.ndim(s.left) >= 1:
            n *= max(1, int(np.shape(s.left)[-1]))
        numbers += n
    return len(truth.steps) + numbers // 1000


def slip_fanout(problem: Problem) -> int:
    """The whole runs of the problem, beyond one per usual slip, that a step answered with numbers other
    than the true ones costs: a slip tried with several arguments runs once per argument, in floats and
    in the hand chain (``wrong_vocab_row``: every vocabulary row of an output layer with targets, 64
    rows made a 256-step GRU's one wrong loss take 17 s; accounting: the other ZeRO stages)."""
    from ..kinds.mistakes import every_mistake
    from .slips import mistake_args

    return sum(max(0, len(mistake_args(problem, name)) - 1) for name in every_mistake())


def number_units(one: int, fanout: int) -> int:
    """The units of one step answered with numbers other than the true ones: the problem's size, and a
    quarter of it for each extra run of a slip's arguments (measured: a unit of size is about eight
    runs' worth of the usual checking; a slip's argument is two runs, in floats and in the hand chain)."""
    return one + one * fanout // 4


def label_runs(slips: int) -> int:
    """How many whole runs a step answered with a label or tokens other than the true ones costs: the
    answerer's own label recomputed, and each usual slip the problem's computation consults tried on it
    from the answerer's own earlier answers (a run each, to the end of the problem: a label is read off
    a finished run, and one with the step's own answer left out serves no other step)."""
    return 1 + slips


def costly_steps(answers: list[Answer], truth: Derivation, tol: Tolerance) -> tuple[int, int]:
    """The answered steps that are not the true value as written: those answered with numbers, and
    those answered with a label or tokens."""
    numbers = labels = 0
    for a in answers:
        if not as_written(a, truth, tol):
            labels += isinstance(a.values, str)
            numbers += not isinstance(a.values, str)
    return numbers, labels


def work(answers: list[Answer], truth: Derivation, tol: Tolerance, slips: int = 0, fanout: int = 0) -> tuple[int, int]:
    """The answered steps that are not the true value as written, and the work units they cost: each
    one answered with numbers :func:`number_units` (the problem's :func:`size`, more where a slip is
    tried with many arguments: ``fanout``), a label or tokens :func:`label_runs` times the size
    (``slips``: how many usual slips the problem's computation consults)."""
    numbers, labels = costly_steps(answers, truth, tol)
    one = size(truth)
    return numbers + labels, number_units(one, fanout) * numbers + one * label_runs(slips) * labels


def refuse_costly(
    answers: list[Answer],
    truth: Derivation,
    file: str,
    tol: Tolerance,
    slips: Callable[[], int] = lambda: 0,
    fanout: Callable[[], int] = lambda: 0,
) -> None:
    """Raise :class:`ProblemError` (naming ``file`` and the limit) when grading the answers would pass
    :data:`MAX_ANSWERED` answered entries or :data:`MAX_WORK` work units. ``slips`` gives how many usual
    slips the problem's computation consults (asked only when a label or tokens are answered otherwise
    than the true ones: it takes a run of the problem)."""
    entries = answered_entries(answers)
    if entries > MAX_ANSWERED:
        raise ProblemError(
            file,
            "",
            f"{entries:,} answered entries: check grades at most {MAX_ANSWERED:,} in one answers file "
            "(split the answers into several files)",
        )
    numbers, labels = costly_steps(answers, truth, tol)
    tried = slips() if labels else 0
    extra = fanout() if numbers else 0
    one = size(truth)
    each = number_units(one, extra)
    units = each * numbers + one * label_runs(tried) * labels
    if units > MAX_WORK:
        differ = "answered step differs" if numbers + labels == 1 else "answered steps differ"
        how = (
            f"; {labels:,} of them {'a label or tokens' if labels == 1 else 'labels or tokens'}, each "
            f"{label_runs(tried)} times that: once more for each of the {tried} usual slips tried on it"
            if labels
            else ""
        )
        if numbers and extra:
            how += (
                f"; {'one' if numbers == 1 else 'each'} answered with numbers {each:,} units, with {extra:,} more "
                "runs of a slip tried with each of its arguments (each vocabulary row of an output layer, each ZeRO stage)"
            )
        raise ProblemError(
            file,
            "",
            f"{numbers + labels:,} {differ} from the true value, each rechecked through the whole problem ({one:,} "
            "units: a unit per step, per 1,000 numbers computed, a product's entry counting its "
            f"multiplications, and per 1,000 characters of tokens written{how}): {units:,} units of work; "
            f"check does at most {MAX_WORK:,} for one answers file "
            "(answer fewer steps, or split the answers into several files)",
        )
