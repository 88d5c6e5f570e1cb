"""The numbers of one step as a quiz asks them: each entry's label, the values accepted (the key and
what check's other chains reach: the maximum subtracted or not, rounded as it goes or not, carried from
the rounded key of the earlier steps) and the slips named with their feedback."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..derivation import Argmax, Derivation, Step
from ..derivation.arith import round_half_up
from ..derivation.fmt import entry_indices, entry_label
from ..kinds.mistakes import every_mistake

SHIFTS = (None, "never", "always")  # check accepts exponentials with or without the maximum subtracted
NEAR = 3  # units of the last decimal: a slip chain's value this close to the key keeps the slip share


@dataclass(frozen=True)
class Slip:
    value: str  # the slip's value at the asked decimals
    name: str  # its key in every_mistake()
    note: str  # check's words for it
    # a value that only follows from the slip made at an earlier step (the slip's chain): check carries it
    # at full marks, and so does the quiz (its note says so)
    carried: bool = False


@dataclass(frozen=True)
class Number:
    label: str  # e_2 (cat)
    key: str  # the answers file's value
    accepted: tuple[str, ...]  # every value worth full marks, the key first
    slips: tuple[Slip, ...] = ()
    masked: bool = False  # a −∞ (a masked score): nothing to ask


def fixed(x: float, decimals: int) -> str:
    """x rounded half away from zero, written with exactly ``decimals`` decimals."""
    return f"{round_half_up(float(x), decimals):.{decimals}f}"


def numbers(
    d: Derivation,
    step: Step,
    shown: Any,
    plain: Any,
    on_truth: Any,
    keyed: Any,
    carried: dict[Any, dict[str, np.ndarray]],
    named: list[tuple[str, Any, np.ndarray, np.ndarray]],
) -> list[Number]:
    """Every entry of the step, with its accepted values and named slips."""
    dec = d.decimals
    shape = np.shape(step.value)
    keys = [str(k) for k in np.ravel(np.asarray(shown, dtype=object))]
    chains = _chains(step, plain, keyed, carried, dec, shape)
    slips = _slips(d, step, on_truth, named, shape)
    half = 0.5 * 10.0**-dec
    # rows that name what a choice question asks (a beam search's kept beams, "beam 1: cat") would give it
    # away: those entries are asked by rank
    # (the problem's own labels in their own order, a vocabulary a token is drawn from, give nothing away)
    given = {tuple(x) for i in d.inputs for x in (getattr(i, "rows", None), getattr(i, "cols", None)) if x}
    answered = (
        step.rows is not None
        and tuple(step.rows) not in given
        and any(isinstance(a, Argmax) and tuple(a.labels) == tuple(step.rows) for a in d.steps)
    )
    out = []
    for i, (idx, key) in enumerate(zip(entry_indices(shape), keys, strict=True)):
        label = _label(d, step, idx, answered)
        if key in ("-inf", "inf", "nan"):
            out.append(Number(label, key, (), (), masked=True))
            continue
        accepted = _accepted(key, chains, i, dec)
        found = _found(slips, i, accepted, dec, half, d.problem.grading.carried, d.problem.grading.slip)
        out.append(Number(label, key, tuple(accepted), tuple(found)))
    return out


def _chains(
    step: Step,
    plain: Any,
    keyed: Any,
    carried: dict[Any, dict[str, np.ndarray]],
    dec: int,
    shape: tuple[int, ...],
) -> list[np.ndarray]:
    """The step's values (flattened) along every chain check accepts."""
    chains = []
    for shift in SHIFTS:
        for v in (plain.value(step.id, "hand", dec, shift=shift), plain.value(step.id, "float", shift=shift)):
            if v is not None and v.shape == shape:
                chains.append(np.ravel(v))
        v = carried[shift].get(step.id)
        if v is not None and v.shape == shape:
            chains.append(np.ravel(v))
        # from the rounded key of the earlier steps (the run stops at this step, so its own key and the
        # later ones are not carried in)
        for mode in ("float", "hand"):
            v = keyed.value(step.id, mode, dec, overrides=True, shift=shift, stop_after=step.id)
            if v is not None and v.shape == shape:
                chains.append(np.ravel(v))
    return chains


def _slips(
    d: Derivation,
    step: Step,
    on_truth: Any,
    named: list[tuple[str, Any, np.ndarray, np.ndarray]],
    shape: tuple[int, ...],
) -> list[tuple[str, str, np.ndarray, np.ndarray]]:
    """Each slip that moves this step: its name, its note, its values (flattened) and per entry whether the
    value only follows from the slip made at an earlier step (full marks)."""
    from ..check.notes import mistake_note
    from ..check.slips import mistake_args as _mistake_args

    slips: list[tuple[str, str, np.ndarray, np.ndarray]] = []
    runs = _slip_runs(d, on_truth)
    base = _read(runs[(None, None)], step.id)
    for name in every_mistake():
        for arg in _mistake_args(d.problem, name):
            v = _read(runs[(name, arg)], step.id)
            if v is None or base is None or v.shape != shape:
                continue
            if np.allclose(v, base, rtol=1e-9, atol=1e-12, equal_nan=True):  # the slip does not touch this step
                continue
            slips.append((name, mistake_note(name, arg, d.problem, step.id), np.ravel(v), np.zeros(v.size, bool)))
    size = int(np.prod(shape))
    # where check names the slip, as it names it; the slip's chain's values after the slip made (full marks)
    # after those made here, so a value both made here and carried keeps the slip share
    for name, arg, v, carried in sorted(named, key=lambda n: bool(n[3].any())):
        if v.shape != (size,) and v.ndim == 1 and step.id.endswith(".pairs"):  # a bpe chain's own pairs: as
            # many places as the true ones (those past them are the table's padded places, lms_label_slips)
            v, carried = (
                np.resize(np.append(v, np.zeros(max(0, size - v.size))), size),
                np.resize(np.append(carried, np.ones(max(0, size - carried.size), bool)), size),
            )
        if v.shape == (size,):
            slips.append((name, mistake_note(name, arg, d.problem, step.id), v, carried))
    return slips


