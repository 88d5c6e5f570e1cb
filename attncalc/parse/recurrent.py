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
from .declared import Dims, read_declared
from .output import output_layer, training
from .reader import Reader, check_steps, check_tokens, flat_given, need_shape, slice_given, zeros_given
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
OUTPUT_KEYS = tuple(k.name for k in decl.OUTPUT_KEYS)  # read by parse.output, after the cell


# ------------------------------------------------------------------------------ cells


def cell_options(r: Reader, t: Any, got: dict[str, Any], where: str, kind: str | None) -> dict[str, Any]:
    """The cell's options, read by the declaration into ``got`` (from the [cell], [encoder] or [decoder]
    table ``t``): the rules here are which cell takes which option, and a GRU's reset default by layout."""
    pre = f"{where}." if where else ""
    given = {k for k, v in t.items() if v is not None} if isinstance(t, dict) else set()
    kind = kind if kind is not None else got["cell"]
    layout = got["layout"]
    opts: dict[str, Any] = {"kind": kind, "layout": layout}
    if kind == "gru":
        opts["reset"] = got["reset"] or ("before" if layout == "gates" else "after")
        opts["update"] = got["update"]
    else:
        for k in ("reset", "update"):
            if k in given:
                raise r.fail(f"{pre}{k}", "applies to a GRU cell only")
    if kind == "rnn":
        opts["nonlinearity"] = got["nonlinearity"]
    elif "nonlinearity" in given:
        raise r.fail(f"{pre}nonlinearity", "applies to an rnn cell only")
    opts["order"] = got["order"]
    return opts


def _other_layout(r: Reader, w: dict[str, Any], pre: str, layout: str) -> None:
    """A weight of another layout than the cell's is refused, naming its layout."""
    other = [
        k
        for lay, keys in LAYOUT_KEYS.items()
        if lay != layout
        for k in keys
        if w.get(k) is not None and k not in LAYOUT_KEYS[layout]
    ]
    if other:
        owner = next(lay for lay, keys in LAYOUT_KEYS.items() if other[0] in keys)
        if other[0] == "W_c" and pre == "decoder.":
            raise r.fail(
                f"{pre}W_c", "is the LSTM candidate's weights; Luong's attentional matrix is written W_att here"
            )
        raise r.fail(f"{pre}{other[0]}", f"belongs to layout {owner!r}, but this cell's layout is {layout!r}")


class _Parts:
    """The canonical weights of a cell as they are split out of the file's layout."""

    def __init__(self) -> None:
        self.Wx: dict[str, Given] = {}
        self.Wh: dict[str, Given] = {}
        self.bx: dict[str, Given] = {}
        self.bh: dict[str, Given] = {}
        self.shown: list[Given] = []
        self.d_x = 0
        self.d_h = 0


def _per_gate(
    r: Reader, w: dict[str, Any], pre: str, opts: dict[str, Any], d_x: int | None, d_h: int | None, optional: bool,
    x_from: str,
) -> _Parts | None:  # fmt: skip
    """The papers' layout: per gate a matrix over [h; x] (or [x; h]) and a bias."""
    kind = opts["kind"]
    gates, keys = GATES[kind], GATE_KEYS[kind]
    present = [g for g in gates if w.get(keys[g][0]) is not None]
    for g in gates:
        if w.get(keys[g][1]) is not None and w.get(keys[g][0]) is None:
            raise r.fail(f"{pre}{keys[g][1]}", f"needs {pre}{keys[g][0]}, the gate's weights")
    if not present:
        if optional:
            return None
        raise r.fail(
            f"{pre}{keys[gates[0]][0]}",
            f"missing: the {kind} cell's weights ({', '.join(k[0] for k in keys.values())})",
        )
    xh = opts.get("order", "hx") == "xh"  # [x; h]: W = [W_x | W_h]
    out = _Parts()
    first = w[keys[present[0]][0]]
    out.d_h = d_h if d_h is not None else first.shape[0]
    out.d_x = d_x if d_x is not None else first.shape[1] - out.d_h
    dh, dx = out.d_h, out.d_x
    for g in present:
        wk, bk = keys[g]
        W = w[wk]
        why = f"acting on {'[x; h]' if xh else '[h; x]'} with h of length {dh} and x of length {dx}{x_from}"
        need_shape(r, W, f"{pre}{wk}", (dh, dh + dx), why)
        out.shown.append(W)
        h_cols, x_cols = (slice(dx, dx + dh), slice(0, dx)) if xh else (slice(0, dh), slice(dh, dh + dx))
        out.Wh[g] = slice_given(W, wk, cols=h_cols)
        out.Wx[g] = slice_given(W, wk, cols=x_cols)
        b = w.get(bk)
        if b is not None:
            need_shape(r, b, f"{pre}{bk}", (dh,), "for a hidden state of that length")
            out.shown.append(b)
        out.bx[g] = b if b is not None else zeros_given(bk, dh)
        out.bh[g] = zeros_given(bk, dh)
    b_hn = w.get("b_hn")
    if b_hn is not None:
        if kind != "gru" or opts.get("reset") != "after":
            raise r.fail(f"{pre}b_hn", 'is the recurrent bias of a GRU with reset = "after"')
        need_shape(r, b_hn, f"{pre}b_hn", (dh,), "for a hidden state of that length")
        out.shown.append(b_hn)
        if "n" in out.bh:
            out.bh["n"] = b_hn
    return out


