"""A question sheet says how an answer is laid out where its formula does not: quantization's ranges
per group are a list of [min, max] pairs, one per group, row 1's groups first (not a matrix per row);
its scales and zero points per group a rows × groups matrix. The sentence is checked against the
ranges computed here with numpy from the weights, in the order it states."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..helpers import solve_raw

W = [[-0.2, -1.0, 0.5, -1.9], [1.8, -0.4, -1.2, -1.8], [-1.9, -2.0, -1.6, 2.5]]


def _raw(scheme: str, granularity: str) -> dict[str, Any]:
    given: dict[str, Any] = {"W": W, "bits": 4, "scheme": scheme, "granularity": granularity}
    if granularity == "group":
        given["group"] = 2
    return {"kind": "quantization", "given": given, "settings": {"decimals": 4}}


def _said(d: Any, step: str) -> list[str]:
    sheet = d.to_markdown(sheet="question")
    return [line for line in sheet.splitlines() if f"[{step}\\]" in line and line.startswith("*")]


def test_grouped_zeropoint_ranges_are_said_to_be_pairs_per_group_row_by_row() -> None:
    d = solve_raw(_raw("zeropoint", "group"))
    (line,) = _said(d, "ranges")
    assert "one [min, max] pair (min first) per group" in line
    assert "a list of 6 pairs (3 rows × 2 groups), row 1's groups in order, then row 2's" in line
    # what the sentence says, built with numpy: each row's groups of 2 in order, [min(w, 0), max(w, 0)]
    blocks = np.asarray(W).reshape(-1, 2)
    pairs = np.stack([np.minimum(blocks.min(axis=1), 0), np.maximum(blocks.max(axis=1), 0)], axis=1)
    assert np.asarray(d["ranges"], dtype=float).shape == (6, 2)
    np.testing.assert_allclose(np.asarray(d["ranges"], dtype=float), pairs, atol=1e-12)
    for step in ("scales", "zero_points"):
        (line,) = _said(d, step)
        assert "a 3 × 2 matrix, one number per group: row i holds row i's groups in order" in line
        assert np.shape(d[step]) == (3, 2)


def test_per_row_and_per_tensor_layouts() -> None:
    d = solve_raw(_raw("zeropoint", "row"))
    (line,) = _said(d, "ranges")
    assert "one [min, max] pair (min first) per row, a list of 3 in row order" in line
    assert np.shape(d["ranges"]) == (3, 2)
    d = solve_raw(_raw("absmax", "group"))
    (line,) = _said(d, "ranges")
    assert "a 3 × 2 matrix, one number per group" in line and np.shape(d["ranges"]) == (3, 2)
    d = solve_raw(_raw("zeropoint", "tensor"))
    (line,) = _said(d, "ranges")
    assert "one pair [min, max] (min first)" in line
    assert _said(d, "scales") == []  # one number: nothing to say
    assert _said(solve_raw(_raw("absmax", "tensor")), "ranges") == []
