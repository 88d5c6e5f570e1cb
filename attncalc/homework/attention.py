"""Homework for attention, self-attention and softmax (the first generator's kinds). The inputs (X, the
keys) are drawn with no column that is all zeros or the same for every token (a dead unit:
:mod:`attncalc.homework.dead`)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import TOKENS, VOCAB, Draw, Drawer, check_window, only, refuse
from .guards import repeated_row, tied_prediction, weight_rows, zero_row
from .options import Options
from .training import check_smoothing, check_training, training_table

ATTENTION_SCORES = ("dot", "scaled-dot", "general", "additive", "concat")


def _check(o: Options) -> None:
    score = o.score or "dot"
    if o.kind == "attention" and score not in ATTENTION_SCORES:
        raise refuse("--score", f"unknown score {score!r}")
    if o.kind == "self-attention" and score not in ("dot", "scaled-dot"):
        raise refuse("--score", "self-attention takes dot or scaled-dot")
    if o.kind == "softmax" and o.score not in (None, "dot"):  # "dot" was the option's default
        raise refuse("--score", "--score does not apply to softmax")
    if o.kind == "softmax" and o.dim != 2 and training_table(o) is None:
        raise refuse(
            "--dim", "--dim does not apply to softmax without a training step (--optimizer: the hidden's width)"
        )
    if o.mask is not None and (o.kind != "self-attention" or o.mask != "causal"):
        raise refuse("--mask", "--mask causal applies to self-attention")
    if o.head and o.kind != "attention":
        raise refuse("--head", "--head applies to attention")
    check_training(o, o.kind == "softmax", "softmax (the drawn W_out and hidden)")
    check_smoothing(o)
    if o.kind == "self-attention":
        check_window(o)
    only(
        o,
        {
            "score",
            "head",
            "mask",
            "optimizer",
            "clip_norm",
            "label_smoothing",
            *(("window",) if o.kind == "self-attention" else ()),
        },
        o.kind,
    )


def draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    """One random problem table (not yet checked for degeneracy)."""
    d = Draw(rng, o.values)
    n, k = o.tokens, o.dim
    tokens = list(TOKENS[:n])
    raw: dict[str, Any] = {
        "title": f"Variant {number}",
        "kind": o.kind,
        "tokens": tokens,
        "settings": {"decimals": o.decimals},
    }
    if o.kind == "softmax":
        labels = list(VOCAB[:n]) if n <= len(VOCAB) else tokens
        raw.pop("tokens")
        raw["given"] = {"logits": d.vector(n), "vocab": labels, "target": rng.choice(labels)}
        train = training_table(o)
        if train is not None:  # an output layer to train: z = W_out h
            raw["given"].pop("logits")
            W_out = [d.nonzero_vector(k) for _ in range(n)]  # a row of zeros: that label's logit is 0 whatever h
            raw["given"].update(W_out=W_out, hidden=d.nonzero_vector(k))
            raw["training"] = train
        if o.label_smoothing is not None:
            raw["settings"]["label_smoothing"] = o.label_smoothing
        return raw
    score = o.score or "dot"
    raw["score"] = score
    if o.kind == "self-attention":
        g: dict[str, Any] = {"X": d.inputs(n, k), "W_Q": d.matrix(k, k), "W_K": d.matrix(k, k), "W_V": d.matrix(k, k)}
        if o.mask:
            g["mask"] = o.mask
        if o.window:
            g["window"] = o.window
        raw["given"] = g
        return raw
    g = {"query": d.vector(k), "keys": d.inputs(n, k)}
    if score == "general":
        g["W"] = d.matrix(k, k)
    elif score == "additive":
        g.update(W_q=d.matrix(k, k), W_k=d.matrix(k, k), v=d.vector(k))
    elif score == "concat":
        g.update(W=d.matrix(k, 2 * k), v=d.vector(k))
    raw["given"] = g
    if o.head:
        vocab = list(VOCAB[:3])
        raw["head"] = {"combine": "add", "W_out": d.matrix(len(vocab), k), "vocab": vocab}
    return raw


def reject(o: Options, raw: dict[str, Any]) -> str | None:
    """A row of zeros; or two equal rows of an output layer (their labels' logits tie at every step)."""
    g = raw["given"]
    return zero_row(g.get("keys"), g.get("X"), g.get("query")) or repeated_row(
        g.get("W_out"), raw.get("head", {}).get("W_out")
    )


def degeneracy(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    """Tied predictions, tied or extreme weights (probabilities for softmax), unreadable exact forms."""
    why = tied_prediction(d, o.decimals)
    if why:
        return why
    final = "weights" if "weights" in d.step_ids else "probabilities"
    masked = bool(o.mask or o.window)
    why = weight_rows(np.asarray(d.step(final).value, dtype=float), o.decimals, o.allow_ties, masked=masked)
    if why:
        return why
    if any("Exact forms stop" in n for n in d.notes):
        stopped = next(n for n in d.notes if "Exact forms stop" in n).split("'")[1]
        if d.step_ids.index(stopped) <= d.step_ids.index(final):
            return "exact forms too long"
    return None


def _reads(o: Options) -> frozenset[str]:
    """Every shared option, but softmax's --dim (the hidden's width) only with a training step."""
    every = frozenset({"tokens", "dim", "values", "allow_ties", "decimals"})
    return every - {"dim"} if o.kind == "softmax" and training_table(o) is None else every


DRAWER = Drawer("Attention homework", _check, draw, degeneracy, reject, reads=_reads)
