"""What attncalc knows how to solve: score functions, strategies, measures and each kind's step ids
(the kinds themselves, with their one-line summaries, are declared in attncalc/schema/ and listed
in the registry, attncalc/kinds/__init__.py).

Plain data with no heavy imports, so ``attncalc list`` and ``--help`` stay fast. The mechanisms
emit steps with exactly these ids, in this order (a test holds them to it).
"""

from __future__ import annotations

STRATEGIES: dict[str, str] = {
    "greedy": "the most probable token",
    "sample": "a draw u from the whole distribution (inverse CDF in vocabulary order)",
    "top-k": "keep the k most probable tokens, renormalise, draw with u",
    "top-p": "keep the smallest set of most probable tokens whose probabilities reach p, renormalise, draw with u",
    "beam": "one step of beam search: candidates scored by summed log-probabilities, the best beam_width kept",
}

POSITION_TYPES: dict[str, str] = {
    "sinusoidal": "P[pos, 2i] = sin(pos / base^(2i/d)), P[pos, 2i+1] = cos(...), added to X",
    "rope": "rotate each pair of q and k by pos * base^(-2i/d_k) (interleaved or half pairing)",
    "alibi": "add -m_j * |i - k| to head j's scaled scores, m_j = 2^(-8j/h) (alibi = \"official\": the ALiBi code's slopes)",
    "learned": "a given matrix added to X",
}

MASKS: dict[str, str] = {
    "causal": "query i of n may attend keys up to m - n + i (lower-right aligned; with a cache, every earlier token)",
    "causal-top-left": "query i may attend keys up to i",
}

MEASURES: dict[str, str] = {
    "dot": "a_i . b_j",
    "cosine": "a_i . b_j / (|a_i| |b_j|), from -1 to 1",
    "euclidean": "|a_i - b_j| = sqrt(sum_k (a_ik - b_jk)^2)",
}

SCORES: dict[str, str] = {
    "dot": "e_i = q . k_i",
    "scaled-dot": "e_i = (q . k_i) * scale, scale = 1/sqrt(d_k) unless given",
    "general": "e_i = q . (W k_i)  (Luong 'general'; row convention: (k_i W) . q)",
    "additive": "e_i = v . tanh(W_q q + W_k k_i + b)  (Bahdanau)",
    "concat": "e_i = v . tanh(W [q; k_i])  (Luong 'concat')",
}

SELF_ATTENTION_SCORES = ("scaled-dot", "dot")

# Step ids by kind, in derivation order; "t" stands for a time step (1, 2, ...) and ids with it
# repeat per step in the order listed. Blocks of per-step ids and of sequence-wide ids alternate.
_OUTPUT_PER_STEP = [
    ("t.logits", "with W_out: z_t = W_out u_t + b_out"),
    ("t.probabilities", "with W_out: softmax of the logits"),
    ("t.prediction", "with W_out: the most probable entry"),
    ("t.loss", "with targets: -ln p_t(target)"),
]
_TRAINING = [
    ("sequence_probability", "with targets: the product of the target probabilities"),
    ("loss", "with targets: total cross-entropy, the sum of the step losses"),
    ("t.grad_logits", "with targets: dL/dz_t = p_t - y_t, per step"),
    ("grad_W_out", "with targets: dL/dW_out = sum_t (p_t - y_t) u_t^T"),
    ("grad_b_out", "with targets and b_out: sum_t (p_t - y_t)"),
    ("grad_norm", "with [training] clip_norm: the L2 norm of every gradient being updated, together"),
    ("clip_scale", "with clip_norm: min(1, clip_norm / (grad_norm + 1e-6))"),
    ("grad_W_out_clipped", "with clip_norm: dL/dW_out * clip_scale, used by the update"),
    ("grad_b_out_clipped", "with clip_norm and b_out: the bias gradient * clip_scale"),
    ("decay", "with optimizer adamw: lr * weight_decay * W_out, taken off W_out before the Adam step"),
    ("W_out_new", "with [training]: W_out after one SGD, Adam or AdamW step"),
    ("decay_b_out", "with adamw and b_out: lr * weight_decay * b_out"),
    ("b_out_new", "with [training] and b_out: b_out after the step"),
]
_LSTM = [
    ("t.hx", "the concatenation [h_{t-1}; x_t] ([x_t; h_{t-1}] with order = xh; when a gate is computed)"),
    ("t.f_pre", "W_f [h; x] + b_f (omitted when the gate is stated)"),
    ("t.f", "forget gate sigma(...)"),
    ("t.i_pre", "W_i [h; x] + b_i"),
    ("t.i", "input gate"),
    ("t.c_tilde_pre", "W_c [h; x] + b_c"),
    ("t.c_tilde", "candidate tanh(...)"),
    ("t.retained", "f_t * c_{t-1}, entry by entry"),
    ("t.new", "i_t * c~_t"),
    ("t.c", "cell state: retained + new"),
    ("t.o_pre", "W_o [h; x] + b_o"),
    ("t.o", "output gate"),
    ("t.tanh_c", "tanh(c_t)"),
    ("t.h", "hidden state o_t * tanh(c_t)"),
]
_GRU = [
    ("t.hx", "the concatenation [h_{t-1}; x_t] ([x_t; h_{t-1}] with order = xh)"),
    ("t.r_pre", "W_r [h; x] + b_r"),
    ("t.r", "reset gate"),
    ("t.z_pre", "W_z [h; x] + b_z"),
    ("t.z", "update gate"),
    ("t.rh", "reset before: r_t * h_{t-1}"),
    ("t.rhx", "reset before: [r_t * h_{t-1}; x_t] ([x_t; r_t * h_{t-1}] with order = xh)"),
    ("t.xn", "reset after: W_in x_t + b_in"),
    ("t.hn", "reset after: W_hn h_{t-1} + b_hn"),
    ("t.h_tilde_pre", "the candidate's pre-activation"),
    ("t.h_tilde", "candidate state tanh(...)"),
    ("t.h", "hidden state: (1 - z) h~ + z h (update keep) or z h~ + (1 - z) h (replace)"),
]
_RNN = [
    ("t.hx", "the concatenation [h_{t-1}; x_t] ([x_t; h_{t-1}] with order = xh)"),
    ("t.h_pre", "W [h; x] + b"),
    ("t.h", "hidden state tanh(...) (or relu)"),
]


