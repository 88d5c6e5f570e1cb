"""Keys shared by several kinds: the top-level keys, [settings], [training], output layers, cells."""

from __future__ import annotations

from .decl import Key, Table, table

TITLE = Key("title", "string", "a heading for the derivation (default: the file's name)")
DESCRIPTION = Key("description", "string", "a sentence or two shown under the title", default="")
TOKENS = Key("tokens", "labels", "optional labels, one per position")
ANSWERS = Key("answers", "any", "hand answers for `attncalc check`, keyed by step id (see `attncalc list`)")
SCHEMA = Key("$schema", "string", "the JSON Schema an editor checks this file with (ignored by attncalc)")

SETTINGS_KEYS = (
    Key("decimals", "integer", "digits shown", default=3, min=0, max=12),
    Key(
        "carry_rounded", "bool", "true: round every step to `decimals` and carry it forward, as by hand", default=False
    ),
    Key("exact", "bool", "also derive exact forms (1/(1 + 2e) rather than 0.155)", default=True),
    Key(
        "convention",
        "choice",
        '"column": weights act as W x (papers); "row": x W (stacked rows, PyTorch)',
        default="default",
        choices=("default", "row", "column"),
    ),
    Key("temperature", "number", "softmax(z / T)"),
    Key("position_base", "number", "sinusoidal and RoPE positions: the base of the frequencies", default=10000),
    Key(
        "rope",
        "choice",
        "RoPE pairing: interleaved (2i, 2i+1), as the paper | half (i, i + d/2), as GPT-NeoX and LLaMA",
        default="interleaved",
        choices=("interleaved", "half"),
    ),
    Key(
        "alibi",
        "choice",
        "multi-head ALiBi slopes: paper (m_j = 2^(−8j/h)) | official (the ALiBi code's and BLOOM's: for h not a "
        "power of two, the slopes of the power of two below, then every other slope of twice that)",
        default="paper",
        choices=("paper", "official"),
    ),
    Key(
        "norm",
        "choice",
        "transformer-layer: post (LayerNorm after each residual sum, the paper) | pre (before each sublayer)",
        default="post",
        choices=("post", "pre"),
    ),
    Key("eps", "number", "transformer-layer: LayerNorm's ε, added to the variance under the root", default="1e-5"),
    Key(
        "shift_max",
        "choice",
        "subtract the maximum score before exp: auto | always | never",
        default="auto",
        choices=("auto", "always", "never"),
        also=("bool",),
    ),
    # the modern layer (issue 30)
    Key(
        "normalization",
        "choice",
        "transformer-layer: layer (LayerNorm: mean, variance, γ and β) | rms (RMSNorm, γ only, as LLaMA)",
        default="layer",
        choices=("layer", "rms"),
    ),
)
# `temperature` belongs to kind softmax only, the position keys to the kinds with positions
# kind softmax only: label smoothing (PyTorch's CrossEntropyLoss convention)
LABEL_SMOOTHING = Key(
    "label_smoothing",
    "number",
    "softmax with a target: ε, the target becomes q = (1 − ε)·y + ε/K (PyTorch's CrossEntropyLoss)",
)
# kind attention-backward's own settings key (in no other kind's table)
JACOBIAN = Key(
    "jacobian",
    "bool",
    "attention-backward: also write each query row's softmax Jacobian J = diag(a) − a aᵀ",
    default=False,
)
# the settings table's description; which keys a file may use at all is read from the kinds'
# declarations (attncalc.parse.top.settings_table)
SETTINGS_DOC = "how the derivation is shown and rounded"
POSITION_SETTINGS = ("position_base", "rope")
LAYER_SETTINGS = ("norm", "eps", "normalization")
MULTI_HEAD_SETTINGS = ("alibi",)
SETTINGS_TABLE = Table(
    tuple(
        k
        for k in SETTINGS_KEYS
        if k.name not in ("temperature", *POSITION_SETTINGS, *LAYER_SETTINGS, *MULTI_HEAD_SETTINGS)
    ),
    SETTINGS_DOC,
)
SETTINGS = Key("settings", "table", "how the derivation is shown and rounded", table=SETTINGS_TABLE)
SETTINGS_SOFTMAX = SETTINGS.but(
    table=Table(
        tuple(k for k in SETTINGS_KEYS if k.name not in (*POSITION_SETTINGS, *LAYER_SETTINGS, *MULTI_HEAD_SETTINGS)),
        SETTINGS_DOC,
    )
)
# kind softmax itself: decode shares SETTINGS_SOFTMAX, label smoothing is the softmax kind's own
SETTINGS_SOFTMAX_KIND = SETTINGS.but(table=Table((*SETTINGS_SOFTMAX.table.keys, LABEL_SMOOTHING), SETTINGS_DOC))  # type: ignore[union-attr]
SETTINGS_POSITIONS = SETTINGS.but(
    table=Table(
        tuple(
            k
            for k in SETTINGS_KEYS
            if k.name not in ("temperature", "convention", *LAYER_SETTINGS, *MULTI_HEAD_SETTINGS)
        ),
        SETTINGS_DOC,
    )
)
SETTINGS_MULTI_HEAD = SETTINGS.but(
    table=Table(
        tuple(k for k in SETTINGS_KEYS if k.name not in ("temperature", "convention", *LAYER_SETTINGS)),
        SETTINGS_DOC,
    )
)
SETTINGS_LAYER = SETTINGS.but(
    table=Table(
        tuple(k for k in SETTINGS_KEYS if k.name not in ("temperature", "convention", *MULTI_HEAD_SETTINGS)),
        SETTINGS_DOC,
    )
)

