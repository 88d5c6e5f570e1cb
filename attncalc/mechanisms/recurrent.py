"""Kinds ``rnn``, ``lstm``, ``gru``: a cell run over a sequence, gate by gate, with an optional
output layer (logits, softmax, loss per step), the gradient of the loss and one update."""

from __future__ import annotations

from ..derivation import Input, Step
from ..derivation.arith import Chain, MistakeNotApplicable, SlipProbe
from ..parse import Problem
from ..parse.types import Cell, Recurrent
from . import output
from .cell_names import given_labels
from .cells import Names, cell_step
from .training import CLIP_SLIPS, TRAINING_SLIPS

# the slips that can happen in a cell of these kinds (attncalc.kinds.mistakes.MISTAKES says each one)
MISTAKES_BY_KIND = {
    "sigmoid_for_tanh": ("rnn", "lstm", "gru"),
    "tanh_for_sigmoid": ("lstm", "gru"),
    "hx_swapped": ("rnn", "lstm", "gru"),
    "xh_swapped": ("rnn", "lstm", "gru"),  # [cell] order = "xh" only
    "no_bias": ("rnn", "lstm", "gru"),
    "forget_not_applied": ("lstm",),
    "no_tanh_c": ("lstm",),
    "gru_update_swapped": ("gru",),
    "reset_swapped": ("gru",),
}
SEQ2SEQ_MISTAKES = {"bahdanau_current_state": "bahdanau", "luong_logits_from_h": "luong"}


def check_mistake(
    chain: Chain, kinds: set[str], optimizer: str | None, targets: bool = False, attention: str | None = None
) -> None:
    """Raise MistakeNotApplicable for a slip that cannot happen in this problem: one of another kind's
    cell, Adam's without Adam, a wrong target row without targets, another attention's."""
    m = chain.mistake
    if m is None or isinstance(m, SlipProbe):  # a probe records the slips the cells consult themselves
        return
    if m == "sgd_for_adam":
        if optimizer != "adam":
            raise MistakeNotApplicable
        return
    if m in TRAINING_SLIPS:  # a training step's slips: AdamW's need adamw (the clipping slips any optimizer)
        if m not in CLIP_SLIPS and optimizer != "adamw":
            raise MistakeNotApplicable
        return
    if m == "wrong_vocab_row":
        if not targets or chain.mistake_arg is None:
            raise MistakeNotApplicable
        return
    if m in SEQ2SEQ_MISTAKES:
        if attention != SEQ2SEQ_MISTAKES[m]:
            raise MistakeNotApplicable
        return
    if m not in MISTAKES_BY_KIND or not kinds & set(MISTAKES_BY_KIND[m]):
        raise MistakeNotApplicable


def inputs(p: Problem) -> list[Input]:
    rec = p.payload(Recurrent)
    out: list[Input] = []
    if rec.x is not None:
        rows = p.tokens or tuple(f"x_{t + 1}" for t in range(rec.steps))
        out.append(Input("x", "x", rec.x.floats, None, rows=rows, role="inputs, one row per step"))
    out.append(Input("h0", "h_0", rec.h0.floats, None, role="initial hidden state"))
    if rec.c0 is not None:
        out.append(Input("c0", "c_0", rec.c0.floats, None, role="initial cell state"))
    if rec.cell is not None:
        for g in rec.cell.shown:
            g_rows, g_cols = given_labels(rec.cell, g.name)
            role = _role(g.name, rec.cell.layout, rec.cell.order)
            out.append(Input(g.name, g.name, g.floats, None, rows=g_rows, cols=g_cols, role=role))
    if rec.output is not None:
        o = rec.output
        out.append(Input("W_out", "W_out", o.W_out.floats, None, rows=o.vocab, role="output layer, one row per entry"))
        if o.b_out is not None:
            out.append(Input("b_out", "b_out", o.b_out.floats, None, rows=o.vocab, role="output bias"))
    return out


def _role(name: str, layout: str, order: str = "hx") -> str:
    if layout == "pytorch":
        return {
            "weight_ih": "input weights, the gates' rows stacked",
            "weight_hh": "recurrent weights, the gates' rows stacked",
            "bias_ih": "input bias, the gates stacked",
            "bias_hh": "recurrent bias, the gates stacked",
        }.get(name, "bias")
    if layout == "keras":
        return {
            "kernel": "input kernel (x W), the gates side by side",
            "recurrent_kernel": "recurrent kernel (h W), the gates side by side",
            "bias": "bias, the gates side by side",
        }.get(name, "bias")
    if name == "b_hn":
        return "recurrent bias of the candidate (reset after)"
    if name.startswith("W"):
        return "acts on [x; h]" if order == "xh" else "acts on [h; x]"
    return "bias of its gate"


def run(p: Problem, chain: Chain) -> list[Step]:
    rec = p.payload(Recurrent)
    targets = rec.output is not None and rec.output.targets is not None
    check_mistake(chain, {p.kind}, rec.training.optimizer if rec.training else None, targets)
    h = chain.given(rec.h0)
    c = chain.given(rec.c0) if rec.c0 is not None else None
    steps: list[Step] = []
    names = Names()
    hs, probs, losses, prefixes = [], [], [], []
    for t in range(1, rec.steps + 1):
        x = chain.given(rec.x)[t - 1] if rec.x is not None else None
        stated = rec.stated[t - 1] if t - 1 < len(rec.stated) else {}
        body, h, c = cell_step(chain, rec.cell, p.kind, t, names, x, h, c, stated, f"h_{t - 1}", f"x_{t}")
        steps.extend(body)
        hs.append(h)
        if rec.output is not None:
            out_steps, pr, loss = output.one_step(chain, rec.output, h, f"{t}.", t, f"h_{t}", p.settings.shift_max)
            steps.extend(out_steps)
            probs.append(pr)
            if loss is not None:
                losses.append(loss)
            prefixes.append(f"{t}.")
    if rec.output is not None and rec.output.targets is not None:
        steps.extend(
            output.sequence_steps(chain, rec.output, rec.output.targets, hs, probs, losses, prefixes, "h", rec.training)
        )
    return steps


def header(p: Problem) -> list[str]:
    cell = p.payload(Recurrent).cell
    bits = [p.kind]
    if cell is not None:
        bits.append(layout_words(cell))
        if cell.kind == "gru":
            bits.append(f"reset {cell.reset}, update {cell.update}")
    else:
        bits.append("gate values stated")
    return bits


def layout_words(cell: Cell) -> str:
    """The layout, and for a stacked one the order its gates are stacked in."""
    if cell.layout == "gates":
        return "per-gate weights on [x; h]" if cell.order == "xh" else "per-gate weights on [h; x]"
    from ..parse.recurrent import STACK_ORDER

    order = ", ".join(STACK_ORDER[(cell.kind, cell.layout)])
    if cell.layout == "pytorch":
        return f"PyTorch layout (weight_ih, weight_hh: the gates' rows stacked {order})"
    return f"Keras layout (kernel, recurrent_kernel: the gates' columns side by side {order})"
