"""Kind attention-backward: the givens of kind multi-head (read by its parser) and the upstream gradient.

The declaration (:mod:`attncalc.schema.attention_backward`) checks the keys, their types and that
grad_output has a row per row of X; kind multi-head's parser reads the heads, the projections, the
biases and the masks (its rules and messages); what is left here is grad_output's width.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..schema.attention_backward import GIVEN, SETTINGS_BACKWARD
from . import multihead
from .declared import Dims, read_declared
from .reader import Reader, shape_text
from .types import Given, MultiHead, Problem


@dataclass(frozen=True)
class AttentionBackward:
    """What the mechanism reads (``problem.data``): the forward pass's problem and the upstream gradient."""

    mh: MultiHead
    grad_output: Given  # n × d_model (with W_O) or n × (heads·d_v)
    jacobian: bool  # write each query row's softmax Jacobian


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    given = read_declared(r, raw["given"], GIVEN, "given", Dims())
    settings = read_declared(r, raw.get("settings") or {}, SETTINGS_BACKWARD.table, "settings", only=("jacobian",))  # type: ignore[arg-type]
    forward = dict(
        raw, given={**{k: v for k, v in raw["given"].items() if k != "grad_output"}, "heads": given["heads"]}
    )
    p = multihead.parse(r, forward, common)
    mh = p.payload(MultiHead)
    g: Given = given["grad_output"]
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
    data = AttentionBackward(mh, g, bool(settings["jacobian"]))
    return dataclasses.replace(p, given={"X": mh.X, "grad_output": g}, data=data)