GRADING_TABLE = table(
    Key(
        "points",
        "any",
        'points per step id, or per group: a pattern such as "1.*" shares its points among the steps it matches',
    ),
    Key("default", "number", "points of every step that points does not name", default=1),
    Key(
        "copies",
        "number",
        "points of every copy step that points does not name (nothing computed: a head's block of Q, K or V, the heads side by side)",
        default=0,
    ),
    Key("carried", "number", "the share of its points a carried step earns (0 to 1)", default=1),
    Key("partial", "bool", "a wrong vector or matrix earns the share of its right entries", default=True),
    Key("slip", "number", "the share of its points a wrong step earns when check names its slip (0 to 1)", default=0),
    Key(
        "degenerate",
        "choice",
        "no-credit: no step below a degenerate answer (all zeros, all equal, a given copied) earns follow-through; credit: they do",
        default="no-credit",
        choices=("no-credit", "credit"),
    ),
    doc="points for `attncalc check`",
)
GRADING = Key(
    "grading",
    "table",
    "points for `attncalc check`: per step or group, carried and partial credit",
    table=GRADING_TABLE,
)

TRAINING_TABLE = table(
    Key(
        "optimizer",
        "choice",
        "sgd | adam (first step) | adamw (Adam's first step with decoupled weight decay, as torch.optim.AdamW)",
        default="sgd",
        choices=("sgd", "adam", "adamw"),
    ),
    Key("lr", "number", "the learning rate (default 0.1 for sgd, 0.001 for adam and adamw)"),
    Key("beta1", "number", "adam, adamw: first-moment decay", default="0.9"),
    Key("beta2", "number", "adam, adamw: second-moment decay", default="0.999"),
    Key("eps", "number", "adam, adamw: added to the root of the second moment", default="1e-8"),
    Key("weight_decay", "number", "adamw: λ, the parameter shrinks by lr·λ·θ before the Adam step", default="0.01"),
    Key(
        "clip_norm",
        "number",
        "clip the gradients together to this global L2 norm first (torch.nn.utils.clip_grad_norm_)",
    ),
    doc="one training step on the output layer",
)
TRAINING = Key("training", "table", "one update of W_out (and b_out): needs targets", table=TRAINING_TABLE)

# the output layer of the recurrent kinds and the seq2seq decoder
W_OUT = Key("W_out", "matrix", "one row per vocabulary entry", shape=("V", "d_h"))
B_OUT = Key("b_out", "vector", "the output layer's bias", shape=("V",))
VOCAB = Key("vocab", "labels", "the labels of the vocabulary entries, one per row of W_out")
TARGETS = Key("targets", "indices", "the target of each step: a vocab label or a 0-based index")
OUTPUT_KEYS = (W_OUT, B_OUT, VOCAB, TARGETS)

# ------------------------------------------------------------------ recurrent cells

CELLS = ("rnn", "lstm", "gru")
LAYOUTS = ("gates", "pytorch", "keras")

CELL = Key("cell", "choice", "rnn | lstm | gru", default="gru", choices=CELLS)
LAYOUT = Key(
    "layout",
    "choice",
    "gates | pytorch (weight_ih, weight_hh, bias_ih, bias_hh) | keras (kernel, recurrent_kernel, bias)",
    default="gates",
    choices=LAYOUTS,
)
RESET = Key(
    "reset",
    "choice",
    "after: r ⊙ (W_hn h + b_hn) (PyTorch, Keras) | before: W (r ⊙ h) (Cho, Bahdanau)",
    choices=("after", "before"),
)
UPDATE = Key(
    "update",
    "choice",
    "keep: h = (1 - z) h~ + z h (PyTorch, Keras, Cho) | replace: h = z h~ + (1 - z) h (Bahdanau)",
    default="keep",
    choices=("keep", "replace"),
)
NONLINEARITY = Key("nonlinearity", "choice", "rnn: tanh | relu", default="tanh", choices=("tanh", "relu"))
ORDER = Key(
    "order",
    "choice",
    "the concatenation the gates read: hx: [h; x], W_* = [W_h | W_x] | xh: [x; h], W_* = [W_x | W_h] "
    "(textbooks that write W [x_t; h_t−1])",
    default="hx",
    choices=("hx", "xh"),
)
BIDIRECTIONAL = Key(
    "bidirectional", "bool", "true: a backward cell too, its weights in [encoder.reverse]", default=False
)
CELL_OPTIONS = (CELL, LAYOUT, RESET, UPDATE, NONLINEARITY, ORDER, BIDIRECTIONAL)

