"""Kind ``contrastive``: the declaration of its problem file (InfoNCE and CLIP's symmetric loss:
van den Oord et al. 2018, Radford et al. 2021), its step ids and its ``attncalc new`` template."""

from __future__ import annotations

from .common import SETTINGS, SETTINGS_KEYS, top_table
from .decl import Key, KindSchema, Table, table

GIVEN = table(
    Key(
        "queries",
        "matrix",
        "N × d (images); key i is query i's positive, every other key a negative",
        required=True,
        shape=("N", "d"),
    ),
    Key("keys", "matrix", "N × d (texts), one per query, in the queries' order", required=True, shape=("N", "d")),
    Key(
        "temperature", "number", "τ: the similarities are divided by it (CLIP learns it; greater than 0)", required=True
    ),
    Key("normalize", "bool", "L2-normalise every row first (CLIP): the similarities are cosines", default=True),
    Key(
        "symmetric",
        "bool",
        "CLIP: the mean of the row (query → key) and column (key → query) losses",
        default=True,
    ),
    doc="the queries, their keys (key i is query i's positive), the temperature, and CLIP's two choices",
)

# only how the derivation is shown and rounded: the rows are pairs (no convention), the temperature is given
SETTINGS_CONTRASTIVE = SETTINGS.but(
    table=Table(tuple(k for k in SETTINGS_KEYS if k.name in ("decimals", "carry_rounded", "exact")), SETTINGS.table.doc)  # type: ignore[union-attr]
)

CONTRASTIVE = KindSchema(
    "contrastive",
    "the contrastive loss of N query-key pairs: InfoNCE, and CLIP's symmetric loss with normalised rows",
    top_table("contrastive", GIVEN, SETTINGS_CONTRASTIVE),
)

# the step ids, in derivation order; `attncalc list` prints them (imports neither numpy nor sympy)
STEP_IDS: list[tuple[str, str]] = [
    ("query_norms", "with normalize: ‖q_i‖, the length of each query"),
    ("normalized_queries", "with normalize: q_i / ‖q_i‖"),
    ("key_norms", "with normalize: ‖k_j‖, the length of each key"),
    ("normalized_keys", "with normalize: k_j / ‖k_j‖"),
    ("similarities", "S = Q Kᵀ (N × N): S_ij = q_i · k_j, cosines with normalize"),
    ("logits", "Z = S / τ, the similarities divided by the temperature"),
    ("row_probabilities", "P_ij = softmax of row i of Z: query i's probability of each key"),
    ("row_losses", "ℓ_i = −ln P_ii, −ln of the diagonal (the positive pairs)"),
    ("row_loss", "L_rows = the mean of ℓ_i (InfoNCE, query → key)"),
    ("column_probabilities", "with symmetric: row j is the softmax of column j of Z (key j over the queries)"),
    ("column_losses", "with symmetric: ℓ'_j = −ln of entry j of row j of the column probabilities"),
    ("column_loss", "with symmetric: L_columns = the mean of ℓ'_j (key → query)"),
    ("loss", "(L_rows + L_columns) / 2 with symmetric, else L_rows"),
]

_TEMPLATE = """# attncalc problem: the contrastive loss of N pairs (InfoNCE; CLIP's symmetric loss).
# Solve it with:  attncalc solve this-file.toml
title = "CLIP's loss on three pairs"
kind = "contrastive"

[given]
queries = [[1, 0], [0.6, 0.8], [0, 1]]   # «given.queries»
keys = [[0.8, 0.6], [1, 0], [0, 1]]      # «given.keys»
temperature = 0.5                        # «given.temperature»
# normalize = true                       # «given.normalize»
# symmetric = true                       # «given.symmetric»

[settings]
decimals = 3             # «settings.decimals»
# carry_rounded = true   # «settings.carry_rounded»
"""


TEMPLATE = CONTRASTIVE.fill(_TEMPLATE)
