"""Kind ``speculative``: the declaration of its problem file (speculative decoding: Leviathan et al. 2023,
Algorithm 1; Chen et al. 2023), its step ids and its ``attncalc new`` template."""

from __future__ import annotations

from .common import SETTINGS, SETTINGS_KEYS, top_table
from .decl import Key, KindSchema, Table, table

VOCAB = Key(
    "vocab",
    "labels",
    "the vocabulary, in order: the columns of draft and target, and the order of the running sum",
    required=True,
    shape=("V",),
)

GIVEN = table(
    Key(
        "draft",
        "matrix",
        "γ rows: the draft model's q_i over the vocabulary (each row at least 0, adding up to 1)",
        required=True,
        shape=("γ", "V"),
    ),
    Key(
        "target",
        "matrix",
        "γ + 1 rows: the target's p_i over the vocabulary (row γ + 1: the token after a full run)",
        required=True,
        shape=("γ+1", "V"),
    ),
    Key(
        "drafted",
        "labels",
        "the γ tokens the draft model proposed (labels of vocab)",
        required=True,
        shape=("γ",),
    ),
    Key(
        "uniforms",
        "vector",
        "r_i, the uniform draws of the accept tests, in [0, 1) (given, so the run is determined)",
        required=True,
        shape=("γ",),
    ),
    Key(
        "resample",
        "number",
        "the uniform draw in [0, 1) for the token after the run, by the inverse CDF in vocab order",
        required=True,
    ),
    doc="the draft's and the target's distributions, the drafted tokens and the uniform draws",
)

# only how the derivation is shown and rounded (no weights, no convention)
SETTINGS_SPECULATIVE = SETTINGS.but(
    table=Table(tuple(k for k in SETTINGS_KEYS if k.name in ("decimals", "carry_rounded", "exact")), SETTINGS.table.doc)  # type: ignore[union-attr]
)

SPECULATIVE = KindSchema(
    "speculative",
    "one round of speculative decoding: accept tests, the residual distribution, the next token, α",
    top_table("speculative", GIVEN, SETTINGS_SPECULATIVE, VOCAB),
)

# the step ids, in derivation order; `attncalc list` prints them (imports neither numpy nor sympy)
STEP_IDS: list[tuple[str, str]] = [
    ("ratios", "p_i(x_i) / q_i(x_i), for each drafted token x_i (γ entries)"),
    ("accept_probabilities", "min(1, p_i(x_i) / q_i(x_i)): the probability that x_i is accepted"),
    ("accepted", "1 when r_i ≤ min(1, ratio) and every earlier token was accepted, else 0 (γ entries)"),
    ("n_accepted", "n: how many drafted tokens were accepted (the run stops at the first rejection)"),
    (
        "residual",
        "at the first rejection j: max(0, p_j − q_j) normalised to add up to 1; all accepted: p_(γ+1)",
    ),
    ("residual_cumulative", "the residual's running sum, in vocabulary order"),
    ("next_token", "the first token whose running sum is greater than the resample draw"),
    ("output", "the accepted drafted tokens, then the next token (n + 1 tokens)"),
    ("acceptance_rates", "α_i = Σ_x min(p_i(x), q_i(x)), the chance that draft i is accepted (γ entries)"),
    ("expected_tokens", "1 + Σ_(j=1..γ) Π_(i≤j) α_i: the tokens one target pass yields, on average"),
]

_TEMPLATE = """# attncalc problem: one round of speculative decoding (Leviathan et al. 2023, Algorithm 1).
# Solve it with:  attncalc solve this-file.toml
# x_i is accepted when r_i ≤ min(1, p_i(x_i) / q_i(x_i)); at the first rejection j the next token is
# drawn from max(0, p_j − q_j) normalised (from p_(γ+1) when every draft is accepted).
title = "Speculative decoding with two drafted tokens"
kind = "speculative"
vocab = ["a", "b", "c", "d"]             # «vocab»

[given]
draft = [[0.4, 0.3, 0.2, 0.1], [0.1, 0.6, 0.2, 0.1]]    # «given.draft»
target = [[0.3, 0.4, 0.2, 0.1], [0.3, 0.3, 0.3, 0.1], [0.25, 0.25, 0.25, 0.25]]    # «given.target»
drafted = ["a", "b"]                     # «given.drafted»
uniforms = [0.5, 0.9]                    # «given.uniforms»
resample = 0.35                          # «given.resample»

[settings]
decimals = 4             # «settings.decimals»
"""


TEMPLATE = SPECULATIVE.fill(_TEMPLATE)
