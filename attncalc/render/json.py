"""The JSON view fixed by INTERFACE.md: one object with the steps' value, exact and shown forms."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from ..derivation import Count, Derivation, Step
from ..derivation.fmt import fmt_array, step_places
from ..parse.data import Similarity
from .counts import gib
from .exact import exact_nested
from .json_forms import as_ints, entry_labels, form, token_labels, token_value
from .typeset import to_tex


def _floats(x: Any) -> Any:
    """Nested float lists; −∞ (a masked score) becomes null, since JSON has no infinity."""
    if isinstance(x, str):
        return x
    a = np.asarray(x, dtype=float)
    if a.ndim == 0:
        v = float(a)
        return v if math.isfinite(v) else None
    return [_floats(v) for v in a]


def step_dict(step: Step, decimals: int, carried: bool = False) -> dict[str, Any]:
    exact: Any = None
    if isinstance(step.value, str):
        exact = step.value
    elif step.exact is not None:
        exact = exact_nested(step.exact)
    # (a small value kept to its significant digits: the answer key and every view write it so)
    value, shown = _floats(step.value), fmt_array(step.shown, step_places(step, decimals, carried), inf="inf")
    labels = entry_labels(step)
    items = token_value(step)
    if items is not None:  # a list of tokens (or of token lists, one per word): a JSON list, in every view
        value = exact = shown = items
        labels = token_labels(step)
    elif form(step.id) == "count":  # a count: JSON integers
        value = as_ints(value)
    out: dict[str, Any] = {
        "id": step.id,
        "title": step.title,
        "formula": step.formula,
        "latex": step.latex or to_tex(step.formula),
        "value": value,
        "exact": exact,
        "shown": shown,
    }
    if labels is not None:
        out["labels"] = labels
    if isinstance(step, Count) and step.whole is not None:  # an exact integer, written exactly
        out["value"] = step.whole
        out["shown"] = str(step.whole)  # every digit, no separator: the answers files' number
        out["unit"] = step.unit
        g = gib(step, decimals)
        if g is not None:
            out["gib"] = {"exact": g[0].replace(",", ""), "decimal": g[1].replace(",", "")}
    if step.note:
        out["note"] = step.note
    if step.intro:
        out["intro"] = step.intro
    return out


def to_dict(d: Derivation) -> dict[str, Any]:
    p = d.problem
    out: dict[str, Any] = {
        "title": p.title,
        "kind": p.kind,
        "score": p.score,
        "convention": "row" if p.row_convention else "column",
        "decimals": d.decimals,
        "carry_rounded": d.carry_rounded,
        "exact": d.exact_requested,
        "steps": [step_dict(s, d.decimals, d.carry_rounded) for s in d.steps],
        "notes": list(d.notes),
    }
    if isinstance(p.data, Similarity):  # the kinds that compare vectors: the measures asked for
        out["measures"] = list(p.data.measures)
    return out


def render(d: Derivation) -> str:
    return json.dumps(to_dict(d), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
