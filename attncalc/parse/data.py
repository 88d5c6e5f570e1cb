"""Each kind's own typed data (``Problem.data``): what its parser builds and its mechanism reads.

Each kind names its payload's class in its registry entry (``KindEntry.data``), which ``parse_problem``
checks; the class is the discriminant (a kind's mechanism reads ``d = p.payload(Sequence)``, a renderer
shared by kinds asks ``isinstance(p.data, Bleu)``). A new kind brings its own frozen dataclass, in its
own module (docs/contributing.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .types import Cell, Given, Head, OutputLayer, Problem, Recurrent, Seq2Seq


@dataclass(frozen=True)
class Attention:
    """Kind attention: one query over keys and values, the score's weights, the optional output head."""

    query: Given  # d_q
    keys: Given  # n × d_k
    values: Given  # n × d_v (the keys when the file gives none)
    scale: Given | None  # scaled-dot: the stated scale, one number
    W: Given | None  # general, concat
    W_q: Given | None  # additive
    W_k: Given | None  # additive
    v: Given | None  # additive, concat
    b: Given | None  # additive
    head: Head | None


@dataclass(frozen=True, eq=False)
class SelfAttention:
    """Kind self-attention: the rows X, the projections the file gives, the mask."""

    X: Given  # n × d
    W: dict[str, Given]  # the projections given (W_Q, W_K, W_V); an absent one is the identity
    mask: np.ndarray | None  # bool n × n, True = may attend
    mask_text: str | None  # "causal", or None for an explicit matrix
    window: int | None = None  # a sliding window (with the causal mask): query i sees keys i − w < k ≤ i


@dataclass(frozen=True)
class Sequence:
    """Kind sequence: the probability the model gave the target at each step."""

    probabilities: Given  # T
    targets: tuple[str, ...] | None  # given.targets, else the tokens, else None


@dataclass(frozen=True)
class Similarity:
    """Kind similarity: every row of A against every row of B (A itself when B is None)."""

    A: Given  # a vector (one row) or rows
    B: Given | None
    measures: tuple[str, ...]  # dot, cosine, euclidean: in the catalogue's order
    labels_B: tuple[str, ...] | None


def output_layer_of(p: Problem) -> OutputLayer | None:
    """The output layer of a recurrent kind or of a seq2seq decoder (None for other kinds, or none given)."""
    return p.data.output if isinstance(p.data, (Recurrent, Seq2Seq)) else None


def cell_of(p: Problem, part: str | None = None) -> Cell | None:
    """A recurrent kind's cell, or a seq2seq's encoder (``part`` "encoder") or decoder cell; else None."""
    if isinstance(p.data, Recurrent):
        return p.data.cell
    if isinstance(p.data, Seq2Seq):
        return p.data.encoder if part == "encoder" else p.data.decoder
    return None
