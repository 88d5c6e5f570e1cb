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

[settings]
decimals = 3
# temperature = 2        # softmax(z / T)
"""


def template(kind: str, score: str | None = None) -> str:
    """The template for a kind (and, for attention, a score)."""
    if kind == "attention":
        return attention(score or "dot")
    if kind == "self-attention":
        return SELF_ATTENTION
    if kind == "softmax":
        return SOFTMAX
    raise KeyError(kind)
