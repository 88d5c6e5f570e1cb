"""Problem files of kind ``seq2seq``: an encoder, a decoder with Bahdanau, Luong or no attention.

The decoder starts from the encoder's final state (h, and c for an LSTM) unless ``[decoder] h0`` /
``c0`` are given. A bidirectional encoder's final state is [h→_n; h←_1], the last state of each
direction, as PyTorch's ``h_n`` holds them (and [c→_n; c←_1] for an LSTM). A gate may be stated
instead of computed, per step, under ``[[encoder.gates]]`` / ``[[decoder.gates]]``, as the lstm
kind takes ``[[given.gates]]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..schema.recurrent import DECODER as DECL_DECODER
from ..schema.recurrent import ENCODER as DECL_ENCODER
from ..schema.validate import names
from .declared import Dims, read_declared
from .output import output_layer, training
from .reader import check_steps, check_tokens, need_shape, zeros_given
from .recurrent import (
    GATE_KEYS,
    LAYOUT_KEYS,
    OUTPUT_KEYS,
    STATED_GATE,
    cell_options,
    check_gate_names,
    read_cell,
    stated_gates,
)
from .types import GATES, AdditiveScore, Cell, GeneralScore, Problem, Seq2Seq

if TYPE_CHECKING:
    from .reader import Reader
    from .types import Given

ENCODER_KEYS = names(DECL_ENCODER)
ATTENTION_KEYS = ("score", "input_feeding", "W_a", "W_q", "W_k", "v", "W_att")
DECODER_KEYS = names(DECL_DECODER)


def _every_gate(r: Reader, where: str, cell: Cell, stated: list[dict[str, Given]], T: int, layout: str) -> None:
    """Each step's gates are computed from weights or stated; say which one is missing."""
    if len(stated) > T:
        raise r.fail(f"{where}.gates", f"states gates for {len(stated)} steps but there are {T}")
    for k in range(T):
        have = stated[k] if k < len(stated) else {}
        for g in GATES[cell.kind]:
            if g not in have and g not in cell.Wx:
                name = next(n for n, c in STATED_GATE.items() if c == g)
                key = GATE_KEYS[cell.kind][g][0] if layout == "gates" else LAYOUT_KEYS[layout][0]
                raise r.fail(
                    f"{where}.gates[{k + 1}].{name}" if stated else f"{where}.{key}",
                    f"step {k + 1} needs gate {name}: state its value under [[{where}.gates]] or give {where}.{key}",
                )


def _stated_only(kind: str, layout: str, d_x: int, d_h: int) -> Cell:
    """A cell without weights: every gate of every step is stated."""
    return Cell(kind=kind, layout=layout, d_x=d_x, d_h=d_h, Wx={}, Wh={}, bx={}, bh={})


def _present(t: Any, key: str) -> bool:
    return isinstance(t, dict) and t.get(key) is not None


def _gates(r: Reader, raw: Any, where: str, kind: str, dims: Dims) -> list[dict[str, Given]]:
    """``[[where.gates]]``, read by the declaration once the cell's kind is known (each gate of length d_h)."""
    check_gate_names(r, raw.get("gates") if isinstance(raw, dict) else None, where, kind)
    decl = DECL_ENCODER if where == "encoder" else DECL_DECODER
    got = read_declared(r, raw, decl, where, dims, only=("gates",))
    return stated_gates(r, got["gates"], where)


