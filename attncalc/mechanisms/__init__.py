"""Mechanisms compute derivations; they know nothing of output formats.

Its place in the pipeline (docs/contributing.md, "The layers"):
parse → **mechanisms** → derivation → render | check → reports → cli | serve.

:func:`solve` runs a kind's mechanism once exactly (or in floats) for the truth, and once more in
the hand chain when ``carry_rounded`` asks for it, then merges the two into one
:class:`~attncalc.derivation.Derivation`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from types import ModuleType

import numpy as np

from ..derivation import Argmax, Count, Derivation, Pick, Step, tie_note
from ..derivation.arith import MAX_EXACT_ENTRIES, Chain, ExactStopped, is_exact, to_float
from ..derivation.budget import MAX_EXACT_VALUE
from ..errors import ProblemError
from ..kinds import KINDS
from ..parse import Problem
from .common import NoKeyToAttend


class _Mechanisms(Mapping[str, ModuleType]):
    """Each kind's mechanism, as the registry of kinds (attncalc/kinds/__init__.py) names it, loaded when first
    asked for (a kind registered later, e.g. by a plug-in or a test, is found too)."""

    def __getitem__(self, kind: str) -> ModuleType:
        return KINDS[kind].load("mechanism")  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return iter(KINDS)

    def __len__(self) -> int:
        return len(KINDS)


MECHANISMS: Mapping[str, ModuleType] = _Mechanisms()


def solve(
    problem: Problem,
    *,
    exact: bool | None = None,
    decimals: int | None = None,
    carry_rounded: bool | None = None,
) -> Derivation:
    """Compute the derivation of a problem; keyword arguments override the problem's settings."""
    s = problem.settings
    exact = s.exact if exact is None else exact
    decimals = s.decimals if decimals is None else decimals
    carry = s.carry_rounded if carry_rounded is None else carry_rounded
    mech = MECHANISMS[problem.kind]

    notes: list[str] = []
    if exact:
        chain = Chain("exact", decimals)
        given = [np.asarray(i.value, dtype=float) for i in mech.inputs(problem)]
        size, what = sum(g.size for g in given), "input entries"
        if hasattr(mech, "exact_entries"):  # a kind whose exact forms grow with more than its inputs
            size, what = mech.exact_entries(problem)
        biggest = max((float(np.max(np.abs(g))) for g in given if g.size), default=0.0)
        if size > MAX_EXACT_ENTRIES:
            chain.skip_exact(
                f"Exact forms skipped: the problem has {size} {what} (more than {MAX_EXACT_ENTRIES}); "
                "all values are computed numerically."
            )
        elif biggest > MAX_EXACT_VALUE and not getattr(mech, "WHOLE_AT_ANY_SIZE", False):
            chain.skip_exact(
                f"Exact forms skipped: an input is {biggest:.3g} in size (more than {MAX_EXACT_VALUE:.0e}); "
                "all values are computed numerically."
            )
    else:
        chain = Chain("float", decimals)
    with np.errstate(all="ignore"):  # an overflow is reported by _refuse_overflow, not as a warning
        try:
            primary = mech.run(problem, chain)
        except ExactStopped:  # the numeric pass from the step where exact forms stopped
            primary = _with_exact(mech.run(problem, Chain("float", decimals)), chain.computed)
        except NoKeyToAttend as exc:  # a row of scores all −∞ beside finite rows: bad input, as a fully masked row
            raise ProblemError(problem.path, exc.step_id, no_key_message(exc)) from None
        except OverflowError:  # Python's own float power (not numpy's inf): bad input, one line
            raise ProblemError(
                problem.path, "", "the numbers overflow floating point (a value beyond ±1.8e308); use smaller inputs"
            ) from None
    notes.extend(chain.notes)
    shown_steps = primary
    if carry:
        hand = Chain("hand", decimals)
        with np.errstate(all="ignore"):
            shown_steps = mech.run(problem, hand)
        notes.append(
            f"Shown values are rounded to {decimals} decimals at every step and carried forward, as by hand; "
            "they can differ in the last digit from the true values."
        )
    else:
        notes.append(
            f"Shown values are the true values rounded to {decimals} decimals; nothing rounded is carried forward. "
            "Where a written-out line's rounded numbers give another last digit, the line adds "
            "'as written: …' (solve --carry works every step from the rounded numbers instead)."
        )

    steps = tuple(_merge(p, h) for p, h in zip(primary, shown_steps, strict=True))
    if steps and all(isinstance(s, Count) for s in steps):  # whole numbers only: nothing is rounded
        notes = [n for n in notes if not n.startswith("Shown values")]
        notes.append(
            f"Every count is a whole number, computed exactly; GiB are shown to {decimals} decimals "
            "(a size below 1 GiB to at least three significant digits)."
        )
    _refuse_overflow(problem, steps)
    return Derivation(
        problem=problem,
        inputs=tuple(mech.inputs(problem)),
        steps=steps,
        notes=tuple(notes),
        decimals=decimals,
        carry_rounded=carry,
        exact_requested=exact,
        # (solve --carry: the headline of the chain the view works, whose numbers may choose another token)
        headline=(mech.headline if hasattr(mech, "headline") else _headline)(tuple(shown_steps) if carry else steps),
    )


