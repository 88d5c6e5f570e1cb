"""Kind attention: the query, keys and values, the score function's weights, the optional output head.

The declaration reads the keys (the query of length d_q, the keys n × d_k, the values n × d_v, one
number as the scale, v and b of one length a) and its ``score`` select says which weights each score
needs and refuses the others'; the rules here are the ones it cannot say: the shapes the convention
gives the weight matrices, the dot score's equal lengths, and the output head's widths.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..schema import attention as ff
from ..schema.validate import names
from .data import Attention
from .declared import Dims, check_select, read_declared
from .reader import Reader, as_given, check_tokens, shape_text
from .types import Given, Head, Problem

HEAD_KEYS = names(ff.HEAD)
SCORE_KEYS: dict[str, tuple[str, ...]] = {score: names(t) for score, t in ff.SCORE_GIVEN.items()}


def _need(r: Reader, M: Given, key: str, want: tuple[int, int], why: str) -> None:
    if M.shape != want:
        raise r.fail(key, f"is {shape_text(M)}, but {why} needs {want[0]}×{want[1]}")


def _weights(r: Reader, g: dict[str, Any], score: str, d_q: int, d_k: int, row: bool) -> None:
    """The score's weight matrices against the query and key lengths, in the convention's orientation."""
    conv = "row" if row else "column"
    if score in ("dot", "scaled-dot") and d_q != d_k:
        raise r.fail(
            "given.query",
            f"has length {d_q} but the rows of given.keys have width {d_k}; "
            f"the {score} score needs q and k_i of the same length",
        )
    if score == "general":
        want = (d_k, d_q) if row else (d_q, d_k)
        why = f"with a query of length {d_q} and keys of width {d_k} the {conv} convention"
        _need(r, g["W"], "given.W", want, why)
    elif score == "additive":
        a = g["v"].shape[0]
        for name, width in (("W_q", d_q), ("W_k", d_k)):
            why = f"with v of length {a} and inputs of length {width} the {conv} convention"
            _need(r, g[name], f"given.{name}", (width, a) if row else (a, width), why)
    elif score == "concat":
        a, width = g["v"].shape[0], d_q + d_k
        why = f"[q; k_i] has length {d_q}+{d_k}={width} and v has length {a}: the {conv} convention"
        _need(r, g["W"], "given.W", (width, a) if row else (a, width), why)


def read(r: Reader, t: Any, score: str, row: bool, head_raw: Any) -> Attention:
    check_select(r, t, ff.ATTENTION.selects[0], score, "given")
    dims = Dims()
    g = read_declared(r, t, ff.ATTENTION_GIVEN, "given", dims)
    q, keys = g["query"], g["keys"]
    values = keys if g["values"] is None else g["values"]
    _weights(r, g, score, q.shape[0], keys.shape[1], row)
    scale = None
    if g["scale"] is not None:
        nodes = np.empty(1, dtype=object)  # np.array([node]) would unpack the node's tuple
        nodes[0] = g["scale"]
        scale = as_given("given.scale", nodes)
    head = _head(r, head_raw, q.shape[0], values.shape[1], row) if head_raw is not None else None
    return Attention(q, keys, values, scale, g["W"], g["W_q"], g["W_k"], g["v"], g["b"], head)


def _head(r: Reader, raw: Any, d_q: int, d_v: int, row: bool) -> Head:
    h = read_declared(r, raw, ff.HEAD, "head")
    combine, order, W_c, W_out = h["combine"], h["order"], h["W_c"], h["W_out"]
    conv = "row" if row else "column"
    if combine == "add":
        if W_c is not None:
            raise r.fail("head.W_c", 'W_c is used only with combine = "concat"')
        if d_q != d_v:
            raise r.fail(
                "head.combine", f'"add" needs the query (length {d_q}) and the context (length {d_v}) to match'
            )
        width = d_q
    else:
        if W_c is None:
            raise r.fail("head.W_c", 'missing: combine = "concat" computes tanh(W_c [c; s])')
        cat = d_q + d_v
        if (W_c.shape[0] if row else W_c.shape[1]) != cat:
            want = f"{cat}×h" if row else f"h×{cat}"
            raise r.fail(
                "head.W_c",
                f"is {shape_text(W_c)}, but [c; s] has length {d_v}+{d_q}={cat}: the {conv} convention needs {want}",
            )
        width = W_c.shape[1] if row else W_c.shape[0]
    if W_out is None:
        for key in ("b_out", "vocab"):
            if h[key] is not None:
                raise r.fail(f"head.{key}", "needs head.W_out, the output layer's weights")
        return Head(combine, order, W_c, None, None, None)
    if (W_out.shape[0] if row else W_out.shape[1]) != width:
        want = f"{width}×V" if row else f"V×{width}"
        raise r.fail(
            "head.W_out",
            f"is {shape_text(W_out)}, but the vector it multiplies has length {width}: the {conv} convention needs {want}",
        )
    V = W_out.shape[1] if row else W_out.shape[0]
    b_out, vocab = h["b_out"], h["vocab"]
    if b_out is not None and b_out.shape[0] != V:
        raise r.fail("head.b_out", f"has length {b_out.shape[0]} but W_out gives {V} logits")
    if vocab is not None and len(vocab) != V:
        raise r.fail("head.vocab", f"has {len(vocab)} labels but W_out gives {V} logits")
    return Head(combine, order, W_c, W_out, b_out, vocab)


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind attention, past the top level (see :func:`attncalc.parse.top.parse_problem`)."""
    row = common["settings"].convention == "row"
    d = read(r, raw["given"], common["score"] or "dot", row, raw.get("head"))
    check_tokens(r, common["tokens"], d.keys.shape[0], "given.keys has")
    given = {"query": d.query, "keys": d.keys, "values": d.values}
    if d.scale is not None:
        given["scale"] = d.scale
    given.update(
        {k: w for k, w in (("W", d.W), ("W_q", d.W_q), ("W_k", d.W_k), ("v", d.v), ("b", d.b)) if w is not None}
    )
    return Problem(given=given, data=d, **common)