def _encoder(r: Reader, raw: Any) -> tuple[dict[str, Any], Cell, Cell | None, list[dict[str, Given]]]:
    """[encoder]: its options and inputs (the declaration reads them: x is n × d_x, h0, c0 and the stated
    gates of length d_h), its cell, the backward cell of a bidirectional encoder, the stated gates."""
    dims = Dims()
    e = read_declared(r, raw, DECL_ENCODER, "encoder", dims, skip=("gates",))
    eo = cell_options(r, raw, e, "encoder", None)
    x: Given = e["x"]
    check_steps(r, x.shape[0], "encoder.x", "rows")
    bidir: bool = e["bidirectional"]
    if bidir and _present(raw, "gates"):
        raise r.fail("encoder.gates", "stated gates are for a one-directional encoder")
    optional = _present(raw, "gates")
    enc = read_cell(r, e, "encoder.", eo, x.shape[1], dims.get("d_h"), optional, x_from=" (the rows of encoder.x)")
    if enc is not None and dims.get("d_h") is None:
        dims.bind(r, "d_h", enc.d_h, "the encoder's weights", "")
    stated = _gates(r, raw, "encoder", eo["kind"], dims)
    if enc is None:
        d_h = dims.get("d_h")
        if d_h is None:
            raise r.fail("encoder.h0", "missing: with no weights and no gate values the hidden size is unknown")
        enc = _stated_only(eo["kind"], eo["layout"], x.shape[1], d_h)
    _every_gate(r, "encoder", enc, stated, x.shape[0], eo["layout"])
    reverse = None
    if bidir:
        if e["reverse"] is None:
            raise r.fail(
                "encoder.reverse",
                "missing: a bidirectional encoder needs the backward cell's weights in [encoder.reverse]",
            )
        reverse = read_cell(r, e["reverse"], "encoder.reverse.", eo, enc.d_x, enc.d_h, optional=False)
    elif e["reverse"] is not None:
        raise r.fail("encoder.reverse", "set encoder.bidirectional = true to use a backward cell")
    if enc.kind != "lstm" and e["c0"] is not None:
        raise r.fail("encoder.c0", "only an LSTM encoder has a cell state")
    return e, enc, reverse, stated


def _score_weights(r: Reader, d: dict[str, Any], score: str, attention: str, d_h: int, d_enc: int) -> None:
    """The score's weights against the decoder's and the encoder's state lengths; another score's refused."""
    if attention == "none":
        pass
    elif score == "general":
        if d["W_a"] is None:
            raise r.fail("decoder.W_a", "missing: the general score s · (W_a h_i)")
        why = f"with decoder states of length {d_h} and encoder states of length {d_enc}"
        need_shape(r, d["W_a"], "decoder.W_a", (d_h, d_enc), why)
    elif score == "additive":
        for k in ("W_q", "W_k", "v"):
            if d[k] is None:
                raise r.fail(f"decoder.{k}", "missing: the additive score v · tanh(W_q s + W_k h_i)")
        a = d["v"].shape[0]
        need_shape(r, d["W_q"], "decoder.W_q", (a, d_h), f"with v of length {a} and decoder states of length {d_h}")
        need_shape(r, d["W_k"], "decoder.W_k", (a, d_enc), f"with v of length {a} and encoder states of length {d_enc}")
    elif d_h != d_enc:
        raise r.fail(
            "decoder.score", f"dot needs decoder states ({d_h}) and encoder states ({d_enc}) of the same length"
        )
    for k, sc in (("W_a", "general"), ("W_q", "additive"), ("W_k", "additive"), ("v", "additive")):
        if d[k] is not None and score != sc:
            raise r.fail(f"decoder.{k}", f"belongs to score {sc!r}")


def _scorer(d: dict[str, Any], score: str) -> GeneralScore | AdditiveScore | None:
    """The score's own weights (W_a: general; W_q, W_k, v: additive; none for dot or no attention)."""
    if score == "general":
        return GeneralScore(d["W_a"])
    if score == "additive":
        return AdditiveScore(d["W_q"], d["W_k"], d["v"])
    return None


def _attention(r: Reader, raw: Any, d: dict[str, Any]) -> tuple[str, str, bool]:
    """The decoder's attention, its score (Luong's default dot, Bahdanau's additive) and input feeding."""
    attention: str = d["attention"]
    if attention == "none":
        for k in ATTENTION_KEYS:
            if _present(raw, k):
                raise r.fail(f"decoder.{k}", 'belongs to an attentive decoder, but decoder.attention is "none"')
    score: str = d["score"] or ("dot" if attention == "luong" else "additive")
    feed: bool = d["input_feeding"]
    if feed and attention != "luong":
        raise r.fail(
            "decoder.input_feeding", "input feeding belongs to Luong attention (Bahdanau feeds the context already)"
        )
    return attention, score, feed


