"""Parsing of kind ``transformer-layer``: the rows, the attention sublayers (kind multi-head's rules,
:func:`attncalc.parse.multihead.attention`), the feed-forward network, the LayerNorms' γ and β, post-
or pre-norm.

The declaration (:mod:`attncalc.schema.layer`) reads the keys, their types and the named dimensions
(X is n × d_model, memory m × d_model, W_O has d_model columns, W_1 and W_3 are d_model × d_ff, the
biases have their layer's width). The rules here are the ones it cannot say: which tables and keys a
decoder layer (one with [cross_attention]) takes, where positions and their settings apply, W_2's
shape, SwiGLU's keys, γ and β of d_model entries (ones and zeros by default), RMSNorm without β.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..numbers import to_float
from ..schema.common import SETTINGS_LAYER
from ..schema.decl import Table
from ..schema.layer import FFN, LAYER_GIVEN, NORM, TRANSFORMER_LAYER
from . import multihead
from .declared import Dims, read_declared, read_value
from .reader import Reader, describe_raw, shape_text
from .types import Given, Layer, MultiHead, Problem, SwiGLU

POSITION_SETTINGS = ("rope", "position_base")  # read by the sublayers with positions


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind transformer-layer, past the top level."""
    decoder = "cross_attention" in raw
    _decoder_keys(r, raw, decoder)
    dims = Dims()
    g = read_declared(r, raw["given"], LAYER_GIVEN, "given", dims)
    self_attn, cross = _sublayers(r, raw, common, g, dims, decoder)
    ffn = _ffn(r, raw, dims)
    settings = _settings(r, raw.get("settings") or {})
    norms = _norms(r, raw, settings["normalization"], g["X"].shape[1], 3 if decoder else 2)
    layer = Layer(
        X=g["X"],
        memory=g["memory"] if decoder else None,
        self_attn=self_attn,
        cross=cross,
        W_1=ffn["W_1"],
        b_1=ffn["b_1"],
        W_2=ffn["W_2"],
        b_2=ffn["b_2"],
        activation=ffn["activation"],
        norms=norms,
        norm=settings["norm"],
        eps=settings["eps"],
        normalization=settings["normalization"],
        swiglu=SwiGLU(ffn["W_3"], ffn["b_3"]) if ffn["activation"] == "swiglu" else None,
    )
    common = {k: v for k, v in common.items() if k not in ("memory_tokens", "score")}
    return Problem(given={"X": layer.X}, data=layer, score="scaled-dot", **common)


def _decoder_keys(r: Reader, raw: dict[str, Any], decoder: bool) -> None:
    """memory and norm3 belong to a decoder layer; every layer has its self-attention."""
    if raw["given"].get("memory") is not None and not decoder:
        raise r.fail("given.memory", "is read by a decoder layer's [cross_attention], which this layer does not have")
    if "norm3" in raw and not decoder:
        raise r.fail("norm3", "belongs to a decoder layer (one with [cross_attention])")
    if "self_attention" not in raw:
        raise r.fail("self_attention", "missing: the self-attention sublayer's W_Q, W_K, W_V and W_O")


def _sublayers(
    r: Reader, raw: dict[str, Any], common: dict[str, Any], g: dict[str, Any], dims: Dims, decoder: bool
) -> tuple[MultiHead, MultiHead | None]:
    """The self-attention (causal in a decoder layer) and a decoder layer's cross-attention over the
    memory; settings.rope and position_base need a sublayer with RoPE."""
    rows = multihead.Rows(g["X"], None, g["heads"], g["window"])
    self_attn = _attention(r, raw, common, "self_attention", rows, dims, causal=decoder)
    cross = None
    if decoder:
        if g["memory"] is None:
            raise r.fail("given.memory", "missing: a decoder layer's cross-attention reads the encoder's rows")
        cross_rows = replace(rows, memory=g["memory"], window=None)  # the window slides over the layer's own rows
        cross = _attention(r, raw, common, "cross_attention", cross_rows, dims, causal=False)
    s = raw.get("settings") or {}
    for key in POSITION_SETTINGS:
        if key in s and all(mh.positions != "rope" for mh in (self_attn, cross) if mh):
            raise r.fail(f"settings.{key}", "applies to a sublayer with positions = 'rope'")
    return self_attn, cross


def _table(key: str) -> Table:
    """The declared table of a top-level key of the layer's file."""
    t = TRANSFORMER_LAYER.top[key].table
    assert t is not None  # a table key has its table (the declaration checks it)
    return t


