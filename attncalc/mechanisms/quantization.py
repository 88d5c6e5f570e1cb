"""Kind ``quantization``: a weight matrix quantized to b-bit integers and back, step by step.

- absmax (symmetric): scale = max|w| / (2^(b−1) − 1), q = clamp(round(w / scale)) in
  [−(2^(b−1) − 1), 2^(b−1) − 1], dequantized q · scale.
- zeropoint (asymmetric, as torch's quint8): over [min(w, 0), max(w, 0)], scale = (max − min) / (2^b − 1),
  zero_point = round(−min / scale), q = clamp(round(w / scale) + zero_point) in [0, 2^b − 1],
  dequantized (q − zero_point) · scale.

One scale per tensor, per row (output channel) or per group of consecutive entries of a row; an all-zero
range takes scale 1. Rounding is half to even (torch.round; quantization_math.Rounder). Then the errors
W − dequantized, their largest magnitude and mean square, and with an input row x the outputs x · Wᵀ
and x · dequantized(W)ᵀ.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..derivation import Formula, Input, Step
from ..derivation.arith import Chain, MistakeNotApplicable, to_float
from ..derivation.fmt import fmt
from ..parse import Problem
from ..parse.quantization import Quantization
from . import quantization_floats as qf
from .quantization_layout import layout
from .quantization_math import Rounder, ScaleText, array, largest, smallest
from .quantization_outputs import outputs
from .quantization_outputs import paren as _par
from .quantization_outputs import plain as _g
from .written import Written


def inputs(p: Problem) -> list[Input]:
    d = p.payload(Quantization)
    rows = tuple(f"row {i + 1}" for i in range(d.W.shape[0]))
    out = [Input("W", "W", d.W.floats, None, rows=rows, role="the weights, one output channel a row")]
    if d.x is not None:
        out.append(Input("x", "x", d.x.floats, None, role="an input row"))
    return out


def header(p: Problem) -> list[str]:
    d = p.payload(Quantization)
    gran = f"groups of {d.group}" if d.granularity == "group" else f"per {d.granularity}"
    return [p.kind, f"{d.bits}-bit", d.scheme, gran]


def _labels(d: Quantization) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    outer, groups, _ = d.blocks
    if d.granularity == "tensor":
        return None, None
    rows = tuple(f"row {i + 1}" for i in range(outer))
    return rows, (tuple(f"group {j + 1}" for j in range(groups)) if d.granularity == "group" else None)


def _ranges(
    d: Quantization, chain: Chain, W: np.ndarray, blocks: np.ndarray, whole: list[Any], zero: Any,
    index: list[tuple[int, int]],
) -> np.ndarray:  # fmt: skip
    """Each scale's range: max|w| over its block (absmax), or [min(w, 0), max(w, 0)] (zeropoint). Under
    the slip per_tensor_for_row every block is the whole tensor: its range is found once."""
    outer, groups, _ = d.blocks
    tensor = chain.mistake == "per_tensor_for_row"
    fast = qf.ranges(d, W, tensor)
    if fast is not None:
        return (
            fast.reshape(d.scale_shape)
            if d.scheme == "absmax"
            else fast.reshape((2,) if not d.scale_shape else (-1, 2))
        )
    if d.scheme == "absmax":
        if tensor:
            rng = [largest([abs(v) for v in whole])] * len(index)
        else:
            rng = [largest([abs(v) for v in blocks[o, g]]) for o, g in index]
        return array(rng, (outer * groups,)).reshape(d.scale_shape)
    if tensor:
        pairs = [[smallest([*whole, zero]), largest([*whole, zero])]] * len(index)
    else:
        pairs = [[smallest([*blocks[o, g], zero]), largest([*blocks[o, g], zero])] for o, g in index]
    # one [min, max] row per scale (rows × groups of them one after the other: a sheet draws two axes)
    return array(pairs, (outer * groups, 2)).reshape((2,) if not d.scale_shape else (-1, 2))


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(Quantization)
    W = chain.given(d.W)
    rows, cols = d.W.shape
    outer, groups, size = d.blocks
    shape = d.scale_shape
    absmax = d.scheme == "absmax"
    Wf = d.W.floats
    if chain.mistake == "per_tensor_for_row" and d.granularity == "tensor":
        raise MistakeNotApplicable
    if chain.mistake == "absmax_power_of_two" and not absmax:
        raise MistakeNotApplicable
    if chain.mistake == "zero_point_sign" and absmax:
        raise MistakeNotApplicable
    blocks = W.reshape(outer, groups, size)
    whole = list(W.reshape(-1))
    fblocks = Wf.reshape(outer, groups, size)
    zero = Rounder(chain).like(0)
    rounder = Rounder(chain)

    # ranges, per scale
    def fblock(o: int, g: int) -> list[float]:
        return list(Wf.reshape(-1)) if chain.mistake == "per_tensor_for_row" else list(fblocks[o, g])

    index = [(o, g) for o in range(outer) for g in range(groups)]
    found = _ranges(d, chain, W, blocks, whole, zero, index)
    steps: list[Step] = []
    r_rows, r_cols = _labels(d)
    steps.append(_range_step(d, chain, found, fblock, index, r_rows, r_cols, shape))
    ranges = steps[-1].value
    flat_ranges = ranges.reshape(outer * groups, *(() if absmax else (2,)))

    # scales
    levels = (
        (2 ** (d.bits - 1) if chain.mistake == "absmax_power_of_two" else 2 ** (d.bits - 1) - 1)
        if absmax
        else 2**d.bits - 1
    )
    sc: Any = qf.scales(flat_ranges, levels, absmax)
    if sc is None:
        sc = []
        for k in range(outer * groups):
            width = flat_ranges[k] if absmax else flat_ranges[k][1] - flat_ranges[k][0]
            sc.append(rounder.like(1) if float(width) == 0 else width / levels)
    fr = to_float(ranges)
    steps.append(
        chain.step(
            Formula, "scales", array(sc, (outer * groups,)).reshape(shape), title="Scales", symbol="s", rows=r_rows,
            cols=r_cols, latex="", layout=layout(d, "scales"),
            formula="s = max|w| / (2^(b−1) − 1)" if absmax else "s = (max − min) / (2^b − 1)",
            written=_written(shape, chain.decimals, lambda k, dec: _scale_text(fr.reshape(outer * groups, -1)[k], levels, absmax)),
            explain=f"{levels} steps of the integer grid span the range" + ("" if absmax else " from min to max")
            + "; an all-zero range takes scale 1.",
        )
    )  # fmt: skip
    scales = steps[-1].value
    flat_scales = scales.reshape(outer * groups)
    fs = to_float(scales)

    # zero points
    minima = None if absmax else fr.reshape(-1, 2)[:, 0]
    st = ScaleText(fs.reshape(-1), Wf.reshape(-1), minima, d.qmin, d.qmax)
    flat_zp, fz = _zero_points(d, chain, rounder, steps, flat_ranges, flat_scales, (fr, st), (r_rows, r_cols))

    # quantized
    q = _quantize(d, chain, rounder, blocks, flat_scales, flat_zp)
    fzq = np.repeat(fz, size).reshape(rows, cols)

    def s_at(idx: tuple[int, ...], dec: int) -> str:  # the scale of entry idx, as its dequantized line writes it
        return st((idx[0] * cols + idx[1]) // size, dec)

    def s_q(idx: tuple[int, ...], dec: int) -> str:  # and as its quantized line writes it (a tie: the fraction)
        flat = idx[0] * cols + idx[1]
        return st.entry(flat // size, flat % size, dec)

    wider = st.note(chain.decimals)
    Wrows = tuple(f"row {i + 1}" for i in range(rows))
    zp_text = "" if absmax else " + z"
    steps.append(
        chain.step(
            Formula, "quantized", array(q.reshape(-1).tolist(), (rows, cols)), title=f"Quantized ({d.bits}-bit integers)",
            symbol="q", rows=Wrows, latex="", formula=f"q = clamp(round(w / s){zp_text}, {d.qmin}, {d.qmax})",
            written=Written(lambda idx, dec: _clamp_text(f"round({_g(float(Wf[idx]))} / {s_q(idx, dec)})"
                            + ("" if absmax else f" + {fmt(fzq[idx], 0)}"), st, idx, (cols, size), d), 2, chain.decimals),
            explain="Rounded half to even (as torch.round), then clamped to the integer range." + wider,
        )
    )  # fmt: skip
    quantized = steps[-1].value

    # dequantized and the errors
    qb = quantized.reshape(outer, groups, size)
    deq: Any = qf.dequantize(d, quantized, np.asarray(flat_zp), flat_scales)
    if deq is None:
        deq = np.empty((outer, groups, size), dtype=object)
        for o, g in index:
            k = o * groups + g
            for j in range(size):
                deq[o, g, j] = (qb[o, g, j] - flat_zp[k]) * flat_scales[k]
    fq = to_float(quantized)
    steps.append(
        chain.step(
            Formula, "dequantized", array(deq.reshape(-1).tolist(), (rows, cols)), title="Dequantized", symbol="w'",
            rows=Wrows, latex="",
            formula="w' = (q − z) · s" if not absmax else "w' = q · s",
            written=Written(lambda idx, dec: (f"{fmt(fq[idx], 0)}" if absmax else f"({fmt(fq[idx], 0)} − {fmt(fzq[idx], 0)})")
                            + f" · {s_at(idx, dec)}", 2, chain.decimals),
            explain="The integers mapped back onto the real line: what the layer computes with." + wider,
        )
    )  # fmt: skip
    dequantized = steps[-1].value
    fd = to_float(dequantized)
    steps.append(
        chain.step(
            Formula, "errors", W - dequantized, title="Errors", symbol="e", rows=Wrows, latex="", formula="e = w − w'",
            written=Written(lambda idx, dec: _error_text(float(Wf[idx]), float(fd[idx]), dec), 2, chain.decimals),
            explain="What the rounding (and any clamp) lost, entry by entry.",
        )
    )  # fmt: skip
    summary = qf.error_summary(steps[-1].value)
    flat_e = [] if summary is not None else list(steps[-1].value.reshape(-1))
    largest_e = summary[0] if summary is not None else largest([abs(e) for e in flat_e])
    steps.append(
        chain.step(
            Formula, "max_error", array(largest_e, ()), title="Largest error", symbol="max|e|",
            latex="", significant=3,
            formula="max |e|", written="max |w − w'| over the entries",
            explain="At most half a scale when nothing was clamped.",
        )
    )  # fmt: skip
    if summary is not None:
        total = summary[1]
    else:
        total = flat_e[0] * flat_e[0]
        for e in flat_e[1:]:
            total = total + e * e
    steps.append(
        chain.step(
            Formula, "mse", array(total / (rows * cols), ()), title="Mean squared error", symbol="MSE", latex="",
            formula="MSE = (1/N) Σ e²", written=f"(1/{rows * cols}) Σ e²", significant=3,
            defines=(f"N = {rows * cols}, the number of weights",),
            explain=f"The mean of the {rows * cols} squared errors.",
        )
    )  # fmt: skip
    if d.x is not None:
        steps += outputs(d, chain, W, dequantized, Wrows)
    return steps


def _error_text(w: float, deq: float, dec: int) -> str:
    """An error's line, w − w', with w' written to as many decimals as the line needs to give the error
    as shown: -0.61 − (-0.610236) = 0.000236, never -0.61 − (-0.610) (which is 0 as written)."""
    shown = fmt(w - deq, dec)
    if not math.isfinite(deq):  # (from an answered scale of 1e308: written as it is)
        return f"{_g(w)} − {_par(fmt(deq, dec))}"
    for k in range(max(dec, 0), 16):
        if fmt(w - float(fmt(deq, k)), dec) == shown:
            return f"{_g(w)} − {_par(fmt(deq, k))}"
    return f"{_g(w)} − {_par(fmt(deq, dec))}"


def _clamp_text(text: str, st: ScaleText, idx: tuple[int, ...], dims: tuple[int, int], d: Quantization) -> str:
    """An integer's line, inside clamp(…) where the clamp bit (so that the line gives what it shows)."""
    flat = idx[0] * dims[0] + idx[1]
    return f"clamp({text}, {d.qmin}, {d.qmax})" if st.clamped(flat // dims[1], flat % dims[1]) else text


def _written(shape: tuple[int, ...], dec: int, fn: Any) -> Any:
    """Written entries of a per-scale step: one string (tensor), else lazily, the scale's number k."""
    if not shape:
        return fn(0, dec)
    groups = shape[1] if len(shape) == 2 else 1
    return Written(lambda idx, d: fn(idx[0] * groups + (idx[1] if len(idx) == 2 else 0), d), len(shape), dec)


def _scale_text(r: np.ndarray, levels: int, absmax: bool) -> str:
    width = float(r[0]) if absmax else float(r[1]) - float(r[0])
    if width == 0:
        return "1 (an all-zero range)"
    return f"{_g(float(r[0]))} / {levels}" if absmax else f"({_g(float(r[1]))} − {_par(_g(float(r[0])))}) / {levels}"


def _range_step(d: Quantization, chain: Chain, found: np.ndarray, fblock: Any,
                index: list[tuple[int, int]], rows: Any, cols: Any, shape: tuple[int, ...]) -> Step:  # fmt: skip
    """The step "ranges" of value ``found`` (one range, or one [min, max] pair, per scale)."""
    absmax = d.scheme == "absmax"

    def entries(k: int) -> str:
        vals = fblock(*index[k])
        if len(vals) > 8:
            return f"{len(vals)} entries"
        return ", ".join(f"|{_g(v)}|" if absmax else _g(v) for v in vals)

    if absmax:
        written = _written(shape, 0, lambda k, dec: f"max({entries(k)})")
    else:

        def both(idx: tuple[int, ...], dec: int) -> str:
            return f"{'min' if idx[-1] == 0 else 'max'}({entries(idx[0] if len(idx) == 2 else 0)}, 0)"

        written = Written(both, 2 if shape else 1, 0)
        if len(shape) == 2:
            rows = tuple(f"row {o + 1}, group {g + 1}" for o, g in index)
    return chain.step(
        Formula, "ranges", found, title="Ranges", symbol="r", latex="",
        rows=rows if absmax or shape else ("min", "max"), cols=cols if absmax else (("min", "max") if shape else None),
        formula="r = max|w|" if absmax else "[min(w, 0), max(w, 0)]",
        written=written, layout=layout(d, "ranges"),
        explain="The largest magnitude the scale must reach." if absmax
        else "The interval the integers span, widened to hold 0 so that 0 is exact.",
    )  # fmt: skip


def _zero_points(
    d: Quantization, chain: Chain, rounder: Rounder, steps: list[Step], flat_ranges: Any, flat_scales: Any,
    floats: tuple[np.ndarray, ScaleText], labels: tuple[Any, Any],
) -> tuple[list[Any], np.ndarray]:  # fmt: skip
    """The zero points (zeropoint scheme: one step appended), flat, and as floats; zeros for absmax."""
    outer, groups, _ = d.blocks
    shape = d.scale_shape
    fr, scale_text = floats
    r_rows, r_cols = labels
    if d.scheme == "absmax":
        return [Rounder(chain).like(0)] * (outer * groups), np.zeros(outer * groups)
    zp: Any = qf.zero_points(rounder, flat_ranges, flat_scales, chain.mistake == "zero_point_sign")
    if zp is None:
        zp = []
        for k in range(outer * groups):
            lo = flat_ranges[k][0]
            zp.append(rounder.round((lo if chain.mistake == "zero_point_sign" else -lo) / flat_scales[k]))
    if chain.mistake == "zero_point_sign" and all(float(z) == 0 for z in zp):
        raise MistakeNotApplicable
    steps.append(
        chain.step(
            Formula, "zero_points", array(zp, (outer * groups,)).reshape(shape), title="Zero points", symbol="z",
            rows=r_rows, cols=r_cols, latex="", formula="z = round(−min / s)", layout=layout(d, "zero_points"),
            written=_written(shape, chain.decimals, lambda k, dec: f"round({_g(0.0 - fr.reshape(-1, 2)[k][0])} / {scale_text.zero(k, dec)})"),
            explain="The integer that stands for w = 0, rounded half to even." + scale_text.note(chain.decimals),
        )
    )  # fmt: skip
    zero_points = steps[-1].value
    return list(zero_points.reshape(-1)), to_float(zero_points).reshape(-1)


def _quantize(
    d: Quantization, chain: Chain, rounder: Rounder, blocks: np.ndarray, flat_scales: Any, flat_zp: list[Any]
) -> np.ndarray:
    """q = clamp(round(w / s) + z) per block (the slips of rounding and the clamp refused where nothing
    they change is here)."""
    outer, groups, size = d.blocks
    fast = qf.quantize(d, rounder, blocks, flat_scales, np.asarray(flat_zp))
    q = fast if fast is not None else np.empty((outer, groups, size), dtype=object)
    for o in range(outer if fast is None else 0):
        for g in range(groups):
            k = o * groups + g
            for j in range(size):
                v = rounder.round(blocks[o, g, j] / flat_scales[k]) + flat_zp[k]
                q[o, g, j] = rounder.clamp(v, d.qmin, d.qmax)
    if chain.mistake == "round_half_away" and rounder.ties == 0:
        raise MistakeNotApplicable
    if chain.mistake == "no_clamp" and rounder.clamped == 0:
        raise MistakeNotApplicable
    return q