_DECODER_ATTENTION = [
    ("decoder.t.projected_query", "additive score: W_q s"),
    ("decoder.t.hidden", "additive score: tanh(W_q s + W_k h_i), per source position"),
    ("decoder.t.scores", "scores over the encoder states: Bahdanau from s_{t-1} (before the cell), Luong from h_t"),
    ("decoder.t.weights", "softmax of the scores"),
    ("decoder.t.context", "c_t = sum_i alpha_i h_i"),
]


def _cell_ids(prefix: str, which: str) -> list[tuple[str, str]]:
    return [(prefix + i, d) for i, d in {"lstm": _LSTM, "gru": _GRU, "rnn": _RNN}[which]]


def _any_cell(prefix: str) -> list[tuple[str, str]]:
    """The ids of every cell type, in one order all three respect."""
    merged = dict(_RNN[:2]) | dict(_LSTM[1:-1]) | dict(_GRU[1:-1])  # each list ends with t.h
    return [(prefix + i, d) for i, d in merged.items()] + [(prefix + "t.h", "hidden state")]


_MULTI_HEAD = [
    ("positions", "sinusoidal or learned positions: the matrix P added to X"),
    ("X_pos", "sinusoidal or learned positions: X + P"),
    ("memory_pos", "sinusoidal positions in cross-attention: memory + P"),
    ("Q", "queries X W_Q + b_Q, all heads side by side"),
    ("K_new", "with a cache: the new rows' keys X W_K + b_K"),
    ("V_new", "with a cache: the new rows' values X W_V + b_V"),
    ("K", "keys X W_K + b_K (memory W_K in cross-attention; with a cache: the cached rows, then K_new)"),
    ("V", "values, as the keys"),
    ("head.t.Q", "head t's queries: its block of columns of Q"),
    ("head.t.K", "head t's keys (with kv_heads: its group's key head)"),
    ("head.t.V", "head t's values"),
    ("head.t.Q_rot", "rope: the queries rotated by their positions"),
    ("head.t.K_new_rot", "rope with a cache: the new keys rotated"),
    ("head.t.K_rot", "rope: the keys rotated by their positions"),
    ("head.t.scores", "Q_t K_t^T"),
    ("head.t.scaled_scores", "scaled-dot: scores / sqrt(d_k), d_k of the head"),
    ("head.t.bias", "alibi: the bias -m_t |i - k| (positions i, k from 0)"),
    ("head.t.biased_scores", "alibi: the scaled scores plus the bias"),
    ("head.t.masked_scores", "with a mask or key padding: -inf where a query may not attend"),
    ("head.t.exponentials", "exp of each score, row by row"),
    ("head.t.exp_sum", "sum of each row of exponentials"),
    ("head.t.weights", "row-wise softmax A_t"),
    ("head.t.output", "A_t V_t"),
    ("concat", "the heads' outputs side by side"),
    ("output", "with W_O: concat W_O + b_O"),
]
# the ids a transformer layer's attention sublayers take (no positions, no cache)
_MH = [
    (i, d)
    for i, d in _MULTI_HEAD
    if i
    not in ("positions", "X_pos", "memory_pos", "K_new", "V_new", "head.t.K_new_rot")  # a layer: rope, alibi inside
]