def _decoder_input(
    r: Reader, attention: str, feed: bool, inputs: Given | None, W_c: Given | None, d_enc: int
) -> tuple[int, str]:
    """The length of the decoder cell's input, and where it comes from (for its weights' messages):
    Bahdanau [y; c]; Luong y, or [y; h̃] with input feeding; none y."""
    if attention == "luong" and W_c is None:
        raise r.fail("decoder.W_att", "missing: Luong attention computes h̃_t = tanh(W_att [c_t; h_t]) (Luong's W_c)")
    if attention == "bahdanau" and W_c is not None:
        raise r.fail("decoder.W_att", "is used by Luong attention only")
    d_y = inputs.shape[1] if inputs is not None else 0
    d_att = W_c.shape[0] if W_c is not None else 0
    d_in = d_y + (d_enc if attention == "bahdanau" else 0) + (d_att if feed else 0)
    if attention == "bahdanau":
        return d_in, f" ([y; c]: decoder.inputs rows of {d_y} and contexts of {d_enc})"
    if feed:
        return d_in, f" ([y; h̃]: decoder.inputs rows of {d_y} and h̃ of {d_att}, the rows of decoder.W_att)"
    return d_in, " (the rows of decoder.inputs)"


def _decoder_cell(
    r: Reader, raw: Any, d: dict[str, Any], do: dict[str, Any], dims: Dims, d_in: int, x_from: str, d_enc: int
) -> tuple[Cell, list[dict[str, Given]]]:
    """The decoder's cell (from its weights, or only its stated gates) and the gates stated per step; its
    hidden size from the weights, else the stated gates, else h0, else the encoder's."""
    dec = read_cell(r, d, "decoder.", do, d_in, None, optional=_present(raw, "gates"), x_from=x_from)
    if dec is not None and dims.get("d_h") is None:
        dims.bind(r, "d_h", dec.d_h, "the decoder's weights", "")
    stated = _gates(r, raw, "decoder", do["kind"], dims)
    if dec is None:
        d_h = dims.get("d_h")
        d_h = d_h if d_h is not None else d["h0"].shape[0] if d["h0"] is not None else d_enc
        dec = _stated_only(do["kind"], do["layout"], d_in, d_h)
    return dec, stated


def _decoder_start(r: Reader, d: dict[str, Any], dec: Cell, enc_kind: str, d_enc: int) -> Given | None:
    """The decoder's h0 and c0 against its hidden size (the encoder's final state when not given); its c0."""
    if d["h0"] is None and dec.d_h != d_enc:
        raise r.fail(
            "decoder.h0",
            f"missing: the decoder starts from the encoder's final state only when the sizes match "
            f"(encoder gives {d_enc}, decoder has {dec.d_h}); give decoder.h0",
        )
    if d["h0"] is not None:
        need_shape(r, d["h0"], "decoder.h0", (dec.d_h,), "for the decoder's hidden size")
    if dec.kind != "lstm":
        if d["c0"] is not None:
            raise r.fail("decoder.c0", "only an LSTM decoder has a cell state")
        return None
    if d["c0"] is None and (enc_kind != "lstm" or dec.d_h != d_enc):
        raise r.fail("decoder.c0", "missing: the decoder's initial cell state (the encoder has none of that size)")
    if d["c0"] is not None:
        need_shape(r, d["c0"], "decoder.c0", (dec.d_h,), "for the decoder's hidden size")
    c0: Given | None = d["c0"]
    return c0


