"""Kind attention-backward's step ids, `attncalc new` template and header line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..schema.catalog import STEP_IDS as _CATALOG

if TYPE_CHECKING:
    from . import Problem

_OWN = {"Q": "queries X W_Q + b_Q, all heads side by side", "K": "keys X W_K + b_K", "V": "values X W_V + b_V"}
_FORWARD = [
    (i, _OWN.get(i, d))
    for i, d in _CATALOG["multi-head"]
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


def _fill() -> str:
    from .templates import fill_template

    return fill_template("attention-backward", _TEMPLATE)


def __getattr__(name: str) -> Any:
    if name == "TEMPLATE":  # filled from the declaration when first asked for (the registry loads it)
        return _fill()
    raise AttributeError(name)


def header(p: Problem) -> list[str]:
    from .attention_backward import AttentionBackward

    d = p.payload(AttentionBackward)
    mh = d.mh
    bits = [p.kind, f"{mh.heads} head{'s' if mh.heads > 1 else ''} of d_k = {mh.d_k}"]
    if mh.kv_heads != mh.heads:
        bits.append(f"{mh.kv_heads} key/value head{'s' if mh.kv_heads > 1 else ''} (grouped-query)")
    if mh.allowed is not None:
        bits.append("masked")
    bits.append(f"{p.score} score")
    of = "output" if "W_O" in mh.W else ("head's output" if mh.heads == 1 else "concatenated heads")
    bits.append(f"upstream gradient of the {of}")
    return bits