_NORM = [
    ("mean", "LayerNorm: the mean of each row"),
    ("variance", "LayerNorm: the biased variance of each row (divide by d_model)"),
    ("mean_square", "RMSNorm: the mean of the squares of each row"),
    ("normalized", "(x - mean) / sqrt(variance + eps); RMSNorm: x / sqrt(mean_square + eps)"),
    ("output", "gamma * normalized + beta; RMSNorm: gamma * normalized"),
]

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
    "multi-head": _MULTI_HEAD,
    "positional-encoding": [
        ("angles", "pos * base^(-2i/d) for every position and pair i"),
        ("positions", "sinusoidal: P[pos, 2i] = sin(angle), P[pos, 2i+1] = cos(angle)"),
        ("X_pos", "sinusoidal with X: X + P"),
        ("q_rot", "rope: q rotated pair by pair"),
        ("k_rot", "rope: k rotated pair by pair"),
        ("scores", "rope: q_rot . k_rot for every pair of rows"),
    ],
    "transformer-layer": [
        *[("self." + i, "the self-attention sublayer: " + d) for i, d in _MH],
        ("residual1", "x + self-attention output"),
        *[(f"norm1.{i}", d) for i, d in _NORM],
        *[
            ("cross." + i, "a decoder's cross-attention over memory: " + d)
            for i, d in _MH
            if "rot" not in i and "bias" not in i  # positions belong to the self-attention
        ],
        ("residual2", "x + cross-attention output (decoder), or x + ffn.output (encoder)"),
        *[(f"norm2.{i}", d) for i, d in _NORM],
        ("ffn.hidden_pre", "x W_1 + b_1"),
        ("ffn.gate_pre", "swiglu: x W_1, the gate"),
        ("ffn.gate", "swiglu: silu(gate_pre) = gate_pre * sigmoid(gate_pre)"),
        ("ffn.up", "swiglu: x W_3, the up projection"),
        ("ffn.hidden", "relu, gelu (x Phi(x), with erf), gelu-tanh or silu of hidden_pre; swiglu: gate * up"),
        ("ffn.output", "hidden W_2 + b_2"),
        ("residual3", "a decoder's x + ffn.output"),
        *[(f"norm3.{i}", d) for i, d in _NORM],
        ("output", "the layer's output rows (post-norm: the last norm's output; pre-norm: the last residual sum)"),
    ],
    "bleu": [
        ("ngram_counts", "c_n: the candidate's n-grams of each order n, c - n + 1"),
        ("clipped_counts", "m_n: each candidate n-gram counted at most as often as in one reference, summed"),
        ("precisions", "p_n = m_n / c_n, the modified n-gram precisions"),
        ("brevity_penalty", "BP = 1 if c > r, else exp(1 - r/c); r: the closest reference length (ties: the shorter)"),
        ("log_mean", "sum_n w_n ln p_n (-inf when a precision is 0)"),
        ("bleu", "BLEU = BP exp(sum_n w_n ln p_n)"),
    ],
    "decode": [
        ("scaled_logits", "temperature != 1: z / T"),
        ("probabilities", "softmax of the (scaled) logits"),
        ("sorted", "top-k, top-p: the probabilities in descending order"),
        (
            "kept_top_k",
            "top-p with k: 1 for the k most probable tokens (top-k first, Hugging Face's order), in vocabulary order",
        ),
        ("top_k_renormalized", "top-p with k: the top k's probabilities divided by their sum (0 where dropped)"),
        ("cumulative", "top-p: the running sum of sorted (with k: of top_k_renormalized, sorted)"),
        ("kept", "top-k, top-p: 1 for a kept token, 0 for a dropped one, in vocabulary order"),
        ("renormalized", "top-k, top-p: the kept probabilities divided by their sum (0 where dropped)"),
        ("draw_cumulative", "sampling with u: the running sum of the distribution drawn from, in vocabulary order"),
        ("choice", "greedy: the most probable token; sampling: the first token whose running sum exceeds u"),
        ("candidates", "beam: beam score + log p for every beam and token (B x V)"),
        ("normalized", "beam with a length penalty: candidates / ((5 + L)/6)^alpha"),
        ("kept_beams", "beam: the kept candidates' summed log-probabilities, best first"),
        ("kept_labels", "beam: the kept candidates, 'beam b: token', best first"),
    ],
    "rnn": _cell_ids("", "rnn") + _OUTPUT_PER_STEP + _TRAINING,
    "lstm": _cell_ids("", "lstm") + _OUTPUT_PER_STEP + _TRAINING,
    "gru": _cell_ids("", "gru") + _OUTPUT_PER_STEP + _TRAINING,
    "seq2seq": [
        *_any_cell("encoder."),
        *[(i.replace("encoder.", "encoder.fwd.", 1), "bidirectional: forward cell") for i, _ in _any_cell("encoder.")],
        *[
            (i.replace("encoder.", "encoder.bwd.", 1), "bidirectional: backward cell, t = n..1")
            for i, _ in _any_cell("encoder.")
        ],
        ("encoder.t.state", "bidirectional: h_t = [forward h_t; backward h_t]"),
        ("projected_keys", "additive score: W_k h_i for every encoder state, computed once"),
        ("decoder.t.input", "Bahdanau: [y_{t-1}; c_t]; Luong with input feeding: [y_{t-1}; h~_{t-1}]"),
        *_any_cell("decoder."),
        *_DECODER_ATTENTION,
        ("decoder.t.combined", "Luong: [c_t; h_t]"),
        ("decoder.t.attentional_pre", "Luong: W_att [c_t; h_t] (Luong's W_c)"),
        ("decoder.t.attentional", "Luong: h~_t = tanh(W_c [c_t; h_t])"),
        *[("decoder." + i, d) for i, d in _OUTPUT_PER_STEP],
        *[(i if not i.startswith("t.") else "decoder." + i, d) for i, d in _TRAINING],
    ],
}


