"""Homework for rnn, lstm and gru: a cell over a few steps, its weights in any layout, and with
``--head`` an output layer with targets (logits, probabilities, prediction and loss per step, then the
sequence's loss and the gradients of the output layer).

The weights are drawn per gate in the canonical form (W_x, W_h and biases) and written in the layout
asked for, so one draw reads the same in every layout. Values are small (``int``: −1, 0, 1), and a
variant whose gates saturate is redrawn.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from ..parse.recurrent import GATE_KEYS, STACK_ORDER
from ..parse.types import GATES
from .base import TOKENS, VOCAB, Draw, Drawer, choose, only, refuse
from .guards import repeated_row, saturated, stuck_unit, tied_prediction, zero_row
from .options import Options
from .training import check_training, training_table

LAYOUTS = ("gates", "pytorch", "keras")
RESETS = ("after", "before")
UPDATES = ("keep", "replace")


def check_cell(o: Options, cell: str) -> None:
    """--layout, --reset, --update for a cell of this kind."""
    choose(o, "layout", o.layout, LAYOUTS)
    if cell == "gru":
        if o.reset is not None:
            choose(o, "reset", o.reset, RESETS)
        choose(o, "update", o.update, UPDATES)
        return
    for name, default in (("reset", None), ("update", "keep")):
        if getattr(o, name) != default:
            raise refuse(f"--{name}", f"--{name} applies to a GRU cell")


def _check(o: Options) -> None:
    check_cell(o, o.kind)
    check_training(o, o.head, "add --head")
    only(o, {"layout", "reset", "update", "head", "optimizer", "clip_norm"}, o.kind)


def reset_of(o: Options) -> str:
    """The GRU's reset position: as asked, else the layout's default (before in gates, after otherwise)."""
    return o.reset or ("before" if o.layout == "gates" else "after")


def cell_weights(d: Draw, kind: str, layout: str, reset: str, d_x: int, d_h: int) -> dict[str, Any]:
    """A cell's weights as a problem file writes them in ``layout``: drawn per gate, then stacked."""
    two_biases = layout == "pytorch" or (kind == "gru" and reset == "after" and layout == "keras")
    gates: dict[str, dict[str, Any]] = {}
    for g in GATES[kind]:
        w: dict[str, Any] = {"Wh": d.matrix(d_h, d_h), "Wx": d.matrix(d_h, d_x), "bx": d.vector(d_h)}
        if two_biases or (layout == "gates" and kind == "gru" and g == "n" and reset == "after"):
            w["bh"] = d.vector(d_h)
        gates[g] = w
    if layout == "gates":
        out: dict[str, Any] = {}
        for g in GATES[kind]:
            wk, bk = GATE_KEYS[kind][g]
            out[wk] = [h + x for h, x in zip(gates[g]["Wh"], gates[g]["Wx"], strict=True)]
            out[bk] = gates[g]["bx"]
            if "bh" in gates[g]:
                out["b_hn"] = gates[g]["bh"]
        return out
    order = STACK_ORDER[(kind, layout)]

    def stack(part: str) -> list[Any]:
        return [row for g in order for row in gates[g][part]]

    def flat(part: str) -> list[Any]:
        return [x for g in order for x in gates[g][part]]

    if layout == "pytorch":
        return {"weight_ih": stack("Wx"), "weight_hh": stack("Wh"), "bias_ih": flat("bx"), "bias_hh": flat("bh")}
    kernel = [list(col) for col in zip(*stack("Wx"), strict=True)]  # Keras stores x W: the transpose
    recurrent = [list(col) for col in zip(*stack("Wh"), strict=True)]
    bias: Any = [flat("bx"), flat("bh")] if two_biases else flat("bx")
    return {"kernel": kernel, "recurrent_kernel": recurrent, "bias": bias}


def cell_options(o: Options, kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {"layout": o.layout}
    if kind == "gru":
        out.update(reset=reset_of(o), update=o.update)
    return out


def output_layer(d: Draw, rng: random.Random, width: int, steps: int) -> dict[str, Any]:
    """W_out over three labels, and a target per step."""
    vocab = list(VOCAB[:3])
    return {"W_out": d.matrix(len(vocab), width), "vocab": vocab, "targets": [rng.choice(vocab) for _ in range(steps)]}


def draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    d = Draw(rng, o.values, palette="cell")
    T, k = o.tokens, o.dim
    given: dict[str, Any] = {"x": [d.nonzero_vector(k) for _ in range(T)]}
    given.update(cell_weights(d, o.kind, o.layout, reset_of(o), k, k))
    if o.head:
        given.update(output_layer(d, rng, k, T))
    raw = {
        "title": f"Variant {number}",
        "kind": o.kind,
        "tokens": list(TOKENS[:T]),
        "settings": {"decimals": o.decimals, "exact": False},
        "given": given,
        "cell": cell_options(o, o.kind),
    }
    train = training_table(o)
    if train is not None:
        raw["training"] = train
    return raw


def gates_all_zero(t: dict[str, Any]) -> str | None:
    """A gate whose weights are all zero is a constant: not worth computing."""
    for key in ("W_f", "W_i", "W_c", "W_o", "W_z", "W_r", "W_h", "W"):
        if key in t and all(x == 0 for row in t[key] for x in row):
            return "a gate's weights are all zero"
    return None


def reject(o: Options, raw: dict[str, Any]) -> str | None:
    g = raw["given"]
    return zero_row(g["x"]) or repeated_row(g["x"], g.get("W_out")) or gates_all_zero(g)


def degeneracy(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    return saturated(d) or tied_prediction(d, o.decimals) or stuck_unit(d, o.decimals) or reset_blind(raw, d)


def reset_blind(raw: dict[str, Any], d: Derivation, tables: tuple[str, ...] = ("cell",)) -> str | None:
    """A GRU whose hidden states come out the same with the reset gate before and after W_hn: such a
    variant cannot tell a student who put it in the wrong place."""
    if not all(isinstance(raw.get(t), dict) and "reset" in raw[t] for t in tables):
        return None
    from ..errors import ProblemError
    from ..mechanisms import solve
    from ..parse import parse_problem

    flip = {"after": "before", "before": "after"}
    other = {**raw, **{t: {**raw[t], "reset": flip[raw[t]["reset"]]} for t in tables}}
    try:
        flipped = solve(parse_problem(other, "variant"), exact=False)
    except ProblemError:  # the other placement needs other keys (b_hn): nothing to compare
        return None
    states = [i for i in d.step_ids if i.endswith(".h")]
    if all(np.allclose(d[i], flipped[i], atol=10.0 ** -(d.decimals + 1)) for i in states if i in flipped.step_ids):
        return "reset before and after give the same states"
    return None


def _drawer(subject: str) -> Drawer:
    # no prediction is ever tied away (--allow-ties is not read)
    reads = frozenset({"tokens", "dim", "values", "decimals"})
    return Drawer(subject, _check, draw, degeneracy, reject, min_tokens=1, max_tokens=6, reads=reads)


RNN = _drawer("RNN homework")
LSTM = _drawer("LSTM homework")
GRU = _drawer("GRU homework")
