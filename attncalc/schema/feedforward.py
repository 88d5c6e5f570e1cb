"""The declarations of the kinds without recurrence: attention, self-attention, softmax, sequence, similarity."""

from __future__ import annotations

from . import catalog
from .common import (
    ANSWERS,
    DESCRIPTION,
    GRADING,
    SCHEMA,
    SETTINGS,
    SETTINGS_SOFTMAX_KIND,
    TITLE,
    TOKENS,
    TRAINING,
)
from .decl import Key, KindSchema, Select, Table, table


def _kind(name: str) -> Key:
    return Key("kind", "choice", "the kind of problem (see `attncalc list`)", choices=(name,), required=True)


# -------------------------------------------------------------------- attention

# the keys each score function adds to [given], with what they mean for that score
SCORE_GIVEN: dict[str, Table] = {
    "dot": table(),
    "scaled-dot": table(Key("scale", "number", "optional; default 1/sqrt(d_k)")),
    "general": table(
        Key("W", "matrix", "score_i = s . (W h_i); square here, (len(s) x len(h_i)) in general", required=True)
    ),
    "additive": table(
        Key("W_q", "matrix", "(a x len(s)): projects the query", required=True),
        Key("W_k", "matrix", "(a x len(h_i)): projects each key", required=True),
        Key("v", "vector", "length a: reads a score off tanh(W_q s + W_k h_i + b)", required=True, shape=("a",)),
        Key("b", "vector", "length a: the bias inside the tanh (zero when omitted)", shape=("a",)),
    ),
    "concat": table(
        Key("W", "matrix", "(a x (len(s) + len(h_i))): acts on [s; h_i]", required=True),
        Key("v", "vector", "length a", required=True, shape=("a",)),
    ),
}

ATTENTION_GIVEN = table(
    Key("query", "vector", "decoder state s", required=True, shape=("d_q",)),
    Key("keys", "matrix", "encoder states h_1..h_n, one per row", required=True, shape=("n", "d_k")),
    Key("values", "matrix", "defaults to the keys", shape=("n", "d_v")),
    SCORE_GIVEN["scaled-dot"]["scale"],
    Key("W", "matrix", "general: s . (W h_i); concat: v . tanh(W [s; h_i])"),
    *(k.but(required=False) for k in SCORE_GIVEN["additive"].keys[:2]),
    Key("v", "vector", "additive and concat: the scoring vector, length a", shape=("a",)),
    SCORE_GIVEN["additive"]["b"],
    doc="the inputs: the query, the keys (and values), the score's weights",
)

HEAD = table(
    Key(
        "combine",
        "choice",
        "add: u = s + c | concat: u = tanh(W_c [c; s]) (needs W_c; see `order`)",
        default="add",
        choices=("add", "concat"),
    ),
    Key(
        "order",
        "choice",
        'concat only: [c; s] (default) or "query-context" for [s; c]',
        default="context-query",
        choices=("context-query", "query-context"),
    ),
    Key("W_c", "matrix", "concat only: the matrix of tanh(W_c [c; s])"),
    Key("W_out", "matrix", "one row per vocabulary entry (column convention)"),
    Key("b_out", "vector", "the output layer's bias, one entry per logit"),
    Key("vocab", "labels", "the labels of the logits, one per row of W_out"),
    doc="optional output head: what the decoder does with the context vector c",
)

ATTENTION = KindSchema(
    "attention",
    "one decoder step: a query attends over encoder states (keys/values), optional output head",
    table(
        TITLE,
        _kind("attention"),
        Key(
            "score",
            "choice",
            "dot | scaled-dot | general | additive | concat",
            default="dot",
            choices=tuple(catalog.SCORES),
        ),
        TOKENS.but(doc="optional labels, one per encoder state"),
        DESCRIPTION,
        Key("given", "table", ATTENTION_GIVEN.doc, table=ATTENTION_GIVEN, required=True),
        Key("head", "table", HEAD.doc, table=HEAD),
        SETTINGS,
        ANSWERS,
        GRADING,
        SCHEMA,
    ),
    selects=(Select("score", "given", SCORE_GIVEN, always=("query", "keys", "values")),),
)

# -------------------------------------------------------------------- self-attention

