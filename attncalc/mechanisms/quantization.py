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

from typing import Any

import numpy as np

from ..arith import Chain, MistakeNotApplicable, to_float
from ..derivation import Formula, Input, Step
from ..fmt import fmt
from ..parse import Problem
from ..parse.quantization import Quantization
from .quantization_math import Rounder, Written, array, largest, smallest


def _g(x: float) -> str:
    return f"{x:g}"


def _par(text: str) -> str:
    return f"({text})" if text.startswith(("-", "−")) else text


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


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(Quantization)
    W = chain.given(d.W)
    rows, cols = d.W.shape
    outer, groups, size = d.blocks
    shape = d.scale_shape
    absmax = d.scheme == "absmax"
    Wf = d.W.floats
    _refuse_mistake(d, chain, absmax)
    blocks = W.reshape(outer, groups, size)
    whole = list(W.reshape(-1))
    fblocks = Wf.reshape(outer, groups, size)
    zero = Rounder(chain).like(0)
    rounder = Rounder(chain)

    # ranges, per scale
    def block(o: int, g: int) -> list[Any]:
        return whole if chain.mistake == "per_tensor_for_row" else list(blocks[o, g])

    def fblock(o: int, g: int) -> list[float]:
        return list(Wf.reshape(-1)) if chain.mistake == "per_tensor_for_row" else list(fblocks[o, g])

    index = [(o, g) for o in range(outer) for g in range(groups)]
    if absmax:
        rng = [largest([abs(v) for v in block(o, g)]) for o, g in index]
        ranges = chain.finish("ranges", array(rng, (outer * groups,)).reshape(shape))
    else:
        pairs = [[smallest([*block(o, g), zero]), largest([*block(o, g), zero])] for o, g in index]
        # one [min, max] row per scale (rows × groups of them one after the other: a sheet draws two axes)
        ranges = chain.finish("ranges", array(pairs, (outer * groups, 2)).reshape((2,) if not shape else (-1, 2)))
    flat_ranges = ranges.reshape(outer * groups, *(() if absmax else (2,)))

    # scales
    levels = _levels(d, chain, absmax)
    sc = []
    for k in range(outer * groups):
        width = flat_ranges[k] if absmax else flat_ranges[k][1] - flat_ranges[k][0]
        sc.append(rounder.like(1) if float(width) == 0 else width / levels)
    scales = chain.finish("scales", array(sc, (outer * groups,)).reshape(shape))
    flat_scales = scales.reshape(outer * groups)

    steps: list[Step] = []
    r_rows, r_cols = _labels(d)
    fr = to_float(ranges)
    _range_step(d, steps, ranges, fr, fblock, index, r_rows, r_cols, shape)
    fs = to_float(scales)
    steps.append(
        Formula(
            id="scales", title="Scales", symbol="s", value=scales, rows=r_rows, cols=r_cols, latex="",
            formula="s = max|w| / (2^(b−1) − 1)" if absmax else "s = (max − min) / (2^b − 1)",
            written=_written(shape, chain.decimals, lambda k, dec: _scale_text(fr.reshape(outer * groups, -1)[k], levels, absmax)),
            explain=f"{levels} steps of the integer grid span the range" + ("" if absmax else " from min to max")
            + "; an all-zero range takes scale 1.",
        )
    )  # fmt: skip

    # zero points
    flat_zp, fz = _zero_points(d, chain, rounder, steps, flat_ranges, flat_scales, (fr, fs), (r_rows, r_cols))

    # quantized
    q = _quantize(d, chain, rounder, blocks, flat_scales, flat_zp)
    quantized = chain.finish("quantized", array(q.reshape(-1).tolist(), (rows, cols)))
    fsq = np.repeat(to_float(scales).reshape(outer * groups), size).reshape(rows, cols)
    fzq = np.repeat(fz, size).reshape(rows, cols)
    Wrows = tuple(f"row {i + 1}" for i in range(rows))
    zp_text = "" if absmax else " + z"
    steps.append(
        Formula(
            id="quantized", title=f"Quantized ({d.bits}-bit integers)", symbol="q", value=quantized, rows=Wrows,
            latex="", formula=f"q = clamp(round(w / s){zp_text}, {d.qmin}, {d.qmax})",
            written=Written(lambda idx, dec: f"round({_g(float(Wf[idx]))} / {fmt(fsq[idx], dec)})"
                            + ("" if absmax else f" + {fmt(fzq[idx], 0)}"), 2, chain.decimals),
            explain="Rounded half to even (as torch.round), then clamped to the integer range.",
        )
    )  # fmt: skip

    # dequantized and the errors
    qb = quantized.reshape(outer, groups, size)
    deq = np.empty((outer, groups, size), dtype=object)
    for o, g in index:
        k = o * groups + g
        for j in range(size):
            deq[o, g, j] = (qb[o, g, j] - flat_zp[k]) * flat_scales[k]
    dequantized = chain.finish("dequantized", array(deq.reshape(-1).tolist(), (rows, cols)))
    fq = to_float(quantized)
    steps.append(
        Formula(
            id="dequantized", title="Dequantized", symbol="w'", value=dequantized, rows=Wrows, latex="",
            formula="w' = (q − z) · s" if not absmax else "w' = q · s",
            written=Written(lambda idx, dec: (f"{fmt(fq[idx], 0)}" if absmax else f"({fmt(fq[idx], 0)} − {fmt(fzq[idx], 0)})")
                            + f" · {fmt(fsq[idx], dec)}", 2, chain.decimals),
            explain="The integers mapped back onto the real line: what the layer computes with.",
        )
    )  # fmt: skip
    errors = chain.finish("errors", W - dequantized)
    fd = to_float(dequantized)
    steps.append(
        Formula(
            id="errors", title="Errors", symbol="e", value=errors, rows=Wrows, latex="", formula="e = w − w'",
            written=Written(lambda idx, dec: f"{_g(float(Wf[idx]))} − {_par(fmt(fd[idx], dec))}", 2, chain.decimals),
            explain="What the rounding (and any clamp) lost, entry by entry.",
        )
    )  # fmt: skip
    flat_e = list(errors.reshape(-1))
    max_error = chain.finish("max_error", array(largest([abs(e) for e in flat_e]), ()))
    steps.append(
        Formula(
            id="max_error", title="Largest error", symbol="max|e|", value=max_error, latex="",
            formula="max |e|", written="max |w − w'| over the entries",
            explain="At most half a scale when nothing was clamped.",
        )
    )  # fmt: skip
    total = flat_e[0] * flat_e[0]
    for e in flat_e[1:]:
        total = total + e * e
    mse = chain.finish("mse", array(total / (rows * cols), ()))
    steps.append(
        Formula(
            id="mse", title="Mean squared error", symbol="MSE", value=mse, latex="",
            formula="MSE = (1/N) Σ e²", written=f"(1/{rows * cols}) Σ e²",
            explain=f"The mean of the {rows * cols} squared errors.",
        )
    )  # fmt: skip
    if d.x is not None:
        steps += _outputs(d, chain, W, dequantized, Wrows)
    return steps


