"""Every key README.md documents, used at least once in a problem that solves, with an assertion
that depends on the key (a value computed independently, an exact form or a message)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import sympy as sp

from .helpers import solve_raw

SCALED = {
    "title": "scale",
    "kind": "attention",
    "score": "scaled-dot",
    "given": {"query": [1, 0, 1, 2], "keys": [[1, 1, 0, 1], [0, 2, 1, 0], [2, 0, 1, 1]]},
}


def _with(base: dict[str, Any], **given: Any) -> dict[str, Any]:
    raw = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    raw["given"].update(given)
    return raw


@pytest.mark.parametrize("spelling", [0.5, "1/2", 1])
def test_given_scale_multiplies_every_score(spelling: Any) -> None:
    """[given] scale replaces 1/sqrt(d_k): e'_i = e_i * scale, in every spelling of the number."""
    scale = 1.0 if spelling == 1 else 0.5
    d = solve_raw(_with(SCALED, scale=spelling))
    q = np.array([1, 0, 1, 2.0])
    K = np.array([[1, 1, 0, 1], [0, 2, 1, 0], [2, 0, 1, 1.0]])
    scores = K @ q  # [3, 1, 5] by hand
    assert list(scores) == [3, 1, 5]
    np.testing.assert_allclose(d.step("scaled_scores").value, scores * scale)
    want = np.exp(scores * scale) / np.exp(scores * scale).sum()
    np.testing.assert_allclose(d.step("weights").value, want, rtol=1e-12)
    exact_scale = sp.Integer(1) if spelling == 1 else sp.Rational(1, 2)
    assert [sp.simplify(x - s * exact_scale) for x, s in zip(d.step("scaled_scores").exact, [3, 1, 5])] == [0] * 3
