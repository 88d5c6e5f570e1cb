"""Kind ``moe``: the declaration of its problem file (a mixture-of-experts router: Switch Transformer,
Fedus et al. 2021; Mixtral, Jiang et al. 2024; Hugging Face's load_balancing_loss_func), its step ids,
its named slips and its ``attncalc new`` template."""

from __future__ import annotations

from .common import SETTINGS, SETTINGS_KEYS, TOKENS, top_table
from .decl import Key, KindSchema, Table, table

GIVEN = table(
    Key("X", "matrix", "n × d token rows", required=True, shape=("n", "d")),
    Key("W_router", "matrix", "d × E: logits = X · W_router", required=True, shape=("d", "E")),
    Key(
        "experts",
        "matrices",
        "E linear experts, d × d_out: y = x · W_e",
        required=True,
        shape=("E", "d", "d_out"),
    ),
    Key("top_k", "integer", "how many experts each token is sent to (1: Switch, 2: Mixtral)", required=True, min=1),
    Key(
        "renormalize",
        "bool",
        "gates: the top-k probabilities divided by their sum (Mixtral); false: the probabilities themselves "
        "(Switch, top_k = 1)",
        default=True,
    ),
    Key(
        "capacity_factor",
        "number",
        "optional: each expert takes at most ceil(capacity_factor · n · top_k / E) assignments, in token "
        "order; the rest are dropped (their gate counts 0)",
    ),
    Key("aux_coef", "number", "the load-balancing loss's coefficient", default=1),
    doc="the token rows, the router's weights, the experts' weights, top_k and the router's choices",
)

# only how the derivation is shown and rounded: x · W throughout (no convention to choose)
SETTINGS_MOE = SETTINGS.but(
    table=Table(tuple(k for k in SETTINGS_KEYS if k.name in ("decimals", "carry_rounded", "exact")), SETTINGS.table.doc)  # type: ignore[union-attr]
)

MOE = KindSchema(
    "moe",
    "mixture-of-experts routing: the router's softmax, top-k gates, capacity, the experts' weighted output "
    "and the load-balancing loss (Switch, Mixtral)",
    top_table("moe", GIVEN, SETTINGS_MOE, TOKENS.but(doc="optional labels, one per row of X")),
)

# the step ids, in derivation order; `attncalc list` prints them (imports neither numpy nor sympy)
STEP_IDS: list[tuple[str, str]] = [
    ("logits", "n × E: X · W_router"),
    ("probabilities", "the softmax of each row of the logits"),
    ("top_k", "n × top_k expert numbers (1-based), largest probability first, ties to the lower number"),
    ("gates", "n × top_k: the chosen probabilities over their sum (renormalize), or the probabilities themselves"),
    ("capacity", "with capacity_factor: ceil(capacity_factor · n · top_k / E), an expert's most assignments"),
    ("kept", "with capacity_factor: n × top_k, 1 kept, 0 dropped (assignments served in token order)"),
    ("expert_outputs", "n × top_k × d_out: x · W_e for each chosen expert"),
    ("output", "n × d_out: Σ gate · expert output (dropped assignments left out)"),
    ("fraction", "E: the number of the n · top_k choices that pick expert i, over n"),
    ("mean_probability", "E: the mean over the tokens of each expert's probability"),
    ("load_balancing_loss", "aux_coef · E · Σ_i fraction_i · mean_probability_i"),
]

_TEMPLATE = """# attncalc problem: mixture-of-experts routing (Mixtral's top-2 gates; Switch: top_k = 1).
# Solve it with:  attncalc solve this-file.toml
title = "A top-2 router over three experts"
kind = "moe"
tokens = ["the", "cat", "sat"]

[given]
X = [[1, 0], [0, 1], [1, 1]]                  # «given.X»
W_router = [[1, 0, -1], [0, 1, 1]]            # «given.W_router»
experts = [[[1, 0], [0, 1]], [[0, 1], [1, 0]], [[2, 0], [0, 2]]]   # «given.experts»
top_k = 2                                     # «given.top_k»
# renormalize = true                          # «given.renormalize»
# capacity_factor = 1.25                      # «given.capacity_factor»
# aux_coef = 1                                # «given.aux_coef»

[settings]
decimals = 3             # «settings.decimals»
# carry_rounded = true   # «settings.carry_rounded»
"""


TEMPLATE = MOE.fill(_TEMPLATE)