def _refuse_mistake(d: Quantization, chain: Chain, absmax: bool) -> None:
    """A mistake this scheme cannot make: per-tensor for a per-tensor scale, absmax's grid for an
    asymmetric scheme, a zero point's sign where there is none."""
    if chain.mistake == "per_tensor_for_row" and d.granularity == "tensor":
        raise MistakeNotApplicable
    if chain.mistake == "absmax_power_of_two" and not absmax:
        raise MistakeNotApplicable
    if chain.mistake == "zero_point_sign" and absmax:
        raise MistakeNotApplicable


def _levels(d: Quantization, chain: Chain, absmax: bool) -> int:
    """The integer grid's steps across a range: 2^(b−1) − 1 either side of 0 (absmax), 2^b − 1 from min
    to max (asymmetric)."""
    if absmax:
        return int(2 ** (d.bits - 1) if chain.mistake == "absmax_power_of_two" else 2 ** (d.bits - 1) - 1)
    return int(2**d.bits - 1)


def _zero_points(
    d: Quantization,
    chain: Chain,
    rounder: Rounder,
    steps: list[Step],
    flat_ranges: np.ndarray,
    flat_scales: np.ndarray,
    floats: tuple[np.ndarray, np.ndarray],
    labels: tuple[Any, Any],
) -> tuple[list[Any], np.ndarray]:
    """The zero points (the integer that stands for w = 0) and their step, asymmetric only; each scale's
    zero point, and as floats."""
    outer, groups, _ = d.blocks
    shape = d.scale_shape
    zero = Rounder(chain).like(0)
    if d.scheme == "absmax":
        return [zero] * (outer * groups), np.zeros(outer * groups)
    fr, fs = floats
    r_rows, r_cols = labels
    zp = []
    for k in range(outer * groups):
        lo = flat_ranges[k][0]
        zp.append(rounder.round((lo if chain.mistake == "zero_point_sign" else -lo) / flat_scales[k]))
    if chain.mistake == "zero_point_sign" and all(float(z) == 0 for z in zp):
        raise MistakeNotApplicable
    zero_points = chain.finish("zero_points", array(zp, (outer * groups,)).reshape(shape))
    flat_zp = list(zero_points.reshape(-1))
    fz = to_float(zero_points).reshape(-1)
    steps.append(
        Formula(
            id="zero_points", title="Zero points", symbol="z", value=zero_points, rows=r_rows, cols=r_cols,
            latex="", formula="z = round(−min / s)",
            written=_written(shape, chain.decimals, lambda k, dec: f"round({_g(0.0 - fr.reshape(-1, 2)[k][0])} / {fmt(fs.reshape(-1)[k], dec)})"),
            explain="The integer that stands for w = 0, rounded half to even.",
        )
    )  # fmt: skip
    return flat_zp, fz


