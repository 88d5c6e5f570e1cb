"""The recurrent kinds, rnn, lstm, gru (one cell over a sequence) and seq2seq: their declarations,
their step ids (``STEP_IDS[kind]``, in derivation order) and their ``attncalc new`` templates
(``TEMPLATE[kind]``). Plain data with no heavy imports (``attncalc list`` loads it)."""

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
    TEMPLATE_GRADING,
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

# -------------------------------------------------------------------- step ids

# in derivation order; "t" stands for a time step (1, 2, ...) and ids with it repeat per step in the
# order listed. Blocks of per-step ids and of sequence-wide ids alternate.
_OUTPUT_PER_STEP = [
    ("t.logits", "with W_out: z_t = W_out u_t + b_out"),
    ("t.probabilities", "with W_out: softmax of the logits"),
    ("t.prediction", "with W_out: the most probable entry"),
    ("t.loss", "with targets: -ln p_t(target)"),
]

_TRAINING = [
    ("sequence_probability", "with targets: the product of the target probabilities"),
    ("loss", "with targets: total cross-entropy, the sum of the step losses"),
    ("t.grad_logits", "with targets: dL/dz_t = p_t - y_t, per step"),
    ("grad_W_out", "with targets: dL/dW_out = sum_t (p_t - y_t) u_t^T"),
    ("grad_b_out", "with targets and b_out: sum_t (p_t - y_t)"),
    ("grad_norm", "with [training] clip_norm: the L2 norm of every gradient being updated, together"),
    ("clip_scale", "with clip_norm: min(1, clip_norm / (grad_norm + 1e-6))"),
    ("grad_W_out_clipped", "with clip_norm: dL/dW_out * clip_scale, used by the update"),
    ("grad_b_out_clipped", "with clip_norm and b_out: the bias gradient * clip_scale"),
    ("decay", "with optimizer adamw: lr * weight_decay * W_out, taken off W_out before the Adam step"),
    ("W_out_new", "with [training]: W_out after one SGD, Adam or AdamW step"),
    ("decay_b_out", "with adamw and b_out: lr * weight_decay * b_out"),
    ("b_out_new", "with [training] and b_out: b_out after the step"),
]

_LSTM = [
    ("t.hx", "the concatenation [h_{t-1}; x_t] ([x_t; h_{t-1}] with order = xh; when a gate is computed)"),
    ("t.f_pre", "W_f [h; x] + b_f (omitted when the gate is stated)"),
    ("t.f", "forget gate sigma(...)"),
    ("t.i_pre", "W_i [h; x] + b_i"),
    ("t.i", "input gate"),
    ("t.c_tilde_pre", "W_c [h; x] + b_c"),
    ("t.c_tilde", "candidate tanh(...)"),
    ("t.retained", "f_t * c_{t-1}, entry by entry"),
    ("t.new", "i_t * c~_t"),
    ("t.c", "cell state: retained + new"),
    ("t.o_pre", "W_o [h; x] + b_o"),
    ("t.o", "output gate"),
    ("t.tanh_c", "tanh(c_t)"),
    ("t.h", "hidden state o_t * tanh(c_t)"),
]

_GRU = [
    ("t.hx", "the concatenation [h_{t-1}; x_t] ([x_t; h_{t-1}] with order = xh)"),
    ("t.r_pre", "W_r [h; x] + b_r"),
    ("t.r", "reset gate"),
    ("t.z_pre", "W_z [h; x] + b_z"),
    ("t.z", "update gate"),
    ("t.rh", "reset before: r_t * h_{t-1}"),
    ("t.rhx", "reset before: [r_t * h_{t-1}; x_t] ([x_t; r_t * h_{t-1}] with order = xh)"),
    ("t.xn", "reset after: W_in x_t + b_in"),
    ("t.hn", "reset after: W_hn h_{t-1} + b_hn"),
    ("t.h_tilde_pre", "the candidate's pre-activation"),
    ("t.h_tilde", "candidate state tanh(...)"),
    ("t.h", "hidden state: (1 - z) h~ + z h (update keep) or z h~ + (1 - z) h (replace)"),
]

_RNN = [
    ("t.hx", "the concatenation [h_{t-1}; x_t] ([x_t; h_{t-1}] with order = xh)"),
    ("t.h_pre", "W [h; x] + b"),
    ("t.h", "hidden state tanh(...) (or relu)"),
]


# seq2seq's attention, listed in Luong's order (the cell, then attention from its new state);
# attncalc.schema.catalog.step_order puts them before the decoder's input and cell for Bahdanau
DECODER_ATTENTION = [
    ("decoder.t.projected_query", "additive score: W_q s"),
    ("decoder.t.hidden", "additive score: tanh(W_q s + W_k h_i), per source position"),
    ("decoder.t.scores", "scores over the encoder states: Bahdanau from s_{t-1} (before the cell), Luong from h_t"),
    ("decoder.t.weights", "softmax of the scores"),
    ("decoder.t.context", "c_t = sum_i alpha_i h_i"),
]


def _cell_ids(prefix: str, which: str) -> list[tuple[str, str]]:
    return [(prefix + i, d) for i, d in {"lstm": _LSTM, "gru": _GRU, "rnn": _RNN}[which]]


def _any_cell(prefix: str) -> list[tuple[str, str]]:
    """The ids of every cell type, in one order all three respect."""
    merged = dict(_RNN[:2]) | dict(_LSTM[1:-1]) | dict(_GRU[1:-1])  # each list ends with t.h
    return [(prefix + i, d) for i, d in merged.items()] + [(prefix + "t.h", "hidden state")]


