"""The options of ``attncalc generate`` and what a run returns (no heavy imports)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..derivation import Derivation


@dataclass(frozen=True)
class Options:
    """What to draw. Options that do not concern a kind keep their defaults (a drawer refuses others)."""

    kind: str = "attention"
    score: str | None = None  # attention, self-attention: dot when None; seq2seq: by the attention
    tokens: int = 3  # positions: keys, rows of X, logits, time steps, source tokens, rows of A, steps
    dim: int = 2  # the width of every vector (d_k, d, d_h = d_x)
    head: bool = False  # attention: an output head; rnn, lstm, gru: an output layer with targets
    mask: str | None = None  # self-attention: causal
    count: int = 1
    seed: int = 0
    values: str = "int"  # int | decimal | mixed
    allow_ties: bool = False
    decimals: int = 3
    layout: str = "gates"  # recurrent cells: gates | pytorch | keras
    reset: str | None = None  # gru: after | before (None: the layout's default)
    update: str = "keep"  # gru: keep | replace
    cell: str | None = None  # seq2seq: the encoder's and the decoder's cell (default gru)
    attention: str = "luong"  # seq2seq: luong | bahdanau | none
    steps: int = 2  # seq2seq: decoder steps
    measure: str | None = None  # similarity: one measure or several, comma-separated (None: all three)
    heads: int = 2  # multi-head: query heads (dim must split into them)
    kv_heads: int | None = None  # multi-head: grouped-query key/value heads (None: as many as heads)
    positions: str | None = None  # multi-head: sinusoidal | rope | alibi; positional-encoding: sinusoidal | rope
    cross: bool = False  # multi-head: cross-attention over a drawn memory
    strategy: str | None = None  # decode: greedy | sample | top-k | top-p | beam (None: top-p)
    optimizer: str | None = None  # [training] (softmax, rnn/lstm/gru with head, seq2seq): sgd | adam | adamw
    clip_norm: float | None = None  # [training] clip_norm
    label_smoothing: float | None = None  # softmax: [settings] label_smoothing
    schedule: str | None = None  # lr-schedule: noam | cosine | linear (None: drawn per variant)
    # the modern layer (issue 30)
    window: int | None = None  # multi-head, self-attention, transformer-layer: a causal sliding window
    normalization: str | None = None  # transformer-layer: layer (LayerNorm) | rms (RMSNorm)
    activation: str | None = None  # transformer-layer: relu | gelu | gelu-tanh | silu | swiglu
    norm: str | None = None  # transformer-layer: post (the paper) | pre (LLaMA: the norm before each sublayer)
    top_k: int | None = None  # decode with top-p: the top k first (Hugging Face's order)
    # an LMS quiz (generate --format moodle|qti|qti12): every variant asks the same questions, each worth
    # the same points as variant 1's (attncalc.reports.lms.shape), so that a quiz drawing one variant per
    # student is out of check's total for every variant
    one_shape: bool = False
    # the share of a step's points a named slip earns (generate --slip-share): written into every problem
    # file as [grading] slip, so check and every LMS export give it
    slip_share: float | None = None
    # the share a step carried from a slip made earlier earns (generate --carried-share): [grading] carried,
    # so check and every LMS export give it (full marks by default)
    carried_share: float | None = None


@dataclass
class Result:
    problems: list[dict[str, Any]] = field(default_factory=list)
    derivations: list[Derivation] = field(default_factory=list)
    rejected: Counter[str] = field(default_factory=Counter)
