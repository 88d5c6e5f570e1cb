"""The declaration of kind attention-backward: the forward pass of kind multi-head (self-attention,
no positions, no cache), then the backward pass from a given upstream gradient."""

from __future__ import annotations

from .common import ANSWERS, DESCRIPTION, GRADING, JACOBIAN, SCHEMA, SETTINGS, SETTINGS_KEYS, TITLE, TOKENS
from .decl import Key, KindSchema, Table, table
from .transformer import MULTI_HEAD_GIVEN

_SHARED = ("X", "W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O", "kv_heads", "mask", "key_padding")

GIVEN = table(
    MULTI_HEAD_GIVEN["X"],
    MULTI_HEAD_GIVEN["heads"].but(required=False, default=1),
    *(MULTI_HEAD_GIVEN[k] for k in _SHARED[1:]),
    Key(
        "grad_output",
        "matrix",
        "the upstream gradient ∂L/∂output: n × d_model with W_O, n × (heads·d_v) without (one head: its output's)",
        required=True,
        shape=("n", "d_out"),
    ),
    doc="the rows, the projections, the heads and masks (as kind multi-head), and the upstream gradient",
)

_LEFT_OUT = ("temperature", "convention", "norm", "eps", "position_base", "rope", "alibi")
SETTINGS_BACKWARD = SETTINGS.but(
    table=Table((*(k for k in SETTINGS_KEYS if k.name not in _LEFT_OUT), JACOBIAN), SETTINGS.doc)
)

ATTENTION_BACKWARD = KindSchema(
    "attention-backward",
    "backpropagation through (multi-head) self-attention: grad of W_O, V, the softmax, Q, K, the weights and X",
    table(
        TITLE,
        Key(
            "kind",
            "choice",
            "the kind of problem (see `attncalc list`)",
            choices=("attention-backward",),
            required=True,
        ),
        Key(
            "score",
            "choice",
            "scaled-dot (divide by sqrt(d_k) of a head) | dot",
            default="scaled-dot",
            choices=("scaled-dot", "dot"),
        ),
        TOKENS.but(doc="optional labels, one per row of X"),
        DESCRIPTION,
        Key("given", "table", GIVEN.doc, table=GIVEN, required=True),
        SETTINGS_BACKWARD,
        ANSWERS,
        GRADING,
        SCHEMA,
    ),
)
