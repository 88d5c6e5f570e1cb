"""`mask_after_softmax` in single-head causal self-attention: named for weights computed with the
softmax over every score and the masked entries then set to 0 (numpy, from the formula), not for a
typo or a row swap."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.parse import load_problem

from ..helpers import PROBLEMS

# problems/causal-self-attention.toml, in numpy: Q = X W_Q, K = X W_K, S' = Q Kᵀ / √2
X = np.array([[1, 0], [0, 1], [1, 1], [2, 0]], dtype=float)
W_Q = np.array([[1, 0], [0, 1]], dtype=float)
W_K = np.array([[0, 1], [1, 0]], dtype=float)
S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(2)
CAUSAL = np.tril(np.ones((4, 4), dtype=bool))


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


TRUE = _softmax(np.where(CAUSAL, S, -np.inf))
LATE = np.where(CAUSAL, _softmax(S), 0.0)  # the slip: softmax over all four keys, then the mask


def _grade(weights: np.ndarray) -> Any:
    p = load_problem(PROBLEMS / "causal-self-attention.toml")
    return check(p, {"weights": np.round(weights, 3).tolist()}, "a.toml").results[0]


def test_the_late_mask_is_named() -> None:
    assert not np.allclose(np.round(LATE, 3), np.round(TRUE, 3))
    r = _grade(LATE)
    assert r.verdict == "wrong" and r.mistake == "mask_after_softmax", r.note
    assert "mask was applied after the softmax" in r.note


@pytest.mark.parametrize("how", ["typo", "row swap"])
def test_other_wrong_weights_are_not_the_late_mask(how: str) -> None:
    w = np.round(TRUE, 3)
    if how == "typo":
        w[2, 1] = round(w[2, 1] + 0.3, 3)
    else:
        w[[2, 3]] = w[[3, 2]]
    r = _grade(w)
    assert r.verdict == "wrong" and r.mistake != "mask_after_softmax", r.note
    assert _grade(TRUE).verdict == "correct"
