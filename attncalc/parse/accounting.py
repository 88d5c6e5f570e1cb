"""Parsing of kind ``accounting``: a decoder-only Transformer's configuration (the declaration reads
every key; here are the rules that tie keys together) and its typed payload."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..schema.accounting import ARCHITECTURE, GIVEN, GIVEN_ARCHITECTURE
from .declared import read_declared
from .types import Problem

if TYPE_CHECKING:
    from .reader import Reader

BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}
# the configuration's choices in words (a quiz item's givens)
_NORM = {"layer": "LayerNorm (a gain γ and a bias β)", "rms": "RMSNorm (a gain γ only)"}
_BIAS = {
    True: "Biases: in every linear layer of the blocks (none in the LM head).",
    False: "Biases: none in the linear layers.",
}
_POSITIONS = {
    "learned": "learned, a table of context × d_model parameters",
    "sinusoidal": "sinusoidal (no parameters)",
    "rope": "RoPE (no parameters)",
    "alibi": "ALiBi (no parameters)",
}
_TIE = {
    True: "LM head: tied, the token embedding itself (counted once).",
    False: "LM head: untied, a matrix of its own.",
}
_MIXED = {
    True: "Mixed precision: an fp32 master copy of the weights beside the bf16/fp16 ones.",
    False: "Mixed precision: no (no fp32 master copy).",
}


@dataclass(frozen=True)
class Lora:
    """LoRA adapters of rank ``rank`` on the block's matrices ``targets``."""

    rank: int
    targets: tuple[str, ...]


