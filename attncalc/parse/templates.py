"""Commented template problem files printed by ``attncalc new KIND``; each solves as it is."""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile("«([^»]+)»")

_SETTINGS = """
[settings]
decimals = 3             # «settings.decimals»
carry_rounded = false    # «settings.carry_rounded»
exact = true             # «settings.exact»
# convention = "column"  # «settings.convention»
# shift_max = "auto"     # «settings.shift_max»
"""

_GRADING = """
# Optional points for `attncalc check` (when omitted: one point a step, none for a copy step):
# [grading]
# default = 1            # «grading.default»
# copies = 0             # «grading.copies»
# carried = 0.5          # «grading.carried»
# partial = true         # «grading.partial»
# slip = 0               # «grading.slip»
# [grading.points]       # «grading.points»
# {example}
"""

_ATTENTION_HEAD = """
# Optional output head: what the decoder does with the context vector c.
[head]
combine = "add"          # «head.combine»
# order = "context-query"  # «head.order»
W_out = [[1, 0], [0, 1]] # «head.W_out»
# b_out = [0, 0]
vocab = ["A", "B"]
"""

_SCORE_GIVEN = {
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


def attention(score: str) -> str:
    return fill_template("attention", _attention(score))


def _attention(score: str) -> str:
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
{_SCORE_GIVEN[score]}{_ATTENTION_HEAD}{_SETTINGS}
# Optional hand answers for `attncalc check`, keyed by step id (see `attncalc list`):
# [answers]
# weights = {_SCORE_WEIGHTS[score]}
{_GRADING.format(example="weights = 4")}'''


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
{_SETTINGS}"""


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


def template(kind: str, score: str | None = None) -> str:
    """The template for a kind (and, for attention, a score)."""
    if kind == "attention":
        return attention(score or "dot")
    if kind == "self-attention":
        return SELF_ATTENTION
    if kind == "softmax":
        return SOFTMAX
    if kind == "sequence":
        return SEQUENCE
    if kind == "seq2seq":
        return SEQ2SEQ
    if kind == "similarity":
        return SIMILARITY
    return RECURRENT[kind]


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
    + _GRADING.format(example='"2.*" = 6             # a group: the steps of time step 2 share 6 points'),
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


_POSITION_SETTINGS = """
[settings]
decimals = 3             # «settings.decimals»
exact = true             # «settings.exact»
# position_base = 10000  # «settings.position_base»
# rope = "interleaved"   # «settings.rope»
"""

_MULTI_HEAD = f"""# attncalc problem: two-head self-attention (Vaswani et al. 2017), row convention Q = X W_Q.
# Solve it with:  attncalc solve this-file.toml
title = "Two heads over three tokens"
kind = "multi-head"
score = "scaled-dot"     # «score»
tokens = ["je", "suis", "ici"]

[given]
X = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]   # «given.X»
heads = 2                # «given.heads»
# head 1 uses columns 1-2 of W_Q, W_K, W_V; head 2 columns 3-4
W_Q = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0], [0, 0, 1, 1]]   # «given.W_Q»
W_K = [[1, 0, 1, 0], [0, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0]]   # «given.W_K»
W_V = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]   # «given.W_V»
W_O = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]   # «given.W_O»
# b_Q = [0, 0, 0, 0]     # «given.b_Q»
# memory = [[...]]       # «given.memory»
# kv_heads = 1           # «given.kv_heads»
# mask = "causal"        # «given.mask»
# window = 2             # «given.window»
# key_padding = [1, 1, 0]  # «given.key_padding»
# positions = "sinusoidal"  # «given.positions»

# [cache]                # «cache»
# K = [[...]]            # «cache.K»
# V = [[...]]            # «cache.V»
{_POSITION_SETTINGS}# alibi = "paper"        # «settings.alibi»
"""

_POSITIONAL_ENCODING = f"""# attncalc problem: the sinusoidal positional encoding of "Attention Is All You Need".
# Solve it with:  attncalc solve this-file.toml
title = "Sinusoidal positions 0 to 3"
kind = "positional-encoding"
type = "sinusoidal"      # «type»

[given]
positions = 4            # «given.positions»
d_model = 4              # «given.d_model»
# X = [[...]]            # «given.X»
# For type = "rope", instead of d_model and X:
# q = [[...]]            # «given.q»
# k = [[...]]            # «given.k»
{_POSITION_SETTINGS}"""


def fill_template(kind: str, text: str) -> str:
    """Each «path» becomes the declared description of that key (attncalc/schema/): the comments of a
    template are the declaration's, the example values are the template's."""
    from ..kinds import entry
    from ..schema.feedforward import SCORE_GIVEN

    decl = entry(kind).declaration

    def doc(m: re.Match[str]) -> str:
        path = m.group(1)
        if ":" in path:  # a score function's own key, "general:W"
            score, key = path.split(":")
            return SCORE_GIVEN[score].doc_of(key)
        return decl.doc_of(path)

    return _PLACEHOLDER.sub(doc, text)


SELF_ATTENTION = fill_template("self-attention", _SELF_ATTENTION)
SOFTMAX = fill_template("softmax", _SOFTMAX)
SEQUENCE = fill_template("sequence", _SEQUENCE)
SIMILARITY = fill_template("similarity", _SIMILARITY)
SEQ2SEQ = fill_template("seq2seq", _SEQ2SEQ)
RECURRENT = {kind: fill_template(kind, text) for kind, text in _RECURRENT.items()}
MULTI_HEAD = fill_template("multi-head", _MULTI_HEAD)
POSITIONAL_ENCODING = fill_template("positional-encoding", _POSITIONAL_ENCODING)
