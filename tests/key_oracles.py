"""One-line numpy oracles (from the papers) shared by the documented-keys tests."""

from __future__ import annotations

from typing import Any

import numpy as np


def softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def A(x: Any) -> np.ndarray:
    return np.array(x, dtype=float)


def close(step: Any, want: Any) -> None:
    np.testing.assert_allclose(np.asarray(step.value, dtype=float), want, rtol=1e-9, atol=1e-12)
