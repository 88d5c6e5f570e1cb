"""Homework for the Transformer kinds: multi-head attention and positional encodings.

Multi-head variants are drawn in floats (exact forms of √d_k-scaled softmaxes are long), with no row
of zeros (in X, memory, W_O, or a column of W_Q, W_K, W_V), no column of X or memory that is all zeros
or the same for every token (and no such column of V: :mod:`attncalc.homework.dead`), no tied top weights (unless --allow-ties)
and no extreme weight (above 0.95 or below 0.01) in any head, and each head's weights different from
the others'.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import TOKENS, Draw, Drawer, check_window, only, refuse
from .guards import apart, repeated_row, weight_rows, zero_row
from .options import Options

MH_POSITIONS = ("sinusoidal", "rope", "alibi")


def check_heads(o: Options, kind: str) -> None:
    """The options every drawer of heads checks (multi-head, attention-backward): the score, heads that
    split --dim, key/value heads that divide them, a causal mask or none."""
    if o.score not in (None, "dot", "scaled-dot"):
        raise refuse("--score", f"{kind} takes scaled-dot (the default) or dot")
    if o.dim % o.heads:
        raise refuse("--dim", f"--dim {o.dim} does not split into --heads {o.heads} heads of equal width")
    kv = o.kv_heads or o.heads
    if o.heads % kv:
        raise refuse("--kv-heads", f"--kv-heads {kv} does not divide --heads {o.heads}")
    if o.mask not in (None, "causal"):
        raise refuse("--mask", f"--mask causal applies to {kind}")


def _check_mh(o: Options) -> None:
    check_heads(o, "multi-head")
    if o.positions is not None and o.positions not in MH_POSITIONS:
        raise refuse("--positions", f"multi-head takes {', '.join(MH_POSITIONS)}")
    if o.positions == "sinusoidal" and o.dim % 2:
        raise refuse("--dim", f"sinusoidal positions pair columns: --dim {o.dim} must be even")
    if o.positions == "rope" and (o.dim // o.heads) % 2:
        d_k = o.dim // o.heads
        raise refuse(
            "--dim",
            f"rope rotates each head's columns in pairs: d_k = --dim / --heads = {o.dim}/{o.heads} = {d_k} must be even",
        )
    if o.cross and o.positions in ("rope", "alibi"):
        raise refuse("--cross", f"--cross with {o.positions} positions is not drawn")
    if o.cross and o.window:
        raise refuse("--window", "a sliding window slides over a sequence's own keys, not over --cross's memory")
    check_window(o)
    only(o, {"score", "mask", "heads", "kv_heads", "positions", "cross", "window"}, "multi-head")


def _draw_mh(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    d = Draw(rng, o.values, "cell")  # small numbers: sums of d_model products stay out of saturation
    n, dm = o.tokens, o.dim
    kv = o.kv_heads or o.heads
    d_k = dm // o.heads
    # past d_model 4 a score sums d_k products of sums of d_model products: drawn densely, most scores
    # are several units apart (a weight above 0.95) or the same integer (tied weights), for every head
    # at once; so W_Q and W_K keep two non-zero entries per column there (d_model 4 draws as it always has)
    proj = d.matrix if dm <= 4 else lambda r, c: sparse_matrix(d, rng, r, c, 2)
    g: dict[str, Any] = {
        "X": d.inputs(n, dm),
        "heads": o.heads,
        "W_Q": proj(dm, dm),
        "W_K": proj(dm, kv * d_k),
        "W_V": d.matrix(dm, kv * d_k),
        "W_O": d.matrix(dm, dm),
    }
    if kv != o.heads:
        g["kv_heads"] = kv
    if o.cross:
        g["memory"] = d.inputs(n, dm)
    if o.mask:
        g["mask"] = o.mask
    if o.window:
        g["window"] = o.window
    if o.positions:
        g["positions"] = o.positions
    return {
        "title": f"Variant {number}",
        "kind": "multi-head",
        "score": o.score or "scaled-dot",
        "tokens": list(TOKENS[:n]),
        "given": g,
        "settings": {"decimals": o.decimals, "exact": False},
    }


def sparse_matrix(d: Draw, rng: random.Random, rows: int, cols: int, keep: int) -> list[list[int | float]]:
    """A rows × cols matrix whose columns have ``keep`` non-zero entries, at random rows."""
    M: list[list[int | float]] = [[0] * cols for _ in range(rows)]
    for j in range(cols):
        for i in rng.sample(range(rows), min(keep, rows)):
            while M[i][j] == 0:
                M[i][j] = d.number()
    return M


def _reject_mh(o: Options, raw: dict[str, Any]) -> str | None:
    g = raw["given"]
    columns = (list(map(list, zip(*g[k], strict=True))) for k in ("W_Q", "W_K", "W_V"))
    return zero_row(g["X"], g.get("memory"), g["W_O"], *columns)  # a zero W_O row throws a column away


def degeneracy_mh(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    weights = [np.asarray(d.step(i).value, dtype=float) for i in d.step_ids if i.endswith(".weights")]
    for w in weights:
        why = weight_rows(w, o.decimals, o.allow_ties, masked=bool(o.mask or o.window))
        if why:
            return why
    for a in range(len(weights)):
        for b in range(a):
            if np.allclose(weights[a], weights[b], atol=apart(o.decimals)):
                return "two heads with the same weights"
    return None


MULTI_HEAD = Drawer(
    "Multi-head attention homework",
    _check_mh,
    _draw_mh,
    degeneracy_mh,
    _reject_mh,
    max_tokens=6,
    default_dim=4,  # two heads of width 1 score by a product of two small integers: most draws tie or are 0
)


def _check_pe(o: Options) -> None:
    if o.positions not in (None, "sinusoidal", "rope"):
        raise refuse("--positions", "positional-encoding takes sinusoidal (the default) or rope")
    if o.dim % 2:
        raise refuse("--dim", "positions pair columns: --dim must be even")
    only(o, {"positions"}, "positional-encoding")


def _draw_pe(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    d = Draw(rng, o.values)
    n, dm = o.tokens, o.dim
    start = rng.choice((0, 0, 1, 2, 3))
    raw: dict[str, Any] = {
        "title": f"Variant {number}",
        "kind": "positional-encoding",
        "type": o.positions or "sinusoidal",
        "settings": {"decimals": o.decimals},
    }
    positions = list(range(start, start + n))
    if raw["type"] == "sinusoidal":
        raw["given"] = {"positions": positions, "d_model": dm, "X": d.matrix(n, dm)}
    else:
        raw["given"] = {
            "positions": positions,
            "q": [d.nonzero_vector(dm) for _ in range(n)],
            "k": [d.nonzero_vector(dm) for _ in range(n)],
        }
    return raw


PE = Drawer(
    "Positional encoding homework",
    _check_pe,
    _draw_pe,
    lambda o, raw, d: None,
    max_tokens=8,
    reads=frozenset({"tokens", "dim", "values", "decimals"}),
)


ACTIVATIONS = ("relu", "gelu", "gelu-tanh", "silu", "swiglu")


def _check_layer(o: Options) -> None:
    if o.dim < 4:  # LayerNorm of two numbers is always [−1, 1] (up to eps): nothing to compute
        raise refuse("--dim", f"--dim {o.dim}: a transformer layer needs d_model of 4 or more (--dim 4)")
    if o.dim % o.heads:
        raise refuse("--dim", f"--dim {o.dim} does not split into --heads {o.heads} heads of equal width")
    if o.normalization not in (None, "layer", "rms"):
        raise refuse("--normalization", "transformer-layer takes layer (LayerNorm, the default) or rms (RMSNorm)")
    if o.activation not in (None, *ACTIVATIONS):
        raise refuse("--activation", f"transformer-layer takes {', '.join(ACTIVATIONS)}")
    if o.norm not in (None, "post", "pre"):
        raise refuse("--norm", "transformer-layer takes post (the norm after each residual sum, the default) or pre")
    check_window(o)
    only(o, {"heads", "cross", "window", "normalization", "activation", "norm"}, "transformer-layer")


def _draw_layer(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    """An encoder layer (a decoder layer over a drawn memory with --cross), d_ff = 2 d_model, ReLU,
    post-norm (pre-norm with --norm pre); small numbers so that the softmaxes stay away from 0 and 1."""
    d = Draw(rng, o.values, "cell")
    n, dm = o.tokens, o.dim

    def attention() -> dict[str, Any]:
        return {k: d.matrix(dm, dm) for k in ("W_Q", "W_K", "W_V", "W_O")}

    raw: dict[str, Any] = {
        "title": f"Variant {number}",
        "kind": "transformer-layer",
        "tokens": list(TOKENS[:n]),
        "given": {"X": d.inputs(n, dm), "heads": o.heads},
        "self_attention": attention(),
        "ffn": {"W_1": d.matrix(dm, 2 * dm), "W_2": d.matrix(2 * dm, dm)},
        "settings": {"decimals": o.decimals, "exact": False},
    }
    if o.activation:  # the modern layer (issue 30): SiLU, SwiGLU (W_3 the up projection), RMSNorm, a window
        raw["ffn"]["activation"] = o.activation
        if o.activation == "swiglu":
            raw["ffn"]["W_3"] = d.matrix(dm, 2 * dm)
    if o.normalization:
        raw["settings"]["normalization"] = o.normalization
    if o.norm:
        raw["settings"]["norm"] = o.norm
    if o.window:
        raw["given"]["window"] = o.window
    if o.cross:
        raw["given"]["memory"] = d.inputs(n, dm)
        raw["cross_attention"] = attention()
    return raw


def _reject_layer(o: Options, raw: dict[str, Any]) -> str | None:
    g = raw["given"]
    tables = [raw["self_attention"], raw.get("cross_attention") or {}]
    columns = [list(map(list, zip(*t[k], strict=True))) for t in tables for k in ("W_Q", "W_K", "W_V") if k in t]
    ffn = raw["ffn"]
    return zero_row(g["X"], g.get("memory"), *columns, list(map(list, zip(*ffn["W_1"], strict=True)))) or repeated_row(
        g["X"], g.get("memory")
    )


def _degeneracy_layer(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    # the self-attention's weights (the cross-attention reads normalised rows, whose scores run larger:
    # asking those to stay below 0.95 would refuse almost every draw)
    for w in [
        np.asarray(d.step(i).value, dtype=float) for i in d.step_ids if i.startswith("self.") and i.endswith(".weights")
    ]:
        masked = o.cross or bool(o.window)  # a decoder layer's self-attention is causal, and so is a window
        why = weight_rows(w, o.decimals, o.allow_ties, masked=masked)
        if why:
            return why
    for sid in d.step_ids:
        if sid.endswith(".variance") and np.any(np.asarray(d.step(sid).value, dtype=float) < 10.0**-o.decimals):
            return "a row of equal entries before a LayerNorm (variance 0)"
        if sid.endswith(".mean_square") and np.any(np.asarray(d.step(sid).value, dtype=float) < 10.0**-o.decimals):
            return "a row of zeros before an RMSNorm"
    return None


LAYER = Drawer(
    "Transformer layer homework",
    _check_layer,
    _draw_layer,
    _degeneracy_layer,
    _reject_layer,
    max_tokens=4,
    default_dim=4,  # LayerNorm of two numbers is ±1
)
