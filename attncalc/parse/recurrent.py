"""Kinds rnn, lstm and gru (and the cells of seq2seq): the cell's options and weights, validated at the edge.

Whatever layout the weights are given in (the papers' per-gate matrices over [h; x], PyTorch's
stacked ``weight_ih``/``weight_hh`` or Keras's ``kernel``/``recurrent_kernel``), they are split here
into one canonical :class:`Cell`: per gate an input matrix ``Wx`` (d_h × d_x), a recurrent matrix
``Wh`` (d_h × d_h) and two biases. The mechanisms never see a layout.
"""

from __future__ import annotations

from typing import Any

from ..schema import common as decl
from ..schema.recurrent import CELL_TABLE
from ..schema.recurrent import RECURRENT_GIVEN as _GIVEN_TABLE
from ..schema.validate import names
from .output import output_layer, training
from .reader import Reader, check_steps, check_tokens, flat_given, need_shape, slice_given, vector_or_rows, zeros_given
from .types import GATES, Cell, Given, Problem, Recurrent

CELLS = decl.CELLS
LAYOUTS = decl.LAYOUTS

# The order each layout stacks the gates in.
STACK_ORDER = {
    ("lstm", "pytorch"): ("i", "f", "g", "o"),
    ("lstm", "keras"): ("i", "f", "g", "o"),
    ("gru", "pytorch"): ("r", "z", "n"),
    ("gru", "keras"): ("z", "r", "n"),
    ("rnn", "pytorch"): ("h",),
    ("rnn", "keras"): ("h",),
}
# Per-gate layout: the key of each gate's matrix over [h; x] and of its bias.
GATE_KEYS = {
    "lstm": {"f": ("W_f", "b_f"), "i": ("W_i", "b_i"), "g": ("W_c", "b_c"), "o": ("W_o", "b_o")},
    "gru": {"z": ("W_z", "b_z"), "r": ("W_r", "b_r"), "n": ("W_h", "b_h")},
    "rnn": {"h": ("W", "b")},
}
# Gate values a problem may state instead of computing them (the LSTM document does this).
STATED = decl.STATED
STATED_GATE = {"c_tilde": "g", "h_tilde": "n", "f": "f", "i": "i", "o": "o", "r": "r", "z": "z"}

LAYOUT_KEYS = {layout: tuple(k.name for k in keys) for layout, keys in decl.LAYOUT_KEYS.items()}
CELL_OPTIONS = tuple(k.name for k in decl.CELL_OPTIONS)
TRAINING_KEYS = names(decl.TRAINING_TABLE)


# ------------------------------------------------------------------------------ cells


def cell_options(r: Reader, t: dict[str, Any], where: str, kind: str | None) -> dict[str, Any]:
    """Read cell, layout, reset, update, nonlinearity, order from a table (the [cell], [encoder] or [decoder] table)."""
    pre = f"{where}." if where else ""
    if kind is None:
        kind = r.string(t.get("cell", "gru"), f"{pre}cell", CELLS)
    layout = r.string(t.get("layout", "gates"), f"{pre}layout", LAYOUTS)
    opts: dict[str, Any] = {"kind": kind, "layout": layout}
    if kind == "gru":
        default_reset = "before" if layout == "gates" else "after"
        opts["reset"] = r.string(t.get("reset", default_reset), f"{pre}reset", ("after", "before"))
        opts["update"] = r.string(t.get("update", "keep"), f"{pre}update", ("keep", "replace"))
    else:
        for k in ("reset", "update"):
            if k in t:
                raise r.fail(f"{pre}{k}", "applies to a GRU cell only")
    if kind == "rnn":
        opts["nonlinearity"] = r.string(t.get("nonlinearity", "tanh"), f"{pre}nonlinearity", ("tanh", "relu"))
    elif "nonlinearity" in t:
        raise r.fail(f"{pre}nonlinearity", "applies to an rnn cell only")
    opts["order"] = r.string(t.get("order", "hx"), f"{pre}order", ("hx", "xh"))
    return opts