# per Runs of the true values (one per variant's questions): each slip's run, made once for every step.
# Read step by step (Runs.value), the runs of every slip came back to each step: Runs keeps only the
# last few runs carried to the last step (check/wide.py's RunStore), so every step made them all again
# (profiled: 18 of 19 s of generate --kind attention-backward --count 2 --format moodle)
_RUNS: weakref.WeakKeyDictionary[Any, dict[tuple[str | None, Any], Any]] = weakref.WeakKeyDictionary()


def _slip_runs(d: Derivation, on_truth: Any) -> dict[tuple[str | None, Any], Any]:
    """The run without a slip (key ``(None, None)``) and each slip's run, with the true values of every
    answered step carried in, as :meth:`~attncalc.check.runs.Runs.value` makes them (light, to the last
    step): the same runs, each made once."""
    from ..check.slips import mistake_args as _mistake_args

    found = _RUNS.get(on_truth)
    if found is None:
        found = {(None, None): on_truth.get("float", overrides=True, light=True)}
        for name in every_mistake():
            for arg in _mistake_args(d.problem, name):
                found[(name, arg)] = on_truth.get("float", overrides=True, mistake=name, arg=arg, light=True)
        _RUNS[on_truth] = found
    return found


def _read(run: Any, step_id: str) -> np.ndarray | None:
    """A step's value in a run, as Runs.value reads it."""
    from ..check.runs import as_step

    if run is None or step_id not in run[0]:
        return None
    return as_step(run[0][step_id], run[1].get(step_id))


def _label(d: Derivation, step: Step, idx: tuple[int, ...], answered: bool) -> str:
    """An entry's label: its symbol and index, with its rank or its row's (and column's) name."""
    from ..render.asked import labels_give_away

    label = entry_label(step.symbol, idx)
    if answered and idx:
        label += f" (rank {idx[0] + 1})"
    elif step.rows is not None and idx and idx[0] < len(step.rows) and not labels_give_away(d, step):
        col = step.cols[idx[1]] if step.cols is not None and len(idx) > 1 and idx[1] < len(step.cols) else None
        label += f" ({step.rows[idx[0]]}{', ' + str(col) if col is not None else ''})"
    return label


def _accepted(key: str, chains: list[np.ndarray], i: int, dec: int) -> list[str]:
    """The key, then each chain's different value of entry i."""
    accepted = [key]
    for c in chains:
        if np.isfinite(c[i]):
            v = fixed(float(c[i]), dec)
            if all(abs(float(v) - float(a)) > 1e-12 for a in accepted):
                accepted.append(v)
    return accepted


def carried_at(share: float) -> str:
    """How a value that follows from a slip made earlier is marked, as check marks a carried step (the
    ``[grading]`` carried share): "carried at full marks" by default."""
    return "carried at full marks" if share == 1 else f"carried at {100 * share:.4g} % of the marks"


def _found(
    slips: list[tuple[str, str, np.ndarray, np.ndarray]],
    i: int,
    accepted: list[str],
    dec: int,
    half: float,
    share: float = 1.0,
    slip: float = 0.0,
) -> list[Slip]:
    """The slips that give entry i a value of their own: made here (the slip share), or carried from a slip
    made earlier (the carried share, full marks by default, its note saying so). Where a value could be
    either (made here by one slip, carried from another; or carried but NEAR the key), it earns the lesser
    of the two shares, never more than check gives either student."""
    found: list[Slip] = []
    for name, note, v, carried in slips:
        x = float(v[i])
        if not np.isfinite(x):
            continue
        value = fixed(x, dec)
        # an entry the slip leaves among the accepted values is no slip here
        if any(abs(float(value) - float(a)) < half for a in accepted):
            continue
        text = f"This follows from an earlier step where it looks like {note}: {carried_at(share)}."
        same = [k for k, f in enumerate(found) if abs(float(value) - float(f.value)) < half]
        if same:  # one an earlier slip names: it keeps that grade, or the carried share where that is less
            k = same[0]
            if carried[i] and share < slip and not found[k].carried:
                found[k] = Slip(value, name, text, carried=True)
            continue
        # a value that follows from a slip made earlier is full marks, as check carries it, but one within
        # NEAR units of the last decimal of the key, which would give full marks to every student whose
        # earlier answers were right and whose last digit is a few off (check gives them 0): that keeps the
        # slip share
        # (a whole-number count is no rounded digit: a count a few off follows from the slip as any other)
        near = dec > 0 and abs(float(value) - float(accepted[0])) <= (NEAR + 0.5) * 2 * half
        if carried[i] and (not near or share < slip):
            found.append(Slip(value, name, text, carried=True))
        else:
            found.append(Slip(value, name, f"It looks like {note}."))
    return found
