"""Homework for kind quantization keeps away from ties, as docs/interface.md says: no w / scale and no
−min / scale (the zero point's quotient) within 0.05 of a half, exact halves included, per scale
(tensor, row or group). The rule is written here with numpy from the weights alone: the ranges and
scales recomputed from the scheme's formulas (absmax: max|w| / (2^(b−1) − 1); zeropoint: (max − min) /
(2^b − 1) over [min(w, 0), max(w, 0)]), never read from the derivation."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from attncalc.homework.generate import Options, generate


def _blocks(given: Any) -> np.ndarray:
    W = np.asarray(given["W"], dtype=float)
    if given["granularity"] == "tensor":
        return W.reshape(1, -1)
    if given["granularity"] == "row":
        return W
    return W.reshape(-1, int(given["group"]))


def _distance_to_half(x: np.ndarray) -> np.ndarray:
    return np.abs(x - np.floor(x) - 0.5)


def _closest(given: Any) -> float:
    """The least distance to a half over every quotient that is rounded."""
    bits, worst = int(given["bits"]), 1.0
    for block in _blocks(given):
        if given["scheme"] == "absmax":
            width = np.max(np.abs(block))
            s = width / (2 ** (bits - 1) - 1) if width else 1.0
            quotients = block / s
        else:
            lo, hi = min(block.min(), 0.0), max(block.max(), 0.0)
            s = (hi - lo) / (2**bits - 1) if hi > lo else 1.0
            quotients = np.append(block / s, -lo / s)
        worst = min(worst, float(_distance_to_half(quotients).min()))
    return worst


def test_the_reported_ties_are_ties() -> None:
    """The draws found with ties: a zeropoint group [2.4, −2.4] (4 bits: −min / s = 2.4 / (4.8/15) = 7.5)
    and 0.5 / 0.2 = 2.5: the rule here sees both."""
    assert _closest({"W": [[2.4, -2.4]], "bits": 4, "scheme": "zeropoint", "granularity": "row"}) < 1e-9
    assert _distance_to_half(np.array([0.5 / 0.2])).min() < 1e-9


@pytest.mark.parametrize("one_shape", [False, True])
def test_no_drawn_quotient_is_near_a_half(one_shape: bool) -> None:
    for seed in range(200):
        ds = generate(Options(kind="quantization", seed=seed, count=2, one_shape=one_shape)).derivations
        for d in ds:
            g = _given(d)
            assert _closest(g) >= 0.05, (seed, g)


def _given(d: Any) -> dict[str, Any]:
    data = d.problem.data
    out: dict[str, Any] = {
        "W": np.asarray(data.W.floats, dtype=float).tolist(),
        "bits": data.bits,
        "scheme": data.scheme,
        "granularity": data.granularity,
    }
    if data.granularity == "group":
        out["group"] = data.group
    return out


def _errors(given: Any) -> np.ndarray:
    """Every rounding error w − s·(q − z), per block, from the scheme's formulas (round half to even,
    as torch.round; no tie is drawn, so the rule does not matter here)."""
    bits, out = int(given["bits"]), []
    for block in _blocks(given):
        if given["scheme"] == "absmax":
            width = np.max(np.abs(block))
            s = width / (2 ** (bits - 1) - 1) if width else 1.0
            q = np.clip(np.round(block / s), -(2 ** (bits - 1) - 1), 2 ** (bits - 1) - 1)
            out.append(block - s * q)
        else:
            lo, hi = min(block.min(), 0.0), max(block.max(), 0.0)
            s = (hi - lo) / (2**bits - 1) if hi > lo else 1.0
            z = np.round(-lo / s)
            q = np.clip(np.round(block / s) + z, 0, 2**bits - 1)
            out.append(block - s * (q - z))
    return np.concatenate(out)


def test_the_grid_rule_sees_weights_on_the_grid() -> None:
    """3-bit absmax of [0.3, 0.6, −0.9, 0.3]: the scale 0.9 / 3 = 0.3, every weight a whole number of
    scales, every error 0; [0.4, 0.6, −0.9, 0.3] has one error (0.4 − 0.3 = 0.1)."""
    on = {"W": [[0.3, 0.6, -0.9, 0.3]], "bits": 3, "scheme": "absmax", "granularity": "tensor"}
    off = {"W": [[0.4, 0.6, -0.9, 0.3]], "bits": 3, "scheme": "absmax", "granularity": "tensor"}
    assert np.max(np.abs(_errors(on))) < 1e-12
    assert np.max(np.abs(_errors(off))) == pytest.approx(0.1)


@pytest.mark.parametrize(("tokens", "dim"), [(1, 2), (2, 2), (1, 4)])
def test_no_drawn_variant_has_every_weight_on_the_grid(tokens: int, dim: int) -> None:
    """A variant whose weights all lie on the grid (every rounding error 0 at the sheet's decimals)
    teaches nothing, and an answer of zeros would be right: the drawer redraws it."""
    for seed in range(150):
        for d in generate(Options(kind="quantization", tokens=tokens, dim=dim, seed=seed, count=2)).derivations:
            g, dec = _given(d), d.decimals
            assert np.max(np.abs(_errors(g))) >= 0.5 * 10.0**-dec, (seed, g)


def test_a_single_weight_is_refused_naming_the_option() -> None:
    """One weight is its own range (max|w|, or an end of [min(w, 0), max(w, 0)]): always on the grid,
    so no variant could be drawn; generate says why instead of drawing 500 times."""
    from attncalc.errors import ProblemError

    with pytest.raises(ProblemError) as err:
        generate(Options(kind="quantization", tokens=1, dim=1, seed=1, count=1))
    assert err.value.key == "--dim" and "at least 2 weights" in str(err.value)


@pytest.mark.parametrize(("tokens", "dim"), [(1, 2), (1, 3), (2, 2), (1, 4), (3, 4)])
def test_a_quiz_of_one_shape_is_drawn_for_every_shape(tokens: int, dim: int) -> None:
    """A quiz's set has one scheme and granularity from the seed, and cannot redraw them: 1 × 2 weights
    under zeropoint put both on the grid (its least and greatest), one row's row granularity has a single
    scale; the seed picks among the pairs that can teach. Each variant keeps a weight off the grid."""
    for seed in range(6):
        ds = generate(
            Options(kind="quantization", seed=seed, count=2, tokens=tokens, dim=dim, one_shape=True)
        ).derivations
        for d in ds:
            g = _given(d)
            assert np.max(np.abs(_errors(g))) > 1e-9, (seed, g)
