"""--reveal: what a step's working shows before its value stage is opened."""

from __future__ import annotations

import re

from .blocks import Block, MathLines

_NUMBER = re.compile(r"[−-]?\d+(?:\.\d+)?(?:, …)?$")


def without_results(block: Block) -> Block:
    """Written-out lines with their results left for the reader ("= ?"): a line "lhs = working =
    result", "f(x) = number" or a prediction "ŷ = B"; a line stating a given ("x_1 = [1, 0]") stays. The same block when
    nothing is held back."""
    if not isinstance(block, MathLines):
        return block
    lines, held = [], False
    for math, remark in block.lines:
        parts = math.split(" = ")
        if len(parts) >= 3 or (len(parts) == 2 and (("(" in parts[0] and _NUMBER.match(parts[1])) or parts[0] == "ŷ")):
            math, held = " = ".join(parts[:-1]) + " = ?", True
        if "as written" in remark:  # "suis; as written: 1.198" gives the result away too
            remark, held = "; ".join(x for x in remark.split("; ") if not x.startswith("as written")), True
        lines.append((math, remark))
    return MathLines(tuple(lines)) if held else block
