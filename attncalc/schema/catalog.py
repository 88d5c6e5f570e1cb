"""What attncalc knows how to solve: score functions, strategies, measures, and the order of a kind's
step ids (the kinds themselves are declared in attncalc/schema/, each with its step ids and template
beside its declaration, and listed in the registry, attncalc/kinds/__init__.py).

Plain data with no heavy imports, so ``attncalc list`` and ``--help`` stay fast.
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


def template(step_id: str) -> str:
    """The catalogue entry of a step id: time steps become "t" ("encoder.2.f" -> "encoder.t.f")."""
    return ".".join("t" if part.isdigit() else part for part in step_id.split("."))


def step_order(kind: str, listed: list[str], attention: str | None = None) -> list[str]:
    """A kind's step ids (``listed``: its registry entry's, in their order) in derivation order for a
    problem's layout. A transformer layer lists its ids in the post-norm encoder's order: the layout
    ("encoder-post", "decoder-pre", ...) reorders them. seq2seq lists them in Luong's order (the cell,
    then attention from its new state); Bahdanau attends from the previous state, so the decoder's
    attention ids come before its input and cell."""
    ids = list(listed)
    if kind == "transformer-layer" and attention:  # "encoder-post", "decoder-pre", ...: the layer's layout
        subs = ["self.", *(["cross."] if attention.startswith("decoder") else []), "ffn."]
        out: list[str] = []
        for k, prefix in enumerate(subs, 1):
            sub = [i for i in ids if i.startswith(prefix)]
            norm = [i for i in ids if i.startswith(f"norm{k}.")]
            out += [*norm, *sub, f"residual{k}"] if attention.endswith("pre") else [*sub, f"residual{k}", *norm]
        return [*out, "output"]
    if kind == "seq2seq" and attention == "bahdanau":
        from .recurrent import DECODER_ATTENTION

        attend = [i for i, _ in DECODER_ATTENTION]
        rest = [i for i in ids if i not in attend]
        at = rest.index("decoder.t.input")
        ids = rest[:at] + attend + rest[at:]
    return ids


def order_key(kind: str, step_id: str, listed: list[str], attention: str | None = None) -> tuple[int, int, int]:
    """Sort key that puts a kind's step ids in derivation order (per-step blocks, then sequence-wide ids);
    ``listed``: the kind's ids (its registry entry's), in order."""
    ids = step_order(kind, listed, attention)
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
