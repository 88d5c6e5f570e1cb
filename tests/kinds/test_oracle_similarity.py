"""Oracle tests for kind similarity: PyTorch's F.cosine_similarity, torch.cdist and torch.dot (float64)
agree with attncalc to 1e-9, in exact and in float mode. Skipped, with the reason, without torch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for these tests (pip install torch==2.13.0)")
F = torch.nn.functional

from ..helpers import solve_raw  # noqa: E402

TOL = 1e-9


def t(x: Any) -> Any:
    return torch.tensor(np.asarray(x, dtype=float), dtype=torch.float64)


def val(d: Any, step: str) -> np.ndarray:
    return np.asarray(d.step(step).value, dtype=float)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("exact", [True, False])
def test_rows_match_torch(seed: int, exact: bool) -> None:
    """Every pair's dot, cosine and distance; the lengths from torch.linalg.vector_norm."""
    rng = np.random.default_rng(100 + seed)
    n, m, dim = (int(x) for x in rng.integers(1, 5, size=3))
    A = np.round(rng.uniform(-2, 2, (n, dim)), 2) + np.eye(n, dim) * 3  # no zero rows
    B = np.round(rng.uniform(-2, 2, (m, dim)), 2) + np.eye(m, dim) * 3
    d = solve_raw(
        {
            "kind": "similarity",
            "measure": ["dot", "cosine", "euclidean"],
            "given": {"A": A.tolist(), "B": B.tolist()},
            "settings": {"exact": exact},
        }
    )
    tA, tB = t(A), t(B)
    assert np.allclose(val(d, "dots"), (tA @ tB.T).numpy(), rtol=0, atol=TOL)
    assert np.allclose(val(d, "norms_A"), torch.linalg.vector_norm(tA, dim=1).numpy(), rtol=0, atol=TOL)
    assert np.allclose(val(d, "norms_B"), torch.linalg.vector_norm(tB, dim=1).numpy(), rtol=0, atol=TOL)
    cos = F.cosine_similarity(tA[:, None, :], tB[None, :, :], dim=-1, eps=0.0)
    assert np.allclose(val(d, "cosines"), cos.numpy(), rtol=0, atol=TOL)
    assert np.allclose(val(d, "distances"), torch.cdist(tA, tB).numpy(), rtol=0, atol=TOL)


@pytest.mark.parametrize("exact", [True, False])
def test_two_vectors_match_torch(exact: bool) -> None:
    """The LSTM document's C and C″ as two flat vectors: numbers, as torch.dot and friends give them."""
    a = [0.45, 0.71, 0.44, 0.74, 0.71, 1.20, 0.76, 1.12]
    b = [0.46, -0.72, 0.45, 0.75, 0.73, -1.21, 0.77, -1.10]
    d = solve_raw(
        {
            "kind": "similarity",
            "measure": ["dot", "cosine", "euclidean"],
            "given": {"A": a, "B": b},
            "settings": {"exact": exact},
        }
    )
    ta, tb = t(a), t(b)
    assert val(d, "dots").shape == ()
    assert abs(float(val(d, "dots")) - float(torch.dot(ta, tb))) < TOL
    assert abs(float(val(d, "cosines")) - float(F.cosine_similarity(ta, tb, dim=0, eps=0.0))) < TOL
    assert abs(float(val(d, "distances")) - float(torch.dist(ta, tb))) < TOL
    assert np.allclose(val(d, "differences"), (ta - tb).numpy(), rtol=0, atol=TOL)
