"""The givens of a quiz question, shared by the Moodle XML and QTI writers: which tables a question
shows (each input, then a mask written out) and their rows; each writer wraps them in its own markup
(Moodle's ``title=`` attribute, QTI's ``label=`` and ``<tbody>``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivation import Derivation
from ..derivation.fmt import fmt_given
from ..render.setup import mask_matrix

# (its key in the problem file, caption, values, row labels, decimals, column labels)
GivenTable = tuple[str, str, np.ndarray, Any, int, Any]


def given_tables(d: Derivation) -> list[GivenTable]:
    """One table per input, then the mask when it is a matrix (a causal mask is said in words)."""
    out: list[GivenTable] = [
        (i.name, f"{i.symbol}: {i.role}", _values(i), i.rows, d.decimals, i.cols) for i in d.inputs
    ]
    p = d.problem
    mask = mask_matrix(p)
    if mask is not None:
        out.append(("mask", "mask: 1 = may attend", np.asarray(mask, dtype=float), p.tokens, 0, None))
    return out


def _values(i: Any) -> np.ndarray:
    """An input's values as a table shows them: a boolean (moe's renormalize) as true or false, as the
    problem file writes it, never 1 or 0."""
    if i.flag and np.ndim(i.value) == 0:
        return np.asarray(["true" if float(i.value) else "false"], dtype=object)
    return np.asarray(i.value, dtype=float)


def _cell(x: Any, decimals: int) -> str:
    return x if isinstance(x, str) else fmt_given(x, decimals)


def table_rows(value: np.ndarray, rows: Any, decimals: int, cols: Any, esc: Callable[[Any], str]) -> list[str]:
    """A given's rows as ``<tr>``s, entries as the problem wrote them (0.25 stays 0.25 when 1 decimal
    is asked for); a vector is one row under its labels, a matrix has its labels on both sides."""
    value = np.atleast_1d(value)  # a single number (a given scale) as a row of one
    body: list[str] = []
    if value.ndim == 1:
        if rows is not None and len(rows) == len(value):
            body.append("<tr>" + "".join(f"<th>{esc(r)}</th>" for r in rows) + "</tr>")
        body.append("<tr>" + "".join(f"<td>{_cell(x, decimals)}</td>" for x in value) + "</tr>")
        return body
    heads = cols if cols is not None and len(cols) == value.shape[1] else range(1, value.shape[1] + 1)
    body.append("<tr><th></th>" + "".join(f"<th>{esc(c)}</th>" for c in heads) + "</tr>")
    for r, row in enumerate(value):
        label = esc(rows[r]) if rows is not None and r < len(rows) else str(r + 1)
        body.append(f"<tr><th>{label}</th>" + "".join(f"<td>{_cell(x, decimals)}</td>" for x in row) + "</tr>")
    return body
