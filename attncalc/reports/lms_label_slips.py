"""A named slip's labels in a quiz's choice questions: a slip made at a label step (a bpe merge chosen with
the other tie rule) and the labels that follow from a slip made earlier (the words cut by that merge, the
merges and tokens after it, a prediction from slipped probabilities).

``check`` charges a slip once, at the step where it is made (the ``[grading]`` slip share), and carries
every later step that follows from it ("consistent with your own earlier answers"); a choice question
lists the slip's label at the slip share where it is made and the labels of its chain at full marks, as
the numbers of its chain are (:mod:`attncalc.reports.lms_slip_chain`). Two chains are listed: the slip
made at every step it applies to (the hand chain with the slip on), and the slip made once, at its first
step, on the key of the steps before it, every later step worked right from there (a student who breaks
one tie the other way and works on correctly). A label the slip makes afresh at a step from the true
earlier values keeps the slip share, also where a chain reaches it (as a number does)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..check.asked import by_rank
from ..derivation import Derivation, Tokens

Labelled = tuple[Any, str, bool]  # the slipped step (its value and labels), the note, carried (full marks)


def label_slips(
    d: Derivation, decimals: int, plain: Any
) -> tuple[dict[str, list[Labelled]], dict[str, list[tuple[str, Any, np.ndarray, np.ndarray]]]]:
    """Per label step, the slipped steps whose labels a choice lists (made here: the slip share; following
    from a slip made earlier: full marks); and per number step, the values of the once-made chain after
    a slip first made at a label step (full marks, as :func:`attncalc.reports.lms.slips_in_chains` gives
    numbers: slip, argument, values, carried per entry)."""
    from ..check.notes import mistake_note
    from ..check.slips import mistake_args
    from ..kinds.mistakes import every_mistake
    from .lms_numbers import carried_at

    p = d.problem
    truth = plain.get("float")
    if truth is None:
        return {}, {}
    steps = truth[1]
    order = list(steps)
    # the steps of tokens (bpe's merges, words, merges, vocabulary, encodings), whose options are built
    # around the key: a prediction over a vocabulary of a few labels is left as it is (its slips' labels
    # would make most of its options right, docs/lms.md)
    # and a list of labels asked rank by rank among many (a beam search's kept beams: every candidate), whose
    # chain's label at a rank is one option of many
    labels = [k for k in order if isinstance(steps[k], Tokens) or by_rank(steps[k])]
    if not labels:
        return {}, {}
    out: dict[str, list[Labelled]] = {}
    numbers: dict[str, list[tuple[str, Any, np.ndarray, np.ndarray]]] = {}
    for name in every_mistake():
        for arg in mistake_args(p, name):
            made_here: dict[str, str] = {}
            for k in labels:  # the slip made at this step on the key of the steps before it: the slip share
                fresh = _from_key(p, decimals, order, truth, k, (name, arg))
                s = fresh[1].get(k) if fresh is not None else None
                if s is not None and isinstance(s.value, str) and s.value != steps[k].value:
                    made_here[k] = s.value
                    out.setdefault(k, []).append((s, f"It looks like {mistake_note(name, arg, p, k)}.", False))
            slipped = plain.get("hand", decimals, mistake=name, arg=arg)
            if slipped is None:
                continue
            first = _first_change(order, steps, truth[0], slipped)
            if first is None:
                continue
            once = _once(p, decimals, order, truth, first, slipped)
            for run in (slipped, once):
                if run is None:
                    continue
                for j in order[order.index(first) + 1 :]:
                    s = run[1].get(j)
                    if s is None:
                        continue
                    if isinstance(s.value, str):
                        if j in labels and s.value != steps[j].value and s.value != made_here.get(j):
                            note = (
                                f"This follows from an earlier step where it looks like "
                                f"{mistake_note(name, arg, p, first)}: {carried_at(p.grading.carried)}."
                            )
                            out.setdefault(j, []).append((s, note, True))
                    elif run is once and first in labels and j in run[0]:
                        v = np.ravel(np.asarray(as_step_of(run, j), dtype=float))
                        numbers.setdefault(j, []).append((name, arg, v, np.ones(v.size, dtype=bool)))
    return out, numbers


def as_step_of(run: Any, step_id: str) -> np.ndarray:
    """A step's value in a run (its values and steps), shaped as the step."""
    from ..check.runs import as_step

    return as_step(run[0][step_id], run[1].get(step_id))


def _first_change(order: list[str], steps: dict[str, Any], computed: dict[str, Any], run: Any) -> str | None:
    """The first step whose value the slipped run changes (a label, or a number beyond rounding error)."""
    for k in order:
        s = run[1].get(k)
        if s is None or k not in run[0]:
            continue
        if isinstance(steps[k].value, str):
            if s.value != steps[k].value:
                return k
            continue
        v, t = as_step_of(run, k), as_step_of((computed, steps), k)
        if v.shape != t.shape or not np.allclose(v, t, rtol=1e-6, atol=1e-9, equal_nan=True):
            return k
    return None


