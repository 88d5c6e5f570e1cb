"""Kinds softmax, sequence and similarity: their declarations, their step ids (``STEP_IDS[kind]``, in
derivation order) and their ``attncalc new`` templates (``TEMPLATE[kind]``). Plain data with no heavy
imports (``attncalc list`` loads it); attention and self-attention are in :mod:`attncalc.schema.attention`."""

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
from .decl import Key, KindSchema, table


def _kind(name: str) -> Key:
    return Key("kind", "choice", "the kind of problem (see `attncalc list`)", choices=(name,), required=True)


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

# -------------------------------------------------------------------- step ids

# in derivation order; parenthesised remarks say when a step applies
STEP_IDS: dict[str, list[tuple[str, str]]] = {
    "softmax": [
        ("logits", "with W_out and hidden: z = W_out h + b_out"),
        ("scaled_logits", "temperature != 1: z / T"),
        ("exponentials", "exp of each logit"),
        ("exp_sum", "sum of the exponentials"),
        ("probabilities", "softmax p"),
        ("smoothed_target", "with label_smoothing: q = (1 - eps) y + eps / K"),
        ("loss", "with a target: cross-entropy -ln p_target (-sum_i q_i ln p_i with label_smoothing)"),
        ("gradient", "with a target: d loss / d logits = (p - y) / T (p - q with label_smoothing)"),
        ("grad_W_out", "with hidden: dL/dW_out = (p - y) h^T / T"),
        ("grad_norm", "with [training] clip_norm: the L2 norm of every gradient being updated, together"),
        ("clip_scale", "with clip_norm: min(1, clip_norm / (grad_norm + 1e-6))"),
        ("grad_W_out_clipped", "with clip_norm: dL/dW_out * clip_scale, used by the update"),
        ("grad_b_out_clipped", "with clip_norm, W_out and b_out: d loss / d logits * clip_scale"),
        (
            "W_out_change",
            "with [training] but no W_out: the change of W_out, -lr g (SGD) or -lr m^/(sqrt(v^) + eps) (Adam)",
        ),
        ("decay", "with optimizer adamw: lr * weight_decay * W_out, taken off W_out before the Adam step"),
        ("W_out_new", "with [training] and W_out: W_out after one SGD, Adam or AdamW step"),
        ("decay_b_out", "with adamw and b_out: lr * weight_decay * b_out"),
        ("b_out_new", "with [training] and b_out: b_out after the step (its gradient is d loss / d logits)"),
    ],
    "sequence": [
        ("t.loss", "-ln p_t: the cross-entropy at step t"),
        ("sequence_probability", "P(y) = the product of the p_t"),
        ("loss", "the total cross-entropy, the sum of the step losses (= -ln P(y))"),
        ("mean_loss", "L / T, the loss per token"),
        ("perplexity", "exp(L / T), the geometric mean of 1/p_t"),
    ],
    "similarity": [
        ("dots", "dot, cosine: a_i . b_j for every pair"),
        ("norms_A", "cosine, euclidean: |a_i| = sqrt(sum_k a_ik^2)"),
        ("norms_B", "cosine, euclidean: |b_j| (when B is given)"),
        ("cosines", "cosine: a_i . b_j / (|a_i| |b_j|)"),
        ("differences", "euclidean: a_i - b_j, one row per pair (i, j) in order"),
        ("distances", "euclidean: |a_i - b_j|"),
    ],
}

# -------------------------------------------------------------------- `attncalc new` templates

_SOFTMAX = """# attncalc problem: softmax, cross-entropy and its gradient.
# Solve it with:  attncalc solve this-file.toml
title = "Softmax with cross-entropy"
kind = "softmax"

[given]
logits = [2, 1, 0.1]
vocab = ["cat", "dog", "bird"]   # «given.vocab»
target = "cat"                   # «given.target»
# Or compute the logits with an output layer, z = W_out h + b_out (then leave out logits):
# W_out = [[1, 0.5], [0.5, 1], [0, 0.2]]   # «given.W_out»
# b_out = [0, 0, 0]
# hidden = [1, 1]       # «given.hidden»

[settings]
decimals = 3
# temperature = 2        # «settings.temperature»
# label_smoothing = 0.1  # «settings.label_smoothing»

# One training step on W_out (needs hidden and a target; without W_out the change is shown):
# [training]
# optimizer = "adamw"    # «training.optimizer»
# lr = 0.001
# weight_decay = 0.01    # «training.weight_decay»
# clip_norm = 1          # «training.clip_norm»
"""


_SEQUENCE = """# attncalc problem: a sequence's probability and loss from its step probabilities.
# Solve it with:  attncalc solve this-file.toml
title = "Sequence probability, cross-entropy and perplexity"
kind = "sequence"

[given]
probabilities = [0.5, 0.8, 0.9]    # «given.probabilities»
targets = ["the", "cat", "<END>"]  # «given.targets»

[settings]
decimals = 3
"""


_SIMILARITY = """# How alike are word vectors? Every row of A is compared with every row of B.
title = "Word-vector similarity"
kind = "similarity"
measure = ["dot", "cosine", "euclidean"]  # «measure»
tokens = ["cat", "dog"]                   # «tokens»

[given]
A = [[3, 4], [1, 0]]          # «given.A»
B = [[4, 3], [0, 2], [1, 1]]  # «given.B»
labels_B = ["cow", "car", "sun"]  # «given.labels_B»

[settings]
decimals = 3
# carry_rounded = true   # round every step (dots, lengths) and carry it forward, as by hand
"""

# the unfilled texts (tests/registry/test_registry.py reads their «placeholders»), and the templates
_TEMPLATE = {"softmax": _SOFTMAX, "sequence": _SEQUENCE, "similarity": _SIMILARITY}
TEMPLATE = {
    "softmax": SOFTMAX.fill(_SOFTMAX),
    "sequence": SEQUENCE.fill(_SEQUENCE),
    "similarity": SIMILARITY.fill(_SIMILARITY),
}