_MX = "matrix"
GATE_LAYOUT_KEYS = (
    Key("W_f", _MX, "lstm: the forget gate's weights over [h; x]"),
    Key("b_f", "vector", "lstm: the forget gate's bias (zero when omitted)"),
    Key("W_i", _MX, "lstm: the input gate's weights over [h; x]"),
    Key("b_i", "vector", "lstm: the input gate's bias"),
    Key("W_c", _MX, "lstm: the candidate's weights over [h; x]"),
    Key("b_c", "vector", "lstm: the candidate's bias"),
    Key("W_o", _MX, "lstm: the output gate's weights over [h; x]"),
    Key("b_o", "vector", "lstm: the output gate's bias"),
    Key("W_z", _MX, "gru: the update gate's weights over [h; x]"),
    Key("b_z", "vector", "gru: the update gate's bias"),
    Key("W_r", _MX, "gru: the reset gate's weights over [h; x]"),
    Key("b_r", "vector", "gru: the reset gate's bias"),
    Key("W_h", _MX, "gru: the candidate's weights over [h; x]"),
    Key("b_h", "vector", "gru: the candidate's bias"),
    Key("W", _MX, "rnn: the weights over [h; x]"),
    Key("b", "vector", "rnn: the bias"),
    Key("b_hn", "vector", 'gru with reset = "after": the recurrent bias of the candidate'),
)
PYTORCH_LAYOUT_KEYS = (
    Key("weight_ih", _MX, "the input weights, gates stacked by rows (i, f, g, o or r, z, n)"),
    Key("weight_hh", _MX, "the recurrent weights, gates stacked by rows"),
    Key("bias_ih", "vector", "the input-side biases, stacked"),
    Key("bias_hh", "vector", "the recurrent-side biases, stacked"),
)
KERAS_LAYOUT_KEYS = (
    Key("kernel", _MX, "the input weights (x W), gates stacked by columns (i, f, c, o or z, r, h)"),
    Key("recurrent_kernel", _MX, "the recurrent weights (h W), gates stacked by columns"),
    Key(
        "bias",
        "vector",
        "the biases, stacked (a GRU with reset after: two rows, input and recurrent)",
        also=("matrix",),
    ),
)
LAYOUT_KEYS = {"gates": GATE_LAYOUT_KEYS, "pytorch": PYTORCH_LAYOUT_KEYS, "keras": KERAS_LAYOUT_KEYS}
ALL_LAYOUT_KEYS = GATE_LAYOUT_KEYS + PYTORCH_LAYOUT_KEYS + KERAS_LAYOUT_KEYS

# gate values a problem may state instead of computing them, one table per step
STATED = {"lstm": ("f", "i", "c_tilde", "o"), "gru": ("r", "z", "h_tilde"), "rnn": ()}
_STATED_DOC = {
    "f": "the forget gate's value",
    "i": "the input gate's value",
    "c_tilde": "the candidate's value",
    "o": "the output gate's value",
    "r": "the reset gate's value",
    "z": "the update gate's value",
    "h_tilde": "the candidate's value",
}


def stated_gates(cells: tuple[str, ...]) -> Key:
    """``[[...gates]]``: the gate values stated for each step (of the cells named)."""
    names = [g for c in cells for g in STATED[c]]
    return Key(
        "gates",
        "tables",
        "gate values stated instead of computed, one table per step",
        table=table(*(Key(n, "vector", _STATED_DOC[n], shape=("d_h",)) for n in dict.fromkeys(names))),
    )


H0 = Key("h0", "vector", "the initial hidden state (zeros when omitted)", shape=("d_h",))
C0 = Key("c0", "vector", "lstm: the initial cell state (zeros when omitted)", shape=("d_h",))


def kind_key(*names: str) -> Key:
    """The top-level `kind`: one of the names this declaration serves."""
    return Key("kind", "choice", "the kind of problem (see `attncalc list`)", choices=names, required=True)


def top_table(kind: str, given: Table, settings: Key = SETTINGS, *after_kind: Key) -> Table:
    """A kind's whole file in the usual order: title, kind (and its own top-level keys), description,
    [given], [settings], answers, [grading], $schema."""
    return table(
        TITLE,
        kind_key(kind),
        *after_kind,
        DESCRIPTION,
        Key("given", "table", given.doc, table=given, required=True),
        settings,
        ANSWERS,
        GRADING,
        SCHEMA,
    )


# the pieces of `attncalc new` templates that several kinds' templates share (their «placeholders»
# filled from each kind's own declaration)
TEMPLATE_SETTINGS = """
[settings]
decimals = 3             # «settings.decimals»
carry_rounded = false    # «settings.carry_rounded»
exact = true             # «settings.exact»
# convention = "column"  # «settings.convention»
# shift_max = "auto"     # «settings.shift_max»
"""

TEMPLATE_GRADING = """
# Optional points for `attncalc check` (when omitted: one point a step, none for a copy step):
# [grading]
# default = 1            # «grading.default»
# copies = 0             # «grading.copies»
# carried = 0.5          # «grading.carried»
# partial = true         # «grading.partial»
# slip = 0               # «grading.slip»
# [grading.points]       # «grading.points»
# {example}
"""
