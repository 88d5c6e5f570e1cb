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
from .output import output_layer, training
from .reader import check_steps, check_tokens, need_shape, vector_or_rows, zeros_given
from .recurrent import GATE_KEYS, LAYOUT_KEYS, STATED_GATE, cell_options, read_cell, stated_gates
from .types import GATES, Cell, Problem, Seq2Seq

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


def seq2seq(r: Reader, raw: dict[str, Any]) -> Seq2Seq:
    if "encoder" not in raw:
        raise r.fail("encoder", "missing: the [encoder] table (cell, x and the weights)")
    if "decoder" not in raw:
        raise r.fail("decoder", "missing: the [decoder] table (cell, inputs, attention, output layer)")
    e = r.table(raw["encoder"], "encoder", ENCODER_KEYS)
    d = r.table(raw["decoder"], "decoder", DECODER_KEYS)
    eo = cell_options(r, e, "encoder", None)
    if "x" not in e:
        raise r.fail("encoder.x", "missing: the source embeddings x_1..x_n, one row per token")
    x = vector_or_rows(r, e["x"], "encoder.x")
    check_steps(r, x.shape[0], "encoder.x", "rows")
    bidir = e.get("bidirectional", False)
    if not isinstance(bidir, bool):
        raise r.fail("encoder.bidirectional", "expected true or false")
    if bidir and "gates" in e:
        raise r.fail("encoder.gates", "stated gates are for a one-directional encoder")
    enc_h0 = r.vector(e["h0"], "encoder.h0") if "h0" in e else None
    enc = read_cell(
        r,
        e,
        "encoder.",
        eo,
        x.shape[1],
        enc_h0.shape[0] if enc_h0 else None,
        optional="gates" in e,
        x_from=" (the rows of encoder.x)",
    )
    enc_dh = enc.d_h if enc is not None else (enc_h0.shape[0] if enc_h0 else None)
    enc_stated, enc_dh = stated_gates(r, e.get("gates"), "encoder", eo["kind"], enc_dh)
    if enc is None:
        assert enc_dh is not None
        enc = _stated_only(eo["kind"], eo["layout"], x.shape[1], enc_dh)
    _every_gate(r, "encoder", enc, enc_stated, x.shape[0], eo["layout"])
    reverse = None
    if bidir:
        if "reverse" not in e:
            raise r.fail(
                "encoder.reverse",
                "missing: a bidirectional encoder needs the backward cell's weights in [encoder.reverse]",
            )
        rt = r.table(e["reverse"], "encoder.reverse", LAYOUT_KEYS[eo["layout"]])
        reverse = read_cell(r, rt, "encoder.reverse.", eo, enc.d_x, enc.d_h, optional=False)
    elif "reverse" in e:
        raise r.fail("encoder.reverse", "set encoder.bidirectional = true to use a backward cell")
    enc_h0 = enc_h0 or zeros_given("h0", enc.d_h)
    need_shape(r, enc_h0, "encoder.h0", (enc.d_h,), "for the encoder's hidden size")
    enc_c0 = None
    if enc.kind == "lstm":
        enc_c0 = r.vector(e["c0"], "encoder.c0") if "c0" in e else zeros_given("c0", enc.d_h)
        need_shape(r, enc_c0, "encoder.c0", (enc.d_h,), "for the encoder's hidden size")
    elif "c0" in e:
        raise r.fail("encoder.c0", "only an LSTM encoder has a cell state")
    d_enc = enc.d_h * (2 if bidir else 1)

    do = cell_options(r, d, "decoder", None)
    attention = r.string(d.get("attention", "luong"), "decoder.attention", ("bahdanau", "luong", "none"))
    if attention == "none":
        for k in ATTENTION_KEYS:
            if k in d:
                raise r.fail(f"decoder.{k}", 'belongs to an attentive decoder, but decoder.attention is "none"')
    score = r.string(
        d.get("score", "dot" if attention == "luong" else "additive"), "decoder.score", ("dot", "general", "additive")
    )
    feed = d.get("input_feeding", False)
    if not isinstance(feed, bool):
        raise r.fail("decoder.input_feeding", "expected true or false")
    if feed and attention != "luong":
        raise r.fail(
            "decoder.input_feeding", "input feeding belongs to Luong attention (Bahdanau feeds the context already)"
        )
    has_weights = any(k in d for k in LAYOUT_KEYS[do["layout"]])
    if "inputs" not in d and (attention != "none" or has_weights or not d.get("gates")):
        raise r.fail(
            "decoder.inputs", "missing: the decoder's input embeddings y_0..y_{T-1} (teacher forcing), one row per step"
        )
    inputs = vector_or_rows(r, d["inputs"], "decoder.inputs") if "inputs" in d else None
    if inputs is not None:
        check_steps(r, inputs.shape[0], "decoder.inputs", "rows")
    d_y = inputs.shape[1] if inputs is not None else 0
    dec_h0 = r.vector(d["h0"], "decoder.h0") if "h0" in d else None
    # The decoder cell's input: Bahdanau [y; c]; Luong y, or [y; h̃] with input feeding; none y.
    W_c = r.matrix(d["W_att"], "decoder.W_att") if "W_att" in d else None
    if attention == "luong" and W_c is None:
        raise r.fail("decoder.W_att", "missing: Luong attention computes h̃_t = tanh(W_att [c_t; h_t]) (Luong's W_c)")
    if attention == "bahdanau" and W_c is not None:
        raise r.fail("decoder.W_att", "is used by Luong attention only")
    d_att = W_c.shape[0] if W_c is not None else 0
    d_in = d_y + (d_enc if attention == "bahdanau" else 0) + (d_att if feed else 0)
    if attention == "bahdanau":
        x_from = f" ([y; c]: decoder.inputs rows of {d_y} and contexts of {d_enc})"
    elif feed:
        x_from = f" ([y; h̃]: decoder.inputs rows of {d_y} and h̃ of {d_att}, the rows of decoder.W_att)"
    else:
        x_from = " (the rows of decoder.inputs)"
    dec = read_cell(r, d, "decoder.", do, d_in, None, optional="gates" in d, x_from=x_from)
    dec_dh = dec.d_h if dec is not None else None
    dec_stated, dec_dh = stated_gates(r, d.get("gates"), "decoder", do["kind"], dec_dh)
    T = inputs.shape[0] if inputs is not None else len(dec_stated)
    if T == 0:
        raise r.fail("decoder.gates", "states no step: give decoder.inputs, or one [[decoder.gates]] table per step")
    if dec is None:
        d_h = dec_dh if dec_dh is not None else (dec_h0.shape[0] if dec_h0 is not None else d_enc)
        dec = _stated_only(do["kind"], do["layout"], d_in, d_h)
    _every_gate(r, "decoder", dec, dec_stated, T, do["layout"])
    if dec_h0 is None and dec.d_h != d_enc:
        raise r.fail(
            "decoder.h0",
            f"missing: the decoder starts from the encoder's final state only when the sizes match "
            f"(encoder gives {d_enc}, decoder has {dec.d_h}); give decoder.h0",
        )
    if dec_h0 is not None:
        need_shape(r, dec_h0, "decoder.h0", (dec.d_h,), "for the decoder's hidden size")
    dec_c0 = None
    if dec.kind == "lstm":
        if "c0" in d:
            dec_c0 = r.vector(d["c0"], "decoder.c0")
            need_shape(r, dec_c0, "decoder.c0", (dec.d_h,), "for the decoder's hidden size")
        elif enc.kind != "lstm" or dec.d_h != d_enc:
            raise r.fail("decoder.c0", "missing: the decoder's initial cell state (the encoder has none of that size)")
    elif "c0" in d:
        raise r.fail("decoder.c0", "only an LSTM decoder has a cell state")
    W_a = W_q = W_k = v = None
    if attention == "none":
        pass
    elif score == "general":
        if "W_a" not in d:
            raise r.fail("decoder.W_a", "missing: the general score s · (W_a h_i)")
        W_a = r.matrix(d["W_a"], "decoder.W_a")
        need_shape(
            r,
            W_a,
            "decoder.W_a",
            (dec.d_h, d_enc),
            f"with decoder states of length {dec.d_h} and encoder states of length {d_enc}",
        )
    elif score == "additive":
        for k in ("W_q", "W_k", "v"):
            if k not in d:
                raise r.fail(f"decoder.{k}", "missing: the additive score v · tanh(W_q s + W_k h_i)")
        v = r.vector(d["v"], "decoder.v")
        a = v.shape[0]
        W_q = r.matrix(d["W_q"], "decoder.W_q")
        W_k = r.matrix(d["W_k"], "decoder.W_k")
        need_shape(r, W_q, "decoder.W_q", (a, dec.d_h), f"with v of length {a} and decoder states of length {dec.d_h}")
        need_shape(r, W_k, "decoder.W_k", (a, d_enc), f"with v of length {a} and encoder states of length {d_enc}")
    elif dec.d_h != d_enc:
        raise r.fail(
            "decoder.score", f"dot needs decoder states ({dec.d_h}) and encoder states ({d_enc}) of the same length"
        )
    for k, sc in (("W_a", "general"), ("W_q", "additive"), ("W_k", "additive"), ("v", "additive")):
        if k in d and score != sc:
            raise r.fail(f"decoder.{k}", f"belongs to score {sc!r}")
    if W_c is not None:
        need_shape(r, W_c, "decoder.W_att", (d_att, d_enc + dec.d_h), f"acting on [c; h] of length {d_enc}+{dec.d_h}")
    width = d_att if attention == "luong" else dec.d_h
    out = output_layer(r, d, "decoder.", width, T, required=attention != "none")
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
        W_a=W_a,
        W_q=W_q,
        W_k=W_k,
        v=v,
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
