"""The facts besides the input arrays that a question needs to be answered on its own: the mask, the
target(s), how a recurrent cell and a seq2seq decoder are set up, and what a kind's payload states of
itself (its ``stated()`` method). Moodle and QTI items print them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..parse.attention_backward import AttentionBackward
from ..parse.data import SelfAttention, Sequence
from ..parse.decode import Decode
from ..parse.softmax import Softmax
from ..parse.types import Bleu, Cell, Layer, MultiHead, OutputLayer, PosEnc, Problem, Recurrent, Seq2Seq

if TYPE_CHECKING:
    import numpy as np

_CELL = {"rnn": "RNN", "lstm": "LSTM", "gru": "GRU"}


def cell_line(cell: Cell) -> str:
    """How a cell computes, in words and formulas: its kind, and a GRU's reset and update conventions."""
    text = _CELL[cell.kind]
    if cell.kind == "rnn":
        text += f", h_t = {cell.nonlinearity}(W [h_(t−1); x_t] + b)"
    if cell.kind == "gru":
        if cell.reset == "after":
            text += "; reset after the recurrent product: h̃ = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))"
        else:
            text += "; reset before the product: h̃ = tanh(W_h [r ⊙ h; x] + b_h)"
        if cell.update == "keep":
            text += "; update keep: h_t = (1 − z) ⊙ h̃ + z ⊙ h_(t−1)"
        else:
            text += "; update replace: h_t = z ⊙ h̃ + (1 − z) ⊙ h_(t−1)"
    return text


def _targets(out: OutputLayer | None) -> list[tuple[str, str]]:
    if out is None or out.targets is None:
        return []
    V = out.W_out.shape[0]
    labels = out.vocab or tuple(f"w{k + 1}" for k in range(V))
    return [("targets", "Targets, one per step: " + ", ".join(labels[k] for k in out.targets))]


def _decode(p: Problem) -> list[tuple[str, str]]:
    """A decode's numbers besides its arrays: the temperature, k, p, the draw u, the beam width and the
    length penalty, each as the problem file writes it (the last question of a draw needs u)."""
    from ..derivation.fmt import fmt
    from ..numbers import to_float

    if not isinstance(p.data, Decode):
        return []
    dc = p.data
    out: list[tuple[str, str]] = [("strategy", f"Strategy: {dc.strategy}")]
    temperature = getattr(p.settings, "temperature", None)
    if temperature is not None:
        out.append(("temperature", f"Temperature: T = {fmt(to_float(temperature), 6)}"))
    names = {"u": "u (the uniform draw)", "beam_width": "beam width"}
    for key, v in dc.numbers():
        out.append((key, f"{names.get(key, key)} = {v if isinstance(v, int) else fmt(to_float(v), 6)}"))
    if dc.penalty is not None:
        out.append(("length_penalty", f"length_penalty α = {fmt(to_float(dc.penalty.alpha), 6)}"))
        out.append(("length", f"length L = {dc.penalty.length}"))
    return out


def _attention_of(p: Problem) -> MultiHead | None:
    """The multi-head attention of a multi-head, attention-backward or transformer-layer problem (a
    layer's self-attention), else None."""
    d = p.data
    if isinstance(d, AttentionBackward):
        return d.mh
    if isinstance(d, Layer):
        return d.self_attn
    return d if isinstance(d, MultiHead) else None


