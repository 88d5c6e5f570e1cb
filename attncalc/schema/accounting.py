"""Kind ``accounting``, the configuration of a decoder-only Transformer whose parameters, FLOPs and
memory are counted (INTERFACE.md, "Third wave": accounting): its declaration, its step ids and its
``attncalc new`` template."""

from __future__ import annotations

from .common import SETTINGS, SETTINGS_KEYS, top_table
from .decl import Key, KindSchema, Table, table

# a bound on every size key: past it the counts are no longer a hand calculation (the counts themselves
# are exact Python integers at any size)
BIG = 10**7
TOKENS = 10**15  # tokens, batch and training_tokens: a published training budget (LLaMA-2: 2.0e12 tokens)
MATRICES = ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_3")

# the step ids in derivation order (here, with the declaration: `attncalc list` imports neither numpy nor sympy)
STEP_IDS = [
    ("embedding", "the token embedding: V · d_model parameters"),
    ("positions", "a learned position table: context · d_model (0 for sinusoidal, RoPE, ALiBi)"),
    ("layer.attention", "one block's W_Q, W_K, W_V, W_O and their biases"),
    ("layer.ffn", "one block's feed-forward matrices and their biases"),
    ("layer.norms", "one block's two norms: γ and β (LayerNorm) or γ (RMSNorm)"),
    ("layer", "one block: attention + FFN + norms"),
    ("layers", "L blocks"),
    ("final_norm", "the norm after the last block"),
    ("lm_head", "the LM head: V · d_model, 0 when tied to the embedding"),
    ("parameters", "the total"),
    ("non_embedding", "parameters − embedding − positions"),
    ("flops.attention", "one block's four projections, 2·m·n·p each"),
    ("flops.scores", "one block's Q Kᵀ over every head"),
    ("flops.weighted_sum", "one block's A V over every head"),
    ("flops.ffn", "one block's feed-forward products"),
    ("flops.lm_head", "the LM head's product"),
    ("flops.forward", "L · (attention + scores + weighted sum + FFN) + LM head"),
    ("flops.training", "3 · forward (the backward pass is twice the forward)"),
    ("flops.rule", "the 6·N·tokens rule of thumb, N = parameters"),
    ("flops.difference", "training − rule: the attention's own products less the parameters no product uses"),
    ("flops.training_total", "with training_tokens D: the training budget 6 · N · D"),
    ("flops.training_from_forward", "with training_tokens D: 3 · (forward FLOPs per token) · D"),
    ("memory.parameters", "the parameters in the dtype, in bytes"),
    ("memory.gradients", "one gradient per parameter, in the dtype"),
    ("memory.master", "with mixed_precision: the fp32 master copy of the weights, 4 bytes a parameter"),
    ("memory.optimizer", "AdamW's two moments in fp32: 8 bytes a parameter"),
    ("memory.training", "parameters + gradients (+ master copy) + optimizer state"),
    ("memory.per_device", "with devices (and zero): one device's share, ZeRO stage 0-3 (Rajbhandari et al. 2020)"),
    ("kv_cache", "the configuration's KV cache in bytes"),
    ("kv_cache.mha", "side by side: every head keeps its keys and values (H_kv = H)"),
    ("kv_cache.gqa", "side by side: the configuration's grouped key/value heads, every token"),
    ("kv_cache.mqa", "side by side: one key/value head (H_kv = 1)"),
    ("kv_cache.window", "side by side: at most window tokens cached"),
    ("kv_cache.latent", "side by side: one MLA latent per token and layer"),
    ("lora.parameters", "LoRA: r · (fan_in + fan_out) per adapted matrix, in every block"),
]

