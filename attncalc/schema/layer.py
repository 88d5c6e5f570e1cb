"""Kind transformer-layer, an encoder or decoder layer (PyTorch's nn.TransformerEncoderLayer and
nn.TransformerDecoderLayer), row convention: its declaration, its step ids (in derivation order) and
its ``attncalc new`` template. Plain data with no heavy imports (``attncalc list`` loads it)."""

from __future__ import annotations

from . import catalog
from .common import ANSWERS, DESCRIPTION, GRADING, SCHEMA, SETTINGS_LAYER, TITLE, TOKENS
from .decl import Key, KindSchema, table
from .transformer import BIASES, MULTI_HEAD_STEP_IDS

LAYER_GIVEN = table(
    Key("X", "matrix", "n × d_model: the layer's input rows", required=True, shape=("n", "d_model")),
    Key(
        "memory",
        "matrix",
        "m × d_model: the encoder's output rows (a decoder layer's cross-attention)",
        shape=("m", "d_model"),
    ),
    Key("heads", "integer", "h: the heads of every attention sublayer", required=True, min=1),
    Key("window", "integer", "sliding window: the self-attention is causal and each query sees its w last keys", min=1),
    doc="the input rows (and the memory) and the number of heads",
)


def _attention(which: str) -> Key:
    t = table(
        Key("W_Q", "matrix", "d_model × (h·d_k)", required=True),
        Key("W_K", "matrix", "d_model × (kv_heads·d_k)", required=True),
        Key("W_V", "matrix", "d_model × (kv_heads·d_v)", required=True),
        Key("W_O", "matrix", "(h·d_v) × d_model", required=True, shape=("h·d_v", "d_model")),
        *BIASES,
        Key("b_O", "vector", "optional bias of the output", shape=("d_model",)),
        Key(
            "mask",
            "choice",
            "causal | causal-top-left | a 0/1 matrix (a decoder's self-attention is causal by default)",
            choices=tuple(catalog.MASKS),
            also=("matrix",),
        ),
        Key("kv_heads", "integer", "grouped-query attention: key/value heads, dividing heads", min=1),
        *(
            [
                Key(
                    "positions",
                    "choice",
                    "rope (queries and keys rotated, as LLaMA; settings.rope, settings.position_base) | alibi",
                    choices=("rope", "alibi"),
                )
            ]
            if which == "self-attention"
            else []
        ),
        doc=f"the {which} sublayer's projections (multi-head attention)",
    )
    name = "self_attention" if which == "self-attention" else "cross_attention"
    return Key(name, "table", t.doc, table=t, required=which == "self-attention")


FFN = table(
    Key("W_1", "matrix", "d_model × d_ff", required=True, shape=("d_model", "d_ff")),
    Key("b_1", "vector", "optional bias of the hidden layer (d_ff)", shape=("d_ff",)),
    Key("W_2", "matrix", "d_ff × d_model", required=True),
    Key("b_2", "vector", "optional bias of the output (d_model)", shape=("d_model",)),
    Key(
        "activation",
        "choice",
        "relu | gelu (exact, with erf) | gelu-tanh (the tanh approximation) | silu | swiglu (with W_3)",
        default="relu",
        choices=("relu", "gelu", "gelu-tanh", "silu", "swiglu"),
    ),
    Key(
        "W_3",
        "matrix",
        "swiglu: the up projection, d_model × d_ff: (silu(x W_1) ⊙ x W_3) W_2, as LLaMA",
        shape=("d_model", "d_ff"),
    ),
    Key("b_3", "vector", "swiglu: optional bias of the up projection (d_ff)", shape=("d_ff",)),
    doc="the position-wise feed-forward network: act(x W_1 + b_1) W_2 + b_2",
)

NORM = table(
    Key("gamma", "vector", "LayerNorm's scale γ, d_model entries (default ones)"),
    Key("beta", "vector", "LayerNorm's shift β, d_model entries (default zeros)"),
    doc="a LayerNorm's γ and β (an RMSNorm's γ)",
)

TRANSFORMER_LAYER = KindSchema(
    "transformer-layer",
    "an encoder or decoder layer: attention sublayers, residual sums, LayerNorm, feed-forward, post- or pre-norm",
    table(
        TITLE,
        Key(
            "kind", "choice", "the kind of problem (see `attncalc list`)", choices=("transformer-layer",), required=True
        ),
        TOKENS.but(doc="optional labels, one per row of X"),
        Key("memory_tokens", "labels", "optional labels, one per row of memory"),
        DESCRIPTION,
        Key("given", "table", LAYER_GIVEN.doc, table=LAYER_GIVEN, required=True),
        _attention("self-attention"),
        _attention("cross-attention"),
        Key("ffn", "table", FFN.doc, table=FFN, required=True),
        Key("norm1", "table", "the first LayerNorm's γ and β", table=NORM),
        Key("norm2", "table", "the second LayerNorm's γ and β", table=NORM),
        Key("norm3", "table", "a decoder layer's third LayerNorm's γ and β", table=NORM),
        SETTINGS_LAYER,
        ANSWERS,
        GRADING,
        SCHEMA,
    ),
)

# -------------------------------------------------------------------- step ids

# the ids a transformer layer's attention sublayers take (no positions, no cache)
_MH = [
    (i, d)
    for i, d in MULTI_HEAD_STEP_IDS
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

# in derivation order (the post-norm encoder's; catalog.step_order reorders them for a layout)
STEP_IDS: list[tuple[str, str]] = [
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
]

# -------------------------------------------------------------------- `attncalc new` template

_TEMPLATE = """# attncalc problem: one Transformer encoder layer (post-norm, as the paper and PyTorch's default),
# row convention: Q = X W_Q. Add a [cross_attention] table (and given.memory) for a decoder layer.
# Solve it with:  attncalc solve this-file.toml
title = "An encoder layer over three tokens"
kind = "transformer-layer"
tokens = ["je", "suis", "ici"]

[given]
X = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]   # «given.X»
heads = 2                                          # «given.heads»
# window = 2                                      # «given.window»

[self_attention]         # «self_attention»
W_Q = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0], [0, 0, 1, 1]]
W_K = [[1, 0, 1, 0], [0, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0]]
W_V = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]
W_O = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
# mask = "causal"        # «self_attention.mask»

[ffn]                    # «ffn»
W_1 = [[1, 0, -1, 0, 1, 0, 0, 1], [0, 1, 0, -1, 0, 1, 1, 0], [1, -1, 0, 0, 0, 0, 1, 1], [0, 0, 1, 1, -1, 1, 0, 0]]
W_2 = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
activation = "relu"      # «ffn.activation»

# [norm1]                # «norm1»
# gamma = [1, 1, 1, 1]   # «norm1.gamma»
# beta = [0, 0, 0, 0]    # «norm1.beta»

[settings]
decimals = 3             # «settings.decimals»
exact = false            # «settings.exact»
# norm = "post"          # «settings.norm»
# eps = 1e-5             # «settings.eps»
# normalization = "rms"  # «settings.normalization»
"""

TEMPLATE = TRANSFORMER_LAYER.fill(_TEMPLATE)