SELF_ATTENTION_GIVEN = table(
    Key("X", "matrix", "one row per token", required=True, shape=("n", "d")),
    Key("W_Q", "matrix", "the query projection (identity when omitted); Q = X W_Q in the row convention"),
    Key("W_K", "matrix", "the key projection (identity when omitted)"),
    Key("W_V", "matrix", "the value projection (identity when omitted)"),
    Key("mask", "choice", "or a 0/1 matrix, 1 = may attend", choices=("causal",), also=("matrix",), shape=("n", "n")),
    Key("window", "integer", "sliding window: with a causal mask, token i sees tokens i − w < k ≤ i", min=1),
    doc="the input rows and the projections",
)

SELF_ATTENTION = KindSchema(
    "self-attention",
    "every row of X attends over all rows: Q = X W_Q, K = X W_K, V = X W_V",
    table(
        TITLE,
        _kind("self-attention"),
        Key(
            "score",
            "choice",
            "scaled-dot (divide by sqrt(d_k)) | dot",
            default="scaled-dot",
            choices=catalog.SELF_ATTENTION_SCORES,
        ),
        TOKENS.but(doc="optional labels, one per row of X"),
        DESCRIPTION,
        Key("given", "table", SELF_ATTENTION_GIVEN.doc, table=SELF_ATTENTION_GIVEN, required=True),
        SETTINGS,
        ANSWERS,
        GRADING,
        SCHEMA,
    ),
)

# -------------------------------------------------------------------- softmax

SOFTMAX_GIVEN = table(
    Key("logits", "vector", "the logits z (or W_out and hidden, to compute them)", shape=("V",)),
    Key("target", "label", "a label, or a 0-based index as in PyTorch (0 = first)"),
    Key("vocab", "labels", "optional labels"),
    Key("hidden", "vector", "h: with a target this also gives dL/dW_out (with logits too)"),
    Key("W_out", "matrix", "one row per vocabulary entry", shape=("V", "d")),
    Key("b_out", "vector", "the output layer's bias: z = W_out h + b_out", shape=("V",)),
    doc="the logits, or an output layer and its input",
)

SOFTMAX = KindSchema(
    "softmax",
    "softmax of logits (given, or W_out h + b_out) with temperature; with a target, loss, gradients, update",
    table(
        TITLE,
        _kind("softmax"),
        TOKENS.but(doc="optional labels of the logits (given.vocab wins)"),
        DESCRIPTION,
        Key("given", "table", SOFTMAX_GIVEN.doc, table=SOFTMAX_GIVEN, required=True),
        SETTINGS_SOFTMAX_KIND,
        ANSWERS,
        GRADING,
        TRAINING.but(doc="one training step on W_out (needs hidden and a target)"),
        SCHEMA,
    ),
)

# -------------------------------------------------------------------- sequence

SEQUENCE_GIVEN = table(
    Key(
        "probabilities",
        "vector",
        "p_t: the probability the model gave the target token at step t",
        required=True,
        shape=("T",),
    ),
    Key("targets", "labels", "optional: the target tokens, for the labels", shape=("T",)),
    doc="the step probabilities",
)

SEQUENCE = KindSchema(
    "sequence",
    "the probability each step gave its target: sequence probability, cross-entropy per step and total, perplexity",
    table(
        TITLE,
        _kind("sequence"),
        TOKENS.but(doc="optional labels, one per step (given.targets wins)"),
        DESCRIPTION,
        Key("given", "table", SEQUENCE_GIVEN.doc, table=SEQUENCE_GIVEN, required=True),
        SETTINGS,
        ANSWERS,
        GRADING,
        SCHEMA,
    ),
)

# -------------------------------------------------------------------- similarity

SIMILARITY_GIVEN = table(
    Key("A", "vector", "one vector [...] or rows [[...], ...]", required=True, also=("matrix",), shape=("rows_A", "d")),
    Key(
        "B",
        "vector",
        "optional (default: A against itself); same length as A's rows",
        also=("matrix",),
        shape=("rows_B", "d"),
    ),
    Key("labels_B", "labels", "optional: labels of the rows of B, one each", shape=("rows_B",)),
    doc="the vectors compared",
)

SIMILARITY = KindSchema(
    "similarity",
    "every row of A compared with every row of B (default A): dot products, cosines, euclidean distances",
    table(
        TITLE,
        _kind("similarity"),
        Key(
            "measure",
            "choices",
            'any of: dot | cosine | euclidean (or one name, "cosine")',
            default="dot",
            choices=tuple(catalog.MEASURES),
        ),
        TOKENS.but(doc="optional: labels of the rows of A, one each"),
        DESCRIPTION,
        Key("given", "table", SIMILARITY_GIVEN.doc, table=SIMILARITY_GIVEN, required=True),
        SETTINGS,
        ANSWERS,
        GRADING,
        SCHEMA,
    ),
)
