"""The typed problem: what a problem file becomes once it is read and validated.

The mechanisms, the checker and the renderers read these objects; only :mod:`attncalc.parse` sees
the raw tables. Whatever layout a recurrent cell's weights were given in, :class:`Cell` holds them in
one canonical form: per gate an input matrix ``Wx`` (d_h × d_x), a recurrent matrix ``Wh``
(d_h × d_h) and two biases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from ..kinds import recurrent
from ..numbers import Node, parse_number, to_exact

_D = TypeVar("_D")

RECURRENT_KINDS = recurrent()  # rnn, lstm, gru, seq2seq: from the registry
# Canonical gate names of each cell.
GATES = {"rnn": ("h",), "lstm": ("i", "f", "g", "o"), "gru": ("r", "z", "n")}


@dataclass(frozen=True, eq=False)
class Given:
    """A vector or matrix from the problem file: the parsed number trees and their float values."""

    name: str
    nodes: np.ndarray  # object array of number trees, shape (n,) or (n, m)
    floats: np.ndarray  # float64, same shape

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.floats.shape)

    def exact(self) -> np.ndarray:
        """The exact values as an object array of sympy expressions (imports sympy)."""
        out = np.empty(self.nodes.shape, dtype=object)
        for idx, node in np.ndenumerate(self.nodes):
            out[idx] = to_exact(node)
        return out

    @classmethod
    def from_floats(cls, name: str, values: np.ndarray) -> Given:
        """A given built in code (templates, generators) from plain numbers."""
        nodes = np.empty(values.shape, dtype=object)
        for idx, x in np.ndenumerate(values):
            nodes[idx] = parse_number(float(x))
        return cls(name, nodes, np.asarray(values, dtype=float))


@dataclass(frozen=True)
class Settings:
    decimals: int = 3
    carry_rounded: bool = False
    exact: bool = True
    convention: str = "default"  # default | row | column
    temperature: Node | None = None
    shift_max: str = "auto"  # auto | always | never


@dataclass(frozen=True)
class Head:
    combine: str  # add | concat
    order: str  # context-query | query-context (concat only)
    W_c: Given | None
    W_out: Given | None  # None: the head stops at the combined (or attentional) vector
    b_out: Given | None
    vocab: tuple[str, ...] | None


@dataclass(frozen=True)
class Cell:
    """One recurrent cell in canonical form (see the module docstring)."""

    kind: str  # rnn | lstm | gru
    layout: str  # gates | pytorch | keras: how the file gave it (for the explanations)
    d_x: int
    d_h: int
    Wx: dict[str, Given]  # gate -> d_h × d_x
    Wh: dict[str, Given]  # gate -> d_h × d_h
    bx: dict[str, Given]  # gate -> d_h (input-side bias; the only bias in the per-gate layout)
    bh: dict[str, Given]  # gate -> d_h (recurrent-side bias; zeros in the per-gate layout unless b_hn)
    reset: str = "after"  # gru: where r is applied: "after" W_hn h (PyTorch, Keras) or "before" (Cho, Bahdanau)
    update: str = (
        "keep"  # gru: z keeps the old state (PyTorch, Keras, Cho) or "replace": z takes the new one (Bahdanau)
    )
    nonlinearity: str = "tanh"  # rnn: tanh | relu
    shown: tuple[Given, ...] = ()  # the weights as written in the file, for the inputs section
    order: str = "hx"  # the concatenation the gates read: [h; x] (W = [W_h | W_x]) or "xh": [x; h]

    @property
    def gates(self) -> tuple[str, ...]:
        return tuple(g for g in GATES[self.kind] if g in self.Wx)


@dataclass(frozen=True)
class Training:
    optimizer: str = "sgd"  # sgd | adam | adamw
    lr: Any = None  # number tree
    beta1: Any = None
    beta2: Any = None
    eps: Any = None
    weight_decay: Any = None  # adamw: λ (number tree); None for sgd and adam
    clip_norm: Any = None  # the global norm the gradients are clipped to first (number tree), or None


@dataclass(frozen=True)
class OutputLayer:
    W_out: Given  # V × d
    b_out: Given | None
    vocab: tuple[str, ...] | None
    targets: tuple[int, ...] | None  # one per step, 0-based


@dataclass(frozen=True)
class Recurrent:
    """Kinds rnn, lstm, gru: one cell run over a sequence (or one step)."""

    cell: Cell | None  # None when every gate of every step is stated
    x: Given | None  # T × d_x
    h0: Given
    c0: Given | None
    stated: tuple[dict[str, Given], ...]  # per step: stated gate values (canonical names)
    steps: int
    output: OutputLayer | None
    training: Training | None


@dataclass(frozen=True)
class Cache:
    """Kind multi-head's KV cache: the earlier tokens' keys and values, already projected."""

    K: Given  # t × (kv_heads·d_k), already projected (and rotated with rope)
    V: Given  # t × (kv_heads·d_v)


@dataclass(frozen=True)
class MultiHead:
    """Kind multi-head (row convention: Q = X W_Q). Heads split W_Q, W_K, W_V by column blocks."""

    X: Given  # n × d_model
    memory: Given | None  # m × d_model: cross-attention
    heads: int
    kv_heads: int
    d_k: int
    d_v: int
    W: dict[str, Given]  # W_Q, W_K, W_V, optional W_O
    b: dict[str, Given]  # optional b_Q, b_K, b_V, b_O
    allowed: np.ndarray | None  # bool n × (keys): True = may attend (mask and key padding together)
    mask_text: str | None  # causal | causal-top-left | None (a matrix)
    mask: np.ndarray | None  # the mask alone (bool), before key padding
    key_padding: np.ndarray | None  # bool (keys,), False = a padding position
    positions: str | None  # sinusoidal | rope | alibi | learned
    P: Given | None  # learned positions, n × d_model (given exactly when positions is "learned")
    cache: Cache | None
    base: Any  # position base (a number node), 10000 by default
    rope: str  # interleaved | half
    key_labels: tuple[str, ...]  # the keys' rows: cached tokens, then X's or memory's
    alibi: str = "paper"  # ALiBi slopes: paper (2^(−8j/h)) | official (the ALiBi code's, BLOOM's)
    window: int | None = None  # sliding window: query i sees keys k with i − w < k ≤ i (causal, aligned as the mask)

    @property
    def t(self) -> int:
        return 0 if self.cache is None else self.cache.K.shape[0]


@dataclass(frozen=True)
class PosEnc:
    """Kind positional-encoding."""

    type: str  # sinusoidal | rope
    positions: tuple[int, ...]
    d: int  # d_model (sinusoidal) or d_k (rope)
    X: Given | None
    q: Given | None
    k: Given | None
    base: Any
    rope: str


@dataclass(frozen=True)
class SwiGLU:
    """A SwiGLU feed-forward network's up projection: (silu(x W_1) ⊙ x W_3) W_2."""

    W_3: Given  # d_model × d_ff, the shape of the gate W_1
    b_3: Given | None


