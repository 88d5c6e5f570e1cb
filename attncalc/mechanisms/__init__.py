"""Mechanisms compute derivations; they know nothing of output formats.

:func:`solve` runs a kind's mechanism once exactly (or in floats) for the truth, and once more in
the hand chain when ``carry_rounded`` asks for it, then merges the two into one
:class:`~attncalc.derivation.Derivation`.
"""

from __future__ import annotations

import dataclasses
from types import ModuleType

import numpy as np

from ..arith import MAX_EXACT_ENTRIES, Chain, is_exact, to_float
from ..derivation import Argmax, Derivation, Pick, Step, tie_note
from ..kinds import KINDS
from ..problem import Problem

# each kind's mechanism, as the registry of kinds (attncalc/kinds.py) names it
MECHANISMS: dict[str, ModuleType] = {kind: entry.load("mechanism") for kind, entry in KINDS.items()}


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
        size = sum(np.asarray(i.value).size for i in mech.inputs(problem))
        if size > MAX_EXACT_ENTRIES:
            chain.skip_exact(
                f"Exact forms skipped: the problem has {size} input entries (more than {MAX_EXACT_ENTRIES}); "
                "all values are computed numerically."
            )
    else:
        chain = Chain("float", decimals)
    primary = mech.run(problem, chain)
    notes.extend(chain.notes)
    shown_steps = primary
    if carry:
        hand = Chain("hand", decimals)
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
    return Derivation(
        problem=problem,
        inputs=tuple(mech.inputs(problem)),
        steps=steps,
        notes=tuple(notes),
        decimals=decimals,
        carry_rounded=carry,
        exact_requested=exact,
        headline=_headline(steps),
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
