"""Kind multi-head: heads, masks, grouped queries, the KV cache, positions.

Row convention throughout (Q = X W_Q). Head j (1-based) uses columns (j−1)·d_k+1 … j·d_k of W_Q;
with ``kv_heads`` the key/value heads are shared by contiguous groups of query heads.

The declaration (:data:`attncalc.schema.transformer.MULTI_HEAD_GIVEN` and ``CACHE``) reads the keys,
their types and the named dimensions (X is n × d_model and memory m × d_model; a bias has its
projection's width, the cache's rows those of the keys and values). The rules here are the ones it
cannot say: the heads split the projections' columns, kv_heads divides heads, W_O has a row per
column of the heads side by side, the masks leave every query a key, positions fit the widths, and
at most MAX_SCORES scores are computed. :func:`attention` is shared with kind transformer-layer,
whose sublayers read their projections from tables of their own (``at``: ``"self_attention"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numbers import to_float
from ..schema.common import SETTINGS_MULTI_HEAD
from ..schema.decl import Table
from ..schema.transformer import CACHE, MULTI_HEAD_GIVEN
from .declared import Dims, read_declared
from .limits import MAX_HEADS, MAX_SCORES
from .reader import Reader, check_tokens, shape_text
from .types import Cache, Given, MultiHead, Problem
from .window import band

BIASES = ("b_Q", "b_K", "b_V", "b_O")
# the width each projection gives, named as the biases' declared shapes name it
WIDTHS = {"W_Q": "h·d_k", "W_K": "kv_heads·d_k", "W_V": "kv_heads·d_v", "W_O": "d_out"}
POSITION_SETTINGS = ("position_base", "rope", "alibi")
# the settings the positions read, the positions each applies with, and their defaults (accepted everywhere)
POSITION_USE = {"position_base": ("sinusoidal", "rope"), "rope": ("rope",), "alibi": ("alibi",)}
POSITION_DEFAULTS = {"position_base": 10000, "rope": "interleaved", "alibi": "paper"}


@dataclass(frozen=True)
class Rows:
    """What an attention reads besides its projections: kind multi-head's [given] holds it beside them,
    a transformer layer's [given] holds it for all its sublayers (its keys are always ``given.``)."""

    X: Given  # n × d_model
    memory: Given | None  # m × d_model: cross-attention
    heads: int
    window: int | None


@dataclass(frozen=True)
class Source:
    """The table the projections come from, its declaration and where it is (``given``, ``self_attention``)."""

    raw: Any
    decl: Table
    at: str


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind multi-head, past the top level."""
    dims = Dims()
    given = read_declared(r, raw["given"], MULTI_HEAD_GIVEN, "given", dims, skip=BIASES)
    rows = Rows(given["X"], given["memory"], given["heads"], given["window"])
    source = Source(raw["given"], MULTI_HEAD_GIVEN, "given")
    mh = attention(r, source, given, rows, dims, raw.get("cache"), raw.get("settings") or {}, common)
    common = {k: v for k, v in common.items() if k != "memory_tokens"}
    return Problem(given={"X": mh.X}, data=mh, **common)


def attention(
    r: Reader,
    source: Source,
    t: dict[str, Any],
    rows: Rows,
    dims: Dims,
    cache_raw: Any,
    settings: dict[str, Any],
    common: dict[str, Any],
) -> MultiHead:
    """One multi-head attention from its declared keys ``t`` (read without the biases, which are read
    here once the projections have bound their widths) and the rows it attends over."""
    at = source.at
    X, memory, heads = rows.X, rows.memory, rows.heads
    n, d_model = X.shape
    check_tokens(r, common["tokens"], n, "given.X has")
    kv_heads = _heads(r, heads, t["kv_heads"], at)
    W, d_k, d_v = _projections(r, t, heads, kv_heads, d_model, at, dims)
    b = _biases(r, source, W, dims)
    cache, cached = _cache(r, cache_raw, memory, dims)
    t_cached = 0 if cache is None else cache.K.shape[0]
    m = (memory if memory is not None else X).shape[0] + t_cached
    _score_limit(r, n, m, heads, memory is not None)
    tokens = common["tokens"] or tuple(f"x{i + 1}" for i in range(n))
    key_labels = _key_labels(r, common.get("memory_tokens"), memory, cached, t_cached, tokens)
    default = "causal" if cache is not None or rows.window is not None else None  # a cache's newest rows, a window
    mask_raw = t["mask"] if t["mask"] is not None else default
    mask, mask_text = _mask(r, mask_raw, rows.window, n, m, at)
    padding = _key_padding(r, t.get("key_padding"), m, at)
    allowed = _allowed(r, mask, padding, n, m, tokens, at)
    positions, P = _positions(r, t.get("positions"), X, memory, d_k, at)
    base, rope, alibi = _position_settings(r, settings, positions)
    return MultiHead(
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
        cache=cache,
        base=base,
        rope=rope,
        key_labels=key_labels,
        alibi=alibi,
        window=rows.window,
    )


def _heads(r: Reader, heads: int, kv_heads: int | None, at: str) -> int:
    """At most MAX_HEADS heads; the key/value heads (all of them by default) divide them."""
    if heads > MAX_HEADS:
        raise r.fail("given.heads", f"{heads:,} heads: at most {MAX_HEADS} are computed (each is written out)")
    kv = heads if kv_heads is None else kv_heads
    if heads % kv:
        raise r.fail(f"{at}.kv_heads", f"{kv} does not divide heads = {heads}")
    return kv


def _projections(
    r: Reader, t: dict[str, Any], heads: int, kv_heads: int, d_model: int, at: str, dims: Dims
) -> tuple[dict[str, Given], int, int]:
    """W_Q, W_K, W_V (and W_O) on rows of width d_model, split into heads: the projections, d_k and d_v.
    Binds each projection's width for its bias (h·d_k, kv_heads·d_k, kv_heads·d_v)."""
    W: dict[str, Given] = {key: t[key] for key in ("W_Q", "W_K", "W_V")}
    wq = _width(r, W["W_Q"], f"{at}.W_Q", d_model)
    if wq % heads:
        raise r.fail(f"{at}.W_Q", f"has {wq} columns, which do not split into {heads} heads of equal width")
    d_k = wq // heads
    wk = _width(r, W["W_K"], f"{at}.W_K", d_model)
    if wk != kv_heads * d_k:
        raise r.fail(
            f"{at}.W_K",
            f"has {wk} columns, but {kv_heads} key head(s) of d_k = {d_k} (W_Q's {wq} columns / {heads} heads) "
            f"need {kv_heads * d_k}",
        )
    wv = _width(r, W["W_V"], f"{at}.W_V", d_model)
    if wv % kv_heads:
        raise r.fail(f"{at}.W_V", f"has {wv} columns, which do not split into {kv_heads} value heads")
    d_v = wv // kv_heads
    W_O: Given | None = t["W_O"]
    if W_O is not None:
        if W_O.shape[0] != heads * d_v:
            raise r.fail(
                f"{at}.W_O",
                f"is {shape_text(W_O)}, but the concatenation of {heads} heads of d_v = {d_v} has "
                f"{heads * d_v} columns: W_O needs {heads * d_v} rows",
            )
        W["W_O"] = W_O
    for key, name in ((k, v) for k, v in WIDTHS.items() if k in W):
        dims.bind(r, name, W[key].shape[1], f"{at}.{key}", f"is {shape_text(W[key])}")
    return W, d_k, d_v


