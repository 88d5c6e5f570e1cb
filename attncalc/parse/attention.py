"""Kind attention: the query, keys and values, the score function's weights, the optional output head."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..schema import feedforward as ff
from ..schema.validate import names
from .reader import Reader, as_given, check_tokens, require, shape_text
from .types import Given, Head, Problem, Settings

HEAD_KEYS = names(ff.HEAD)
SCORE_KEYS: dict[str, tuple[str, ...]] = {score: names(t) for score, t in ff.SCORE_GIVEN.items()}


def read(
    r: Reader, t: dict[str, Any], score: str, settings: Settings, head_raw: Any
) -> tuple[dict[str, Given], Head | None]:
    extra = set(t) - {"query", "keys", "values"} - set(SCORE_KEYS[score])
    if extra:
        key = sorted(extra)[0]
        users = [s for s, keys in SCORE_KEYS.items() if key in keys]
        hint = f" (it belongs to score {' or '.join(map(repr, users))})" if users else ""
        raise r.fail(f"given.{key}", f"not used by score {score!r}{hint}")
    q = r.vector(require(r, t, "query", "the decoder state s_t"), "given.query")
    keys = r.matrix(require(r, t, "keys", "the encoder states h_i, one per row"), "given.keys")
    values = r.matrix(t["values"], "given.values") if "values" in t else keys
    g = {"query": q, "keys": keys, "values": values}
    n, d_k = keys.shape
    d_q = q.shape[0]
    if values.shape[0] != n:
        raise r.fail("given.values", f"has {values.shape[0]} rows but given.keys has {n}: one value per key")
    row = settings.convention == "row"
    conv = "row" if row else "column"
    if score in ("dot", "scaled-dot"):
        if d_q != d_k:
            raise r.fail(
                "given.query",
                f"has length {d_q} but the rows of given.keys have width {d_k}; "
                f"the {score} score needs q and k_i of the same length",
            )
        if "scale" in t:
            nodes = np.empty(1, dtype=object)  # np.array([node]) would unpack the node's tuple
            nodes[0] = r.number(t["scale"], "given.scale")
            g["scale"] = as_given("given.scale", nodes)
    elif score == "general":
        W = r.matrix(require(r, t, "W", "the general score's weight matrix"), "given.W")
        want = (d_k, d_q) if row else (d_q, d_k)
        if W.shape != want:
            raise r.fail(
                "given.W",
                f"is {shape_text(W)}, but with a query of length {d_q} and keys of width {d_k} the {conv} "
                f"convention needs {want[0]}×{want[1]}",
            )
        g["W"] = W
    elif score == "additive":
        W_q = r.matrix(require(r, t, "W_q", "the query projection"), "given.W_q")
        W_k = r.matrix(require(r, t, "W_k", "the key projection"), "given.W_k")
        v = r.vector(require(r, t, "v", "the scoring vector"), "given.v")
        a = v.shape[0]
        for name, M, width in (("W_q", W_q, d_q), ("W_k", W_k, d_k)):
            want = (width, a) if row else (a, width)
            if M.shape != want:
                raise r.fail(
                    f"given.{name}",
                    f"is {shape_text(M)}, but with v of length {a} and inputs of length {width} the {conv} "
                    f"convention needs {want[0]}×{want[1]}",
                )
        g.update(W_q=W_q, W_k=W_k, v=v)
        if "b" in t:
            b = r.vector(t["b"], "given.b")
            if b.shape[0] != a:
                raise r.fail("given.b", f"has length {b.shape[0]} but v has length {a}")
            g["b"] = b
    elif score == "concat":
        W = r.matrix(require(r, t, "W", "the concat score's weight matrix over [q; k_i]"), "given.W")
        v = r.vector(require(r, t, "v", "the scoring vector"), "given.v")
        a, width = v.shape[0], d_q + d_k
        want = (width, a) if row else (a, width)
        if W.shape != want:
            raise r.fail(
                "given.W",
                f"is {shape_text(W)}, but [q; k_i] has length {d_q}+{d_k}={width} and v has length {a}: the "
                f"{conv} convention needs {want[0]}×{want[1]}",
            )
        g.update(W=W, v=v)
    head = _head(r, head_raw, d_q, values.shape[1], row) if head_raw is not None else None
    return g, head


def _head(r: Reader, raw: Any, d_q: int, d_v: int, row: bool) -> Head:
    t = r.table(raw, "head", HEAD_KEYS)
    combine = r.string(t.get("combine", "add"), "head.combine", ("add", "concat"))
    order = r.string(t.get("order", "context-query"), "head.order", ("context-query", "query-context"))
    conv = "row" if row else "column"
    W_c = None
    if combine == "add":
        if "W_c" in t:
            raise r.fail("head.W_c", 'W_c is used only with combine = "concat"')
        if d_q != d_v:
            raise r.fail(
                "head.combine", f'"add" needs the query (length {d_q}) and the context (length {d_v}) to match'
            )
        width = d_q
    else:
        if "W_c" not in t:
            raise r.fail("head.W_c", 'missing: combine = "concat" computes tanh(W_c [c; s])')
        W_c = r.matrix(t["W_c"], "head.W_c")
        cat = d_q + d_v
        have = W_c.shape[0] if row else W_c.shape[1]
        if have != cat:
            want = f"{cat}×h" if row else f"h×{cat}"
            raise r.fail(
                "head.W_c",
                f"is {shape_text(W_c)}, but [c; s] has length {d_v}+{d_q}={cat}: the {conv} convention needs {want}",
            )
        width = W_c.shape[1] if row else W_c.shape[0]
    if "W_out" not in t:
        for key in ("b_out", "vocab"):
            if key in t:
                raise r.fail(f"head.{key}", "needs head.W_out, the output layer's weights")
        return Head(combine, order, W_c, None, None, None)
    W_out = r.matrix(t["W_out"], "head.W_out")
    have = W_out.shape[0] if row else W_out.shape[1]
    if have != width:
        want = f"{width}×V" if row else f"V×{width}"
        raise r.fail(
            "head.W_out",
            f"is {shape_text(W_out)}, but the vector it multiplies has length {width}: the {conv} convention needs {want}",
        )
    V = W_out.shape[1] if row else W_out.shape[0]
    b_out = None
    if "b_out" in t:
        b_out = r.vector(t["b_out"], "head.b_out")
        if b_out.shape[0] != V:
            raise r.fail("head.b_out", f"has length {b_out.shape[0]} but W_out gives {V} logits")
    vocab = r.labels(t["vocab"], "head.vocab") if "vocab" in t else None
    if vocab is not None and len(vocab) != V:
        raise r.fail("head.vocab", f"has {len(vocab)} labels but W_out gives {V} logits")
    return Head(combine, order, W_c, W_out, b_out, vocab)


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind attention, past the top level (see :func:`attncalc.parse.top.parse_problem`)."""
    given, head = read(r, raw["given"], common["score"] or "dot", common["settings"], raw.get("head"))
    check_tokens(r, common["tokens"], given["keys"].shape[0], "given.keys has")
    return Problem(given=given, head=head, **common)
