"""Each kind's header line: what sets a problem apart (score and convention, cell and layout, heads,
strategy). The kind registry (:mod:`attncalc.kinds`) names the function of each kind; a new kind's
header may live in its own module instead."""

from __future__ import annotations

from typing import Any

from ..derivation.fmt import fmt
from ..numbers import to_float
from ..parse.data import Similarity
from ..parse.decode import Decode
from ..parse.softmax import Softmax
from ..parse.types import Bleu, Cell, Layer, MultiHead, PosEnc, Problem, Recurrent, Seq2Seq


def attention(p: Any) -> list[str]:
    """attention, self-attention: the score and the convention."""
    return [p.kind, *([f"{p.score} score"] if p.score else []), convention_words(p)]


def sequence(p: Any) -> list[str]:
    return [p.kind]


def convention_words(p: Any) -> str:
    return "row convention (x W)" if p.row_convention else "column convention (W x)"


def softmax(p: Problem) -> list[str]:
    d = p.payload(Softmax)
    bits = [p.kind, *(["output layer z = W_out h + b_out"] if d.layer is not None else []), *temperature_bits(p)]
    if d.target is not None:
        t = d.target.index
        label = d.vocab[t] if d.vocab is not None else f"entry {t + 1}"
        bits.append(f"target {label}")
    return bits


def temperature_bits(p: Any) -> list[str]:
    temperature = getattr(p.settings, "temperature", None)
    return [] if temperature is None else [f"temperature T = {to_float(temperature):g}"]


def recurrent(p: Problem) -> list[str]:
    cell = p.payload(Recurrent).cell
    bits = [p.kind]
    if cell is not None:
        bits.append(layout_words(cell))
        if cell.kind == "gru":
            bits.append(f"reset {cell.reset}, update {cell.update}")
    else:
        bits.append("gate values stated")
    return bits


def seq2seq(p: Problem) -> list[str]:
    s = p.payload(Seq2Seq)
    enc = f"{'bidirectional ' if s.reverse is not None else ''}{s.encoder.kind.upper()} encoder"
    att = (
        "no attention (the decoder starts from the encoder's final state)"
        if s.attention == "none"
        else f"{s.attention.capitalize()} attention ({s.score} score{', input feeding' if s.input_feeding else ''})"
    )
    return [p.kind, enc, f"{s.decoder.kind.upper()} decoder", att]


def positional_encoding(p: Problem) -> list[str]:
    pe = p.payload(PosEnc)
    width = f"d_model = {pe.d}" if pe.type == "sinusoidal" else f"d_k = {pe.d}, {pe.rope} pairs"
    return [p.kind, pe.type, width, f"base {fmt(to_float(pe.base), 6)}"]


def multi_head(p: Problem) -> list[str]:
    mh = p.payload(MultiHead)
    bits = [p.kind, f"{mh.heads} heads of d_k = {mh.d_k}"]
    if mh.kv_heads != mh.heads:
        bits.append(f"{mh.kv_heads} key/value head{'s' if mh.kv_heads > 1 else ''} (grouped-query)")
    bits.append("cross-attention over memory" if mh.memory is not None else "self-attention")
    if mh.t:
        bits.append(f"KV cache of {mh.t} tokens")
    if mh.positions:
        bits.append(f"{mh.positions} positions" + (f" ({mh.rope} pairs)" if mh.positions == "rope" else ""))
    bits.append(f"{p.score} score")
    return bits


def similarity(p: Problem) -> list[str]:
    d = p.payload(Similarity)
    return [p.kind, ", ".join(d.measures), "B = A" if d.B is None else "A against B"]


def transformer_layer(p: Problem) -> list[str]:
    ly = p.payload(Layer)
    mh = ly.self_attn
    causal = mh.mask_text == "causal"  # an encoder-shaped layer with a causal mask: a decoder-only block
    kind = "decoder-only layer (causal)" if causal else "encoder layer"
    bits = [p.kind, "decoder layer (cross-attention over memory)" if ly.cross is not None else kind]
    bits.append(
        f"{mh.heads} heads of d_k = {mh.d_k}" + (f", {mh.kv_heads} key/value" if mh.kv_heads != mh.heads else "")
    )
    if mh.window is not None:
        bits.append(f"window {mh.window}")
    if mh.positions in ("rope", "alibi"):
        bits.append(mh.positions)
    bits.append(f"{ly.norm}-norm" + (", RMSNorm" if ly.normalization == "rms" else ""))
    bits.append(f"FFN d_ff = {ly.W_1.shape[1]}, {ly.activation}")
    return bits


def decode(p: Problem) -> list[str]:
    dc = p.payload(Decode)
    bits = [p.kind, dc.strategy, *temperature_bits(p)]
    for key, v in dc.numbers():
        bits.append(f"{key.replace('_', ' ')} = {v if isinstance(v, int) else fmt(to_float(v), 6)}")
    if dc.penalty is not None:
        bits.append(f"length penalty α = {fmt(to_float(dc.penalty.alpha), 6)}, L = {dc.penalty.length}")
    return bits


def bleu(p: Problem) -> list[str]:
    b = p.payload(Bleu)
    refs = f"{len(b.references)} reference{'s' if len(b.references) > 1 else ''}"
    return [p.kind, f"N = {b.max_n}", refs, "sentence BLEU, no smoothing"]


def layout_words(cell: Cell) -> str:
    """The layout, and for a stacked one the order its gates are stacked in."""
    if cell.layout == "gates":
        return "per-gate weights on [x; h]" if cell.order == "xh" else "per-gate weights on [h; x]"
    from ..parse.recurrent import STACK_ORDER

    order = ", ".join(STACK_ORDER[(cell.kind, cell.layout)])
    if cell.layout == "pytorch":
        return f"PyTorch layout (weight_ih, weight_hh: the gates' rows stacked {order})"
    return f"Keras layout (kernel, recurrent_kernel: the gates' columns side by side {order})"