GIVEN = table(
    # required unless `parameters` states N (REQUIRED below; the parser and the JSON Schema say so)
    Key("vocab", "integer", "V: the vocabulary's size (rows of the token embedding)", min=1, max=BIG),
    Key("context", "integer", "the positions a learned position table holds", min=1, max=BIG),
    Key("d_model", "integer", "d_model: the width of the residual stream", min=1, max=BIG),
    Key("layers", "integer", "L: the number of Transformer blocks", min=1, max=10_000),
    Key("heads", "integer", "H: the query heads of each attention layer", min=1, max=10_000),
    Key(
        "kv_heads",
        "integer",
        "key/value heads (default heads; fewer: grouped-query, 1: multi-query)",
        min=1,
        max=10_000,
    ),
    Key("d_head", "integer", "the width of one head (default d_model / heads)", min=1, max=BIG),
    Key("d_ff", "integer", "the FFN's hidden width (default 4 · d_model)", min=1, max=BIG),
    Key(
        "ffn",
        "choice",
        'the feed-forward network: "relu" | "gelu" (two matrices) | "swiglu" (three: W_1, W_3, W_2)',
        default="gelu",
        choices=("relu", "gelu", "swiglu"),
    ),
    Key(
        "norm",
        "choice",
        '"layer" (γ and β) | "rms" (γ only): two per block and one final',
        default="layer",
        choices=("layer", "rms"),
    ),
    Key("bias", "bool", "biases in every linear layer of the blocks (never in the LM head)", default=True),
    Key(
        "positions",
        "choice",
        '"learned" (context × d_model parameters) | "sinusoidal" | "rope" | "alibi" (no parameters)',
        default="learned",
        choices=("learned", "sinusoidal", "rope", "alibi"),
    ),
    Key("tie_embeddings", "bool", "the LM head is the token embedding (counted once)", default=True),
    Key("tokens", "integer", "T: the sequence length for FLOPs and the KV cache (default context)", min=1, max=TOKENS),
    Key("batch", "integer", "B: sequences processed together", default=1, min=1, max=TOKENS),
    Key(
        "dtype",
        "choice",
        '"fp32" (4 bytes a number) | "bf16" | "fp16" (2 bytes): parameters, gradients, KV cache',
        default="fp32",
        choices=("fp32", "bf16", "fp16"),
    ),
    Key("window", "integer", "optional sliding window: the KV cache holds at most this many tokens", min=1, max=BIG),
    Key(
        "latent",
        "integer",
        "optional MLA: the cache holds one latent of this width per token and layer",
        min=1,
        max=BIG,
    ),
    Key(
        "training_tokens",
        "integer",
        "optional D: the tokens of a whole training run (6 · N · D FLOPs; Chinchilla: 1.4e12)",
        min=1,
        max=TOKENS,
    ),
    Key(
        "mixed_precision",
        "bool",
        "bf16/fp16 weights and gradients with an fp32 master copy (4 more bytes a parameter)",
        default=False,
    ),
    Key("devices", "integer", "optional N_d: data-parallel devices the training memory is shared over", min=1, max=BIG),
    Key(
        "zero",
        "integer",
        "optional ZeRO stage (needs devices): 0 none, 1 optimizer states, 2 + gradients, 3 + parameters partitioned",
        min=0,
        max=3,
    ),
    Key("lora_rank", "integer", "optional LoRA rank r: r · (fan_in + fan_out) per adapted matrix", min=1, max=BIG),
    Key(
        "lora_targets",
        "choices",
        'the matrices LoRA adapts in every layer (default ["W_Q", "W_V"])',
        choices=MATRICES,
    ),
    Key(
        "parameters",
        "integer",
        "optional N, stated instead of the architecture (its keys left out): only what follows from N is derived",
        min=1,
        max=TOKENS,
    ),
    doc="the model's configuration",
)

# the architecture's keys: required (REQUIRED) when N is counted, none of them (ARCHITECTURE) when
# `parameters` states it; what follows from N alone (the training budget, the memory, ZeRO) keeps its keys
REQUIRED = ("vocab", "context", "d_model", "layers", "heads")
ARCHITECTURE = (
    *REQUIRED, "kv_heads", "d_head", "d_ff", "ffn", "norm", "bias", "positions", "tie_embeddings", "tokens",
    "batch", "window", "latent", "lora_rank", "lora_targets",
)  # fmt: skip
GIVEN = Table(
    GIVEN.keys,
    GIVEN.doc,
    alternatives=((("parameters",), ARCHITECTURE), (REQUIRED, ("parameters",))),
)
# the declaration the parser reads a file without `parameters` with: the architecture's sizes required
GIVEN_ARCHITECTURE = Table(tuple(k.but(required=True) if k.name in REQUIRED else k for k in GIVEN.keys), GIVEN.doc)

SETTINGS_ACCOUNTING = SETTINGS.but(
    table=Table(tuple(k for k in SETTINGS_KEYS if k.name == "decimals"), "how the GiB are shown")
)

DECLARATION = KindSchema(
    "accounting",
    "parameters, FLOPs (2·m·n·p), training budgets (6·N·D), AdamW training memory (mixed precision, ZeRO) "
    "and the KV cache of a decoder-only Transformer, or what follows from a stated N",
    top_table("accounting", GIVEN, SETTINGS_ACCOUNTING),
)


# ------------------------------------------------------------------------------ `attncalc new accounting`
_TEMPLATE = """# attncalc problem: the parameters, FLOPs and memory of a decoder-only Transformer (GPT-2 small).
# Solve it with:  attncalc solve this-file.toml
title = "GPT-2 small: parameters, FLOPs and memory"
kind = "accounting"

[given]
vocab = 50257              # «given.vocab»
context = 1024             # «given.context»
d_model = 768              # «given.d_model»
layers = 12                # «given.layers»
heads = 12                 # «given.heads»
# kv_heads = 12            # «given.kv_heads»
# d_head = 64              # «given.d_head»
d_ff = 3072                # «given.d_ff»
ffn = "gelu"               # «given.ffn»
norm = "layer"             # «given.norm»
bias = true                # «given.bias»
positions = "learned"      # «given.positions»
tie_embeddings = true      # «given.tie_embeddings»
tokens = 1024              # «given.tokens»
batch = 1                  # «given.batch»
dtype = "fp32"             # «given.dtype»
# window = 256             # «given.window»
# latent = 256             # «given.latent»
# lora_rank = 8            # «given.lora_rank»
# lora_targets = ["W_Q", "W_V"]   # «given.lora_targets»
# training_tokens = 300_000_000_000   # «given.training_tokens»
# parameters = 124_439_808   # «given.parameters»
# mixed_precision = true   # «given.mixed_precision»
# devices = 8              # «given.devices»
# zero = 1                 # «given.zero»

[settings]
decimals = 3               # «settings.decimals»
"""

TEMPLATE = DECLARATION.fill(_TEMPLATE)
