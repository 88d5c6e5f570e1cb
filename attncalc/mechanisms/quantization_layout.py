"""Kind quantization: how an answer per scale is laid out, said where its shape is not one number (a
question sheet, the practice page): the ranges per row or group (max|w|, or a [min, max] pair), and the
scales and zero points, one per row or a rows × groups matrix. A grouped zeropoint problem's ranges are
a list of pairs, one per group, row by row: nothing in the formula [min(w, 0), max(w, 0)] says so."""

from __future__ import annotations

from ..parse.quantization import Quantization


def layout(d: Quantization, step_id: str) -> str:
    """How the answer of ``step_id`` (ranges, scales or zero_points) is laid out; "" for one number."""
    outer, groups, _ = d.blocks
    n = outer * groups
    if d.granularity == "tensor":
        if step_id == "ranges" and d.scheme == "zeropoint":
            return "one pair [min, max] (min first)."
        return ""
    if d.granularity == "row":
        per = "one [min, max] pair (min first) per row" if _pairs(d, step_id) else "one number per row"
        example = "[[min, max], [min, max], …]" if _pairs(d, step_id) else "[row 1, row 2, …]"
        return f"{per}, a list of {outer} in row order: {example}."
    if _pairs(d, step_id):
        return (
            f"one [min, max] pair (min first) per group: a list of {n} pairs ({outer} rows × {groups} groups), "
            "row 1's groups in order, then row 2's, …: [[min, max], [min, max], …]."
        )
    return (
        f"a {outer} × {groups} matrix, one number per group: row i holds row i's groups in order "
        "([[group 1, group 2, …], …])."
    )


def _pairs(d: Quantization, step_id: str) -> bool:
    return step_id == "ranges" and d.scheme == "zeropoint"
