"""Homework for seq2seq: an encoder over the source tokens and a decoder with teacher forcing, with
Luong, Bahdanau or no attention, then logits, probabilities, predictions and the loss per step.

Encoder and decoder use the same cell (``--cell``), layout and width (``--dim``), so the decoder
starts from the encoder's final state; ``--steps`` decoder steps, each with its own target.
"""

from __future__ import annotations

import random
from typing import Any

from ..derivation import Derivation
from .base import TOKENS, Draw, Drawer, choose, only, refuse
from .guards import repeated_row, saturated, stuck_unit, tied_prediction, weight_rows, weights_of, zero_row
from .options import Options
from .recurrent import cell_options, cell_weights, check_cell, gates_all_zero, output_layer, reset_blind, reset_of
from .training import check_training, training_table

ATTENTIONS = ("luong", "bahdanau", "none")
SCORES = ("dot", "general", "additive")


def score_of(o: Options) -> str | None:
    if o.attention == "none":
        return None
    return o.score or ("dot" if o.attention == "luong" else "additive")


def cell_of(o: Options) -> str:
    return o.cell or "gru"


def _check(o: Options) -> None:
    choose(o, "cell", cell_of(o), ("rnn", "lstm", "gru"))
    choose(o, "attention", o.attention, ATTENTIONS)
    check_cell(o, cell_of(o))
    if o.attention == "none" and o.score is not None:
        raise refuse("--score", "--attention none has no score")
    score = score_of(o)
    if score is not None:
        choose(o, "score", score, SCORES)
    if not 1 <= o.steps <= 4:
        raise refuse("--steps", "choose 1 to 4 decoder steps (a hand calculation)")
    check_training(o, True, "seq2seq")
    only(o, {"score", "layout", "reset", "update", "cell", "attention", "steps", "optimizer", "clip_norm"}, "seq2seq")


def draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    d = Draw(rng, o.values, palette="cell")
    n, T, k = o.tokens, o.steps, o.dim
    cell, reset = cell_of(o), reset_of(o)
    encoder: dict[str, Any] = {"cell": cell, **cell_options(o, cell), "x": [d.nonzero_vector(k) for _ in range(n)]}
    encoder.update(cell_weights(d, cell, o.layout, reset, k, k))
    decoder: dict[str, Any] = {"cell": cell, **cell_options(o, cell), "attention": o.attention}
    score = score_of(o)
    if score is not None:
        decoder["score"] = score
    decoder["inputs"] = [d.nonzero_vector(k) for _ in range(T)]
    d_in = 2 * k if o.attention == "bahdanau" else k  # Bahdanau's cell reads [y_{t-1}; c_t]
    decoder.update(cell_weights(d, cell, o.layout, reset, d_in, k))
    if score == "general":
        decoder["W_a"] = d.matrix(k, k)
    elif score == "additive":
        decoder.update(W_q=d.matrix(k, k), W_k=d.matrix(k, k), v=d.vector(k))
    if o.attention == "luong":
        decoder["W_att"] = d.matrix(k, 2 * k)
    decoder.update(output_layer(d, rng, k, T))
    raw = {
        "title": f"Variant {number}",
        "kind": "seq2seq",
        "tokens": list(TOKENS[:n]),
        "settings": {"decimals": o.decimals, "exact": False},
        "encoder": encoder,
        "decoder": decoder,
    }
    train = training_table(o)
    if train is not None:
        raw["training"] = train
    return raw


def reject(o: Options, raw: dict[str, Any]) -> str | None:
    e, dec = raw["encoder"], raw["decoder"]
    return (
        zero_row(e["x"], dec["inputs"])
        or repeated_row(e["x"], dec.get("W_out"))
        or gates_all_zero(e)
        or gates_all_zero(dec)
    )


def degeneracy(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    why = saturated(d) or tied_prediction(d, o.decimals) or stuck_unit(d, o.decimals)
    why = why or reset_blind(raw, d, ("encoder", "decoder"))
    for w in weights_of(d, "weights"):
        why = why or weight_rows(w, o.decimals, o.allow_ties)
    return why


DRAWER = Drawer("Seq2seq homework", _check, draw, degeneracy, reject, min_tokens=2, max_tokens=6)