def _counts(p: Problem) -> list[tuple[str, str]]:
    """The whole numbers a question needs that no table shows: the heads, the positions' width, BLEU's
    highest order, the target of each step of a sequence."""
    from ..derivation.fmt import fmt
    from ..numbers import to_float

    out: list[tuple[str, str]] = []
    mh = _attention_of(p)
    if mh is not None:
        out.append(("heads", f"heads h = {mh.heads}"))
        if mh.kv_heads != mh.heads:
            out.append(("kv_heads", f"key/value heads = {mh.kv_heads}"))
        if mh.positions in ("sinusoidal", "rope"):
            out.append(("base", f"position base = {fmt(to_float(mh.base), 6)}"))
        if mh.window is not None:
            out.append(("window", f"sliding window w = {mh.window}: query i sees keys i − {mh.window} < k ≤ i"))
    if isinstance(p.data, PosEnc):
        pe = p.data
        out.append(("positions", "positions: " + ", ".join(str(x) for x in pe.positions)))
        out.append(
            (
                "d_model" if pe.type == "sinusoidal" else "d_k",
                f"{'d_model' if pe.type == 'sinusoidal' else 'd_k'} = {pe.d}",
            )
        )
        out.append(("base", f"base = {fmt(to_float(pe.base), 6)}"))
    if isinstance(p.data, Bleu):
        out.append(("max_n", f"max_n = {p.data.max_n} (n-grams up to {p.data.max_n})"))
    if isinstance(p.data, Sequence) and p.data.targets is not None:  # a sequence's target token per step
        out.append(("targets", "Targets, one per step: " + ", ".join(p.data.targets)))
    return out


def mask_matrix(p: Problem) -> np.ndarray | None:
    """A mask the file gives as a 0/1 matrix (a question shows it as a table), or None."""
    if isinstance(p.data, SelfAttention) and p.data.mask is not None and p.data.mask_text != "causal":
        return p.data.mask
    return None


def setup_lines(p: Problem) -> list[tuple[str, str]]:
    """(key, sentence) pairs: the key is the problem file's key the sentence states."""
    out: list[tuple[str, str]] = _decode(p) + _counts(p)
    sa_window = p.data.window if isinstance(p.data, SelfAttention) else None
    if isinstance(p.data, SelfAttention) and p.data.mask_text == "causal" and sa_window is not None:
        out.append(
            (
                "window",
                f"Mask: causal, a sliding window of {sa_window} (each position attends to itself "
                f"and the {sa_window - 1} before it).",
            )
        )
    elif isinstance(p.data, SelfAttention) and p.data.mask_text == "causal":
        out.append(("mask", "Mask: causal (each position attends to itself and the ones before it)."))
    if isinstance(p.data, Softmax) and p.data.target is not None and p.data.vocab is not None:
        out.append(("target", f"Target: {p.data.vocab[p.data.target.index]}"))
    if isinstance(p.data, Recurrent):
        if p.data.cell is not None:
            out.append(("cell", "Cell: " + cell_line(p.data.cell)))
        out += _targets(p.data.output)
    if isinstance(p.data, Seq2Seq):
        s = p.data
        out.append(("encoder", "Encoder: " + cell_line(s.encoder) + ("; bidirectional" if s.reverse else "")))
        if s.attention == "none":
            how = "no attention (the cell reads y_(t−1), the logits come from s_t)"
        elif s.attention == "bahdanau":
            how = f"Bahdanau attention, {s.score} score with s_(t−1); the cell reads [y_(t−1); c_t]; logits from s_t"
        else:
            how = f"Luong attention, {s.score} score with h_t; h̃_t = tanh(W_att [c_t; h_t]); logits from h̃_t"
        start = "the given h0" if s.dec_h0 is not None else "the encoder's final state"
        out.append(("decoder", f"Decoder: {cell_line(s.decoder)}; {how}; it starts from {start}."))
        out += _targets(s.output)
    return out + payload_stated(p)


def payload_stated(p: Problem) -> list[tuple[str, str]]:
    """The (key, sentence) pairs a kind's payload states of itself: its ``stated()`` method, when the
    payload class has one (grpo's ε, β and normalisation, bpe's merges asked for and tie rule, a DPO's β;
    a plugin kind's payload the same way). The numbers and choices that decide the answers and that no
    table shows; never a value a step computes."""
    stated = getattr(type(p.data), "stated", None)  # a method (a recurrent payload's `stated` field is data)
    return list(stated(p.data)) if callable(stated) else []
