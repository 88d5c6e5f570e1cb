"""Kinds multi-head and positional-encoding: heads, masks, grouped queries, the KV cache, positions.

Row convention throughout (Q = X W_Q). Head j (1-based) uses columns (j−1)·d_k+1 … j·d_k of W_Q;
with ``kv_heads`` the key/value heads are shared by contiguous groups of query heads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..numbers import to_float
from .limits import MAX_HEADS, MAX_SCORES
from .reader import Reader, check_tokens, require, shape_text
from .types import Cache, Given, MultiHead, Problem
from .window import band, read_window

MASKS = ("causal", "causal-top-left")
POSITIONS = ("sinusoidal", "rope", "alibi")


def _int(r: Reader, raw: Any, key: str, low: int = 1) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < low:
        raise r.fail(key, f"expected a whole number of at least {low}, got {_shown(raw)}")
    return raw


def _base(r: Reader, settings_raw: dict[str, Any]) -> Any:
    node = r.number(settings_raw.get("position_base", 10000), "settings.position_base")
    if to_float(node) <= 1:
        raise r.fail("settings.position_base", "must be greater than 1 (the papers use 10000)")
    return node


def _rope(r: Reader, settings_raw: dict[str, Any]) -> str:
    return r.string(settings_raw.get("rope", "interleaved"), "settings.rope", ("interleaved", "half"))


def _width(r: Reader, W: Given, key: str, d_model: int) -> int:
    if W.shape[0] != d_model:
        raise r.fail(key, f"is {shape_text(W)}, but the rows of X have width {d_model}: it must have {d_model} rows")
    return int(W.shape[1])


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind multi-head, past the top level."""
    t = raw["given"]
    settings_raw = raw.get("settings") or {}
    X = r.matrix(require(r, t, "X", "the queries' rows, n × d_model"), "given.X")
    n, d_model = X.shape
    check_tokens(r, common["tokens"], n, "given.X has")
    memory = r.matrix(t["memory"], "given.memory") if "memory" in t else None
    if memory is not None and memory.shape[1] != d_model:
        raise r.fail("given.memory", f"has rows of width {memory.shape[1]} but X has width {d_model}")
    heads = _int(r, require(r, t, "heads", "the number of heads h"), "given.heads")
    if heads > MAX_HEADS:
        raise r.fail("given.heads", f"{heads:,} heads: at most {MAX_HEADS} are computed (each is written out)")
    kv_heads = _int(r, t.get("kv_heads", heads), "given.kv_heads")
    if heads % kv_heads:
        raise r.fail("given.kv_heads", f"{kv_heads} does not divide heads = {heads}")
    W: dict[str, Given] = {}
    for key, why in (("W_Q", "the query projection"), ("W_K", "the key projection"), ("W_V", "the value projection")):
        W[key] = r.matrix(require(r, t, key, f"{why}, d_model × (heads·d_k)"), f"given.{key}")
    wq = _width(r, W["W_Q"], "given.W_Q", d_model)
    if wq % heads:
        raise r.fail("given.W_Q", f"has {wq} columns, which do not split into {heads} heads of equal width")
    d_k = wq // heads
    wk = _width(r, W["W_K"], "given.W_K", d_model)
    if wk != kv_heads * d_k:
        raise r.fail(
            "given.W_K",
            f"has {wk} columns, but {kv_heads} key head(s) of d_k = {d_k} (W_Q's {wq} columns / {heads} heads) "
            f"need {kv_heads * d_k}",
        )
    wv = _width(r, W["W_V"], "given.W_V", d_model)
    if wv % kv_heads:
        raise r.fail("given.W_V", f"has {wv} columns, which do not split into {kv_heads} value heads")
    d_v = wv // kv_heads
    if "W_O" in t:
        W["W_O"] = r.matrix(t["W_O"], "given.W_O")
        if W["W_O"].shape[0] != heads * d_v:
            raise r.fail(
                "given.W_O",
                f"is {shape_text(W['W_O'])}, but the concatenation of {heads} heads of d_v = {d_v} has "
                f"{heads * d_v} columns: W_O needs {heads * d_v} rows",
            )
    b: dict[str, Given] = {}
    widths = {"b_Q": wq, "b_K": wk, "b_V": wv, "b_O": W["W_O"].shape[1] if "W_O" in W else None}
    for key, width in widths.items():
        if key not in t:
            continue
        if width is None:
            raise r.fail(f"given.{key}", "needs W_O: the output bias is added to concat W_O")
        b[key] = r.vector(t[key], f"given.{key}")
        if b[key].shape[0] != width:
            raise r.fail(f"given.{key}", f"has length {b[key].shape[0]}, but its projection has {width} columns")

    # the cache: earlier tokens' keys and values, already projected
    cache_K = cache_V = None
    cache = raw.get("cache")
    if cache is not None:
        ct = r.table(cache, "cache", ("K", "V", "tokens"))
        if memory is not None:
            raise r.fail("cache", "a cache holds the keys of earlier tokens of X; cross-attention reads memory instead")
        cache_K = r.matrix(require(r, ct, "K", "the cached keys, t × (kv_heads·d_k)"), "cache.K")
        cache_V = r.matrix(require(r, ct, "V", "the cached values, t × (kv_heads·d_v)"), "cache.V")
        if cache_K.shape[1] != wk:
            raise r.fail("cache.K", f"has rows of width {cache_K.shape[1]}, but the keys have {wk} columns")
        if cache_V.shape != (cache_K.shape[0], wv):
            raise r.fail(
                "cache.V",
                f"is {shape_text(cache_V)}, but cache.K has {cache_K.shape[0]} rows of keys: {cache_K.shape[0]}×{wv}",
            )
    t_cached = 0 if cache_K is None else cache_K.shape[0]
    source = memory if memory is not None else X
    m = source.shape[0] + t_cached
    if heads * n * m > MAX_SCORES:
        raise r.fail(
            "given.X" if memory is None else "given.memory",
            f"{n:,} quer{'y' if n == 1 else 'ies'} × {m:,} key{'s' if m != 1 else ''} × {heads:,} "
            f"head{'s' if heads != 1 else ''} make {heads * n * m:,} scores: "
            f"at most {MAX_SCORES:,} are computed",
        )
    tokens = common["tokens"] or tuple(f"x{i + 1}" for i in range(n))
    if memory is not None:
        mt = common.get("memory_tokens")
        key_labels = mt if mt is not None else tuple(f"m{i + 1}" for i in range(memory.shape[0]))
        if len(key_labels) != memory.shape[0]:
            raise r.fail("memory_tokens", f"has {len(key_labels)} labels but given.memory has {memory.shape[0]} rows")
    else:
        if common.get("memory_tokens") is not None:
            raise r.fail("memory_tokens", "labels the rows of given.memory, which this problem does not have")
        cached = tuple(f"c{i + 1}" for i in range(t_cached))
        if cache is not None and "tokens" in cache:
            cached = r.labels(cache["tokens"], "cache.tokens")
            if len(cached) != t_cached:
                raise r.fail("cache.tokens", f"has {len(cached)} labels but cache.K has {t_cached} rows")
        key_labels = cached + tokens

    # masks: causal (lower-right), causal-top-left, or 0/1; then key padding
    mask = None
    mask_text = None
    window = read_window(r, t)
    raw_mask = t.get("mask", "causal" if cache_K is not None or window is not None else None)
    if isinstance(raw_mask, str):
        mask_text = r.string(raw_mask, "given.mask", MASKS)
        i = np.arange(n)[:, None]
        k = np.arange(m)[None, :]
        mask = k <= (m - n + i if mask_text == "causal" else i)
        if window is not None:  # the window slides with the causal mask, aligned as it is
            mask &= band(n, m, window, m - n if mask_text == "causal" else 0)
    elif window is not None:
        raise r.fail("given.window", "slides with a causal mask: leave the mask out, or make it causal")
    elif raw_mask is not None:
        M = r.matrix(raw_mask, "given.mask")
        if M.shape != (n, m):
            raise r.fail(
                "given.mask", f"is {shape_text(M)}, but there are {n} queries and {m} keys: it must be {n}×{m}"
            )
        if not np.all((M.floats == 0) | (M.floats == 1)):
            raise r.fail("given.mask", "entries must be 0 or 1 (1 = may attend)")
        mask = M.floats == 1
    padding = None
    if "key_padding" in t:
        kp = r.vector(t["key_padding"], "given.key_padding")
        if kp.shape[0] != m:
            raise r.fail("given.key_padding", f"has {kp.shape[0]} entries but there are {m} keys: one per key")
        if not np.all((kp.floats == 0) | (kp.floats == 1)):
            raise r.fail("given.key_padding", "entries must be 0 or 1 (0 = a padding position)")
        padding = kp.floats == 1
    allowed = None
    if mask is not None or padding is not None:
        allowed = np.ones((n, m), dtype=bool)
        if mask is not None:
            allowed &= mask
        if padding is not None:
            allowed &= padding[None, :]
        empty = [i + 1 for i in range(n) if not allowed[i].any()]
        if empty:
            why = (
                "the mask and the key padding together"
                if mask is not None and padding is not None
                else ("the mask" if mask is not None else "the key padding")
            )
            raise r.fail(
                "given.mask" if mask is not None else "given.key_padding",
                f"query row {empty[0]} ({tokens[empty[0] - 1]}) may attend to no key: {why} block every key "
                "(its softmax would be 0/0)",
            )

    positions = None
    P = None
    if "positions" in t:
        rp = t["positions"]
        if isinstance(rp, str):
            positions = r.string(rp, "given.positions", POSITIONS)
        else:
            P = r.matrix(rp, "given.positions")
            if P.shape != X.shape:
                raise r.fail(
                    "given.positions", f"is {shape_text(P)}, but X is {shape_text(X)}: learned positions add to X"
                )
            positions = "learned"
            if memory is not None:
                raise r.fail("given.positions", "learned positions are added to X only; give memory with them added")
    if positions == "sinusoidal" and d_model % 2:
        raise r.fail("given.positions", f"sinusoidal positions pair the columns: d_model = {d_model} must be even")
    if positions == "rope" and d_k % 2:
        raise r.fail("given.positions", f"RoPE rotates pairs of a head's columns: d_k = {d_k} must be even")
    defaults = {"position_base": 10000, "rope": "interleaved", "alibi": "paper"}  # the defaults are accepted everywhere
    for key in ("position_base", "rope", "alibi"):
        used = {"position_base": ("sinusoidal", "rope"), "rope": ("rope",), "alibi": ("alibi",)}[key]
        if key in settings_raw and positions not in used and settings_raw[key] != defaults[key]:
            raise r.fail(f"settings.{key}", f"applies with given.positions = {' or '.join(used)} only")
    mh = MultiHead(
        X=X,
        memory=memory,
        heads=heads,
        kv_heads=kv_heads,
        d_k=d_k,
        d_v=d_v,
        W=W,
        b=b,
        allowed=allowed,
        mask_text=mask_text,
        mask=mask,
        key_padding=padding,
        positions=positions,
        P=P,
        cache=None if cache_K is None or cache_V is None else Cache(cache_K, cache_V),
        base=_base(r, settings_raw),
        rope=_rope(r, settings_raw),
        key_labels=tuple(key_labels),
        alibi=r.string(settings_raw.get("alibi", "paper"), "settings.alibi", ("paper", "official")),
        window=window,
    )
    common = {k: v for k, v in common.items() if k != "memory_tokens"}
    return Problem(given={"X": X}, head=None, data=mh, **common)


def _shown(raw: object) -> str:
    """A value as the file wrote it: 1.5, not Decimal('1.5')."""
    from decimal import Decimal

    if isinstance(raw, bool):
        return str(raw).lower()
    if isinstance(raw, Decimal):
        exp = raw.as_tuple().exponent
        return format(raw, "f") if isinstance(exp, int) and abs(exp) <= 20 else str(raw)
    return repr(raw) if isinstance(raw, str) else str(raw)
