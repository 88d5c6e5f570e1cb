"""Kind attention-backward: the givens of kind multi-head (read by its parser) and the upstream gradient.

The declaration (:mod:`attncalc.schema.attention_backward`) checks the keys, their types and that
grad_output has a row per row of X; kind multi-head's rules (:func:`attncalc.parse.multihead.attention`)
check the heads, the projections, the biases and the masks; what is left here is grad_output's width.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..schema.attention_backward import GIVEN, SETTINGS_BACKWARD
from . import multihead
from .declared import Dims, read_declared
from .limits import MAX_JACOBIAN
from .reader import Reader, shape_text
from .types import Given, MultiHead, Problem


@dataclass(frozen=True)
class AttentionBackward:
    """What the mechanism reads (``problem.data``): the forward pass's problem and the upstream gradient."""

    mh: MultiHead
    grad_output: Given  # n × d_model (with W_O) or n × (heads·d_v)
    jacobian: bool  # write each query row's softmax Jacobian


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    dims = Dims()
    given = read_declared(r, raw["given"], GIVEN, "given", dims, skip=(*multihead.BIASES, "grad_output"))
    settings = read_declared(r, raw.get("settings") or {}, SETTINGS_BACKWARD.table, "settings", only=("jacobian",))  # type: ignore[arg-type]
    rows = multihead.Rows(given["X"], None, given["heads"], None)
    source = multihead.Source(raw["given"], GIVEN, "given")
    mh = multihead.attention(r, source, given, rows, dims, None, {}, common)
    g = _grad_output(r, raw["given"], mh, Dims({"n": dims.sizes["n"]}))
    data = AttentionBackward(mh, g, bool(settings["jacobian"]))
    if data.jacobian:
        _check_jacobian(r, mh)
    return Problem(given={"X": mh.X, "grad_output": g}, data=data, **common)


def _check_jacobian(r: Reader, mh: MultiHead) -> None:
    """settings.jacobian: every query row's m × m Jacobian of every head, at most MAX_JACOBIAN entries."""
    n, m = mh.X.shape[0], len(mh.key_labels)  # the keys: cached rows, then X's or memory's
    entries = n * m * m * mh.heads
    if entries > MAX_JACOBIAN:
        raise r.fail(
            "settings.jacobian",
            f"{n:,} rows × {m:,} × {m:,} keys × {mh.heads} head(s) make {entries:,} Jacobian entries: at most "
            f"{MAX_JACOBIAN:,} are written (set jacobian = false, or use fewer tokens)",
        )


def _grad_output(r: Reader, raw: Any, mh: MultiHead, dims: Dims) -> Given:
    """The upstream gradient: a row per row of X (the declaration), the output's width (W_O's columns,
    or the heads side by side)."""
    g: Given = read_declared(r, raw, GIVEN, "given", dims, only=("grad_output",))["grad_output"]
    width, of = (
        (mh.W["W_O"].shape[1], "the output concat W_O")
        if "W_O" in mh.W
        else (mh.heads * mh.d_v, "the concatenated heads")
    )
    if g.shape[1] != width:
        raise r.fail(
            "given.grad_output",
            f"is {shape_text(g)}, but {of} has {width} columns: the upstream gradient has the output's shape, "
            f"{g.shape[0]}×{width}",
        )
    return g