def template(step_id: str) -> str:
    """The catalogue entry of a step id: time steps become "t" ("encoder.2.f" -> "encoder.t.f")."""
    return ".".join("t" if part.isdigit() else part for part in step_id.split("."))


def step_order(kind: str, attention: str | None = None, listed: list[str] | None = None) -> list[str]:
    """A kind's step ids in derivation order. STEP_IDS lists seq2seq in Luong's order (the cell, then
    attention from its new state); Bahdanau attends from the previous state, so the decoder's
    attention ids come before its input and cell."""
    ids = [i for i, _ in STEP_IDS[kind]] if listed is None else list(listed)
    if kind == "transformer-layer" and attention:  # "encoder-post", "decoder-pre", ...: the layer's layout
        subs = ["self.", *(["cross."] if attention.startswith("decoder") else []), "ffn."]
        out: list[str] = []
        for k, prefix in enumerate(subs, 1):
            sub = [i for i in ids if i.startswith(prefix)]
            norm = [i for i in ids if i.startswith(f"norm{k}.")]
            out += [*norm, *sub, f"residual{k}"] if attention.endswith("pre") else [*sub, f"residual{k}", *norm]
        return [*out, "output"]
    if kind == "seq2seq" and attention == "bahdanau":
        attend = [i for i, _ in _DECODER_ATTENTION]
        rest = [i for i in ids if i not in attend]
        at = rest.index("decoder.t.input")
        ids = rest[:at] + attend + rest[at:]
    return ids


def order_key(
    kind: str, step_id: str, attention: str | None = None, listed: list[str] | None = None
) -> tuple[int, int, int]:
    """Sort key that puts a kind's step ids in derivation order (per-step blocks, then sequence-wide ids);
    ``listed``: the ids of a kind added the new way (its registry entry's), in order."""
    ids = step_order(kind, attention, listed)
    tpl = template(step_id)
    idx = ids.index(tpl)

    def group(i: str) -> str | None:
        """What repeats per time step together: "encoder.fwd" for encoder.fwd.t.f; None for a sequence-wide id."""
        parts = i.split(".")
        return ".".join(parts[: parts.index("t")]) if "t" in parts else None

    block = 0
    for k in range(1, idx + 1):
        if group(ids[k]) != group(ids[k - 1]) or group(ids[k]) is None:
            block += 1
    t = next((int(p) for p in step_id.split(".") if p.isdigit()), 0)
    if group(tpl) == "encoder.bwd":  # the backward encoder reads the sequence from its end
        t = -t
    return block, t, idx