def _from_key(p: Any, decimals: int, order: list[str], truth: Any, at: str, slip: tuple[str, Any]) -> Any:
    """The run with the slip on, every step before ``at`` carried in at its key (numbers rounded to the
    asked decimals, the true labels): its step ``at`` is the slip made there, on the key. (A run stopped
    at a label step keeps only the label's code, so the run goes on to the end.)"""
    from ..check.runs import Runs

    try:
        return Runs(p, _key_answers(decimals, order[: order.index(at)], truth)).get(
            "float", decimals, overrides=True, mistake=slip[0], arg=slip[1]
        )
    except Exception:
        return None


def _key_answers(decimals: int, steps: list[str], run: Any) -> list[Any]:
    """A run's steps as answers: its numbers rounded to the asked decimals, its labels as they are."""
    from ..check.answers import Answer
    from ..derivation.arith import round_half_up

    def rounded(x: np.ndarray) -> np.ndarray:
        return np.vectorize(lambda v: round_half_up(float(v), decimals), otypes=[float])(x) if x.size else x

    out = []
    for k in steps:
        s = run[1].get(k)
        if s is None or k not in run[0]:
            continue
        value = s.value if isinstance(s.value, str) else rounded(np.asarray(as_step_of(run, k), dtype=float))
        out.append(Answer(k, value, None))
    return out


def _once(p: Any, decimals: int, order: list[str], truth: Any, first: str, slipped: Any) -> Any:
    """The run of a student who makes the slip once, at ``first``, on the key of the steps before it (the
    true values rounded to the asked decimals; the true labels), and works every later step right from
    the slipped value: a run of check's with those answers carried in."""
    from ..check.runs import Runs

    answers = _key_answers(decimals, order[: order.index(first)], truth) + _key_answers(decimals, [first], slipped)
    try:
        return Runs(p, answers).get("float", decimals, overrides=True)
    except Exception:
        return None


def with_slips(choices: tuple[Any, ...], slipped: list[Labelled], carried_less: bool = False) -> tuple[Any, ...]:
    """The step's choices with the slips' labels among their options: one choice of the whole value (a
    merge, an encoded word), or one per rank (the items of a list); a label already right is left right,
    and one listed already keeps its first grade (a label made here keeps the slip share), but where a
    chain reaches it and the carried share is the lesser (``carried_less``), that share."""
    out = []
    for r, c in enumerate(choices):
        extra: list[tuple[str, str, bool]] = list(c.slips)
        for s, note, carried in sorted(slipped, key=lambda x: x[2]):  # made here (the share) first
            items = tuple(getattr(s, "labels", ()) or ())
            by_rank = ", rank " in c.label  # a list asked rank by rank (one rank: speculative's output of one)
            if len(choices) == 1 and not by_rank:  # the whole value: a label, a merge, an encoded word
                option = str(s.value)
            elif len(items) == len(choices):  # a list asked rank by rank (never a chain's whole list)
                option = str(items[r])
            else:
                continue
            if option in c.correct:
                continue
            listed = [k for k, (o, _, _) in enumerate(extra) if o == option]
            if listed:
                if carried and carried_less and not extra[listed[0]][2]:
                    extra[listed[0]] = (option, note, carried)
                continue
            extra.append((option, note, carried))
        options = c.options + tuple(o for o, _, _ in extra if o not in c.options)
        # at least one option earns nothing (a choice whose every option earns marks asks nothing); the slips
        # past that are left options at 0 (made here first, then carried)
        room = max(0, len(options) - 1 - len(c.correct))
        out.append(dataclasses.replace(c, options=options, slips=tuple(extra[:room])))
    return tuple(out)


def places(
    d: Derivation, step: Any, named: list[tuple[str, Any, np.ndarray, np.ndarray]], start: int, slots: int
) -> list[Any]:
    """A bpe pair table's places past the true pairs (answered 0 by the key): each with the values a slip's
    chain puts there (its own pairs, more than the true ones), at full marks where they follow from the
    slip made earlier, as check carries a table of the student's own pairs."""
    from ..check.notes import mistake_note
    from ..derivation.fmt import entry_label
    from .lms_numbers import Number, Slip, carried_at

    out = []
    for k in range(start, slots):
        found: list[Slip] = []
        for name, arg, v, carried in named:
            if k < v.size and carried[k] and float(v[k]) != 0 and all(f.value != f"{v[k]:.0f}" for f in found):
                note = mistake_note(name, arg, d.problem, step.id)
                share = d.problem.grading.carried
                text = f"This follows from an earlier step where it looks like {note}: {carried_at(share)}."
                found.append(Slip(f"{float(v[k]):.0f}", name, text, carried=True))
        out.append(Number(entry_label(step.symbol, (k,)), "0", ("0",), tuple(found)))
    return out
