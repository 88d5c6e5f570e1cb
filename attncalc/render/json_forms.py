"""What the JSON views make of a step's value beyond numbers: lists of tokens as JSON lists, counts as
JSON integers, and the labels of a step's entries (docs/interface.md, "JSON").

The derivation holds a step that lists tokens as one string (its items joined with ", ") and every
number as a float; the views need only that. Scripts need the items and the integers, so the JSON
views read them here from the step itself (its ``labels``, its ``table``, its ``rows`` and ``cols``),
never by splitting its text; ``check``'s report, which holds an answer and its true value as text,
splits them token by token (:func:`split_items`). Which steps list tokens and which count is a
fact of each kind's step ids, written down once below; no step id of one of these kinds is a step id
of another kind (tests/render/test_json_contract.py holds this against the registry), so ``check``'s report,
which knows its steps by id only, reads the same table.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..derivation import Argmax, Step, Tokens
from ..derivation.fmt import position_labels

# step ids that are lists of tokens in one kind and numbers in others (speculative's output, attention's
# output): a list of tokens when the step is a Tokens step
TOKEN_STEPS = ("output",)


def _declared(field: str) -> tuple[str, ...]:
    """The step ids every registered kind's entry declares under ``field`` (``counts``, ``token_lists``,
    ``word_segments``), in the registry's order: a kind says how its own steps are written, and no list
    here names one."""
    from .. import kinds

    return tuple(dict.fromkeys(step for e in kinds.KINDS.values() for step in getattr(e, field)))


def token_lists() -> tuple[str, ...]:
    """Step ids whose value is a list of tokens or strings (bpe's merges, decode's kept beams)."""
    return _declared("token_lists")


def word_segments() -> tuple[str, ...]:
    """Step ids whose value is a list of token lists, one per word (bpe's re-segmented words)."""
    return _declared("word_segments")


def counts() -> tuple[str, ...]:
    """Step ids whose entries are whole numbers by their meaning (a count, a step number, 0/1 flags)."""
    return _declared("counts")


def numbered(step_id: str) -> str:
    """A step id with its numbers written "t", as the registry lists them: "3.words" -> "t.words"."""
    return ".".join("t" if part.isdigit() else part for part in step_id.split("."))


def form(step_id: str) -> str:
    """ "tokens", "segments", "count" or "" (numbers, or one string), from the step id."""
    general = numbered(step_id)
    if general in _declared("token_lists"):
        return "tokens"
    if general in _declared("word_segments"):
        return "segments"
    if general in _declared("counts"):
        return "count"
    return ""


def as_ints(x: Any) -> Any:
    """Whole floats (nested lists) as Python ints; anything else as it is (null, a fraction, a string)."""
    if isinstance(x, list):
        return [as_ints(v) for v in x]
    if isinstance(x, float) and math.isfinite(x) and x.is_integer():
        return int(x)
    return x


def split_items(step_id: str, text: str) -> list[str]:
    """A list written as one string, its items joined with ", " (as ``check``'s report holds an answer
    and its true value): the items. A token holds no whitespace, so the words of the text are the tokens,
    each item's last one carrying the separator's comma: a list of single tokens (``vocab``,
    ``encode.t``) is its words less that comma, a list of pairs (``merges``) its words two by two,
    whatever commas the tokens hold themselves. Other lists (re-segmented words, beams) are cut at
    every ", "."""
    words = text.split()
    if not words:
        return []
    general = numbered(step_id)
    if general in ("vocab", "encode.t"):
        return [w[:-1] if i < len(words) - 1 and w.endswith(",") else w for i, w in enumerate(words)]
    if general == "merges" and len(words) % 2 == 0:
        pairs = [words[i : i + 2] for i in range(0, len(words), 2)]
        last = len(pairs) - 1
        return [f"{a} {b[:-1] if i < last and b.endswith(',') else b}" for i, (a, b) in enumerate(pairs)]
    return text.split(", ")


def token_value(step: Step) -> list[Any] | None:
    """A step that lists tokens: its items (a list of strings, or for re-segmented words a list of
    token lists); None for any other step."""
    kind = form(step.id)
    if isinstance(step, Tokens) and step.id in TOKEN_STEPS:  # (a step of tokens by its class, not its id)
        return list(step.labels)
    if kind == "tokens" and isinstance(step, Argmax) and isinstance(step.value, str):
        return list(step.labels)
    if kind == "segments" and isinstance(step, Tokens) and step.table:
        return [seg.split() for _, seg in step.table]
    return None


def token_labels(step: Step) -> list[str] | None:
    """The labels of a list of token lists: the words, from the step's table (word, tokens)."""
    if form(step.id) == "segments" and isinstance(step, Tokens) and step.table:
        return [word for word, _ in step.table]
    return None


def entry_labels(step: Step) -> Any:
    """The labels of a numeric step's entries: a list for a vector (one per entry), {"rows": [...],
    "columns": [...]} for a matrix (either may be absent), and for a value of three axes with labels on
    its second {"rows", "columns", "depth", "cells"} (rows absent without them; depth the third axis's
    labels as the views head their columns; cells one label per (row, column) pair); None when the
    entries carry none."""
    if isinstance(step.value, str):
        return None
    shape = np.shape(step.value)
    rows, cols = step.rows, step.cols
    if len(shape) == 1:
        for labels in (rows, cols):
            if labels is not None and len(labels) == shape[0]:
                return list(labels)
        return None
    if len(shape) == 2:
        out: dict[str, list[str]] = {}
        if rows is not None and len(rows) == shape[0]:
            out["rows"] = list(rows)
        if cols is not None and len(cols) == shape[1]:
            out["columns"] = list(cols)
        return out or None
    if len(shape) == 3 and step.mid is not None:  # token × choice × column: every axis, and the pairs' labels
        three: dict[str, Any] = {"rows": list(rows)} if rows is not None and len(rows) == shape[0] else {}
        three["columns"] = list(step.mid)
        three["depth"] = position_labels(cols, shape[2])
        if step.cells is not None:
            three["cells"] = [list(c) for c in step.cells]
        return three
    return None