def _stacked(
    r: Reader, w: dict[str, Any], pre: str, opts: dict[str, Any], d_x: int | None, d_h: int | None, optional: bool,
    x_from: str,
) -> _Parts | None:  # fmt: skip
    """PyTorch's and Keras's layouts: the gates stacked in one input and one recurrent matrix."""
    kind, layout = opts["kind"], opts["layout"]
    G, order = len(GATES[kind]), STACK_ORDER[(kind, layout)]
    wi_key, wh_key = ("weight_ih", "weight_hh") if layout == "pytorch" else ("kernel", "recurrent_kernel")
    for key_w in (wi_key, wh_key):
        if w.get(key_w) is None:
            if optional and not any(w.get(x) is not None for x in LAYOUT_KEYS[layout]):
                return None
            raise r.fail(f"{pre}{key_w}", f"missing: the {layout} layout gives {wi_key} and {wh_key}")
    Wi, Whh = w[wi_key], w[wh_key]
    out = _Parts()
    out.shown += [Wi, Whh]
    keras = layout == "keras"  # keras stores x W: transpose to W x
    Wi_T = slice_given(Wi, wi_key, transpose=True) if keras else Wi
    Wh_T = slice_given(Whh, wh_key, transpose=True) if keras else Whh
    rows_total = Wi_T.shape[0]
    if rows_total % G:
        raise r.fail(
            f"{pre}{wi_key}",
            f"stacks {G} gates ({', '.join(order)}), so its {'columns' if keras else 'rows'} must be a multiple of {G}; it has {rows_total}",
        )
    dh = out.d_h = d_h if d_h is not None else rows_total // G
    dx = out.d_x = d_x if d_x is not None else Wi_T.shape[1]
    gate_word = f"{G} gates ({', '.join(order)}) of hidden size {dh} and input size {dx}{x_from}"
    need_shape(r, Wi, f"{pre}{wi_key}", (dx, G * dh) if keras else (G * dh, dx), f"with {gate_word}")
    need_shape(r, Whh, f"{pre}{wh_key}", (dh, G * dh) if keras else (G * dh, dh), f"with {gate_word}")
    b_i, b_h = _stacked_biases(r, w, pre, opts, G * dh, gate_word, out.shown)
    for k, g in enumerate(order):
        sl = slice(k * dh, (k + 1) * dh)
        out.Wx[g] = slice_given(Wi_T, f"{wi_key}[{g}]", rows=sl)
        out.Wh[g] = slice_given(Wh_T, f"{wh_key}[{g}]", rows=sl)
        out.bx[g] = slice_given(b_i, f"b_{g}", rows=sl) if b_i is not None else zeros_given(f"b_{g}", dh)
        out.bh[g] = slice_given(b_h, f"b_h{g}", rows=sl) if b_h is not None else zeros_given(f"b_h{g}", dh)
    return out