def _quantize(
    d: Quantization,
    chain: Chain,
    rounder: Rounder,
    blocks: np.ndarray,
    flat_scales: np.ndarray,
    flat_zp: list[Any],
) -> np.ndarray:
    """Every weight on the integer grid of its scale, clamped (by blocks: outer × groups × size)."""
    outer, groups, size = d.blocks
    q = np.empty((outer, groups, size), dtype=object)
    for o in range(outer):
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


def _outputs(d: Quantization, chain: Chain, W: np.ndarray, deq: np.ndarray, Wrows: tuple[str, ...]) -> list[Step]:
    assert d.x is not None
    x = chain.given(d.x)
    out = chain.finish("output", chain.matmul(x, W.T))
    outq = chain.finish("output_dequantized", chain.matmul(*chain.coerce(x, deq.T)))
    diff = chain.finish("output_error", out - outq)
    xs = [_par(_g(v)) for v in d.x.floats]

    def dot(m: np.ndarray) -> Written:
        return Written(
            lambda idx, dec: " + ".join(f"{a}·{_par(fmt(b, dec))}" for a, b in zip(xs, m[idx[0]], strict=True)),
            1,
            chain.decimals,
        )

    fo, fq = to_float(out), to_float(outq)
    return [
        Formula(id="output", title="Output with the weights", symbol="y", value=out, rows=Wrows, latex="",
                formula="y = x · Wᵀ", written=dot(d.W.floats), explain="One output per row of W."),
        Formula(id="output_dequantized", title="Output with the dequantized weights", symbol="ŷ", value=outq,
                rows=Wrows, latex="", formula="ŷ = x · w'ᵀ", written=dot(to_float(deq)),
                explain="The same input through the weights the quantized layer holds."),
        Formula(id="output_error", title="Output error", symbol="y − ŷ", value=diff, rows=Wrows, latex="",
                formula="y − ŷ", explain="What quantization changed in the layer's output.",
                written=Written(lambda idx, dec: f"{fmt(fo[idx[0]], dec)} − {_par(fmt(fq[idx[0]], dec))}", 1, chain.decimals)),
    ]  # fmt: skip


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


def _range_step(d: Quantization, steps: list[Step], ranges: np.ndarray, fr: np.ndarray, fblock: Any,
                index: list[tuple[int, int]], rows: Any, cols: Any, shape: tuple[int, ...]) -> None:  # fmt: skip
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
    steps.append(
        Formula(
            id="ranges", title="Ranges", symbol="r", value=ranges, latex="",
            rows=rows if absmax or shape else ("min", "max"), cols=cols if absmax else (("min", "max") if shape else None),
            formula="r = max|w|" if absmax else "[min(w, 0), max(w, 0)]",
            written=written,
            explain="The largest magnitude the scale must reach." if absmax
            else "The interval the integers span, widened to hold 0 so that 0 is exact.",
        )
    )  # fmt: skip