@dataclass(frozen=True)
class Layer:
    """Kind transformer-layer: an encoder layer, or a decoder layer (with cross-attention), row convention."""

    X: Given  # n × d_model
    memory: Given | None  # m × d_model (decoder)
    self_attn: MultiHead
    cross: MultiHead | None
    W_1: Given  # d_model × d_ff
    b_1: Given | None
    W_2: Given  # d_ff × d_model
    b_2: Given | None
    activation: str  # relu | gelu | gelu-tanh | silu | swiglu
    norms: tuple[tuple[Given, Given], ...]  # (γ, β) of norm1, norm2 (, norm3)
    norm: str  # post | pre
    eps: Any  # a number node
    normalization: str = "layer"  # layer (LayerNorm) | rms (RMSNorm: γ only)
    swiglu: SwiGLU | None = None  # activation swiglu: its up projection (W_1 is the gate)

    @property
    def layout(self) -> str:
        """ "encoder-post", "decoder-pre", ...: the order of its steps."""
        return f"{'decoder' if self.cross is not None else 'encoder'}-{self.norm}"


@dataclass(frozen=True)
class Bleu:
    """Kind bleu: one candidate against its references."""

    candidate: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    max_n: int
    weights: Given  # w_1 … w_N


@dataclass(frozen=True)
class GeneralScore:
    """A seq2seq decoder's general score s · (W_a h_i)."""

    W_a: Given  # d_dec × d_enc


