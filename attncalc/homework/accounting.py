"""Homework for kind accounting: realistic small decoder-only configurations, drawn in the two
families the courses count (GPT-2's: GELU, LayerNorm, biases, learned positions, a tied LM head;
LLaMA's: SwiGLU with d_ff = 8/3 · d_model rounded up to a multiple of 64, RMSNorm, no biases, RoPE,
an LM head of its own, often grouped-query attention), at sizes a hand calculation can carry; some
with a training run: its tokens, mixed precision, devices and a ZeRO stage."""

from __future__ import annotations

import random
from typing import Any

from ..derivation import Derivation
from .base import Drawer, only
from .options import Options

D_MODEL = (128, 192, 256, 384, 512, 768)
D_HEAD = (32, 64)
LAYERS = (2, 4, 6, 8, 12)
VOCAB = (4096, 8000, 16000, 32000, 50257)
CONTEXT = (256, 512, 1024, 2048)


def _check(o: Options) -> None:
    only(o, set(), "accounting")


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    d = rng.choice(D_MODEL)
    d_head = rng.choice([h for h in D_HEAD if d % h == 0])
    heads = d // d_head
    # tokens are drawn at most the context: RoPE has no table, but a model is run within its context
    context = rng.choice(CONTEXT)
    given: dict[str, Any] = {
        "vocab": rng.choice(VOCAB),
        "context": context,
        "d_model": d,
        "layers": rng.choice(LAYERS),
        "heads": heads,
    }
    if rng.random() < 0.5:  # GPT-2's family
        given.update(
            d_ff=4 * d, ffn="gelu", norm="layer", bias=True, positions="learned", tie_embeddings=True,
            tokens=rng.choice([t for t in CONTEXT if t <= context]), dtype="fp32",
        )  # fmt: skip
    else:  # LLaMA's family: SwiGLU's d_ff is not 4 · d_model, and grouped-query attention halves the cache
        kv = [k for k in (1, 2, 4) if heads % k == 0 and k < heads]
        given.update(
            kv_heads=rng.choice(kv) if kv and rng.random() < 0.6 else heads,
            d_ff=-(-8 * d // 3 // 64) * 64, ffn="swiglu", norm="rms", bias=False, positions="rope",
            tie_embeddings=False, tokens=rng.choice([t for t in CONTEXT if t <= context]),
            dtype=rng.choice(("bf16", "fp16")),
        )  # fmt: skip
    given["batch"] = rng.choice((1, 1, 2, 4, 8))
    if rng.random() < 0.3:
        given["lora_rank"] = rng.choice((4, 8, 16))
    _training(o, random.Random(f"{o.seed}:{number}:{sorted(given.items())}"), given)  # (rng untouched)
    return {
        "title": f"Variant {number}",
        "kind": "accounting",
        "settings": {"decimals": o.decimals},
        "given": given,
    }


TRAINING_TOKENS = (10**9, 5 * 10**9, 2 * 10**10, 10**11, 3 * 10**11, 10**12)
DEVICES = (2, 4, 8, 16, 64)


def _training(o: Options, rng: random.Random, given: dict[str, Any]) -> None:
    """The training run's keys: the tokens D (6 · N · D), mixed precision (16-bit weights only) and
    the devices with a ZeRO stage. Drawn from their own generator (``rng`` above is the variants' own,
    so a seed's configurations stay those drawn before these keys were); for a quiz (``o.one_shape``)
    which keys appear comes from the seed, so that every variant asks the same questions: then a
    variant with mixed precision is trained in bf16."""
    if o.one_shape:
        level = o.seed % 4  # 0: none, 1: D, 2: D and mixed precision, 3: D, mixed precision and ZeRO
        tokens, mixed, devices = level >= 1, level >= 2, level >= 3
    else:
        tokens = rng.random() < 0.4
        mixed = given["dtype"] != "fp32" and rng.random() < 0.5
        devices = rng.random() < 0.3
    if tokens:
        given["training_tokens"] = rng.choice(TRAINING_TOKENS)
    if mixed:
        given["dtype"] = "bf16" if given["dtype"] == "fp32" else given["dtype"]
        given["mixed_precision"] = True
    if devices:
        given["devices"] = rng.choice(DEVICES)
        given["zero"] = rng.randint(0, 3)


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    return None  # every drawn configuration counts (every count is an exact integer, at any size)


DRAWER = Drawer(
    "Parameters, FLOPs and memory homework",
    _check,
    _draw,
    _fine,
    min_tokens=1,
    max_tokens=10**6,
    reads=frozenset({"decimals"}),
)
