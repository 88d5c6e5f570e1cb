"""Multi-head, attention-backward and transformer-layer: their declarations are the
validator (named dimensions across keys, the cache's required keys) and each problem carries its own
typed payload (``Problem.data``) whose types say what is always there."""

from __future__ import annotations

import copy
import dataclasses
import tomllib
from typing import Any

import pytest

from attncalc.errors import ProblemError
from attncalc.parse import parse_problem
from attncalc.parse.attention_backward import AttentionBackward
from attncalc.parse.types import Layer, MultiHead, Problem

from ..helpers import PROBLEMS


def raw(name: str) -> dict[str, Any]:
    return tomllib.loads((PROBLEMS / f"{name}.toml").read_text(encoding="utf-8"))


def refused(r: dict[str, Any]) -> str:
    with pytest.raises(ProblemError) as e:
        parse_problem(r, "p.toml")
    text = str(e.value)
    assert text.startswith("p.toml: ") and "\n" not in text
    return text


# ------------------------------------------------------------------ the payloads


def test_each_kind_carries_its_own_payload() -> None:
    names = {f.name for f in dataclasses.fields(Problem)}
    assert "multihead" not in names and "layer" not in names
    mh = parse_problem(raw("mh-causal-cache"), "p.toml").payload(MultiHead)
    # the cache is one group: the file's 2 cached rows of keys and of values, 4 columns each
    assert mh.cache is not None and mh.cache.K.shape == (2, 4) and mh.cache.V.shape == (2, 4) and mh.t == 2
    assert mh.key_labels == ("<s>", "I", "am")  # cache.tokens, then the tokens of X
    assert parse_problem(raw("mh-self-attention"), "p.toml").payload(MultiHead).cache is None
    layer = parse_problem(raw("layer-llama"), "p.toml").payload(Layer)
    # SwiGLU's up projection is one group, the shape of the gate W_1 (4 × 3 in the file)
    assert layer.swiglu is not None and layer.swiglu.W_3.shape == layer.W_1.shape == (4, 3)
    assert layer.swiglu.b_3 is None
    assert parse_problem(raw("layer-encoder"), "p.toml").payload(Layer).swiglu is None
    back = parse_problem(raw("backward-two-heads"), "p.toml")
    d = back.payload(AttentionBackward)
    assert d.mh.heads == 2 and back.given["X"] is d.mh.X
    with pytest.raises(TypeError, match="carries AttentionBackward, not MultiHead"):
        back.payload(MultiHead)


# ------------------------------------------------------------------ named dimensions


def test_a_bias_has_its_projections_width() -> None:
    r = raw("mh-grouped-query")  # W_Q 4 columns (4 heads of d_k = 1), W_K and W_V 2 (2 key/value heads)
    r["given"]["b_Q"] = [0, 0]
    assert "p.toml: given.b_Q: has length 2, but h·d_k = 4 from given.W_Q" in refused(r)
    r = raw("mh-grouped-query")
    r["given"]["b_V"] = [0, 0, 0, 0]
    assert "given.b_V: has length 4, but kv_heads·d_v = 2 from given.W_V" in refused(r)
    r = raw("mh-causal-cache")  # W_O is 4 × 4
    r["given"]["b_O"] = [0, 0]
    assert "given.b_O: has length 2, but d_out = 4 from given.W_O" in refused(r)
    r = raw("layer-decoder")  # the cross-attention's W_V is 4 × 4 (d_model = 4)
    r["cross_attention"]["b_V"] = [1]
    assert "cross_attention.b_V: has length 1, but kv_heads·d_v = 4 from cross_attention.W_V" in refused(r)
    r = raw("layer-encoder")
    r["self_attention"]["b_O"] = [1]
    assert "self_attention.b_O: has length 1, but d_model = 4 from given.X" in refused(r)


def test_the_cache_is_declared() -> None:
    """cache.K and cache.V are required (the message named given.K before), their rows are t and their
    columns the keys' and values' widths."""
    r = raw("mh-causal-cache")
    del r["cache"]["K"]
    assert "p.toml: cache.K: missing: earlier tokens' keys" in refused(r)
    r = raw("mh-causal-cache")
    del r["cache"]["V"]
    assert "p.toml: cache.V: missing: earlier tokens' values" in refused(r)
    r = raw("mh-causal-cache")
    r["cache"]["K"] = [[0, 1, 0], [1, 2, 0]]
    assert "cache.K: is 2×3, but kv_heads·d_k = 4 from given.W_K" in refused(r)
    r = raw("mh-causal-cache")
    r["cache"]["V"] = [[1, 0, 1, 1]]
    assert "cache.V: is 1×4, but t = 2 from cache.K" in refused(r)
    r = raw("mh-causal-cache")
    r["cache"]["tokens"] = ["<s>"]
    assert "cache.tokens: has 1 labels, but t = 2 from cache.K" in refused(r)


def test_the_layers_shapes() -> None:
    r = raw("layer-encoder")  # X 3 × 4, d_ff = 8
    r["ffn"]["b_1"] = [1]
    assert "ffn.b_1: has length 1, but d_ff = 8 from ffn.W_1" in refused(r)
    r = raw("layer-encoder")
    r["given"]["memory"] = [[1, 0, 0, 1]]
    assert "given.memory: is read by a decoder layer's [cross_attention]" in refused(r)
    r["given"]["memory"] = [[1, 0]]  # a memory of the wrong width still does not belong to an encoder layer
    assert "given.memory: is read by a decoder layer's [cross_attention]" in refused(r)
    r = raw("layer-decoder")
    r["given"]["memory"] = [[1, 0], [0, 1]]
    assert "given.memory: is 2×2, but d_model = 4 from given.X" in refused(r)


def test_a_sublayers_keys_are_named_by_its_table() -> None:
    r = raw("layer-llama")  # two query heads
    r["self_attention"]["kv_heads"] = 3
    assert "p.toml: self_attention.kv_heads: 3 does not divide heads = 2" in refused(r)
    r = raw("layer-decoder")
    r["cross_attention"]["positions"] = "rope"
    assert "cross_attention.positions: positions belong to the self-attention" in refused(r)
    r["cross_attention"]["positions"] = "sinusoidal"
    assert "cross_attention.positions: unknown value 'sinusoidal'" in refused(r)


def test_attention_backward_keeps_its_own_gradient_message() -> None:
    """grad_output's width is the output's (W_O's columns here), in the kind's own words."""
    r = raw("backward-two-heads")
    g = copy.deepcopy(r["given"]["grad_output"])
    r["given"]["grad_output"] = [[*row, 0] for row in g]
    assert "the upstream gradient has the output's shape" in refused(r)
    r["given"]["grad_output"] = g[:-1]
    assert f"given.grad_output: is {len(g) - 1}×{len(g[0])}, but n = {len(g)} from given.X" in refused(r)
