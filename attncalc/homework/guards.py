"""Why a drawn variant is unfit for a worksheet: the checks several families share."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Argmax, Derivation, Map

SIGMOID_BAND = (0.01, 0.99)  # a gate outside it is saturated: σ above 0.99 or below 0.01
TANH_LIMIT = 0.99  # |tanh| above it is saturated


def zero_row(*arrays: Any) -> str | None:
    """'a row of zeros' when a vector, or a row of a matrix, is all zeros."""
    for a in arrays:
        if a is None:
            continue
        rows = a if a and isinstance(a[0], list) else [a]
        if any(all(x == 0 for x in row) for row in rows):
            return "a row of zeros"
    return None


def repeated_row(*arrays: Any) -> str | None:
    """'two identical rows' when a matrix repeats a row: two equal inputs teach nothing twice, and two
    equal rows of W_out make their labels tie at every step."""
    for a in arrays:
        if a and isinstance(a[0], list) and len({tuple(row) for row in a}) < len(a):
            return "two identical rows"
    return None


def apart(decimals: int) -> float:
    """Top values closer than this tie. Judged at the decimals asked for, but at least one: weights
    and probabilities lie between 0 and 1, so at --decimals 0 every pair would tie."""
    return 10.0 ** (-max(decimals, 1))


def tied_prediction(d: Derivation, decimals: int) -> str | None:
    """A key must name one prediction: top probabilities that tie have none."""
    for step in d.steps:
        if isinstance(step, Argmax) and len(step.tied(tol=apart(decimals))) > 1:
            return "top probabilities tie (no single prediction)"
    return None


def saturated(d: Derivation) -> str | None:
    """A σ gate above 0.99 or below 0.01, or a tanh above 0.99 in size: flat, and dull by hand."""
    low, high = SIGMOID_BAND
    for step in d.steps:
        if not isinstance(step, Map) or step.fn not in ("sigmoid", "tanh"):
            continue
        v = np.asarray(step.value, dtype=float)
        if step.fn == "sigmoid" and ((v > high).any() or (v < low).any()):
            return "a saturated gate (σ above 0.99 or below 0.01)"
        if step.fn == "tanh" and (np.abs(v) > TANH_LIMIT).any():
            return "a saturated tanh (|tanh| above 0.99)"
    return None


def weight_rows(w: np.ndarray, decimals: int, allow_ties: bool, masked: bool = False) -> str | None:
    """Attention weights (one row per query): top two tied, one above 0.95 or below 0.01."""
    for row in np.atleast_2d(w):
        live = row[row > 0] if masked else row
        if len(live) < 2:
            continue
        top = np.sort(live)[::-1]
        if not allow_ties and top[0] - top[1] < apart(decimals):
            return "top weights tie"
        if top[0] > 0.95:
            return "a weight above 0.95"
        if top[-1] < 0.01:
            return "a weight below 0.01"
    return None


def weights_of(d: Derivation, suffix: str) -> list[np.ndarray]:
    """The values of the steps whose id is ``suffix`` or ends with ``.suffix``."""
    return [np.asarray(s.value, dtype=float) for s in d.steps if s.id == suffix or s.id.endswith("." + suffix)]


def stuck_unit(d: Derivation, decimals: int) -> str | None:
    """A hidden unit that shows 0 at every time step of a cell (the encoder's, the decoder's, each way),
    or a hidden state that is all zeros at some step: half the state, or a step, teaches nothing."""
    zero = 0.5 * 10.0 ** (-max(decimals, 1))
    cells: dict[str, list[np.ndarray]] = {}
    for i in d.step_ids:
        parts = i.split(".")
        if parts[-1] != "h" or len(parts) < 2 or not parts[-2].isdigit():
            continue
        cells.setdefault(".".join(parts[:-2]), []).append(np.asarray(d.step(i).value, dtype=float).ravel())
    for states in cells.values():
        h = np.vstack(states)
        if (np.abs(h) < zero).all(axis=1).any():
            return "a hidden state of zeros"
        if (np.abs(h) < zero).all(axis=0).any():
            return "a hidden unit stays 0"
    return None
