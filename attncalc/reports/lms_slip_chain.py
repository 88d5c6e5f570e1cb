"""A named slip's chain as a student works it from the answer key: every step before the slip at the key's
rounded value (as the sheet's key shows it), the slip made at its step on those values, and every later
step computed from the values written before it, rounded at the asked decimals at every step (and, as a
calculator that keeps full precision after the slipped value, unrounded from there on). ``check`` carries
each later value ("right given your earlier answers"); the LMS lists them at full marks."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..derivation.arith import Chain, StopRun, round_array

Named = tuple[str, Any, np.ndarray, np.ndarray]  # slip, its argument, values (flat), carried per entry


class _Rounded(Chain):
    """A float chain whose every step is rounded to the asked decimals when finished (each step exact from
    the rounded values before it): the chain a student writes down step by step."""

    def _finish(self, step_id: str, x: np.ndarray) -> np.ndarray:
        return round_array(super()._finish(step_id, x), self.decimals)


def _run(p: Any, chain: Chain, shift: str | None) -> dict[str, np.ndarray] | None:
    from ..check.runs import RUN_FAILURES
    from ..mechanisms import MECHANISMS

    if shift is not None:
        p = dataclasses.replace(p, settings=dataclasses.replace(p.settings, shift_max=shift))
    try:
        with np.errstate(all="ignore"):
            MECHANISMS[p.kind].run(p, chain)
    except StopRun:
        pass
    except RUN_FAILURES:
        return None
    return chain.computed


def keyed_slip_chain(
    p: Any,
    decimals: int,
    key: dict[str, np.ndarray],
    order: list[str],
    start: str,
    slip: tuple[str, Any],
    shift: str | None,
) -> dict[str, list[Named]]:
    """Per later step (after ``start``, where the slip is first made on the key of the steps before it),
    the values of the slip's chain from the key, flat, with per entry whether the value follows from the
    chain's own earlier values (full marks: the slip is not made again there). Two chains, their values
    each listed: rounded at every step, and unrounded after the slipped step's rounded value."""
    name, arg = slip
    before = {k: key[k] for k in order[: order.index(start)] if k in key}
    rounded = _run(p, _Rounded("float", decimals, overrides=dict(before), mistake=name, mistake_arg=arg), shift)
    if rounded is None or start not in rounded:
        return {}
    later = [k for k in order[order.index(start) + 1 :] if k in rounded and k in key]
    written = {**before, **{k: np.asarray(rounded[k], dtype=float) for k in [start, *later]}}
    # the chain recomputed without the slip from its own written values: where it gives the written value,
    # that value follows from the earlier ones (carried); elsewhere the slip is made again at that step
    again = _run(p, Chain("float", decimals, overrides=written), shift) or {}
    free = _run(
        p, Chain("float", decimals, overrides={**before, start: written[start]}, mistake=name, mistake_arg=arg), shift
    )
    out: dict[str, list[Named]] = {}
    for k in later:
        v = np.ravel(written[k])
        redo = again.get(k)
        if redo is None or np.size(redo) != v.size:
            continue
        carried = np.ravel(round_array(np.asarray(redo, dtype=float), decimals)) == v
        out[k] = [(name, arg, v, carried)]
        if free is not None and k in free and np.size(free[k]) == v.size:
            out[k].append((name, arg, np.ravel(np.asarray(free[k], dtype=float)), carried))
    return out
