"""One time step of an RNN, LSTM or GRU cell, written out gate by gate.

Every cell is computed from the canonical form of :mod:`attncalc.parse.types` (per gate ``Wx``,
``Wh``, ``bx``, ``bh``), whatever layout the problem gave its weights in. A pre-activation is
written as one product over the concatenation [h; x] (or [x; h] with ``[cell] order = "xh"``; the step
id stays ``hx``) with the two biases added together, as the papers write it; the GRU candidate with the reset gate applied after the recurrent product
(PyTorch, Keras) keeps its two halves apart, since r multiplies only one of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..derivation import Add, Combine, Concat, Map, Product, Stated, Step
from ..derivation.arith import Chain, MistakeNotApplicable, is_exact
from ..parse import Given
from ..parse.types import GATES, Cell
from .cell_names import GATE_NAME, GATE_SYMBOL, GATE_TITLE, GATE_WHY, bias_name, layout_note, weight_name


@dataclass(frozen=True)
class Names:
    """How one run of a cell is written: id prefix per step, and the symbols of its states."""

    prefix: str = ""  # "" | "encoder." | "encoder.fwd." | "decoder."
    h: str = "h"  # symbol of the hidden state (the decoder's is s)


def _sub(symbol: str, t: int) -> str:
    return f"{symbol}_{t}"


def cell_step(
    chain: Chain,
    cell: Cell | None,
    kind: str,
    t: int,
    names: Names,
    x: np.ndarray | None,
    h: np.ndarray,
    c: np.ndarray | None,
    stated: dict[str, Given],
    h_label: str,
    x_label: str,
) -> tuple[list[Step], np.ndarray, np.ndarray | None]:
    """The steps of time step ``t`` and the new (h, c). ``h_label``/``x_label`` name the operands."""
    pre = f"{names.prefix}{t}."
    steps: list[Step] = []
    hs = names.h
    order = cell.order if cell is not None else "hx"
    hx = None  # [h; x] ([x; h]), read by every computed gate except the GRU candidate (which builds its own)
    if x is not None and any(g != "n" and g not in stated for g in GATES[kind]):
        hx = _concat(chain, pre + "hx", *_hx(chain, h, x, h_label, x_label, order))
        steps.append(hx[0])
    values: dict[str, np.ndarray] = {}

    def gate(g: str) -> None:
        sym = _sub(GATE_SYMBOL[g], t)
        gid = pre + GATE_NAME[g]
        if g in stated:
            steps.append(
                chain.step(
                    Stated,
                    gid,
                    chain.given(stated[g]),
                    title=f"{GATE_TITLE[g]} (given)",
                    formula=sym,
                    latex="",
                    symbol=sym,
                    explain="The problem states these values instead of the weights that produce them.",
                )
            )
            v = steps[-1].value
            values[g] = v
            return
        assert cell is not None and hx is not None
        W = _weights(chain, cell, g)
        b = _bias(chain, cell.bx[g]) + _bias(chain, cell.bh[g])
        W_name = weight_name(cell, g)
        z_sym = f"z{GATE_SYMBOL[g]}_{t}"
        steps.append(
            chain.step(
                Product,
                gid + "_pre",
                chain.matmul(W, hx[1]) + b,
                title=f"{GATE_TITLE[g]}: pre-activation",
                formula=f"{z_sym} = {W_name}·{_cat(h_label, x_label, cell.order)} + {bias_name(cell, g)}",
                latex="",
                symbol=z_sym,
                left=W,
                right=hx[1],
                bias=b,
                explain=layout_note(cell, g),
            )
        )
        z = steps[-1].value
        act = "tanh" if g in ("g", "n", "h") else "sigmoid"
        if g == "h" and cell.nonlinearity == "relu":
            act = "relu"
        if act == "tanh" and chain.mistake == "sigmoid_for_tanh":  # the candidate (or an RNN's state) with σ
            act = "sigmoid"
        elif act == "sigmoid" and chain.mistake == "tanh_for_sigmoid":  # a gate with tanh
            act = "tanh"
        fn = {"tanh": chain.tanh, "sigmoid": chain.sigmoid, "relu": chain.relu}[act]
        shown_act = {"sigmoid": "σ", "tanh": "tanh", "relu": "relu"}[act]
        steps.append(
            chain.step(
                Map,
                gid,
                fn(z),
                title=GATE_TITLE[g],
                formula=f"{sym} = {shown_act}({steps[-1].symbol})",
                latex="",
                symbol=sym,
                fn=act,
                arg=z,
                explain=GATE_WHY[g],
            )
        )
        v = steps[-1].value
        values[g] = v

    if kind == "rnn":
        gate("h")
        return steps, values["h"], None
    if kind == "lstm":
        assert c is not None
        for g in ("f", "i", "g"):
            gate(g)
        f, i, cand = values["f"], values["i"], values["g"]
        c_prev_name = _sub("c", t - 1)
        kept = chain.finish(pre + "retained", c if chain.mistake == "forget_not_applied" else _mul(f, c))
        steps.append(
            _combine(
                pre + "retained",
                "Retained memory",
                f"(f⊙c)_{t} = f_{t} ⊙ {c_prev_name}",
                f"(f⊙c)_{t}",
                kept,
                ((f, c),),
                explain="What the forget gate keeps of the previous cell state.",
            )
        )
        new = chain.finish(pre + "new", _mul(i, cand))
        steps.append(
            _combine(
                pre + "new",
                "New memory",
                f"(i⊙c\u0303)_{t} = i_{t} ⊙ c\u0303_{t}",
                f"(i⊙c\u0303)_{t}",
                new,
                ((i, cand),),
                explain="What the input gate writes of the candidate.",
            )
        )
        steps.append(
            chain.step(
                Add,
                pre + "c",
                kept + new,
                title="Cell state",
                formula=f"c_{t} = f_{t} ⊙ {c_prev_name} + i_{t} ⊙ c\u0303_{t}",
                latex="",
                symbol=_sub("c", t),
                parts=(kept, new),
                part_names=("retained", "new"),
                explain="The new cell state: the retained memory plus the new memory.",
            )
        )
        c_new = steps[-1].value
        gate("o")
        steps.append(
            chain.step(
                Map,
                pre + "tanh_c",
                chain.tanh(c_new),
                title="Squashed cell state",
                formula=f"tanh(c_{t})",
                latex="",
                symbol=f"tanh(c_{t})",
                fn="tanh",
                arg=c_new,
                explain="tanh squashes the cell state into (−1, 1) before the output gate scales it.",
            )
        )
        tc = steps[-1].value
        o = values["o"]
        h_new = chain.finish(pre + "h", _mul(o, c_new if chain.mistake == "no_tanh_c" else tc))
        steps.append(
            _combine(
                pre + "h",
                "Hidden state",
                f"{hs}_{t} = o_{t} ⊙ tanh(c_{t})",
                _sub(hs, t),
                h_new,
                ((o, tc),),
                explain="The hidden state: the output gate times the squashed cell state.",
            )
        )
        return steps, h_new, c_new
    # GRU
    for g in ("r", "z"):
        gate(g)
    r, z = values["r"], values["z"]
    if "n" in stated:
        gate("n")
    else:
        assert cell is not None and x is not None
        n_sym = _sub("h\u0303", t)
        reset = cell.reset
        if chain.mistake == "reset_swapped":
            reset = "before" if reset == "after" else "after"
        if reset == "before":
            rh = chain.finish(pre + "rh", _mul(r, h))
            steps.append(
                _combine(
                    pre + "rh",
                    "Reset previous state",
                    f"r_{t} ⊙ {h_label}",
                    f"(r⊙{hs})_{t}",
                    rh,
                    ((r, h),),
                    explain="The reset gate scales the previous state before it enters the candidate (Cho et al.).",
                )
            )
            rhx = _concat(chain, pre + "rhx", *_hx(chain, rh, x, f"r_{t} ⊙ {h_label}", x_label, cell.order))
            steps.append(rhx[0])
            W = _weights(chain, cell, "n")
            b = _bias(chain, cell.bx["n"]) + _bias(chain, cell.bh["n"])
            steps.append(
                chain.step(
                    Product,
                    pre + "h_tilde_pre",
                    chain.matmul(W, rhx[1]) + b,
                    title="Candidate state: pre-activation",
                    formula=f"zh\u0303_{t} = {weight_name(cell, 'n')}·{_cat(f'r_{t} ⊙ {h_label}', x_label, cell.order)} "
                    f"+ {bias_name(cell, 'n')}",
                    latex="",
                    symbol=f"zh\u0303_{t}",
                    left=W,
                    right=rhx[1],
                    bias=b,
                    explain=layout_note(cell, "n"),
                )
            )
            zn = steps[-1].value
        else:
            Wx, bx = chain.given(cell.Wx["n"]), _bias(chain, cell.bx["n"])
            Wh, bh = chain.given(cell.Wh["n"]), _bias(chain, cell.bh["n"])
            steps.append(
                chain.step(
                    Product,
                    pre + "xn",
                    chain.matmul(Wx, x) + bx,
                    title="Candidate: input part",
                    formula=f"xn_{t} = W_in·{x_label} + b_in",
                    latex="",
                    symbol=f"xn_{t}",
                    left=Wx,
                    right=x,
                    bias=bx,
                    explain=layout_note(cell, "n", "input"),
                )
            )
            xn = steps[-1].value
            steps.append(
                chain.step(
                    Product,
                    pre + "hn",
                    chain.matmul(Wh, h) + bh,
                    title="Candidate: recurrent part",
                    formula=f"hn_{t} = W_hn·{h_label} + b_hn",
                    latex="",
                    symbol=f"hn_{t}",
                    left=Wh,
                    right=h,
                    bias=bh,
                    explain="With the reset gate applied after the product (PyTorch, Keras reset_after), this part "
                    "is computed on its own. " + layout_note(cell, "n", "recurrent"),
                )
            )
            hn = steps[-1].value
            zn = chain.finish(pre + "h_tilde_pre", xn + _mul(r, hn))
            steps.append(
                _combine(
                    pre + "h_tilde_pre",
                    "Candidate state: pre-activation",
                    f"zh\u0303_{t} = xn_{t} + r_{t} ⊙ hn_{t}",
                    f"zh\u0303_{t}",
                    zn,
                    ((xn,), (r, hn)),
                    explain="The reset gate scales the recurrent part only.",
                )
            )
        squash = chain.sigmoid if chain.mistake == "sigmoid_for_tanh" else chain.tanh
        steps.append(
            chain.step(
                Map,
                pre + "h_tilde",
                squash(zn),
                title=GATE_TITLE["n"],
                formula=f"{n_sym} = tanh(zh\u0303_{t})",
                latex="",
                symbol=n_sym,
                fn="tanh",
                arg=zn,
                explain=GATE_WHY["n"],
            )
        )
        n = steps[-1].value
        values["n"] = n
    n = values["n"]
    keep = (cell.update if cell is not None else "keep") == "keep"
    if chain.mistake == "gru_update_swapped":
        keep = not keep
    terms = ((z, n), (z, h))  # factors; the first factor of one term enters as (1 − z)
    comp = ((True, False), (False, False)) if keep else ((False, False), (True, False))
    one = np.ones_like(z) if not is_exact(z) else np.array([1] * len(z), dtype=object)
    formula = (
        f"{hs}_{t} = (1 − z_{t}) ⊙ h\u0303_{t} + z_{t} ⊙ {h_label}"
        if keep
        else f"{hs}_{t} = z_{t} ⊙ h\u0303_{t} + (1 − z_{t}) ⊙ {h_label}"
    )
    why = (
        "z keeps the previous state and 1 − z takes the candidate (PyTorch, Keras, Cho et al. 2014)."
        if keep
        else "z takes the candidate and 1 − z keeps the previous state (Bahdanau et al. 2014)."
    )
    steps.append(
        chain.step(
            Combine,
            pre + "h",
            (one - z) * n + z * h if keep else z * n + (one - z) * h,
            title="Hidden state",
            formula=formula,
            latex="",
            symbol=_sub(hs, t),
            terms=terms,
            complement=comp,
            explain=why,
        )
    )
    h_new = steps[-1].value
    return steps, h_new, None


def _cat(h_label: str, x_label: str, order: str) -> str:
    """[h; x], or [x; h] in the order "xh"."""
    return f"[{x_label}; {h_label}]" if order == "xh" else f"[{h_label}; {x_label}]"


def _weights(chain: Chain, cell: Cell, g: str) -> np.ndarray:
    """A gate's weights over the concatenation: [W_h | W_x], or [W_x | W_h] in the order "xh"."""
    Wh, Wx = chain.given(cell.Wh[g]), chain.given(cell.Wx[g])
    return np.concatenate([Wx, Wh] if cell.order == "xh" else [Wh, Wx], axis=1)


