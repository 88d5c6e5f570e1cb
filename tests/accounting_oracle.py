"""An oracle for kind accounting, written from the papers and PyTorch, not from attncalc's code: a
decoder-only Transformer built from torch.nn modules on the meta device (shapes, no storage: LLaMA-2-7B
costs nothing), whose parameters are counted by ``sum(p.numel())`` (a tied LM head is the embedding's
own tensor, which ``parameters()`` yields once) and whose forward pass's FLOPs are counted by
``torch.utils.flop_counter.FlopCounterMode`` (2·m·n·p per matrix product, as PyTorch counts mm, addmm
and bmm). Attention is written with explicit products (Q Kᵀ, then A V) so that the counter sees them."""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode


def _norm(kind: str, d: int) -> nn.Module:
    return nn.LayerNorm(d) if kind == "layer" else nn.RMSNorm(d)


class Block(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        d, h, kv, dh, ff, bias = c["d_model"], c["heads"], c["kv_heads"], c["d_head"], c["d_ff"], c["bias"]
        self.c = c
        self.n1, self.n2 = _norm(c["norm"], d), _norm(c["norm"], d)
        self.q = nn.Linear(d, h * dh, bias=bias)
        self.k = nn.Linear(d, kv * dh, bias=bias)
        self.v = nn.Linear(d, kv * dh, bias=bias)
        self.o = nn.Linear(h * dh, d, bias=bias)
        self.w1 = nn.Linear(d, ff, bias=bias)
        self.w2 = nn.Linear(ff, d, bias=bias)
        self.w3 = nn.Linear(d, ff, bias=bias) if c["ffn"] == "swiglu" else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        h, kv, dh = self.c["heads"], self.c["kv_heads"], self.c["d_head"]
        a = self.n1(x)
        q = self.q(a).view(B, T, h, dh).transpose(1, 2)
        k = self.k(a).view(B, T, kv, dh).transpose(1, 2).repeat_interleave(h // kv, dim=1)
        v = self.v(a).view(B, T, kv, dh).transpose(1, 2).repeat_interleave(h // kv, dim=1)
        s = (q @ k.transpose(-2, -1)) / math.sqrt(dh)
        w = torch.softmax(
            s.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf")), dim=-1
        )
        y = (w @ v).transpose(1, 2).reshape(B, T, h * dh)
        x = x + self.o(y)
        a = self.n2(x)
        if self.w3 is not None:
            f = self.w2(nn.functional.silu(self.w1(a)) * self.w3(a))
        else:
            act = nn.functional.gelu if self.c["ffn"] == "gelu" else nn.functional.relu
            f = self.w2(act(self.w1(a)))
        return x + f


class Decoder(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        self.emb = nn.Embedding(c["vocab"], c["d_model"])
        self.pos = nn.Embedding(c["context"], c["d_model"]) if c["positions"] == "learned" else None
        self.blocks = nn.ModuleList(Block(c) for _ in range(c["layers"]))
        self.norm = _norm(c["norm"], c["d_model"])
        self.head = nn.Linear(c["d_model"], c["vocab"], bias=False)
        if c["tie_embeddings"]:
            self.head.weight = self.emb.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.emb(ids)
        if self.pos is not None:
            x = x + self.pos(torch.arange(ids.shape[1], device=ids.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x))


DEFAULTS = {
    "ffn": "gelu",
    "norm": "layer",
    "bias": True,
    "positions": "learned",
    "tie_embeddings": True,
    "batch": 1,
    "dtype": "fp32",
}


def config(given: dict[str, Any]) -> dict[str, Any]:
    c = {**DEFAULTS, **given}
    c.setdefault("kv_heads", c["heads"])
    c.setdefault("d_head", c["d_model"] // c["heads"])
    c.setdefault("d_ff", 4 * c["d_model"])
    c.setdefault("tokens", c["context"])
    return c


def model(given: dict[str, Any]) -> Decoder:
    with torch.device("meta"):
        return Decoder(config(given))


def parameters(given: dict[str, Any]) -> int:
    return sum(p.numel() for p in model(given).parameters())


def forward_flops(given: dict[str, Any]) -> int:
    c = config(given)
    m = model(given)
    ids = torch.zeros(c["batch"], c["tokens"], dtype=torch.long, device="meta")
    with FlopCounterMode(display=False) as counter:
        m(ids)
    return int(counter.get_total_flops())


def element_bytes(dtype: str) -> int:
    return torch.empty(
        (), dtype={"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
    ).element_size()


def kv_cache_bytes(given: dict[str, Any], kv_heads: int | None = None, tokens: int | None = None) -> int:
    """The cache as tensors: per layer a key and a value tensor of shape (B, H_kv, tokens, d_head)."""
    c = config(given)
    kv = c["kv_heads"] if kv_heads is None else kv_heads
    t = c["tokens"] if tokens is None else tokens
    dt = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[c["dtype"]]
    total = 0
    for _ in range(c["layers"]):
        for _kv in ("K", "V"):
            x = torch.empty(c["batch"], kv, t, c["d_head"], dtype=dt, device="meta")
            total += x.numel() * x.element_size()
    return total