def _stacked_biases(
    r: Reader, w: dict[str, Any], pre: str, opts: dict[str, Any], width: int, gate_word: str, shown: list[Given]
) -> tuple[Given | None, Given | None]:
    """The input-side and recurrent-side biases of a stacked layout (each G·d_h long), or None."""
    if opts["layout"] == "pytorch":
        b_i, b_h = w.get("bias_ih"), w.get("bias_hh")
        for key, bb in (("bias_ih", b_i), ("bias_hh", b_h)):
            if bb is not None:
                need_shape(r, bb, f"{pre}{key}", (width,), f"with {gate_word}")
                shown.append(bb)
        return b_i, b_h
    bias = w.get("bias")
    if bias is None:
        return None, None
    if opts["kind"] == "gru" and opts.get("reset") == "after":
        if len(bias.shape) != 2:
            raise r.fail(
                f"{pre}bias", f'a Keras GRU with reset = "after" has two bias rows (input, recurrent): shape 2×{width}'
            )
        need_shape(r, bias, f"{pre}bias", (2, width), f"with {gate_word} and reset after")
        shown.append(bias)
        rows = (slice_given(bias, "bias", rows=slice(k, k + 1)) for k in (0, 1))
        return flat_given(next(rows)), flat_given(next(rows))
    if len(bias.shape) != 1:
        raise r.fail(f"{pre}bias", "expected a vector (a list of numbers), got a matrix (a list of rows)")
    need_shape(r, bias, f"{pre}bias", (width,), f"with {gate_word}")
    shown.append(bias)
    return bias, None


def read_cell(
    r: Reader,
    w: dict[str, Any],
    pre: str,
    opts: dict[str, Any],
    d_x: int | None,
    d_h: int | None,
    optional: bool,
    x_from: str = "",
) -> Cell | None:
    """The cell's weights, read by the declaration into ``w`` (keys prefixed ``pre`` in messages), in
    canonical form; None when ``optional`` and the file gives none.

    ``x_from`` says where the input's length comes from (" (the rows of given.x)"), so that a shape
    message points at the input when that is what is wrong."""
    _other_layout(r, w, pre, opts["layout"])
    split = _per_gate if opts["layout"] == "gates" else _stacked
    parts = split(r, w, pre, opts, d_x, d_h, optional, x_from)
    if parts is None:
        return None
    return Cell(
        kind=opts["kind"],
        layout=opts["layout"],
        d_x=parts.d_x,
        d_h=parts.d_h,
        Wx=parts.Wx,
        Wh=parts.Wh,
        bx=parts.bx,
        bh=parts.bh,
        reset=opts.get("reset", "after"),
        update=opts.get("update", "keep"),
        nonlinearity=opts.get("nonlinearity", "tanh"),
        shown=tuple(parts.shown),
        order=opts.get("order", "hx"),
    )


# ------------------------------------------------------------------------------ kinds


def check_gate_names(r: Reader, raw: Any, where: str, kind: str) -> None:
    """``[[where.gates]]`` holds the gates of this cell (the declaration lists every cell's); an rnn has none.
    Called before the declaration reads them, so that a gate of another cell is named as unknown."""
    if raw is None:
        return
    if isinstance(raw, list) and raw and kind == "rnn":
        raise r.fail(f"{where}.gates", "an rnn cell has no gates to state")
    if not isinstance(raw, list) or not all(isinstance(s, dict) for s in raw):
        raise r.fail(f"{where}.gates", f"expected a list of tables, one per step: [[{where}.gates]] with gate values")
    check_steps(r, len(raw), f"{where}.gates", "tables")
    for k, table in enumerate(raw, 1):
        r.table(table, f"{where}.gates[{k}]", STATED[kind])


def stated_gates(r: Reader, got: list[dict[str, Any]] | None, where: str) -> list[dict[str, Given]]:
    """Per step the gate values a problem states (canonical names), each in its function's range."""
    out: list[dict[str, Given]] = []
    for k, table in enumerate(got or (), 1):
        gates = {}
        for name, v in table.items():
            if v is not None:
                _in_range(r, v, f"{where}.gates[{k}].{name}", name)
                gates[STATED_GATE[name]] = v
        out.append(gates)
    return out


def _in_range(r: Reader, v: Given, key: str, name: str) -> None:
    """A stated gate lies in its function's range: [0, 1] for σ, [−1, 1] for the tanh candidates
    (a gate of 1e30 was a decimal.InvalidOperation deep in the output)."""
    low, what = (-1.0, "tanh") if name in ("c_tilde", "h_tilde") else (0.0, "the sigmoid σ")
    for j, x in enumerate(v.floats, 1):
        if not low <= x <= 1.0:
            raise r.fail(key, f"entry {j}: {x:g} is outside [{low:g}, 1], the range of {what}")


def _misplaced(r: Reader, cell_raw: Any) -> None:
    """Weights put under [cell]: say where they go."""
    if isinstance(cell_raw, dict):
        weights = {k for keys in LAYOUT_KEYS.values() for k in keys}
        misplaced = next((k for k in cell_raw if k in weights), None)
        if misplaced is not None:
            raise r.fail(
                f"cell.{misplaced}",
                "the weights go in [given]; [cell] holds layout, reset, update, nonlinearity, order",
            )


