"""Parsing of kind ``transformer-layer``: the rows, the attention sublayers (read as kind multi-head
reads its own), the feed-forward network, the LayerNorms' γ and β, post- or pre-norm."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..numbers import parse_number, to_float
from ..schema.common import SETTINGS_LAYER
from .declared import read_declared
from .multihead import parse as parse_multihead
from .reader import Reader, describe_raw, require, shape_text
from .types import Given, Layer, MultiHead, Problem, SwiGLU

ATTENTION_KEYS = ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O", "mask", "kv_heads", "positions")
POSITION_SETTINGS = ("rope", "position_base")  # read by the sublayers with positions
FFN_KEYS = ("W_1", "b_1", "W_2", "b_2", "activation", "W_3", "b_3")
NORM_KEYS = ("gamma", "beta")


class _Sublayer(Reader):
    """Multi-head's reader, its messages naming this layer's keys: given.W_Q is self_attention.W_Q."""

    def __init__(self, r: Reader, table: str) -> None:
        super().__init__(r.file, r.entries)  # X, read again here, counts once
        self.where = table

    def fail(self, key: str, message: str) -> Any:
        head, _, rest = key.partition(".")
        name = rest.split(".")[0]
        if head == "given" and name in ATTENTION_KEYS:
            key = f"{self.where}.{rest}"
        return super().fail(key, message)


def _attention(r: Reader, raw: dict[str, Any], common: dict[str, Any], which: str, causal: bool) -> MultiHead:
    t = r.table(raw.get(which), which, ATTENTION_KEYS)
    if "W_O" not in t:
        raise r.fail(
            f"{which}.W_O", "missing: the output projection, (h·d_v) × d_model (the residual adds d_model columns)"
        )
    g = raw["given"]
    sub = {"X": g["X"], "heads": g.get("heads"), **t}
    if "window" in g and which == "self_attention":  # the window slides over the layer's own rows only
        sub["window"] = g["window"]
    if which == "cross_attention":
        sub["memory"] = require(r, g, "memory", "a decoder layer's cross-attention reads the encoder's rows")
    elif causal and "mask" not in t:
        sub["mask"] = "causal"
    mh_common = {**common, "memory_tokens": common.get("memory_tokens") if which == "cross_attention" else None}
    s = raw.get("settings") or {}
    settings = {}
    if "positions" in t:  # rotations inside the attention only: sinusoidal or learned rows are added before
        r.string(t["positions"], f"{which}.positions", ("rope", "alibi"))
        if which == "cross_attention":
            raise r.fail(f"{which}.positions", "positions belong to the self-attention (the memory's are its own)")
        settings = {k: s[k] for k in POSITION_SETTINGS if k in s and t["positions"] == "rope"}
    mh = parse_multihead(_Sublayer(r, which), {"given": sub, "settings": settings}, mh_common).payload(MultiHead)
    d_model = mh.X.shape[1]
    if mh.W["W_O"].shape[1] != d_model:
        raise r.fail(
            f"{which}.W_O",
            f"is {shape_text(mh.W['W_O'])}: its {mh.W['W_O'].shape[1]} columns must be d_model = {d_model}",
        )
    return mh


def _vector(r: Reader, t: dict[str, Any], key: str, where: str, n: int, default: float | None) -> Given | None:
    if key not in t:
        return None if default is None else Given.from_floats(key, np.full(n, default))
    v = r.vector(t[key], f"{where}.{key}")
    if v.shape[0] != n:
        raise r.fail(f"{where}.{key}", f"has {v.shape[0]} entries, but it needs {n}")
    return v


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind transformer-layer, past the top level."""
    g = raw["given"]
    X = r.matrix(require(r, g, "X", "the layer's input rows, n × d_model"), "given.X")
    d_model = X.shape[1]
    require(r, g, "heads", "the number of heads h")
    decoder = "cross_attention" in raw
    if "memory" in g and not decoder:
        raise r.fail("given.memory", "is read by a decoder layer's [cross_attention], which this layer does not have")
    if "norm3" in raw and not decoder:
        raise r.fail("norm3", "belongs to a decoder layer (one with [cross_attention])")
    if "self_attention" not in raw:
        raise r.fail("self_attention", "missing: the self-attention sublayer's W_Q, W_K, W_V and W_O")
    self_attn = _attention(r, raw, common, "self_attention", causal=decoder)
    cross = _attention(r, raw, common, "cross_attention", causal=False) if decoder else None
    for key in POSITION_SETTINGS:
        if key in (raw.get("settings") or {}) and all(mh.positions != "rope" for mh in (self_attn, cross) if mh):
            raise r.fail(f"settings.{key}", "applies to a sublayer with positions = 'rope'")
    memory = cross.memory if cross is not None else None

    if "ffn" not in raw:
        raise r.fail("ffn", "missing: the feed-forward network's W_1 and W_2")
    f = r.table(raw["ffn"], "ffn", FFN_KEYS)
    W_1 = r.matrix(_require_in(r, f, "ffn", "W_1", "d_model × d_ff"), "ffn.W_1")
    if W_1.shape[0] != d_model:
        raise r.fail(
            "ffn.W_1", f"is {shape_text(W_1)}, but the rows of X have width {d_model}: it needs {d_model} rows"
        )
    d_ff = W_1.shape[1]
    W_2 = r.matrix(_require_in(r, f, "ffn", "W_2", "d_ff × d_model"), "ffn.W_2")
    if W_2.shape != (d_ff, d_model):
        raise r.fail(
            "ffn.W_2", f"is {shape_text(W_2)}, but it maps d_ff = {d_ff} back to d_model = {d_model}: {d_ff}×{d_model}"
        )
    b_1 = _vector(r, f, "b_1", "ffn", d_ff, None)
    b_2 = _vector(r, f, "b_2", "ffn", d_model, None)
    activation = r.string(
        f.get("activation", "relu"), "ffn.activation", ("relu", "gelu", "gelu-tanh", "silu", "swiglu")
    )
    W_3, b_3 = _up(r, f, activation, W_1)

    s = raw.get("settings") or {}
    assert SETTINGS_LAYER.table is not None  # a table key has its table (the declaration checks it)
    normalization = read_declared(r, s, SETTINGS_LAYER.table, "settings", only=("normalization",))["normalization"]
    norms = []
    for k in range(1, 4 if decoder else 3):
        t = r.table(raw.get(f"norm{k}"), f"norm{k}", NORM_KEYS)
        if normalization == "rms" and "beta" in t:
            raise r.fail(f"norm{k}.beta", "RMSNorm has no shift β (only the scale γ): leave beta out")
        gamma = _vector(r, t, "gamma", f"norm{k}", d_model, 1.0)
        beta = _vector(r, t, "beta", f"norm{k}", d_model, 0.0)
        assert gamma is not None and beta is not None
        norms.append((gamma, beta))
    norm = r.string(s.get("norm", "post"), "settings.norm", ("post", "pre"))
    eps = r.number(s.get("eps", "1e-5"), "settings.eps")
    if not to_float(eps) > 0:
        raise r.fail("settings.eps", f"must be above 0, got {describe_raw(s.get('eps'))}")
    layer = Layer(
        X=X,
        memory=memory,
        self_attn=self_attn,
        cross=cross,
        W_1=W_1,
        b_1=b_1,
        W_2=W_2,
        b_2=b_2,
        activation=activation,
        norms=tuple(norms),
        norm=norm,
        eps=eps if eps is not None else parse_number("1e-5"),
        normalization=normalization,
        swiglu=None if W_3 is None else SwiGLU(W_3, b_3),
    )
    common = {k: v for k, v in common.items() if k != "memory_tokens"}
    return Problem(
        given={"X": X}, head=None, data=layer, score="scaled-dot", **{k: v for k, v in common.items() if k != "score"}
    )


def _up(r: Reader, f: dict[str, Any], activation: str, W_1: Given) -> tuple[Given | None, Given | None]:
    """SwiGLU's up projection W_3 (the shape of W_1, the gate) and its optional bias; refused otherwise."""
    if activation != "swiglu":
        for key in ("W_3", "b_3"):
            if key in f:
                raise r.fail(f"ffn.{key}", f"belongs to activation = 'swiglu' (this network's is {activation!r})")
        return None, None
    W_3 = r.matrix(_require_in(r, f, "ffn", "W_3", "SwiGLU's up projection, d_model × d_ff"), "ffn.W_3")
    if W_3.shape != W_1.shape:
        raise r.fail("ffn.W_3", f"is {shape_text(W_3)}, but the gate W_1 is {shape_text(W_1)}: they must match")
    return W_3, _vector(r, f, "b_3", "ffn", W_1.shape[1], None)


def _require_in(r: Reader, t: dict[str, Any], table: str, key: str, why: str) -> Any:
    if key not in t:
        raise r.fail(f"{table}.{key}", f"missing: {why}")
    return t[key]