STEP_IDS: dict[str, list[tuple[str, str]]] = {
    "rnn": _cell_ids("", "rnn") + _OUTPUT_PER_STEP + _TRAINING,
    "lstm": _cell_ids("", "lstm") + _OUTPUT_PER_STEP + _TRAINING,
    "gru": _cell_ids("", "gru") + _OUTPUT_PER_STEP + _TRAINING,
    "seq2seq": [
        *_any_cell("encoder."),
        *[(i.replace("encoder.", "encoder.fwd.", 1), "bidirectional: forward cell") for i, _ in _any_cell("encoder.")],
        *[
            (i.replace("encoder.", "encoder.bwd.", 1), "bidirectional: backward cell, t = n..1")
            for i, _ in _any_cell("encoder.")
        ],
        ("encoder.t.state", "bidirectional: h_t = [forward h_t; backward h_t]"),
        ("projected_keys", "additive score: W_k h_i for every encoder state, computed once"),
        ("decoder.t.input", "Bahdanau: [y_{t-1}; c_t]; Luong with input feeding: [y_{t-1}; h~_{t-1}]"),
        *_any_cell("decoder."),
        *DECODER_ATTENTION,
        ("decoder.t.combined", "Luong: [c_t; h_t]"),
        ("decoder.t.attentional_pre", "Luong: W_att [c_t; h_t] (Luong's W_c)"),
        ("decoder.t.attentional", "Luong: h~_t = tanh(W_c [c_t; h_t])"),
        *[("decoder." + i, d) for i, d in _OUTPUT_PER_STEP],
        *[(i if not i.startswith("t.") else "decoder." + i, d) for i, d in _TRAINING],
    ],
}

# -------------------------------------------------------------------- `attncalc new` templates

_RECURRENT = {
    "lstm": """# An LSTM cell over two steps, weights in the papers' per-gate form: W_* acts on [h; x].
title = "LSTM, two steps"
kind = "lstm"

[given]
x = [[1, 0], [0, 1]]          # «given.x»
# h0 = [0, 0]  c0 = [0, 0]    # zeros when omitted
W_f = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_i = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_c = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_o = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
b_f = [1, 1]                  # biases are zero when omitted
# A gate may be stated instead of computed, per step:  [[given.gates]]  i = [0.8, 0.7]
# Output layer and loss: W_out = [[...], ...]  b_out = [...]  vocab = [...]  targets = [...]

[cell]
layout = "gates"              # «cell.layout»
# order = "hx"                # «cell.order»

[settings]
decimals = 3
"""
    + TEMPLATE_GRADING.format(example='"2.*" = 6             # a group: the steps of time step 2 share 6 points'),
    "gru": """# A GRU cell in PyTorch's layout (gates stacked r, z, n).
title = "GRU, one step"
kind = "gru"

[given]
x = [1, 0]
h0 = [0.5, -0.5]
weight_ih = [[0.1, 0.2], [0.3, -0.1], [0.2, 0.1], [-0.2, 0.3], [0.5, -0.4], [0.1, 0.2]]
weight_hh = [[0.2, 0], [0.1, 0.3], [-0.1, 0.2], [0.3, 0.1], [0.2, -0.2], [0, 0.4]]

[cell]
layout = "pytorch"
reset = "after"               # «cell.reset»
update = "keep"               # «cell.update»
""",
    "rnn": """# A plain RNN: h_t = tanh(W [h_{t-1}; x_t] + b), with an output layer and one SGD step.
title = "RNN language model"
kind = "rnn"

[given]
x = [[1, 0], [0, 1]]
W = [[0.5, -0.5, 1, 0], [0.25, 0.5, 0, 1]]
b = [0, 0.1]
W_out = [[1, 0], [0, 1], [1, -1]]
vocab = ["a", "b", "<eos>"]
targets = ["b", "<eos>"]

[training]
optimizer = "sgd"             # «training.optimizer»
lr = 0.1
""",
}

_SEQ2SEQ = """# A small encoder-decoder with Luong dot attention and teacher forcing.
title = "seq2seq with Luong attention"
kind = "seq2seq"
tokens = ["je", "suis"]

[encoder]
cell = "gru"                  # «encoder.cell»
layout = "gates"
x = [[1, 0], [0, 1]]          # «encoder.x»
W_r = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_z = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_h = [[0.5, 0, 1, 0], [0, 0.5, 0, 1]]
# bidirectional = true  and  [encoder.reverse] with the backward cell's weights

[decoder]
cell = "gru"
attention = "luong"           # luong: score with h_t, then h~ = tanh(W_att [c; h]) | bahdanau: score with s_{t-1}
                              # | none: no attention (leave out score and W_att; logits from s_t)
# The decoder starts from the encoder's final state; h0 = [...] (and c0 for an LSTM) overrides it.
# A gate may be stated instead of computed: [[decoder.gates]] per step (f, i, c_tilde, o / r, z, h_tilde).
score = "dot"                 # «decoder.score»
inputs = [[0, 0], [1, 0]]     # «decoder.inputs»
W_r = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_z = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_h = [[0.5, 0, 1, 0], [0, 0.5, 0, 1]]
W_att = [[1, 0, 0, 1], [0, 1, 1, 0]]
W_out = [[1, 0], [0, 1], [-1, 1]]
vocab = ["I", "am", "<eos>"]
targets = ["I", "am"]

[training]
optimizer = "sgd"
lr = 0.5
"""

# the unfilled texts (tests/registry/test_registry.py reads their «placeholders»), and the templates
_TEMPLATE = {**_RECURRENT, "seq2seq": _SEQ2SEQ}
TEMPLATE = {
    kind: decl.fill(_TEMPLATE[kind])
    for kind, decl in (("rnn", RNN), ("lstm", LSTM), ("gru", GRU), ("seq2seq", SEQ2SEQ))
}