def _width(r: Reader, W: Given, key: str, d_model: int) -> int:
    if W.shape[0] != d_model:
        raise r.fail(key, f"is {shape_text(W)}, but the rows of X have width {d_model}: it must have {d_model} rows")
    return int(W.shape[1])


def _biases(r: Reader, source: Source, W: dict[str, Given], dims: Dims) -> dict[str, Given]:
    """The biases the table gives, each of its projection's width (the declaration's named dimensions)."""
    got = read_declared(r, source.raw, source.decl, source.at, dims, only=BIASES)
    if got["b_O"] is not None and "W_O" not in W:
        raise r.fail(f"{source.at}.b_O", "needs W_O: the output bias is added to concat W_O")
    return {key: got[key] for key in BIASES if got[key] is not None}


def _cache(r: Reader, raw: Any, memory: Given | None, dims: Dims) -> tuple[Cache | None, tuple[str, ...] | None]:
    """The earlier tokens' keys and values, already projected (t rows of the keys' and values' widths),
    and their labels when the file gives them."""
    if raw is None:
        return None, None
    if memory is not None:
        raise r.fail("cache", "a cache holds the keys of earlier tokens of X; cross-attention reads memory instead")
    c = read_declared(r, raw, CACHE, "cache", dims)
    return Cache(c["K"], c["V"]), c["tokens"]


def _score_limit(r: Reader, n: int, m: int, heads: int, cross: bool) -> None:
    if heads * n * m > MAX_SCORES:
        raise r.fail(
            "given.memory" if cross else "given.X",
            f"{n:,} quer{'y' if n == 1 else 'ies'} × {m:,} key{'s' if m != 1 else ''} × {heads:,} "
            f"head{'s' if heads != 1 else ''} make {heads * n * m:,} scores: "
            f"at most {MAX_SCORES:,} are computed",
        )


def _key_labels(
    r: Reader,
    memory_tokens: tuple[str, ...] | None,
    memory: Given | None,
    cached_tokens: tuple[str, ...] | None,
    t_cached: int,
    tokens: tuple[str, ...],
) -> tuple[str, ...]:
    """The keys' labels: the memory's rows (memory_tokens), or the cached tokens, then X's."""
    if memory is not None:
        labels = memory_tokens if memory_tokens is not None else tuple(f"m{i + 1}" for i in range(memory.shape[0]))
        if len(labels) != memory.shape[0]:
            raise r.fail("memory_tokens", f"has {len(labels)} labels but given.memory has {memory.shape[0]} rows")
        return tuple(labels)
    if memory_tokens is not None:
        raise r.fail("memory_tokens", "labels the rows of given.memory, which this problem does not have")
    cached = cached_tokens if cached_tokens is not None else tuple(f"c{i + 1}" for i in range(t_cached))
    return cached + tokens