@dataclass(frozen=True)
class AdditiveScore:
    """A seq2seq decoder's additive score v · tanh(W_q s + W_k h_i)."""

    W_q: Given  # a × d_dec
    W_k: Given  # a × d_enc
    v: Given  # a


@dataclass(frozen=True)
class Seq2Seq:
    encoder: Cell
    reverse: Cell | None  # the backward encoder when bidirectional
    x: Given  # source embeddings, n × d_x
    enc_h0: Given
    enc_c0: Given | None
    decoder: Cell  # its Wx is empty when every gate of every decoder step is stated
    attention: str  # bahdanau | luong | none
    score: str  # dot | general | additive
    input_feeding: bool
    inputs: Given | None  # decoder input embeddings y_0 .. y_{T-1} (teacher forcing), T × d_y
    dec_h0: Given | None  # None: the encoder's final state
    dec_c0: Given | None
    scorer: GeneralScore | AdditiveScore | None  # the score's own weights (None: dot, or no attention)
    W_c: Given | None  # luong: d_att × (d_enc + d_dec)
    output: OutputLayer | None  # None only without attention (the derivation ends at the decoder states)
    training: Training | None
    steps: int = 0  # decoder steps T
    enc_stated: tuple[dict[str, Given], ...] = ()  # per encoder step: stated gate values ([[encoder.gates]])
    dec_stated: tuple[dict[str, Given], ...] = ()  # per decoder step ([[decoder.gates]])


@dataclass(frozen=True)
class Grading:
    """How ``check`` awards points (the optional ``[grading]`` table)."""

    points: tuple[tuple[str, float], ...] = ()  # a step id or a pattern (a group), and its points, in file order
    default: float = 1.0  # points of every step not named
    copies: float = 0.0  # points of every copy step (an Arrange: nothing computed) not named
    carried: float = 1.0  # the share a carried step earns
    partial: bool = True  # a wrong matrix earns its right entries
    slip: float = 0.0  # the share a wrong step earns when its slip is named
    degenerate: str = "no-credit"  # below a degenerate answer: "no-credit" (no follow-through) | "credit"


@dataclass(frozen=True)
class Problem:
    path: str
    title: str
    kind: str
    score: str | None
    tokens: tuple[str, ...] | None
    given: dict[str, Given]
    settings: Settings
    description: str = ""
    answers: dict[str, Any] = field(default_factory=dict)
    grading: Grading = field(default_factory=Grading)  # [grading]: points for check
    data: object = None  # the kind's own typed payload (a frozen dataclass its parser builds): read it with payload()

    def payload(self, cls: type[_D]) -> _D:
        """The kind's own data as ``cls`` (``d = p.payload(Sequence)``): checked, so a mechanism handed
        another kind's problem fails here, naming both, instead of on a missing attribute later."""
        if not isinstance(self.data, cls):
            raise TypeError(f"a {self.kind} problem carries {type(self.data).__name__}, not {cls.__name__}")
        return self.data

    @property
    def row_convention(self) -> bool:
        """True when weights multiply from the right (x W), as in the transformer papers: the kind's
        registry entry says whether settings.convention may choose, and what "default" means."""
        from ..kinds import entry

        e = entry(self.kind)
        if e.convention_fixed or self.settings.convention == "default":
            return e.convention == "row"
        return self.settings.convention == "row"
