"""Dead units: what a draw produces that a student would compute for nothing.

The other guards look at weights; these look at what the weights produce. A unit is dead when its
column is all zeros or the same for every token at the decimals shown (two or more tokens):

* a column of an input matrix (X, the memory, attention's keys, which are also its values): a
  feature the student carries through every product without it changing anything between tokens;
* a column of V (the whole V and every head's block of it): the head's output column is then that
  constant whatever the weights (the weights sum to 1), and the softmax was computed for nothing;
* a column of a Transformer layer's FFN pre-activation ``ffn.hidden_pre``, or of a LayerNorm's
  ``normalized`` rows: a W_1 column whose entries are all equal gives 0 after LayerNorm (its rows
  sum to 0) for every token.

And an output layer's row of zeros (``W_out``, an RNN's, LSTM's or GRU's with ``--head``, seq2seq's,
attention's head) makes that label's logit 0 at every step. A recurrent input ``x`` may have a
constant column (a steady input acts as a bias) but not a column of zeros (its weights never count).

A ReLU unit that is negative for every token (``ffn.hidden`` all 0) is kept: it shows what ReLU does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Derivation


def _shown_zero(decimals: int) -> float:
    """Values closer than this to each other (or to 0) look the same at ``decimals`` (at least one)."""
    return 0.5 * 10.0 ** -max(decimals, 1)


def dead_column(M: Any, decimals: int, constant: bool = True) -> str | None:
    """'a column of zeros' or 'a constant column' of a matrix (rows: tokens), or None."""
    if M is None:
        return None
    a = np.asarray(M, dtype=float)
    if a.ndim != 2 or a.size == 0:
        return None
    tol = _shown_zero(decimals)
    if (np.abs(a) < tol).all(axis=0).any():
        return "a column of zeros"
    if constant and a.shape[0] > 1 and (np.ptp(a, axis=0) < tol).any():
        return "a constant column"
    return None


# the inputs whose columns must vary between tokens, and those (recurrent) that only must not be 0
_INPUTS = (("given", "X"), ("given", "memory"), ("given", "keys"))
_SEQUENCES = (("given", "x"), ("encoder", "x"), ("decoder", "inputs"))
_OUTPUT_LAYERS = (("given", "W_out"), ("decoder", "W_out"), ("head", "W_out"))


def _get(raw: dict[str, Any], table: str, key: str) -> Any:
    t = raw.get(table)
    return t.get(key) if isinstance(t, dict) else None


def dead_input(raw: dict[str, Any]) -> str | None:
    """Why a drawn table has a dead input feature or a dead output label (before it is parsed)."""
    for table, key in _INPUTS:
        why = dead_column(_get(raw, table, key), decimals=9)
        if why:
            return f"{why} in {table}.{key}"
    for table, key in _SEQUENCES:
        why = dead_column(_get(raw, table, key), decimals=9, constant=False)
        if why:
            return f"{why} in {table}.{key}"
    for table, key in _OUTPUT_LAYERS:
        W = _get(raw, table, key)
        if W is not None and (np.asarray(W, dtype=float) == 0).all(axis=1).any():
            return f"a row of zeros in {table}.{key} (its label's logit is 0 at every step)"
    return None


def _unit_step(step_id: str) -> bool:
    """V (whole or a head's), an FFN pre-activation, a LayerNorm's normalized rows."""
    parts = step_id.split(".")
    return parts[-1] in ("V", "hidden_pre") or (
        parts[-1] == "normalized" and len(parts) > 1 and parts[-2].startswith("norm")
    )


def dead_unit(d: Derivation, decimals: int) -> str | None:
    """Why a solved variant has a dead unit (a column of V, of an FFN pre-activation or of a LayerNorm's
    normalized rows that is all zeros or constant at the decimals shown), or None."""
    for step in d.steps:
        if _unit_step(step.id):
            why = dead_column(step.value, decimals)
            if why:
                return f"{why} in {step.id}"
    return None
