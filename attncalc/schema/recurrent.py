"""The declarations of the recurrent kinds: rnn, lstm, gru (one cell over a sequence) and seq2seq."""

from __future__ import annotations

from .common import (
    ALL_LAYOUT_KEYS,
    ANSWERS,
    BIDIRECTIONAL,
    C0,
    CELL,
    DESCRIPTION,
    GRADING,
    H0,
    LAYOUT,
    NONLINEARITY,
    ORDER,
    OUTPUT_KEYS,
    RESET,
    SCHEMA,
    SETTINGS,
    TITLE,
    TOKENS,
    TRAINING,
    UPDATE,
    stated_gates,
)
from .decl import Key, KindSchema, Table, table

# the recurrent kinds compute in the column convention (W x) throughout: their settings take
# `convention` as "column" (or "default") only, so "row" is refused (KindEntry.convention_fixed reads this)
SETTINGS_RECURRENT = SETTINGS.but(
    table=Table(
        tuple(
            k.but(doc='"column" only: the cells act as W x throughout', choices=("default", "column"))
            if k.name == "convention"
            else k
            for k in SETTINGS.table.keys  # type: ignore[union-attr]
        ),
        SETTINGS.table.doc,  # type: ignore[union-attr]
    )
)
X = Key("x", "vectors", "one row per step", shape=("T", "d_x"))

# [given] of rnn, lstm and gru: the unknown-key check accepts the keys of every layout and cell, and the
# parser then names the layout or cell a key belongs to
RECURRENT_GIVEN = table(
    X,
    H0,
    C0,
    stated_gates(("lstm", "gru")),
    *OUTPUT_KEYS,
    *ALL_LAYOUT_KEYS,
    doc="the inputs, the weights (in the [cell] layout), optional stated gates and output layer",
)

# [cell]: the options of the one cell (its kind is the problem's kind)
CELL_TABLE = table(LAYOUT, RESET, UPDATE, NONLINEARITY, ORDER, doc="the cell's layout and options")


SUMMARIES = {
    "rnn": "a plain recurrent cell over a sequence: h_t = tanh(W [h_{t-1}; x_t] + b); optional output layer and training step",
    "lstm": "an LSTM cell over a sequence, gate by gate (f, i, c~, c, o, h); optional output layer and training step",
    "gru": "a GRU cell over a sequence (r, z, h~, h), reset before/after, either update direction; optional output layer",
}


def _recurrent(kind: str) -> KindSchema:
    return KindSchema(
        kind,
        SUMMARIES[kind],
        table(
            TITLE,
            Key("kind", "choice", "the kind of problem (see `attncalc list`)", choices=(kind,), required=True),
            TOKENS.but(doc="optional labels, one per step"),
            DESCRIPTION,
            Key("given", "table", RECURRENT_GIVEN.doc, table=RECURRENT_GIVEN, required=True),
            SETTINGS_RECURRENT,
            ANSWERS,
            GRADING,
            Key("cell", "table", CELL_TABLE.doc, table=CELL_TABLE),
            TRAINING,
            SCHEMA,
        ),
    )


RNN = _recurrent("rnn")
LSTM = _recurrent("lstm")
GRU = _recurrent("gru")

# -------------------------------------------------------------------- seq2seq

REVERSE = table(*ALL_LAYOUT_KEYS, doc="the backward cell's weights, in the encoder's layout")

ENCODER = table(
    CELL,
    LAYOUT,
    RESET,
    UPDATE,
    NONLINEARITY,
    ORDER,
    BIDIRECTIONAL,
    X.but(doc="source embeddings", required=True, shape=("n", "d_x")),
    H0,
    C0,
    Key("reverse", "table", REVERSE.doc, table=REVERSE),
    stated_gates(("lstm", "gru")),
    *ALL_LAYOUT_KEYS,
    doc="the encoder: its cell, options, inputs and weights",
)

DECODER = table(
    CELL,
    LAYOUT,
    RESET,
    UPDATE,
    NONLINEARITY,
    ORDER,
    Key(
        "attention",
        "choice",
        "luong: score with h_t, then h~ = tanh(W_att [c; h]) | bahdanau: score with s_{t-1} | none: no attention",
        default="luong",
        choices=("bahdanau", "luong", "none"),
    ),
    Key("inputs", "vectors", "y_0 = <s>, then the targets' embeddings (teacher forcing)", shape=("T", "d_y")),
    H0.but(doc="overrides the start (default: the encoder's final state)"),
    C0.but(doc="lstm: overrides the start's cell state"),
    stated_gates(("lstm", "gru")),
    Key(
        "score",
        "choice",
        "dot | general (W_a) | additive (W_q, W_k, v)",
        default=None,
        choices=("dot", "general", "additive"),
    ),
    Key("input_feeding", "bool", "luong: feed h~_{t-1} with the next input", default=False),
    Key("W_a", "matrix", "general score: score = s . (W_a h_i)"),
    Key("W_q", "matrix", "additive score: projects the decoder state"),
    Key("W_k", "matrix", "additive score: projects each encoder state"),
    Key("v", "vector", "additive score: the scoring vector"),
    Key("W_att", "matrix", "luong: h~ = tanh(W_att [c; h]) (the paper's W_c)"),
    *OUTPUT_KEYS,
    *ALL_LAYOUT_KEYS,
    doc="the decoder: its cell, attention, inputs, weights and output layer",
)

SEQ2SEQ = KindSchema(
    "seq2seq",
    "encoder (RNN/LSTM/GRU, optionally bidirectional) + decoder (Bahdanau, Luong or no attention), loss, gradient, update",
    table(
        TITLE,
        Key("kind", "choice", "the kind of problem (see `attncalc list`)", choices=("seq2seq",), required=True),
        TOKENS.but(doc="optional labels of the source tokens, one per row of encoder.x"),
        DESCRIPTION,
        SETTINGS_RECURRENT,
        ANSWERS,
        GRADING,
        Key("encoder", "table", ENCODER.doc, table=ENCODER, required=True),
        Key("decoder", "table", DECODER.doc, table=DECODER, required=True),
        TRAINING,
        SCHEMA,
    ),
)

ALL: tuple[KindSchema, ...] = (RNN, LSTM, GRU, SEQ2SEQ)
