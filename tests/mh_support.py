"""Shared plumbing of the multi-head and positional-encoding oracle tests: solving, comparing, drawing.

The expected numbers never come from here: they come from ``tests/mh_reference.py`` (numpy formulas
from the papers), from torch, or from hand computations written in the tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import attncalc

TOL = 1e-9


def val(d: Any, step: str) -> np.ndarray:
    """A step's true value as floats (a masked score is −inf)."""
    return np.asarray(d.step(step).value, dtype=float)


def close(d: Any, step: str, want: Any) -> None:
    """Step ``step`` equals ``want`` to 1e-9 everywhere, with −inf exactly where ``want`` has −inf."""
    np.testing.assert_allclose(val(d, step), np.asarray(want, dtype=float), rtol=0, atol=TOL, err_msg=step)


def solve(problem: dict[str, Any], exact: bool = False) -> Any:
    """attncalc.solve on a problem dict. With ``exact=True`` also solves it numerically and checks that
    every step's float value agrees (exact and numeric agree), then returns the exact derivation."""
    numeric = attncalc.solve(problem, exact=False)
    if not exact:
        return numeric
    exact_d = attncalc.solve(problem, exact=True)
    assert exact_d.step_ids == numeric.step_ids
    for sid in numeric.step_ids:
        a, b = exact_d.step(sid).value, numeric.step(sid).value
        if isinstance(a, str) or isinstance(b, str):
            assert a == b, sid
        else:
            np.testing.assert_allclose(
                np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=0, atol=TOL, err_msg=sid
            )
    return exact_d


def rand(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Numbers in [−1, 1] with two decimals (what a homework sheet would print)."""
    return np.round(rng.uniform(-1, 1, size=shape), 2)


def problem(given: dict[str, Any], score: str = "scaled-dot", **tables: Any) -> dict[str, Any]:
    """A multi-head problem dict; numpy arrays become lists (as a TOML file would hold)."""
    plain = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in given.items()}
    out: dict[str, Any] = {"kind": "multi-head", "score": score, "given": plain}
    for name, table in tables.items():
        out[name] = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in table.items()}
    return out


def draw(
    rng: np.random.Generator,
    n: int,
    d_model: int,
    heads: int,
    *,
    d_k: int | None = None,
    d_v: int | None = None,
    kv_heads: int | None = None,
    biases: bool = False,
    W_O: bool = True,
) -> dict[str, Any]:
    """Random given-table inputs: X (n × d_model), W_Q, W_K, W_V, W_O and, when asked, b_Q … b_O."""
    d_k = d_model // heads if d_k is None else d_k
    d_v = d_k if d_v is None else d_v
    kv = heads if kv_heads is None else kv_heads
    g: dict[str, Any] = {
        "X": rand(rng, n, d_model),
        "heads": heads,
        "W_Q": rand(rng, d_model, heads * d_k),
        "W_K": rand(rng, d_model, kv * d_k),
        "W_V": rand(rng, d_model, kv * d_v),
    }
    if kv_heads is not None:
        g["kv_heads"] = kv_heads
    if W_O:
        g["W_O"] = rand(rng, heads * d_v, d_model)
    if biases:
        g["b_Q"], g["b_K"], g["b_V"] = rand(rng, heads * d_k), rand(rng, kv * d_k), rand(rng, kv * d_v)
        if W_O:
            g["b_O"] = rand(rng, d_model)
    return g


def reference_args(g: dict[str, Any]) -> dict[str, Any]:
    """The given table as keyword arguments of ``mh_reference.multi_head`` (mask and positions left out)."""
    keys = ("memory", "kv_heads", "b_Q", "b_K", "b_V", "W_O", "b_O")
    return {k: g[k] for k in keys if k in g}
