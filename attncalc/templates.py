"""Commented template problem files printed by ``attncalc new KIND``; each solves as it is."""

from __future__ import annotations

_SETTINGS = """
[settings]
decimals = 3             # digits shown
carry_rounded = false    # true: round every step to `decimals` and carry it forward, as by hand
exact = true             # also derive exact forms (1/(1 + 2e) rather than 0.155)
# convention = "column"  # "column": weights act as W x (papers); "row": x W (stacked rows, PyTorch)
# shift_max = "auto"     # subtract the maximum score before exp: auto | always | never
"""

_ATTENTION_HEAD = """
# Optional output head: what the decoder does with the context vector c.
[head]
combine = "add"          # add: u = s + c | concat: u = tanh(W_c [c; s]) (needs W_c; see `order`)
# order = "context-query"  # concat only: [c; s] (default) or "query-context" for [s; c]
W_out = [[1, 0], [0, 1]] # one row per vocabulary entry (column convention)
# b_out = [0, 0]
vocab = ["A", "B"]
"""

_SCORE_GIVEN = {
    "dot": "",
    "scaled-dot": '# scale = "1/sqrt(2)"    # optional; default 1/sqrt(d_k)\n',
    "general": "W = [[1, 0], [0, 1]]     # score_i = s . (W h_i); square here, (len(s) x len(h_i)) in general\n",
    "additive": (
        "W_q = [[1, 0], [0, 1]]   # (a x len(s)): projects the query\n"
        "W_k = [[1, 1], [0, 1]]   # (a x len(h_i)): projects each key\n"
        "v = [1, -1]              # length a: reads a score off tanh(W_q s + W_k h_i + b)\n"
        "# b = [0, 0]\n"
    ),
    "concat": (
        "W = [[1, 0, 1, 0], [0, 1, 0, 1]]  # (a x (len(s) + len(h_i))): acts on [s; h_i]\n"
        "v = [1, 1]                         # length a\n"
    ),
}


def attention(score: str) -> str:
    return f'''# attncalc problem: one decoder step of attention ({score} score).
# Solve it with:  attncalc solve this-file.toml
# Numbers may be integers, decimals (exact: 0.3 is 3/10) or strings such as "1/3", "sqrt(2)", "exp(-1)".
title = "Attention with the {score} score"
kind = "attention"
score = "{score}"        # dot | scaled-dot | general | additive | concat
tokens = ["I", "love", "you"]   # optional labels, one per encoder state

[given]
query = [1, 1]                   # decoder state s
keys = [[1, 0], [0, 2], [1, 1]]  # encoder states h_1..h_n, one per row
# values = [[1, 0], [0, 1], [1, 1]]  # defaults to the keys
{_SCORE_GIVEN[score]}{_ATTENTION_HEAD}{_SETTINGS}
# Optional hand answers for `attncalc check`, keyed by step id (see `attncalc list`):
# [answers]
# weights = [0.155, 0.422, 0.422]
'''


SELF_ATTENTION = f"""# attncalc problem: scaled dot-product self-attention.
# Solve it with:  attncalc solve this-file.toml
title = "Self-attention over three tokens"
kind = "self-attention"
score = "scaled-dot"     # scaled-dot (divide by sqrt(d_k)) | dot
tokens = ["x1", "x2", "x3"]

[given]
X = [[1, 0], [0, 1], [1, 1]]     # one row per token
# W_Q, W_K, W_V default to the identity; Q = X W_Q in the (default) row convention
W_Q = [[1, 0], [0, 1]]
W_K = [[1, 0], [0, 1]]
W_V = [[1, 0], [0, 1]]
# mask = "causal"        # or a 0/1 matrix, 1 = may attend
{_SETTINGS}"""


