"""Kinds attention and self-attention: their declarations, their step ids (``STEP_IDS[kind]``, in
derivation order) and their ``attncalc new`` templates (``TEMPLATE[kind]``; attention's a function of the
score). Plain data with no heavy imports (``attncalc list`` loads it)."""

from __future__ import annotations

from typing import Any

from . import catalog
from .common import (
    ANSWERS,
    DESCRIPTION,
    GRADING,
    SCHEMA,
    SETTINGS,
    TEMPLATE_GRADING,
    TEMPLATE_SETTINGS,
    TITLE,
    TOKENS,
    kind_key,
)
from .decl import Key, KindSchema, Select, Table, table

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
        kind_key("attention"),
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
        kind_key("self-attention"),
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

# -------------------------------------------------------------------- step ids

# in derivation order; parenthesised remarks say when a step applies
STEP_IDS: dict[str, list[tuple[str, str]]] = {
    "attention": [
        ("transformed_keys", "general: W k_i for every key"),
        ("projected_query", "additive: W_q q"),
        ("projected_keys", "additive: W_k k_i for every key"),
        ("pre_activation", "additive, concat: the argument of tanh, per key"),
        ("hidden", "additive, concat: tanh of the pre-activation, per key"),
        ("scores", "alignment scores e_i"),
        ("scaled_scores", "scaled-dot: e_i * scale"),
        ("exponentials", "exp of each score (shifted by the maximum when that matters)"),
        ("exp_sum", "sum of the exponentials"),
        ("weights", "softmax weights alpha_i"),
        ("context", "context vector c = sum_i alpha_i v_i"),
        ("combined", "head: s + c (add) or the concatenation [c; s] (concat)"),
        ("combined_projection", "head, concat: W_c [c; s] before tanh"),
        ("attentional", "head, concat: tanh(W_c [c; s])"),
        ("logits", "head: W_out u + b_out"),
        ("probabilities", "head: softmax of the logits"),
        ("prediction", "head: the most probable vocabulary entry"),
    ],
    "self-attention": [
        ("Q", "queries X W_Q"),
        ("K", "keys X W_K"),
        ("V", "values X W_V"),
        ("scores", "Q K^T"),
        ("scaled_scores", "scaled-dot: scores / sqrt(d_k)"),
        ("masked_scores", "with a mask: -inf where a position may not attend"),
        ("exponentials", "exp of each score, row by row"),
        ("exp_sum", "sum of each row of exponentials"),
        ("weights", "row-wise softmax A"),
        ("output", "A V"),
    ],
}

# -------------------------------------------------------------------- `attncalc new` templates

_ATTENTION_HEAD = """
# Optional output head: what the decoder does with the context vector c.
[head]
combine = "add"          # «head.combine»
# order = "context-query"  # «head.order»
W_out = [[1, 0], [0, 1]] # «head.W_out»
# b_out = [0, 0]
vocab = ["A", "B"]
"""

_SCORE_LINES = {
    "dot": "",
    "scaled-dot": '# scale = "1/sqrt(2)"    # «scaled-dot:scale»\n',
    "general": "W = [[1, 0], [0, 1]]     # «general:W»\n",
    "additive": (
        "W_q = [[1, 0], [0, 1]]   # «additive:W_q»\n"
        "W_k = [[1, 1], [0, 1]]   # «additive:W_k»\n"
        "v = [1, -1]              # «additive:v»\n"
        "# b = [0, 0]\n"
    ),
    "concat": ("W = [[1, 0, 1, 0], [0, 1, 0, 1]]  # «concat:W»\nv = [1, 1]                         # «concat:v»\n"),
}


# each score's weights for the template's query and keys (computed with numpy, rounded to 3 decimals;
# tests/cli/test_templates_answers.py recomputes them)
_SCORE_WEIGHTS = {
    "dot": "[0.155, 0.422, 0.422]",
    "scaled-dot": "[0.198, 0.401, 0.401]",
    "general": "[0.155, 0.422, 0.422]",
    "additive": "[0.376, 0.307, 0.317]",
    "concat": "[0.307, 0.317, 0.376]",
}


def attention_template(score: str) -> str:
    return ATTENTION.fill(_attention_template(score))


def _attention_template(score: str) -> str:
    return f'''# attncalc problem: one decoder step of attention ({score} score).
# Solve it with:  attncalc solve this-file.toml
# Numbers may be integers, decimals (exact: 0.3 is 3/10) or strings such as "1/3", "sqrt(2)", "exp(-1)".
title = "Attention with the {score} score"
kind = "attention"
score = "{score}"        # «score»
tokens = ["I", "love", "you"]   # «tokens»

[given]
query = [1, 1]                   # «given.query»
keys = [[1, 0], [0, 2], [1, 1]]  # «given.keys»
# values = [[1, 0], [0, 1], [1, 1]]  # «given.values»
{_SCORE_LINES[score]}{_ATTENTION_HEAD}{TEMPLATE_SETTINGS}
# Optional hand answers for `attncalc check`, keyed by step id (see `attncalc list`):
# [answers]
# weights = {_SCORE_WEIGHTS[score]}
{TEMPLATE_GRADING.format(example="weights = 4")}'''


_SELF_ATTENTION = f"""# attncalc problem: scaled dot-product self-attention.
# Solve it with:  attncalc solve this-file.toml
title = "Self-attention over three tokens"
kind = "self-attention"
score = "scaled-dot"     # «score»
tokens = ["x1", "x2", "x3"]

[given]
X = [[1, 0], [0, 1], [1, 1]]     # «given.X»
# W_Q, W_K, W_V default to the identity; Q = X W_Q in the (default) row convention
W_Q = [[1, 0], [0, 1]]
W_K = [[1, 0], [0, 1]]
W_V = [[1, 0], [0, 1]]
# mask = "causal"        # «given.mask»
# window = 2             # «given.window»
{TEMPLATE_SETTINGS}"""

# the unfilled texts (tests/registry/test_registry.py reads their «placeholders»), and the templates
_TEMPLATE: dict[str, Any] = {"attention": _attention_template, "self-attention": _SELF_ATTENTION}
TEMPLATE: dict[str, Any] = {"attention": attention_template, "self-attention": SELF_ATTENTION.fill(_SELF_ATTENTION)}
