"""Kind ``grpo``: the declaration of its problem file (Group Relative Policy Optimization, Shao et al. 2024,
DeepSeekMath; the loss of TRL's GRPOTrainer), its step ids and its template."""

from __future__ import annotations

from .common import SETTINGS, SETTINGS_KEYS, top_table
from .decl import Key, KindSchema, Table, table

STDS = ("unbiased", "population")
NORMALIZATIONS = ("sequence", "token")
TOKEN_KEYS = ("logprobs", "old_logprobs", "ref_logprobs")


def _tokens(name: str, doc: str, required: bool = False) -> Key:
    return Key(name, "matrix", doc, required=required)


GIVEN = table(
    Key(
        "rewards",
        "vector",
        "the reward of each of the G completions of one prompt (G ≥ 2)",
        required=True,
        shape=("G",),
    ),
    _tokens("logprobs", "log π_θ of each token of each completion (a list per completion)", required=True),
    _tokens("old_logprobs", "log π_old of each token, as logprobs (default: logprobs, every ratio 1)"),
    _tokens("ref_logprobs", "log π_ref of each token, as logprobs (optional: the KL term needs it)"),
    Key("epsilon", "number", "ε: the ratios are clipped to [1 − ε, 1 + ε]", default=0.2),
    Key("beta", "number", "β: the weight of the KL penalty (ignored without ref_logprobs)", default=0.04),
    Key(
        "std",
        "choice",
        "the group's standard deviation: unbiased (n − 1, as TRL) | population (n)",
        default="unbiased",
        choices=STDS,
    ),
    Key("advantage_eps", "number", "advantages = (r − mean) / (std + advantage_eps), as TRL", default=0.0001),
    Key(
        "normalize",
        "choice",
        "sequence: each completion's mean over its tokens, then the mean (the paper) | token: over all tokens (DAPO)",
        default="sequence",
        choices=NORMALIZATIONS,
    ),
    doc="the rewards of a group of completions, their tokens' log-probabilities, ε, β and the normalisations",
)

# only how the derivation is shown and rounded (no weights act on a vector by a convention here)
SETTINGS_GRPO = SETTINGS.but(
    table=Table(tuple(k for k in SETTINGS_KEYS if k.name in ("decimals", "carry_rounded", "exact")), SETTINGS.table.doc)  # type: ignore[union-attr]
)

GRPO = KindSchema(
    "grpo",
    "Group Relative Policy Optimization's loss (DeepSeekMath, TRL): group advantages, clipped ratios, k3 KL",
    top_table("grpo", GIVEN, SETTINGS_GRPO),
)

# the step ids, in derivation order (`attncalc list` imports no numpy)
STEP_IDS: list[tuple[str, str]] = [
    ("mean_reward", "the mean of the group's rewards"),
    ("std_reward", "the group's standard deviation of the rewards (unbiased: n − 1, or population: n)"),
    ("advantages", "A_i = (r_i − mean) / (std + advantage_eps), one per completion"),
    ("ratios", "per token: exp(log π_θ − log π_old)"),
    ("clipped_ratios", "per token: the ratio clipped to [1 − ε, 1 + ε]"),
    ("surrogate", "per token: min(ratio · A, clipped ratio · A), A its completion's advantage"),
    ("kl", "with ref_logprobs, per token: exp(ref − logprob) − (ref − logprob) − 1 (the k3 estimator)"),
    ("token_losses", "per token: −(surrogate − β · kl)"),
    ("completion_losses", "sequence normalisation: each completion's mean of its token losses"),
    ("loss", "the mean of the completion losses (sequence), or of all token losses at once (token)"),
]

_TEMPLATE = """# attncalc problem: the GRPO loss of one group of completions (Shao et al. 2024; TRL's GRPOTrainer).
# Solve it with:  attncalc solve this-file.toml
# A_i = (r_i − mean) / (std + 1e-4); per token: −(min(ρ · A, clip(ρ, 1 − ε, 1 + ε) · A) − β · KL)
kind = "grpo"
title = "GRPO loss of a group of four completions"

[given]
rewards = [1, 0, 0, 1]                                              # «given.rewards»
logprobs = [[-0.5, -1.0], [-0.7], [-1.2, -0.3, -0.4], [-0.2]]       # «given.logprobs»
old_logprobs = [[-0.6, -1.0], [-0.6], [-1.0, -0.3, -0.5], [-0.2]]   # «given.old_logprobs»
ref_logprobs = [[-0.5, -1.1], [-0.8], [-1.2, -0.2, -0.4], [-0.3]]   # «given.ref_logprobs»
epsilon = 0.2                                                       # «given.epsilon»
beta = 0.04                                                         # «given.beta»
# std = "unbiased"                                                  # «given.std»
# advantage_eps = 1e-4                                              # «given.advantage_eps»
# normalize = "sequence"                                            # «given.normalize»

[settings]
decimals = 4             # «settings.decimals»
"""


TEMPLATE = GRPO.fill(_TEMPLATE)