def read_cell(
    r: Reader,
    t: dict[str, Any],
    pre: str,
    opts: dict[str, Any],
    d_x: int | None,
    d_h: int | None,
    optional: bool,
    x_from: str = "",
) -> Cell | None:
    """The cell's weights from table ``t`` (keys prefixed ``pre`` in messages), in canonical form.

    ``x_from`` says where the input's length comes from (" (the rows of given.x)"), so that a shape
    message points at the input when that is what is wrong."""
    kind, layout = opts["kind"], opts["layout"]
    other = [
        k for lay, keys in LAYOUT_KEYS.items() if lay != layout for k in keys if k in t and k not in LAYOUT_KEYS[layout]
    ]
    if other:
        owner = next(lay for lay, keys in LAYOUT_KEYS.items() if other[0] in keys)
        if other[0] == "W_c" and pre == "decoder.":
            raise r.fail(
                f"{pre}W_c", "is the LSTM candidate's weights; Luong's attentional matrix is written W_att here"
            )
        raise r.fail(f"{pre}{other[0]}", f"belongs to layout {owner!r}, but this cell's layout is {layout!r}")
    gates = GATES[kind]
    Wx: dict[str, Given] = {}
    Wh: dict[str, Given] = {}
    bx: dict[str, Given] = {}
    bh: dict[str, Given] = {}
    shown: list[Given] = []
    if layout == "gates":
        keys = GATE_KEYS[kind]
        present = [g for g in gates if keys[g][0] in t]
        for g in gates:
            if keys[g][1] in t and keys[g][0] not in t:
                raise r.fail(f"{pre}{keys[g][1]}", f"needs {pre}{keys[g][0]}, the gate's weights")
        if not present:
            if optional:
                return None
            raise r.fail(
                f"{pre}{keys[gates[0]][0]}",
                f"missing: the {kind} cell's weights ({', '.join(k[0] for k in keys.values())})",
            )
        xh = opts.get("order", "hx") == "xh"  # [x; h]: W = [W_x | W_h]
        for g in present:
            wk, bk = keys[g]
            W = r.matrix(t[wk], f"{pre}{wk}")
            if d_h is None:
                d_h = W.shape[0]
            if d_x is None:
                d_x = W.shape[1] - d_h
            need_shape(
                r,
                W,
                f"{pre}{wk}",
                (d_h, d_h + d_x),
                f"acting on {'[x; h]' if xh else '[h; x]'} with h of length {d_h} and x of length {d_x}{x_from}",
            )
            shown.append(W)
            h_cols, x_cols = (slice(d_x, d_x + d_h), slice(0, d_x)) if xh else (slice(0, d_h), slice(d_h, d_h + d_x))
            Wh[g] = slice_given(W, wk, cols=h_cols)
            Wx[g] = slice_given(W, wk, cols=x_cols)
            if bk in t:
                b = r.vector(t[bk], f"{pre}{bk}")
                need_shape(r, b, f"{pre}{bk}", (d_h,), "for a hidden state of that length")
                shown.append(b)
                bx[g] = b
            else:
                bx[g] = zeros_given(bk, d_h)
            bh[g] = zeros_given(bk, d_h)
        if "b_hn" in t:
            if kind != "gru" or opts.get("reset") != "after":
                raise r.fail(f"{pre}b_hn", 'is the recurrent bias of a GRU with reset = "after"')
            assert d_h is not None
            b = r.vector(t["b_hn"], f"{pre}b_hn")
            need_shape(r, b, f"{pre}b_hn", (d_h,), "for a hidden state of that length")
            shown.append(b)
            if "n" in bh:
                bh["n"] = b
    else:
        G = len(gates)
        order = STACK_ORDER[(kind, layout)]
        if layout == "pytorch":
            wi_key, wh_key = "weight_ih", "weight_hh"
        else:
            wi_key, wh_key = "kernel", "recurrent_kernel"
        for key_w in (wi_key, wh_key):
            if key_w not in t:
                if optional and not any(x in t for x in LAYOUT_KEYS[layout]):
                    return None
                raise r.fail(f"{pre}{key_w}", f"missing: the {layout} layout gives {wi_key} and {wh_key}")
        Wi = r.matrix(t[wi_key], f"{pre}{wi_key}")
        Whh = r.matrix(t[wh_key], f"{pre}{wh_key}")
        shown += [Wi, Whh]
        if layout == "keras":  # keras stores x W: transpose to W x
            Wi_T, Wh_T = slice_given(Wi, wi_key, transpose=True), slice_given(Whh, wh_key, transpose=True)
        else:
            Wi_T, Wh_T = Wi, Whh
        rows_total = Wi_T.shape[0]
        if rows_total % G:
            raise r.fail(
                f"{pre}{wi_key}",
                f"stacks {G} gates ({', '.join(order)}), so its {'columns' if layout == 'keras' else 'rows'} must be a multiple of {G}; it has {rows_total}",
            )
        if d_h is None:
            d_h = rows_total // G
        if d_x is None:
            d_x = Wi_T.shape[1]
        gate_word = f"{G} gates ({', '.join(order)}) of hidden size {d_h} and input size {d_x}{x_from}"
        want_i = (d_x, G * d_h) if layout == "keras" else (G * d_h, d_x)
        want_h = (d_h, G * d_h) if layout == "keras" else (G * d_h, d_h)
        need_shape(r, Wi, f"{pre}{wi_key}", want_i, f"with {gate_word}")
        need_shape(r, Whh, f"{pre}{wh_key}", want_h, f"with {gate_word}")
        biases: tuple[Given | None, Given | None] = (None, None)
        if layout == "pytorch":
            b_i = r.vector(t["bias_ih"], f"{pre}bias_ih") if "bias_ih" in t else None
            b_h = r.vector(t["bias_hh"], f"{pre}bias_hh") if "bias_hh" in t else None
            for key, bb in (("bias_ih", b_i), ("bias_hh", b_h)):
                if bb is not None:
                    need_shape(r, bb, f"{pre}{key}", (G * d_h,), f"with {gate_word}")
                    shown.append(bb)
            biases = (b_i, b_h)
        elif "bias" in t:
            raw = t["bias"]
            if kind == "gru" and opts.get("reset") == "after":
                if not (isinstance(raw, list) and raw and isinstance(raw[0], list)):
                    raise r.fail(
                        f"{pre}bias",
                        f'a Keras GRU with reset = "after" has two bias rows (input, recurrent): shape 2×{G * d_h}',
                    )
                B = r.matrix(raw, f"{pre}bias")
                need_shape(r, B, f"{pre}bias", (2, G * d_h), f"with {gate_word} and reset after")
                shown.append(B)
                biases = (
                    flat_given(slice_given(B, "bias", rows=slice(0, 1))),
                    flat_given(slice_given(B, "bias", rows=slice(1, 2))),
                )
            else:
                b = r.vector(raw, f"{pre}bias")
                need_shape(r, b, f"{pre}bias", (G * d_h,), f"with {gate_word}")
                shown.append(b)
                biases = (b, None)
        for k, g in enumerate(order):
            sl = slice(k * d_h, (k + 1) * d_h)
            Wx[g] = slice_given(Wi_T, f"{wi_key}[{g}]", rows=sl)
            Wh[g] = slice_given(Wh_T, f"{wh_key}[{g}]", rows=sl)
            bx[g] = slice_given(biases[0], f"b_{g}", rows=sl) if biases[0] is not None else zeros_given(f"b_{g}", d_h)
            bh[g] = slice_given(biases[1], f"b_h{g}", rows=sl) if biases[1] is not None else zeros_given(f"b_h{g}", d_h)
    assert d_x is not None and d_h is not None
    return Cell(
        kind=kind,
        layout=layout,
        d_x=d_x,
        d_h=d_h,
        Wx=Wx,
        Wh=Wh,
        bx=bx,
        bh=bh,
        reset=opts.get("reset", "after"),
        update=opts.get("update", "keep"),
        nonlinearity=opts.get("nonlinearity", "tanh"),
        shown=tuple(shown),
        order=opts.get("order", "hx"),
    )