def _mask(
    r: Reader, raw: str | Given | None, window: int | None, n: int, m: int, at: str
) -> tuple[np.ndarray | None, str | None]:
    """The mask alone (True = may attend) and its name: causal (lower-right), causal-top-left (each
    narrowed by the sliding window, aligned as the mask is), or a 0/1 matrix."""
    if isinstance(raw, str):
        i = np.arange(n)[:, None]
        k = np.arange(m)[None, :]
        mask = k <= (m - n + i if raw == "causal" else i)
        if window is not None:  # the window slides with the causal mask, aligned as it is
            mask &= band(n, m, window, m - n if raw == "causal" else 0)
        return mask, raw
    if window is not None:
        raise r.fail("given.window", "slides with a causal mask: leave the mask out, or make it causal")
    if raw is None:
        return None, None
    if raw.shape != (n, m):
        raise r.fail(f"{at}.mask", f"is {shape_text(raw)}, but there are {n} queries and {m} keys: it must be {n}×{m}")
    if not np.all((raw.floats == 0) | (raw.floats == 1)):
        raise r.fail(f"{at}.mask", "entries must be 0 or 1 (1 = may attend)")
    return raw.floats == 1, None


def _key_padding(r: Reader, kp: Given | None, m: int, at: str) -> np.ndarray | None:
    """False where a key is a padding position: one 0/1 entry per key."""
    if kp is None:
        return None
    if kp.shape[0] != m:
        raise r.fail(f"{at}.key_padding", f"has {kp.shape[0]} entries but there are {m} keys: one per key")
    if not np.all((kp.floats == 0) | (kp.floats == 1)):
        raise r.fail(f"{at}.key_padding", "entries must be 0 or 1 (0 = a padding position)")
    padding: np.ndarray = kp.floats == 1
    return padding


def _allowed(
    r: Reader,
    mask: np.ndarray | None,
    padding: np.ndarray | None,
    n: int,
    m: int,
    tokens: tuple[str, ...],
    at: str,
) -> np.ndarray | None:
    """The mask and the key padding together; every query must keep a key (its softmax would be 0/0)."""
    if mask is None and padding is None:
        return None
    allowed = np.ones((n, m), dtype=bool)
    if mask is not None:
        allowed &= mask
    if padding is not None:
        allowed &= padding[None, :]
    empty = [i + 1 for i in range(n) if not allowed[i].any()]
    if empty:
        raise r.fail(
            f"{at}.mask" if mask is not None else f"{at}.key_padding",
            f"query row {empty[0]} ({tokens[empty[0] - 1]}) may attend to no key: "
            f"{_blocked_by(mask is not None, padding is not None)} block every key "
            "(its softmax would be 0/0)",
        )
    return allowed


def _blocked_by(mask: bool, padding: bool) -> str:
    if mask and padding:
        return "the mask and the key padding together"
    return "the mask" if mask else "the key padding"


def _positions(
    r: Reader, raw: str | Given | None, X: Given, memory: Given | None, d_k: int, at: str
) -> tuple[str | None, Given | None]:
    """The positions' type and, when learned, the matrix added to X (its shape)."""
    positions, P = (raw, None) if not isinstance(raw, Given) else ("learned", raw)
    if P is not None:
        if P.shape != X.shape:
            raise r.fail(f"{at}.positions", f"is {shape_text(P)}, but X is {shape_text(X)}: learned positions add to X")
        if memory is not None:
            raise r.fail(f"{at}.positions", "learned positions are added to X only; give memory with them added")
    if positions == "sinusoidal" and X.shape[1] % 2:
        raise r.fail(f"{at}.positions", f"sinusoidal positions pair the columns: d_model = {X.shape[1]} must be even")
    if positions == "rope" and d_k % 2:
        raise r.fail(f"{at}.positions", f"RoPE rotates pairs of a head's columns: d_k = {d_k} must be even")
    return positions, P


def _position_settings(r: Reader, settings: dict[str, Any], positions: str | None) -> tuple[Any, str, str]:
    """settings.position_base, rope and alibi: each applies with its positions only (its default is
    accepted everywhere); the base must be above 1."""
    for key in POSITION_SETTINGS:
        used = POSITION_USE[key]
        if key in settings and positions not in used and settings[key] != POSITION_DEFAULTS[key]:
            raise r.fail(f"settings.{key}", f"applies with given.positions = {' or '.join(used)} only")
    decl = SETTINGS_MULTI_HEAD.table
    assert decl is not None  # a table key has its table (the declaration checks it)
    s = read_declared(r, settings, decl, "settings", only=POSITION_SETTINGS)
    if to_float(s["position_base"]) <= 1:
        raise r.fail("settings.position_base", "must be greater than 1 (the papers use 10000)")
    return s["position_base"], s["rope"], s["alibi"]
