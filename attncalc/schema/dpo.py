"""Kind ``dpo``: the declaration of its problem file (Direct Preference Optimization, Rafailov et al. 2023,
with TRL's losses: sigmoid, IPO and hinge, and cDPO's label smoothing), its step ids and its template."""

from __future__ import annotations

from .common import SETTINGS, SETTINGS_KEYS, top_table
from .decl import Key, KindSchema, Table, table

LOSSES = ("sigmoid", "ipo", "hinge")
SEQUENCES = ("policy_chosen", "policy_rejected", "reference_chosen", "reference_rejected")
_WHAT = {
    "policy_chosen": "log π_θ(y_w | x)",
    "policy_rejected": "log π_θ(y_l | x)",
    "reference_chosen": "log π_ref(y_w | x)",
    "reference_rejected": "log π_ref(y_l | x)",
}


def _sequence(name: str) -> Key:
    return Key(
        name,
        "vector",
        f"{_WHAT[name]} for each pair (or its token log-probabilities: a list of lists, summed per sequence)",
        required=True,
        shape=("pairs",),
        also=("matrix",),
    )


GIVEN = table(
    Key("beta", "number", "β: the strength of the KL penalty (the temperature of the implicit reward)", required=True),
    *(_sequence(name) for name in SEQUENCES),
    Key(
        "loss",
        "choice",
        "sigmoid: −log σ(β h) (DPO) | ipo: (h − 1/(2β))² (Azar et al.) | hinge: max(0, 1 − β h)",
        default="sigmoid",
        choices=LOSSES,
    ),
    Key(
        "label_smoothing",
        "number",
        "ε (sigmoid loss only): cDPO's −(1 − ε) log σ(β h) − ε log σ(−β h), from 0 to 0.5",
        default=0,
    ),
    doc="β, the log-probabilities of the chosen and rejected responses under the policy and the reference, the loss",
)

# only how the derivation is shown and rounded (no weights act on a vector by a convention here)
SETTINGS_DPO = SETTINGS.but(
    table=Table(tuple(k for k in SETTINGS_KEYS if k.name in ("decimals", "carry_rounded", "exact")), SETTINGS.table.doc)  # type: ignore[union-attr]
)

DPO = KindSchema(
    "dpo",
    "Direct Preference Optimization's loss (sigmoid, IPO or hinge; cDPO smoothing), its implicit rewards",
    top_table("dpo", GIVEN, SETTINGS_DPO),
)

# the step ids, in derivation order (`attncalc list` imports no numpy)
STEP_IDS: list[tuple[str, str]] = [
    ("policy_chosen_sum", "token lists: log π_θ(y_w | x), the sum of the chosen response's token log-probabilities"),
    ("policy_rejected_sum", "token lists: log π_θ(y_l | x), summed over the rejected response's tokens"),
    ("reference_chosen_sum", "token lists: log π_ref(y_w | x), summed over the chosen response's tokens"),
    ("reference_rejected_sum", "token lists: log π_ref(y_l | x), summed over the rejected response's tokens"),
    ("chosen_logratios", "log π_θ(y_w | x) − log π_ref(y_w | x), per pair"),
    ("rejected_logratios", "log π_θ(y_l | x) − log π_ref(y_l | x), per pair"),
    ("logits", "h = chosen logratio − rejected logratio"),
    ("losses", "−(1 − ε) log σ(β h) − ε log σ(−β h) (sigmoid), (h − 1/(2β))² (ipo), max(0, 1 − β h) (hinge)"),
    ("loss", "the mean of the losses over the pairs"),
    ("chosen_rewards", "β · chosen logratio: the implicit reward of the chosen response"),
    ("rejected_rewards", "β · rejected logratio"),
    ("reward_margins", "chosen reward − rejected reward"),
    ("reward_accuracy", "the share of pairs whose chosen reward is greater than the rejected one"),
    ("gradient_weights", "sigmoid: β · ((1 − ε) σ(−β h) − ε σ(β h)), the weight each pair's gradient carries"),
]

_TEMPLATE = """# attncalc problem: the DPO loss of a batch of preference pairs (Rafailov et al. 2023; TRL's dpo_loss).
# Solve it with:  attncalc solve this-file.toml
# h = (log π_θ(y_w) − log π_ref(y_w)) − (log π_θ(y_l) − log π_ref(y_l)); loss = mean of −log σ(β h)
kind = "dpo"
title = "DPO loss of two preference pairs"

[given]
beta = 0.1                              # «given.beta»
policy_chosen = [-12.5, -8.25]          # «given.policy_chosen»
policy_rejected = [-14.0, -9.0]         # «given.policy_rejected»
reference_chosen = [-13.0, -8.5]        # «given.reference_chosen»
reference_rejected = [-13.5, -8.75]     # «given.reference_rejected»
# loss = "sigmoid"                      # «given.loss»
# label_smoothing = 0.0                 # «given.label_smoothing»

[settings]
decimals = 4             # «settings.decimals»
"""


TEMPLATE = DPO.fill(_TEMPLATE)