def _every_step(r: Reader, kind: str, layout: str, cell: Cell | None, stated: list[dict[str, Given]], T: int) -> None:
    """Each step's gates are computed from weights or stated; say which one is missing."""
    if len(stated) > T:
        raise r.fail("given.gates", f"states gates for {len(stated)} steps but x has {T} rows")
    for k in range(T):
        have = stated[k] if k < len(stated) else {}
        for g in GATES[kind]:
            if g not in have and (cell is None or g not in cell.Wx):
                name = next((n for n, c in STATED_GATE.items() if c == g), g)
                key = GATE_KEYS[kind][g][0] if layout == "gates" else LAYOUT_KEYS[layout][0]
                raise r.fail(
                    f"given.gates[{k + 1}].{name}" if stated else f"given.{key}",
                    f"step {k + 1} needs gate {name}: state its value under [[given.gates]] or give {key}",
                )


def recurrent(r: Reader, kind: str, given_raw: Any, cell_raw: Any, training_raw: Any) -> Recurrent:
    """The declaration reads [given] (x is T × d_x, h0, c0 and every stated gate of length d_h) and
    [cell]; the rules here tie the cell's layout, the stated gates and the steps together."""
    if kind != "lstm" and isinstance(given_raw, dict) and given_raw.get("c0") is not None:
        raise r.fail("given.c0", "only an LSTM has a cell state")
    _misplaced(r, cell_raw)
    opts = cell_options(r, cell_raw, read_declared(r, cell_raw, CELL_TABLE, "cell"), "cell", kind)
    check_gate_names(r, given_raw.get("gates") if isinstance(given_raw, dict) else None, "given", kind)
    dims = Dims()
    t = read_declared(r, given_raw, _GIVEN_TABLE, "given", dims, skip=(*OUTPUT_KEYS, "c0"))
    # c0 is held to the hidden size at the end (the weights or h0 fix it), as h0 is when the weights do
    t["c0"] = read_declared(r, given_raw, _GIVEN_TABLE, "given", Dims(), only=("c0",))["c0"]
    x: Given | None = t["x"]
    if x is not None:
        check_steps(r, x.shape[0], "given.x", "rows")
    stated = stated_gates(r, t["gates"], "given")
    x_from = " (the rows of given.x)" if x is not None else ""
    cell = read_cell(r, t, "given.", opts, dims.get("d_x"), dims.get("d_h"), optional=True, x_from=x_from)
    d_x, d_h = (cell.d_x, cell.d_h) if cell is not None else (dims.get("d_x"), dims.get("d_h"))
    if x is None and cell is not None and cell.gates:
        raise r.fail("given.x", "missing: the inputs x_t, one row per step")
    T = x.shape[0] if x is not None else len(stated)
    if T == 0:
        raise r.fail("given.x", "missing: the inputs x_t (or [[given.gates]] stating every gate of every step)")
    if x is not None and d_x is not None and x.shape[1] != d_x:
        raise r.fail("given.x", f"has rows of width {x.shape[1]}, but the weights take inputs of length {d_x}")
    if d_h is None:
        raise r.fail("given.h0", "missing: with no weights and no gates the hidden size is unknown")
    _every_step(r, kind, opts["layout"], cell, stated, T)
    h0 = t["h0"] if t["h0"] is not None else zeros_given("h0", d_h)
    need_shape(r, h0, "given.h0", (d_h,), "for the hidden size")
    c0 = None
    if kind == "lstm":
        c0 = t["c0"] if t["c0"] is not None else zeros_given("c0", d_h)
        need_shape(r, c0, "given.c0", (d_h,), "for the hidden size")
    out = output_layer(r, given_raw, "given.", d_h, T, required=False)
    train = training(r, training_raw, out is not None and out.targets is not None)
    return Recurrent(cell, x, h0, c0, tuple(stated), T, out, train)


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kinds rnn, lstm and gru, past the top level."""
    if "given" not in raw:
        raise r.fail("given", "missing: the [given] table holds the inputs")
    rec = recurrent(r, common["kind"], raw["given"], raw.get("cell"), raw.get("training"))
    check_tokens(r, common["tokens"], rec.steps, "the sequence has")
    return Problem(data=rec, **common)
