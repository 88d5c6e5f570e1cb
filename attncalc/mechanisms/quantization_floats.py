"""Kind ``quantization`` in numpy, for the chains whose numbers are floats (float and hand): the same
arithmetic as quantization.py's entry-by-entry loops, which serve exact numbers and check's
intervals. A check reruns the problem a few dozen times, and W may hold 100,000 weights: the loops
took 1 to 2 s a run there (tryout 32), these a few milliseconds.

Each function gives the very floats its loop gives (the same operations on the same operands, in the
same order where the order matters: the squared errors are summed left to right), or None where the
numbers are not all floats and the loop must do it. A weight of −0.0 goes to the loops too (the loops
keep the first of equal extremes, which decides a zero's sign)."""

from __future__ import annotations

import numpy as np

from ..derivation.arith import holds_objects
from ..parse.quantization import Quantization
from .quantization_math import Rounder


def floats(*arrays: object) -> bool:
    """Whether every array holds plain floats (not exact numbers, not intervals)."""
    return all(isinstance(a, np.ndarray) and not holds_objects(a) for a in arrays)


def ranges(d: Quantization, W: np.ndarray, tensor: bool) -> np.ndarray | None:
    """Each scale's range, flat: max|w| (absmax) or [min(w, 0), max(w, 0)] rows (zeropoint)."""
    if not floats(W) or bool(((W == 0) & np.signbit(W)).any()) or not np.isfinite(W).all():
        return None
    outer, groups, size = d.blocks
    blocks = (W.reshape(1, -1) if tensor else W.reshape(outer * groups, size)).astype(float)
    reps = outer * groups if tensor else 1
    if d.scheme == "absmax":
        return np.repeat(np.abs(blocks).max(axis=1), reps)
    lo = np.minimum(blocks.min(axis=1), 0.0)
    hi = np.maximum(blocks.max(axis=1), 0.0)
    return np.repeat(np.stack([lo, hi], axis=1), reps, axis=0)


def scales(flat_ranges: np.ndarray, levels: int, absmax: bool) -> np.ndarray | None:
    """s = range / levels per scale, 1 for an all-zero range."""
    if not floats(flat_ranges):
        return None
    width = flat_ranges if absmax else flat_ranges[:, 1] - flat_ranges[:, 0]
    with np.errstate(all="ignore"):
        return np.where(width == 0, 1.0, width / levels)


def zero_points(rounder: Rounder, flat_ranges: np.ndarray, flat_scales: np.ndarray, sign: bool) -> np.ndarray | None:
    """round(−min / s) per scale (round(min / s) under the slip ``zero_point_sign``: ``sign``)."""
    if not floats(flat_ranges, flat_scales):
        return None
    lo = flat_ranges[:, 0]
    with np.errstate(all="ignore"):
        return rounder.round_all((lo if sign else -lo) / flat_scales)


def quantize(
    d: Quantization, rounder: Rounder, W: np.ndarray, flat_scales: np.ndarray, zp: np.ndarray
) -> np.ndarray | None:
    """clamp(round(w / s) + z) per entry, in block order (outer, groups, size)."""
    if not floats(W, flat_scales, zp):
        return None
    outer, groups, size = d.blocks
    per_entry = np.repeat(flat_scales, size)
    with np.errstate(all="ignore"):
        v = rounder.round_all(W.reshape(-1) / per_entry) + np.repeat(zp, size)
    return rounder.clamp_all(v, d.qmin, d.qmax).reshape(outer, groups, size)


def dequantize(d: Quantization, quantized: np.ndarray, zp: np.ndarray, flat_scales: np.ndarray) -> np.ndarray | None:
    """(q − z) · s per entry, in block order."""
    if not floats(quantized, zp, flat_scales):
        return None
    outer, groups, size = d.blocks
    q = quantized.reshape(outer * groups, size)
    with np.errstate(all="ignore"):
        return np.asarray((q - zp[:, None]) * flat_scales[:, None]).reshape(outer, groups, size)


def error_summary(errors: np.ndarray) -> tuple[float, float] | None:
    """The largest |e| and Σ e² (left to right, as the loop adds), for finite float errors."""
    if not floats(errors) or not np.isfinite(errors).all():
        return None
    e = errors.reshape(-1)
    return float(np.abs(e).max()), float(np.add.accumulate(e * e)[-1])