# ------------------------------------------------------------------------------ kinds


def stated_gates(
    r: Reader, raw: Any, where: str, kind: str, d_h: int | None
) -> tuple[list[dict[str, Given]], int | None]:
    """``[[where.gates]]``: per step the gate values a problem states (canonical names), and the hidden size."""
    if raw is None:
        return [], d_h
    if not isinstance(raw, list) or not all(isinstance(s, dict) for s in raw):
        raise r.fail(f"{where}.gates", f"expected a list of tables, one per step: [[{where}.gates]] with gate values")
    if raw and kind == "rnn":
        raise r.fail(f"{where}.gates", "an rnn cell has no gates to state")
    check_steps(r, len(raw), f"{where}.gates", "tables")
    out: list[dict[str, Given]] = []
    for k, table in enumerate(raw, 1):
        w = f"{where}.gates[{k}]"
        row = r.table(table, w, STATED[kind])
        gates = {}
        for name, value in row.items():
            v = r.vector(value, f"{w}.{name}")
            _in_range(r, v, f"{w}.{name}", name)
            if d_h is None:
                d_h = v.shape[0]
            need_shape(r, v, f"{w}.{name}", (d_h,), "for the hidden size")
            gates[STATED_GATE[name]] = v
        out.append(gates)
    return out, d_h


