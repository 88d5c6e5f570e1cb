"""Kind ``online-softmax``: the declaration of its problem file (the tiled softmax of FlashAttention)."""

from __future__ import annotations

from .common import SETTINGS, SETTINGS_KEYS, top_table
from .decl import Key, KindSchema, Table, table

GIVEN = table(
    Key(
        "scores",
        "vectors",
        "the scores as the softmax sees them (already scaled): one row, or n × m",
        shape=("n", "m"),
    ),
    Key("Q", "matrix", "instead of scores: the queries, n × d_k", shape=("n", "d_k")),
    Key("K", "matrix", "with Q: the keys, m × d_k (the scores Q Kᵀ are computed first)", shape=("m", "d_k")),
    Key("V", "matrix", "optional values, m × d_v: then softmax(scores) V is built block by block", shape=("m", "d_v")),
    Key("block", "integer", "keys per block (the last block may be shorter)", required=True, min=1),
    doc="the scores (or Q and K), the optional values and the block size",
)

# only how the derivation is shown and rounded: the maximum is always subtracted (shift_max) and the
# scores are rows (no convention)
SETTINGS_ONLINE = SETTINGS.but(
    table=Table(tuple(k for k in SETTINGS_KEYS if k.name in ("decimals", "carry_rounded", "exact")), SETTINGS.table.doc)  # type: ignore[union-attr]
)

ONLINE_SOFTMAX = KindSchema(
    "online-softmax",
    "the softmax taken block by block (FlashAttention): running maximum, rescaled sums and output, logsumexp",
    top_table(
        "online-softmax",
        GIVEN,
        SETTINGS_ONLINE,
        Key(
            "score",
            "choice",
            "with Q and K: scaled-dot (Q Kᵀ / √d_k) or dot (Q Kᵀ)",
            default="scaled-dot",
            choices=("scaled-dot", "dot"),
        ),
    ),
)

# the step ids, in derivation order; `attncalc list` prints them
# per block t = 1, 2, ...: `attncalc list` writes a numbered step's number as t, as for every kind
STEP_IDS: list[tuple[str, str]] = [
    ("scores", "with Q and K: S = Q Kᵀ / √d_k (scaled-dot) or Q Kᵀ (dot)"),
    ("t.scores", "block t's columns of the scores"),
    ("t.block_max", "M_t: the row maxima of block t"),
    ("t.max", "m_t = max(m_(t−1), M_t), the running maximum (m_0 = −∞)"),
    ("t.rescale", "r_t = exp(m_(t−1) − m_t), what the old sum and output are multiplied by (0 at t = 1)"),
    ("t.exponentials", "P_t = exp(S_t − m_t), the block's exponentials"),
    ("t.sum", "l_t = l_(t−1) · r_t + row sums of P_t, the running sum"),
    ("t.output", "with V: O_t = O_(t−1) · r_t + P_t V_t, the running (unnormalised) output"),
    ("max", "m: the last block's running maximum, the row maximum of all the scores"),
    ("sum", "l: the last block's running sum, Σ_j exp(S_j − m)"),
    ("logsumexp", "L = m + ln l, per row"),
    ("weights", "exp(S − L) = softmax(S), the one-shot softmax"),
    ("output", "with V: O_last / l = softmax(S) V"),
]

_TEMPLATE = """# attncalc problem: the softmax taken block by block, as FlashAttention does (the online softmax).
# Solve it with:  attncalc solve this-file.toml
title = "Online softmax in blocks of 2"
kind = "online-softmax"
# score = "scaled-dot"   # «score»

[given]
scores = [1, 3, 2, 5, 4, 0]   # «given.scores»
block = 2                     # «given.block»
# V = [[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, -1]]  # «given.V»
# Or compute the scores from queries and keys (then leave out scores):
# Q = [[1, 0], [0, 1]]        # «given.Q»
# K = [[1, 1], [0, 2], [2, 0], [1, -1], [0, 0], [2, 2]]  # «given.K»

[settings]
decimals = 3             # «settings.decimals»
# carry_rounded = true   # «settings.carry_rounded»
"""


TEMPLATE = ONLINE_SOFTMAX.fill(_TEMPLATE)