def no_key_message(exc: NoKeyToAttend) -> str:
    """What a softmax with nothing to attend to says: which row, why, and what to do."""
    if exc.what == "logit":
        head = f"{exc.row}: every logit" if exc.row else "every logit"
        return f"{head} is −∞ (the numbers overflow floating point), so the softmax would be 0/0; use smaller inputs"
    head = (
        f"{exc.row} has no key to attend to: every score it may attend to"
        if exc.row
        else ("there is no key to attend to: every score")
    )
    return f"{head} is −∞ (the numbers overflow floating point), so its softmax would be 0/0; use smaller inputs"


def _with_exact(numeric: list[Step], exact: dict[str, np.ndarray]) -> list[Step]:
    """The numeric pass's steps, with the exact values the exact pass found before it stopped: the
    later steps are then exactly --no-exact's (the stopped step's exact forms, evaluated, could lose
    everything to inf/inf)."""
    out = []
    for s in numeric:
        value = exact.get(s.id)
        if value is not None and not isinstance(s, Argmax) and is_exact(value) and value.size == np.size(s.value):
            s = dataclasses.replace(s, value=value.reshape(np.shape(s.value)))
        out.append(s)
    return out


def _refuse_overflow(problem: Problem, steps: tuple[Step, ...]) -> None:
    """An overflow that leaves a value not a number (inf − inf, inf / inf) is bad input, never NaN
    output: the message names the first step whose values left the finite numbers. Infinities
    alone are shown as ∞ (a loss of exp(1000) written with floats; −∞ is a masked score)."""
    first = None
    for s in steps:
        arrays = [s.probs] if isinstance(s, Argmax) else [s.value, s.shown]
        values = np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in arrays])
        if first is None and not np.isfinite(values[~np.isneginf(values)]).all():
            first = s.id
        if np.isnan(values).any():
            if first == s.id and not np.isinf(values).any():  # 0/0 with nothing infinite before: underflow
                raise ProblemError(
                    problem.path,
                    s.id,
                    "comes out 0/0: the numbers underflow floating point (exp of a large negative number "
                    "is 0 below about −745); use smaller inputs, or exact mode",
                )
            where = "" if first == s.id else f", and '{s.id}' is then not a number"
            raise ProblemError(
                problem.path,
                first or s.id,
                f"the numbers overflow floating point (a value beyond ±1.8e308){where}; use smaller inputs",
            )


def _merge(primary: Step, shown: Step) -> Step:
    """True value and exact form from the primary pass; shown value and operands from `shown`."""
    if isinstance(primary, Argmax) and isinstance(shown, Argmax):
        return dataclasses.replace(
            shown, value=primary.value, exact=None, shown=shown.value, probs=to_float(np.asarray(shown.probs))
        )
    exact = primary.value if is_exact(np.asarray(primary.value)) else None
    changes: dict[str, object] = {
        "value": to_float(np.asarray(primary.value)),
        "exact": exact,
        "shown": to_float(np.asarray(shown.value)),
    }
    for f in dataclasses.fields(shown):
        if f.name in changes or f.name in Step.__dataclass_fields__:
            continue
        changes[f.name] = _floats(getattr(shown, f.name))
    return dataclasses.replace(shown, **changes)  # type: ignore[arg-type]


def _floats(v: object) -> object:
    """Operands as float64 arrays (nested tuples of arrays too), for the renderers."""
    if isinstance(v, np.ndarray):
        return to_float(v) if v.dtype != bool else v
    if isinstance(v, tuple) and v and isinstance(v[0], (np.ndarray, tuple)):
        return tuple(_floats(x) for x in v)
    return v


def _headline(steps: tuple[Step, ...]) -> str:
    picks = [str(s.value) for s in steps if isinstance(s, Argmax)]
    ties = [tie_note(s) for s in steps if isinstance(s, Argmax)]
    if len(picks) > 1:
        line = f"Predicted sequence: {' '.join(picks)}"
        loss = next((s for s in steps if s.id == "loss"), None)
        if loss is not None:
            line += f"  ·  loss L = {float(np.asarray(loss.value)):.4g}"
        return line
    first = next((s for s in steps if isinstance(s, Argmax)), None)
    what = first.what if isinstance(first, Pick) else "Prediction"
    return f"{what}: {picks[0]}{ties[0]}" if picks else ""