SOFTMAX = """# attncalc problem: softmax, cross-entropy and its gradient.
# Solve it with:  attncalc solve this-file.toml
title = "Softmax with cross-entropy"
kind = "softmax"

[given]
logits = [2, 1, 0.1]
vocab = ["cat", "dog", "bird"]   # optional labels
target = "cat"                   # a label, or a 0-based index as in PyTorch (0 = first)
# Or compute the logits with an output layer, z = W_out h + b_out (then leave out logits):
# W_out = [[1, 0.5], [0.5, 1], [0, 0.2]]   # one row per vocabulary entry
# b_out = [0, 0, 0]
# hidden = [1, 1]       # h: with a target this also gives dL/dW_out (with logits too)

[settings]
decimals = 3
# temperature = 2        # softmax(z / T)

# One training step on W_out (needs hidden and a target; without W_out the change is shown):
# [training]
# optimizer = "adam"     # or "sgd"
# lr = 0.001
"""


SEQUENCE = """# attncalc problem: a sequence's probability and loss from its step probabilities.
# Solve it with:  attncalc solve this-file.toml
title = "Sequence probability, cross-entropy and perplexity"
kind = "sequence"

[given]
probabilities = [0.5, 0.8, 0.9]    # p_t: the probability the model gave the target token at step t
targets = ["the", "cat", "<END>"]  # optional: the target tokens, for the labels

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


SIMILARITY = """# How alike are word vectors? Every row of A is compared with every row of B.
title = "Word-vector similarity"
kind = "similarity"
measure = ["dot", "cosine", "euclidean"]  # any of: dot | cosine | euclidean (or one name, "cosine")
tokens = ["cat", "dog"]                   # optional: labels of the rows of A, one each

[given]
A = [[3, 4], [1, 0]]          # one vector [...] or rows [[...], ...]
B = [[4, 3], [0, 2], [1, 1]]  # optional (default: A against itself); same length as A's rows
labels_B = ["cow", "car", "sun"]  # optional: labels of the rows of B, one each

[settings]
decimals = 3
# carry_rounded = true   # round every step (dots, lengths) and carry it forward, as by hand
"""


RECURRENT = {
    "lstm": """# An LSTM cell over two steps, weights in the papers' per-gate form: W_* acts on [h; x].
title = "LSTM, two steps"
kind = "lstm"

[given]
x = [[1, 0], [0, 1]]          # one row per step
# h0 = [0, 0]  c0 = [0, 0]    # zeros when omitted
W_f = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_i = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_c = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_o = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
b_f = [1, 1]                  # biases are zero when omitted
# A gate may be stated instead of computed, per step:  [[given.gates]]  i = [0.8, 0.7]
# Output layer and loss: W_out = [[...], ...]  b_out = [...]  vocab = [...]  targets = [...]

[cell]
layout = "gates"              # gates | pytorch (weight_ih, weight_hh, bias_ih, bias_hh) | keras (kernel, recurrent_kernel, bias)

[settings]
decimals = 3
""",
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
reset = "after"               # after: r ⊙ (W_hn h + b_hn) (PyTorch, Keras) | before: W (r ⊙ h) (Cho, Bahdanau)
update = "keep"               # keep: h = (1 - z) h~ + z h (PyTorch, Keras, Cho) | replace: h = z h~ + (1 - z) h (Bahdanau)
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
optimizer = "sgd"             # sgd | adam (first step)
lr = 0.1
""",
}

SEQ2SEQ = """# A small encoder-decoder with Luong dot attention and teacher forcing.
title = "seq2seq with Luong attention"
kind = "seq2seq"
tokens = ["je", "suis"]

[encoder]
cell = "gru"                  # rnn | lstm | gru
layout = "gates"
x = [[1, 0], [0, 1]]          # source embeddings
W_r = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_z = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
W_h = [[0.5, 0, 1, 0], [0, 0.5, 0, 1]]
# bidirectional = true  and  [encoder.reverse] with the backward cell's weights

[decoder]
cell = "gru"
attention = "luong"           # luong: score with h_t, then h~ = tanh(W_att [c; h]) | bahdanau: score with s_{t-1}
                              # | none: no attention (no score, W_att: logits from s_t)
# The decoder starts from the encoder's final state; h0 = [...] (and c0 for an LSTM) overrides it.
# A gate may be stated instead of computed: [[decoder.gates]] per step (f, i, c_tilde, o / r, z, h_tilde).
score = "dot"                 # dot | general (W_a) | additive (W_q, W_k, v)
inputs = [[0, 0], [1, 0]]     # y_0 = <s>, then the targets' embeddings (teacher forcing)
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
