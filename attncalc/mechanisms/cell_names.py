"""How a cell's steps are named and explained: each gate's id, symbol, title and why, and where a gate's
weights sit in the layout the problem gave them in (PyTorch's stacked rows, Keras's kernels)."""

from __future__ import annotations

from ..parse.types import Cell

# How each gate is named in ids and symbols, and its activation.
GATE_NAME = {"f": "f", "i": "i", "g": "c_tilde", "o": "o", "r": "r", "z": "z", "n": "h_tilde", "h": "h"}
GATE_SYMBOL = {"f": "f", "i": "i", "g": "c\u0303", "o": "o", "r": "r", "z": "z", "n": "h\u0303", "h": "h"}
GATE_TITLE = {
    "f": "Forget gate",
    "i": "Input gate",
    "g": "Candidate cell values",
    "o": "Output gate",
    "r": "Reset gate",
    "z": "Update gate",
    "n": "Candidate state",
    "h": "Hidden state",
}
GATE_WHY = {
    "f": "The forget gate decides, entry by entry, how much of the old cell state to keep (σ lies in (0, 1)).",
    "i": "The input gate decides how much of the candidate to write into the cell.",
    "g": "The candidate holds the new content, squashed into (−1, 1) by tanh.",
    "o": "The output gate decides how much of the squashed cell state to expose as h.",
    "r": "The reset gate decides how much of the previous state enters the candidate.",
    "z": "The update gate interpolates between the previous state and the candidate.",
    "n": "The candidate state, from the input and the (reset) previous state.",
    "h": "A plain recurrent cell: the new state is a squashed affine map of [h; x].",
}


def weight_name(cell: Cell, g: str) -> str:
    if cell.layout == "gates":
        from ..parse.recurrent import GATE_KEYS

        return GATE_KEYS[cell.kind][g][0]
    return f"W_{g}"


def bias_name(cell: Cell, g: str) -> str:
    if cell.layout == "gates":
        from ..parse.recurrent import GATE_KEYS

        return GATE_KEYS[cell.kind][g][1]
    return f"b_{g}"


def layout_note(cell: Cell, g: str, part: str = "both") -> str:
    """Where a gate's weights sit in the stacked layouts; ``part`` is input, recurrent or both (over [h; x],
    or [x; h] in the order "xh")."""
    if cell.layout == "gates":
        return ""
    from ..parse.recurrent import STACK_ORDER

    order = STACK_ORDER[(cell.kind, cell.layout)]
    k = order.index(g)
    d = cell.d_h
    span = f"{k * d + 1}–{(k + 1) * d}"
    if cell.layout == "pytorch":
        where = f"From PyTorch's stacked weights (gate order {', '.join(order)}): "
        sides = {"input": ("weight_ih", "bias_ih"), "recurrent": ("weight_hh", "bias_hh")}
        if part in sides:
            W, b = sides[part]
            return where + f"rows {span} of {W}, and of {b}."
        parts = [f"rows {span} of weight_hh", f"rows {span} of weight_ih"]
        if cell.order == "xh":
            parts.reverse()
        return where + f"W_{g} = [{' | '.join(parts)}], b_{g} = bias_ih + bias_hh on those rows."
    where = f"From Keras's kernels (gate order {', '.join(order)}): "
    if part == "input":
        return where + f"columns {span} of kernel, transposed, and of bias row 1."
    if part == "recurrent":
        return where + f"columns {span} of recurrent_kernel, transposed, and of bias row 2."
    parts = [f"columns {span} of recurrent_kernel", f"columns {span} of kernel"]
    if cell.order == "xh":
        parts.reverse()
    return where + f"W_{g} = [{' | '.join(parts)}], transposed; b_{g} = bias on those columns."


def stacked_labels(cell: Cell) -> tuple[str, ...] | None:
    """Where each row (PyTorch) or column (Keras) of a stacked weight belongs: "r1", "r2", "z1", ...
    (the gate, then the hidden unit), in the layout's order; None in the per-gate layout."""
    if cell.layout == "gates":
        return None
    from ..parse.recurrent import STACK_ORDER

    return tuple(f"{g}{k + 1}" for g in STACK_ORDER[(cell.kind, cell.layout)] for k in range(cell.d_h))


def given_labels(cell: Cell, name: str) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """The row and column labels of one of a cell's given weights: a stacked layout's gate rows or
    columns are labelled by gate and unit, so a question sheet says which rows are which gate."""
    labels = stacked_labels(cell)
    if labels is None:
        return None, None
    if cell.layout == "pytorch":  # weight_ih, weight_hh and both biases stack the gates' rows
        return labels, None
    if name == "bias" and cell.kind == "gru" and cell.reset == "after":  # Keras: two bias rows
        return ("input", "recurrent"), labels
    if name == "bias":
        return labels, None
    return None, labels  # kernel, recurrent_kernel: x W, the gates side by side in columns
