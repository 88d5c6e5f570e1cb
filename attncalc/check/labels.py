"""The usual slips at steps whose answer is a label or tokens, not numbers (a BPE merge, a word's
tokens): a slip is named when the step recomputed with it gives exactly the answer, from the
answerer's own earlier answers or from the start (then only when every earlier answer the step
depends on agrees with the slip's chain, as :mod:`attncalc.check.slips` asks of numbers); a slip
named at an earlier answer the step rests on is carried on, not named again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..derivation import Argmax
from .slips import agrees_above, slip_trials

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .answers import Answer, Tolerance
    from .runs import Runs
    from .slips import Slip


def _label(runs: Runs, step_id: str, overrides: bool, slip: Slip) -> str | None:
    name, arg = slip
    got = runs.get("float", overrides=overrides, mistake=name, arg=arg, without=frozenset({step_id}))
    if got is None:
        return None
    step = got[1].get(step_id)
    return str(step.value) if isinstance(step, Argmax) else None


def _plain_label(runs: Runs, step_id: str, overrides: bool) -> str | None:
    got = runs.get("float", overrides=overrides, without=frozenset({step_id}))
    step = got[1].get(step_id) if got is not None else None
    return str(step.value) if isinstance(step, Argmax) else None


def label_slip(
    ans: Answer, truth: str, runs: Runs, skip: set[Slip], answers: Mapping[str, Answer], tol: Tolerance
) -> Slip | None:
    """The first usual slip whose recomputation gives this label answer (and not the true label)."""
    given = str(ans.values)
    if given == truth:
        return None
    for slip, overrides in slip_trials(ans.id, runs, skip):
        if _label(runs, ans.id, overrides, slip) != given:
            continue
        if _plain_label(runs, ans.id, overrides) == given:
            continue  # the same numbers give it without the slip: the slip explains nothing
        if not overrides and not agrees_above(ans.id, slip, runs, answers, tol):
            continue
        return slip
    return None


def carried_by_slip(ans: Answer, runs: Runs, slips: list[Slip]) -> Slip | None:
    """The slip, named at an earlier answer this step rests on, whose chain from the start gives this answer."""
    given = str(ans.values)
    for slip in slips:
        if _label(runs, ans.id, False, slip) == given:
            return slip
    return None