def _in_range(r: Reader, v: Given, key: str, name: str) -> None:
    """A stated gate lies in its function's range: [0, 1] for σ, [−1, 1] for the tanh candidates
    (a gate of 1e30 was a decimal.InvalidOperation deep in the output)."""
    low, what = (-1.0, "tanh") if name in ("c_tilde", "h_tilde") else (0.0, "the sigmoid σ")
    for j, x in enumerate(v.floats, 1):
        if not low <= x <= 1.0:
            raise r.fail(key, f"entry {j}: {x:g} is outside [{low:g}, 1], the range of {what}")


def recurrent(r: Reader, kind: str, given_raw: Any, cell_raw: Any, training_raw: Any) -> Recurrent:
    t = r.table(given_raw, "given", names(_GIVEN_TABLE))
    if kind != "lstm" and "c0" in t:
        raise r.fail("given.c0", "only an LSTM has a cell state")
    if isinstance(cell_raw, dict):  # weights put under [cell]: say where they go
        weights = {k for keys in LAYOUT_KEYS.values() for k in keys}
        misplaced = next((k for k in cell_raw if k in weights), None)
        if misplaced is not None:
            raise r.fail(
                f"cell.{misplaced}",
                "the weights go in [given]; [cell] holds layout, reset, update, nonlinearity, order",
            )
    ct = r.table(cell_raw, "cell", names(CELL_TABLE))
    opts = cell_options(r, ct, "cell", kind)
    x = vector_or_rows(r, t["x"], "given.x") if "x" in t else None
    if x is not None:
        check_steps(r, x.shape[0], "given.x", "rows")
    d_x = x.shape[1] if x is not None else None
    h0 = r.vector(t["h0"], "given.h0") if "h0" in t else None
    stated, d_h = stated_gates(r, t.get("gates"), "given", kind, h0.shape[0] if h0 is not None else None)
    cell = read_cell(
        r, t, "given.", opts, d_x, d_h, optional=True, x_from=" (the rows of given.x)" if x is not None else ""
    )
    if cell is not None:
        d_x, d_h = cell.d_x, cell.d_h
    if x is None and cell is not None and cell.gates:
        raise r.fail("given.x", "missing: the inputs x_t, one row per step")
    T = x.shape[0] if x is not None else len(stated)
    if T == 0:
        raise r.fail("given.x", "missing: the inputs x_t (or [[given.gates]] stating every gate of every step)")
    if len(stated) > T:
        raise r.fail("given.gates", f"states gates for {len(stated)} steps but x has {T} rows")
    if x is not None and d_x is not None and x.shape[1] != d_x:
        raise r.fail("given.x", f"has rows of width {x.shape[1]}, but the weights take inputs of length {d_x}")
    if d_h is None:
        raise r.fail("given.h0", "missing: with no weights and no gates the hidden size is unknown")
    for k in range(T):
        have = stated[k] if k < len(stated) else {}
        for g in GATES[kind]:
            if g not in have and (cell is None or g not in cell.Wx):
                name = next((n for n, c in STATED_GATE.items() if c == g), g)
                key = GATE_KEYS[kind][g][0] if opts["layout"] == "gates" else LAYOUT_KEYS[opts["layout"]][0]
                raise r.fail(
                    f"given.gates[{k + 1}].{name}" if stated else f"given.{key}",
                    f"step {k + 1} needs gate {name}: state its value under [[given.gates]] or give {key}",
                )
    h0 = h0 if h0 is not None else zeros_given("h0", d_h)
    need_shape(r, h0, "given.h0", (d_h,), "for the hidden size")
    c0 = None
    if kind == "lstm":
        c0 = r.vector(t["c0"], "given.c0") if "c0" in t else zeros_given("c0", d_h)
        need_shape(r, c0, "given.c0", (d_h,), "for the hidden size")
    out = output_layer(r, t, "given.", d_h, T, required=False)
    train = training(r, training_raw, out is not None and out.targets is not None)
    return Recurrent(cell, x, h0, c0, tuple(stated), T, out, train)


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kinds rnn, lstm and gru, past the top level."""
    if "given" not in raw:
        raise r.fail("given", "missing: the [given] table holds the inputs")
    rec = recurrent(r, common["kind"], raw["given"], raw.get("cell"), raw.get("training"))
    check_tokens(r, common["tokens"], rec.steps, "the sequence has")
    return Problem(data=rec, **common)