def seq2seq(r: Reader, raw: dict[str, Any]) -> Seq2Seq:
    if "encoder" not in raw:
        raise r.fail("encoder", "missing: the [encoder] table (cell, x and the weights)")
    if "decoder" not in raw:
        raise r.fail("decoder", "missing: the [decoder] table (cell, inputs, attention, output layer)")
    e, enc, reverse, enc_stated = _encoder(r, raw["encoder"])
    x: Given = e["x"]
    enc_h0 = e["h0"] if e["h0"] is not None else zeros_given("h0", enc.d_h)
    need_shape(r, enc_h0, "encoder.h0", (enc.d_h,), "for the encoder's hidden size")
    enc_c0 = None
    if enc.kind == "lstm":
        enc_c0 = e["c0"] if e["c0"] is not None else zeros_given("c0", enc.d_h)
        need_shape(r, enc_c0, "encoder.c0", (enc.d_h,), "for the encoder's hidden size")
    d_enc = enc.d_h * (2 if reverse is not None else 1)

    d_raw = raw["decoder"]
    dims = Dims()
    d = read_declared(r, d_raw, DECL_DECODER, "decoder", dims, skip=("gates", "h0", "c0", *OUTPUT_KEYS))
    # h0 and c0 are held to the decoder's hidden size once its weights or stated gates fix it
    d.update(read_declared(r, d_raw, DECL_DECODER, "decoder", Dims(), only=("h0", "c0")))
    do = cell_options(r, d_raw, d, "decoder", None)
    attention, score, feed = _attention(r, d_raw, d)
    has_weights = any(d[k] is not None for k in LAYOUT_KEYS[do["layout"]])
    inputs: Given | None = d["inputs"]
    if inputs is None and (attention != "none" or has_weights or not (_present(d_raw, "gates") and d_raw["gates"])):
        raise r.fail(
            "decoder.inputs", "missing: the decoder's input embeddings y_0..y_{T-1} (teacher forcing), one row per step"
        )
    if inputs is not None:
        check_steps(r, inputs.shape[0], "decoder.inputs", "rows")
    dec_h0: Given | None = d["h0"]
    W_c: Given | None = d["W_att"]
    d_att = W_c.shape[0] if W_c is not None else 0
    d_in, x_from = _decoder_input(r, attention, feed, inputs, W_c, d_enc)
    dec, dec_stated = _decoder_cell(r, d_raw, d, do, dims, d_in, x_from, d_enc)
    T = inputs.shape[0] if inputs is not None else len(dec_stated)
    if T == 0:
        raise r.fail("decoder.gates", "states no step: give decoder.inputs, or one [[decoder.gates]] table per step")
    _every_gate(r, "decoder", dec, dec_stated, T, do["layout"])
    dec_c0 = _decoder_start(r, d, dec, enc.kind, d_enc)
    _score_weights(r, d, score, attention, dec.d_h, d_enc)
    if W_c is not None:
        need_shape(r, W_c, "decoder.W_att", (d_att, d_enc + dec.d_h), f"acting on [c; h] of length {d_enc}+{dec.d_h}")
    width = d_att if attention == "luong" else dec.d_h
    out = output_layer(r, d_raw, "decoder.", width, T, required=attention != "none")
    if out is not None and out.targets is None:
        raise r.fail("decoder.targets", "missing: the target tokens, one per decoder step (teacher forcing)")
    train = training(r, raw.get("training"), out is not None)
    return Seq2Seq(
        encoder=enc,
        reverse=reverse,
        x=x,
        enc_h0=enc_h0,
        enc_c0=enc_c0,
        decoder=dec,
        attention=attention,
        score=score if attention != "none" else "none",
        input_feeding=feed,
        inputs=inputs,
        dec_h0=dec_h0,
        dec_c0=dec_c0,
        scorer=_scorer(d, score if attention != "none" else "none"),
        W_c=W_c,
        output=out,
        training=train,
        steps=T,
        enc_stated=tuple(enc_stated),
        dec_stated=tuple(dec_stated),
    )


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind seq2seq, past the top level: [encoder] and [decoder] instead of [given]."""
    if "given" in raw:
        raise r.fail("given", "a seq2seq problem puts its inputs under [encoder] and [decoder]")
    s2s = seq2seq(r, raw)
    check_tokens(r, common["tokens"], s2s.x.shape[0], "encoder.x has")
    return Problem(data=s2s, **common)
