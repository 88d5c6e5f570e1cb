"""What attncalc knows how to solve: kinds, score functions and step ids.

Plain data with no heavy imports, so ``attncalc list`` and ``--help`` stay fast. The mechanisms
emit steps with exactly these ids, in this order (a test holds them to it).
"""

from __future__ import annotations

KINDS: dict[str, str] = {
    "attention": "one decoder step: a query attends over encoder states (keys/values), optional output head",
    "self-attention": "every row of X attends over all rows: Q = X W_Q, K = X W_K, V = X W_V",
    "softmax": "softmax of logits with temperature; with a target, cross-entropy loss and its gradient",
}

SCORES: dict[str, str] = {
    "dot": "e_i = q . k_i",
    "scaled-dot": "e_i = (q . k_i) * scale, scale = 1/sqrt(d_k) unless given",
    "general": "e_i = q . (W k_i)  (Luong 'general'; row convention: (k_i W) . q)",
    "additive": "e_i = v . tanh(W_q q + W_k k_i + b)  (Bahdanau)",
    "concat": "e_i = v . tanh(W [q; k_i])  (Luong 'concat')",
}

SELF_ATTENTION_SCORES = ("scaled-dot", "dot")

# Step ids by kind, in derivation order. Parenthesised remarks say when a step applies.
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
    "softmax": [
        ("scaled_logits", "temperature != 1: z / T"),
        ("exponentials", "exp of each logit"),
        ("exp_sum", "sum of the exponentials"),
        ("probabilities", "softmax p"),
        ("loss", "with a target: cross-entropy -ln p_target"),
        ("gradient", "with a target: d loss / d logits = (p - y) / T"),
    ],
}