@dataclass(frozen=True)
class Accounting:
    """The configuration, every default filled in (``problem.data`` of kind accounting)."""

    vocab: int
    context: int
    d_model: int
    layers: int
    heads: int
    kv_heads: int
    d_head: int
    d_ff: int
    ffn: str  # "relu" | "gelu" | "swiglu"
    norm: str  # "layer" | "rms"
    bias: bool
    positions: str  # "learned" | "sinusoidal" | "rope" | "alibi"
    tie: bool
    tokens: int
    batch: int
    dtype: str
    window: int | None
    latent: int | None
    lora: Lora | None  # given.lora_rank (and lora_targets), or None
    d_ff_given: bool  # d_ff was written in the file (a SwiGLU's d_ff other than 4 · d_model is then a slip's bait)
    training_tokens: int | None = None  # D of 6 · N · D
    mixed_precision: bool = False  # an fp32 master copy beside the bf16/fp16 weights
    devices: int | None = None  # N_d: data-parallel devices (memory.per_device)
    zero: int | None = None  # the ZeRO stage, 0-3 (None: devices given without it, as stage 0)
    # N stated by the file (given.parameters): no architecture then (its sizes are 0, its choices the
    # defaults, never shown), and only what follows from N is derived
    parameters: int | None = None

    @property
    def bytes(self) -> int:
        return BYTES[self.dtype]

    def stated(self) -> list[tuple[str, str]]:
        """(key, sentence): the architecture's choices besides its sizes' tables (a quiz item states them):
        the FFN, the norms, the biases, the positions, the LM head, mixed precision, the LoRA targets."""
        if self.parameters is not None:  # N stated: no architecture to state
            return [("mixed_precision", _MIXED[self.mixed_precision])]
        ffn = {"relu": "ReLU", "gelu": "GELU", "swiglu": "SwiGLU"}[self.ffn]
        mats = (
            "three matrices, W_1 and W_3 (d_model × d_ff) and W_2"
            if self.ffn == "swiglu"
            else ("two matrices, W_1 (d_model × d_ff) and W_2")
        )
        out = [
            ("ffn", f"FFN: {ffn}, {mats} (d_ff × d_model)."),
            ("norm", f"Norms: {_NORM[self.norm]}, two per block and one final."),
            ("bias", _BIAS[self.bias]),
            ("positions", f"Positions: {_POSITIONS[self.positions]}."),
            ("tie_embeddings", _TIE[self.tie]),
            ("mixed_precision", _MIXED[self.mixed_precision]),
        ]
        if self.lora is not None:
            out.append(("lora_targets", f"LoRA adapts {', '.join(self.lora.targets)} in every block."))
        return out

    def fan(self, matrix: str) -> tuple[int, int]:
        """(fan_in, fan_out) of one of a block's matrices, as it multiplies a row vector (x W)."""
        q, kv = self.heads * self.d_head, self.kv_heads * self.d_head
        return {
            "W_Q": (self.d_model, q),
            "W_K": (self.d_model, kv),
            "W_V": (self.d_model, kv),
            "W_O": (q, self.d_model),
            "W_1": (self.d_model, self.d_ff),
            "W_3": (self.d_model, self.d_ff),
            "W_2": (self.d_ff, self.d_model),
        }[matrix]


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind accounting, past the top level."""
    stated = isinstance(raw["given"], dict) and raw["given"].get("parameters") is not None
    g = read_declared(r, raw["given"], GIVEN if stated else GIVEN_ARCHITECTURE, "given")
    if stated:
        return _parse_stated(r, raw["given"], g, common)
    heads, d_model = g["heads"], g["d_model"]
    kv_heads = g["kv_heads"] if g["kv_heads"] is not None else heads
    if kv_heads > heads or heads % kv_heads:
        raise r.fail(
            "given.kv_heads",
            f"is {kv_heads}, but the {heads} query heads must share the key/value heads equally: "
            f"give a divisor of heads = {heads}",
        )
    d_head = g["d_head"]
    if d_head is None:
        if d_model % heads:
            raise r.fail(
                "given.d_head", f"missing: d_model = {d_model} is not a multiple of heads = {heads}; give d_head"
            )
        d_head = d_model // heads
    d_ff = g["d_ff"] if g["d_ff"] is not None else 4 * d_model
    tokens = g["tokens"] if g["tokens"] is not None else g["context"]
    if g["positions"] == "learned" and tokens > g["context"]:
        raise r.fail(
            "given.tokens",
            f"is {tokens}, but a learned position table holds context = {g['context']} positions: "
            "give at most that many tokens (or positions without parameters, such as rope)",
        )
    targets = g["lora_targets"]
    if targets is not None and g["lora_rank"] is None:
        raise r.fail("given.lora_targets", "needs lora_rank: the rank r of the adapters")
    targets = targets if targets is not None else ("W_Q", "W_V")
    if "W_3" in targets and g["ffn"] != "swiglu":
        raise r.fail("given.lora_targets", f"names W_3, but a {g['ffn']} FFN has two matrices, W_1 and W_2")
    data = Accounting(
        vocab=g["vocab"],
        context=g["context"],
        d_model=d_model,
        layers=g["layers"],
        heads=heads,
        kv_heads=kv_heads,
        d_head=d_head,
        d_ff=d_ff,
        ffn=g["ffn"],
        norm=g["norm"],
        bias=g["bias"],
        positions=g["positions"],
        tie=g["tie_embeddings"],
        tokens=tokens,
        batch=g["batch"],
        dtype=g["dtype"],
        window=g["window"],
        latent=g["latent"],
        lora=Lora(g["lora_rank"], tuple(targets)) if g["lora_rank"] is not None else None,
        d_ff_given=g["d_ff"] is not None,
        training_tokens=g["training_tokens"],
        mixed_precision=g["mixed_precision"],
        devices=g["devices"],
        zero=g["zero"],
    )
    _refuse_unusable_training(r, data)
    return Problem(given={}, data=data, **common)


def _refuse_unusable_training(r: Reader, a: Accounting) -> None:
    """Mixed precision keeps an fp32 master copy of 16-bit weights: with fp32 weights there is none; a
    ZeRO stage partitions over devices, so it needs them. (Every count is an exact Python integer, so
    no size is refused for being large: the keys' own bounds are the limits.)"""
    if a.mixed_precision and a.dtype == "fp32":
        raise r.fail(
            "given.mixed_precision",
            'is true, but dtype = "fp32": mixed precision keeps bf16 or fp16 weights and gradients beside '
            'an fp32 master copy; give dtype = "bf16" (or "fp16"), or leave mixed_precision out',
        )
    if a.zero is not None and a.devices is None:
        raise r.fail(
            "given.zero",
            f"is {a.zero}, but ZeRO partitions the training state over data-parallel devices: give devices "
            "(the number N_d of them) too",
        )


def _parse_stated(r: Reader, raw: dict[str, Any], g: dict[str, Any], common: dict[str, Any]) -> Problem:
    """given.parameters states N: the architecture's keys are refused (nothing would use them), and the
    payload keeps N, the dtype and the training run."""
    n = g["parameters"]
    for name in ARCHITECTURE:
        if raw.get(name) is not None:
            raise r.fail(
                f"given.{name}",
                f"is given, but so is parameters = {n:,}: with N stated the architecture is not used; leave "
                f"out {name} and the other architecture keys, or parameters to count N from the architecture",
            )
    data = Accounting(
        vocab=0, context=0, d_model=0, layers=0, heads=0, kv_heads=0, d_head=0, d_ff=0, ffn=g["ffn"],
        norm=g["norm"], bias=g["bias"], positions=g["positions"], tie=g["tie_embeddings"], tokens=0,
        batch=g["batch"], dtype=g["dtype"], window=None, latent=None, lora=None, d_ff_given=False,
        training_tokens=g["training_tokens"], mixed_precision=g["mixed_precision"], devices=g["devices"],
        zero=g["zero"], parameters=n,
    )  # fmt: skip
    _refuse_unusable_training(r, data)
    return Problem(given={}, data=data, **common)
