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
from ..derivation import Argmax, Derivation, Step
from ..problem import Problem
from . import attention, self_attention, softmax

MECHANISMS: dict[str, ModuleType] = {
    "attention": attention,
    "self-attention": self_attention,
    "softmax": softmax,
}


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
        size = sum(g.floats.size for g in _all_given(problem))
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


def _all_given(problem: Problem) -> list:  # type: ignore[type-arg]
    out = list(problem.given.values())
    if problem.head is not None:
        out += [g for g in (problem.head.W_c, problem.head.W_out, problem.head.b_out) if g is not None]
        out += [g for g in (problem.head.W_c, problem.head.W_out, problem.head.b_out) if g is not None]
    return out


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
        v = getattr(shown, f.name)
        if isinstance(v, np.ndarray):
            changes[f.name] = to_float(v) if v.dtype != bool else v
        elif isinstance(v, tuple) and v and isinstance(v[0], np.ndarray):
            changes[f.name] = tuple(to_float(x) for x in v)
    return dataclasses.replace(shown, **changes)  # type: ignore[arg-type]


def _headline(steps: tuple[Step, ...]) -> str:
    for s in steps:
        if isinstance(s, Argmax):
            return f"Prediction: {s.value}"
    return ""
