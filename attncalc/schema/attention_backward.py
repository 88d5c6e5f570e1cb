"""Kind attention-backward, the forward pass of kind multi-head (self-attention, no positions, no
cache), then the backward pass from a given upstream gradient: its declaration, its step ids (in
derivation order) and its ``attncalc new`` template."""

from __future__ import annotations

from .common import ANSWERS, DESCRIPTION, GRADING, JACOBIAN, SCHEMA, SETTINGS, SETTINGS_KEYS, TITLE, TOKENS
from .decl import Key, KindSchema, Table, table
from .transformer import MULTI_HEAD_GIVEN, MULTI_HEAD_STEP_IDS

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

_OWN = {"Q": "queries X W_Q + b_Q, all heads side by side", "K": "keys X W_K + b_K", "V": "values X W_V + b_V"}
_FORWARD = [
    (i, _OWN.get(i, d))
    for i, d in MULTI_HEAD_STEP_IDS
    if i not in ("positions", "X_pos", "memory_pos", "K_new", "V_new") and "rot" not in i and "bias" not in i
]

STEP_IDS: list[tuple[str, str]] = [
    *_FORWARD,
    ("grad_W_O", "with W_O: concat^T grad_output"),
    ("grad_b_O", "with b_O: the column sums of grad_output"),
    ("grad_concat", "with W_O: grad_output W_O^T"),
    ("head.t.grad_output", "head t's columns of grad_concat (without W_O: of grad_output)"),
    ("head.t.grad_V", "A_t^T grad_output_t"),
    ("head.t.grad_weights", "grad_output_t V_t^T"),
    ("head.t.jacobian.t", "jacobian = true: query row i's softmax Jacobian diag(a) - a a^T (head.t.jacobian.i)"),
    ("head.t.rowdot", "D_i = sum_k A_ik grad_weights_ik (= rowsum(grad_output_t * output_t))"),
    ("head.t.grad_scaled_scores", "A * (grad_weights - D), 0 where masked"),
    ("head.t.grad_scores", "grad_scaled_scores / sqrt(d_k) (dot: the same)"),
    ("head.t.grad_Q", "grad_scores K_t"),
    ("head.t.grad_K", "grad_scores^T Q_t"),
    ("grad_Q", "the heads' grad_Q side by side"),
    ("grad_K", "the heads' grad_K side by side (kv_heads: a shared head sums its query heads')"),
    ("grad_V", "the heads' grad_V, as grad_K"),
    ("grad_W_Q", "X^T grad_Q"),
    ("grad_W_K", "X^T grad_K"),
    ("grad_W_V", "X^T grad_V"),
    ("grad_b_Q", "with b_Q: the column sums of grad_Q"),
    ("grad_b_K", "with b_K: the column sums of grad_K"),
    ("grad_b_V", "with b_V: the column sums of grad_V"),
    ("grad_X_Q", "grad_Q W_Q^T: the path through the queries"),
    ("grad_X_K", "grad_K W_K^T"),
    ("grad_X_V", "grad_V W_V^T"),
    ("grad_X", "the three paths added"),
]

_TEMPLATE = """# attncalc problem: the backward pass of causal self-attention, one head (row convention Q = X W_Q).
# Solve it with:  attncalc solve this-file.toml
title = "Gradients through one causal head"
kind = "attention-backward"
score = "scaled-dot"     # «score»
tokens = ["the", "cat", "sat"]

[given]
X = [[1, 0], [0, 1], [1, 1]]        # «given.X»
heads = 1                # «given.heads»
W_Q = [[1, 0], [1, 1]]   # «given.W_Q»
W_K = [[1, 0], [0, -1]]  # «given.W_K»
W_V = [[1, 2], [0, 1]]   # «given.W_V»
mask = "causal"          # «given.mask»
grad_output = [[1, 0], [0, 1], [1, 1]]   # «given.grad_output»
# W_O = [[...]]          # «given.W_O»
# b_Q = [0, 0]           # «given.b_Q»
# kv_heads = 1           # «given.kv_heads»
# key_padding = [1, 1, 0]  # «given.key_padding»

[settings]
decimals = 3             # «settings.decimals»
exact = true             # «settings.exact»
jacobian = true          # «settings.jacobian»
"""

TEMPLATE = ATTENTION_BACKWARD.fill(_TEMPLATE)