def _hx(
    chain: Chain, h: np.ndarray, x: np.ndarray, h_label: str, x_label: str, order: str = "hx"
) -> tuple[list[np.ndarray], list[str], str]:
    """The parts of [h; x] (values, names, label), or of [x; h] in the order "xh"; the other order under
    the mistake ``hx_swapped`` (order "hx": [x; h] used) or ``xh_swapped`` (order "xh": [h; x] used),
    applied to the same weights (of d_h + d_x columns either way: with d_x ≠ d_h the columns for one then
    meet parts of both)."""
    if chain.mistake in ("hx_swapped", "xh_swapped"):
        if chain.mistake != f"{order}_swapped":
            raise MistakeNotApplicable
        order = "xh" if order == "hx" else "hx"
    if order == "xh":
        return [x, h], [x_label, h_label], f"[{x_label}; {h_label}]"
    return [h, x], [h_label, x_label], f"[{h_label}; {x_label}]"


def _bias(chain: Chain, b: Given) -> np.ndarray:
    """A bias (zeros under the mistake ``no_bias``)."""
    v = chain.given(b)
    return v * 0 if chain.mistake == "no_bias" else v


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if is_exact(a) != is_exact(b):
        from ..derivation.arith import to_float

        out: np.ndarray = to_float(a) * to_float(b)
        return out
    prod: np.ndarray = a * b
    return prod


def _concat(chain: Chain, sid: str, parts: list[np.ndarray], names: list[str], label: str) -> tuple[Concat, np.ndarray]:
    parts = chain.coerce(*parts)
    step = chain.step(
        Concat,
        sid,
        np.concatenate(parts),
        title="Concatenated input",
        formula=f"{label}",
        latex="",
        symbol=label,
        parts=tuple(parts),
        part_names=tuple(names),
        explain="The gates all read the previous state and the input, stacked into one vector.",
    )
    v = step.value
    return step, v


def _combine(
    sid: str,
    title: str,
    formula: str,
    symbol: str,
    value: np.ndarray,
    terms: tuple[tuple[np.ndarray, ...], ...],
    explain: str = "",
) -> Combine:
    return Combine(
        id=sid,
        title=title,
        formula=formula,
        latex="",
        symbol=symbol,
        value=value,
        terms=terms,
        complement=tuple(tuple(False for _ in term) for term in terms),
        explain=explain,
    )