def _attention(
    r: Reader,
    raw: dict[str, Any],
    common: dict[str, Any],
    which: str,
    rows: multihead.Rows,
    layer_dims: Dims,
    causal: bool,
) -> MultiHead:
    """One attention sublayer: its table read by its declaration, then kind multi-head's rules; a
    decoder's self-attention is causal unless its mask says otherwise."""
    decl = _table(which)
    t_raw = raw.get(which)
    if which == "cross_attention" and isinstance(t_raw, dict) and "positions" in t_raw:  # named, not unknown
        read_value(r, t_raw["positions"], _table("self_attention")["positions"], f"{which}.positions", Dims())
        raise r.fail(f"{which}.positions", "positions belong to the self-attention (the memory's are its own)")
    dims = Dims(dict(layer_dims.sizes))  # each sublayer its own heads' widths, the layer's d_model
    t = read_declared(r, t_raw, decl, which, dims, skip=multihead.BIASES)
    if causal and t["mask"] is None:
        t["mask"] = "causal"
    s = raw.get("settings") or {}
    # rotations inside the attention only: sinusoidal or learned rows are added before the layer
    settings = {k: s[k] for k in POSITION_SETTINGS if k in s and t.get("positions") == "rope"}
    mh_common = {**common, "memory_tokens": common.get("memory_tokens") if which == "cross_attention" else None}
    source = multihead.Source(t_raw, decl, which)
    return multihead.attention(r, source, t, rows, dims, None, settings, mh_common)


def _ffn(r: Reader, raw: dict[str, Any], dims: Dims) -> dict[str, Any]:
    """The feed-forward network's keys: W_2 maps d_ff back to d_model; W_3 and b_3 belong to SwiGLU."""
    if "ffn" not in raw:
        raise r.fail("ffn", "missing: the feed-forward network's W_1 and W_2")
    f = read_declared(r, raw["ffn"], FFN, "ffn", dims)
    W_2: Given = f["W_2"]
    d_ff, d_model = dims["d_ff"], dims["d_model"]
    if W_2.shape != (d_ff, d_model):
        raise r.fail(
            "ffn.W_2", f"is {shape_text(W_2)}, but it maps d_ff = {d_ff} back to d_model = {d_model}: {d_ff}×{d_model}"
        )
    if f["activation"] != "swiglu":
        for key in ("W_3", "b_3"):
            if f[key] is not None:
                raise r.fail(f"ffn.{key}", f"belongs to activation = 'swiglu' (this network's is {f['activation']!r})")
    elif f["W_3"] is None:
        raise r.fail("ffn.W_3", "missing: SwiGLU's up projection, d_model × d_ff")
    return f


def _settings(r: Reader, s: dict[str, Any]) -> dict[str, Any]:
    """settings.norm, eps (above 0) and normalization."""
    assert SETTINGS_LAYER.table is not None  # a table key has its table (the declaration checks it)
    settings = read_declared(r, s, SETTINGS_LAYER.table, "settings", only=("norm", "eps", "normalization"))
    if not to_float(settings["eps"]) > 0:
        raise r.fail("settings.eps", f"must be above 0, got {describe_raw(s.get('eps'))}")
    return settings


def _norms(
    r: Reader, raw: dict[str, Any], normalization: str, d_model: int, count: int
) -> tuple[tuple[Given, Given], ...]:
    """(γ, β) of norm1, norm2 (and a decoder's norm3): d_model entries each, ones and zeros by default;
    an RMSNorm has no β."""
    norms = []
    for k in range(1, count + 1):
        where = f"norm{k}"
        t = read_declared(r, raw.get(where), NORM, where, Dims())
        if normalization == "rms" and t["beta"] is not None:
            raise r.fail(f"{where}.beta", "RMSNorm has no shift β (only the scale γ): leave beta out")
        gamma = _vector(r, t["gamma"], f"{where}.gamma", d_model, 1.0)
        beta = _vector(r, t["beta"], f"{where}.beta", d_model, 0.0)
        norms.append((gamma, beta))
    return tuple(norms)


def _vector(r: Reader, v: Given | None, key: str, n: int, default: float) -> Given:
    if v is None:
        return Given.from_floats(key.split(".")[-1], np.full(n, default))
    if v.shape[0] != n:
        raise r.fail(key, f"has {v.shape[0]} entries, but it needs {n}")
    return v
