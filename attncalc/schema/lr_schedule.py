"""Kind ``lr-schedule``, a learning-rate schedule (Noam, cosine with warmup, linear) evaluated at given
steps: its declaration, its step ids and its ``attncalc new`` template."""

from __future__ import annotations

from .common import SETTINGS, top_table
from .decl import Key, KindSchema, Select, Table, table

SCHEDULES = ("noam", "cosine", "linear")

_WARMUP = Key("warmup", "integer", "the warmup steps (the rate rises until this step)", required=True, min=0)
_COSINE = table(
    Key("lr_max", "number", "the peak rate, reached at the end of the warmup", required=True),
    Key("lr_min", "number", "the rate at `total` and after", default=0),
    _WARMUP,
    Key("total", "integer", "the step at which the decay reaches lr_min", required=True, min=1),
)
# the keys each schedule adds to [given]
SCHEDULE_GIVEN: dict[str, Table] = {
    "noam": table(
        Key("d_model", "integer", "the model width: the rate scales with d_model^(-0.5)", required=True, min=1),
        _WARMUP.but(min=1),
        Key("factor", "number", "a constant factor in front (the Annotated Transformer's `factor`)", default=1),
    ),
    "cosine": _COSINE,
    "linear": _COSINE,
}
LR_SCHEDULE_GIVEN = table(
    Key("steps", "vector", "the whole-number steps to evaluate the rate at (t ≥ 1 for noam)", required=True),
    SCHEDULE_GIVEN["noam"]["d_model"].but(required=False),
    _WARMUP.but(required=False, doc="the warmup steps: noam's rate peaks here, cosine and linear reach lr_max"),
    SCHEDULE_GIVEN["noam"]["factor"].but(doc="noam: a constant factor in front"),
    _COSINE["lr_max"].but(required=False, doc="cosine, linear: the peak rate"),
    _COSINE["lr_min"].but(doc="cosine, linear: the rate at `total` and after"),
    _COSINE["total"].but(required=False, doc="cosine, linear: the step at which the rate reaches lr_min"),
    doc="the steps, and the schedule's constants",
)

LR_SCHEDULE = KindSchema(
    "lr-schedule",
    "a learning-rate schedule (noam, cosine with linear warmup, linear) at given steps, and its peak",
    top_table(
        "lr-schedule",
        LR_SCHEDULE_GIVEN,
        SETTINGS,
        Key(
            "schedule",
            "choice",
            "noam (Vaswani et al. 2017, §5.3) | cosine (linear warmup, then a half cosine) | linear",
            default="noam",
            choices=SCHEDULES,
        ),
    ),
    selects=(Select("schedule", "given", SCHEDULE_GIVEN, always=("steps",)),),
)

# its step ids, in derivation order (here, with the declaration: `attncalc list` imports no numpy)
STEP_IDS = [
    ("lr", "the learning rate at each given step, in order"),
    ("peak_step", "the step at which the rate is largest (the end of the warmup)"),
    ("peak_lr", "the largest rate"),
]


_TEMPLATE = """# attncalc problem: a learning-rate schedule at given steps.
# Solve it with:  attncalc solve this-file.toml
# noam: lr = factor · d_model^(−0.5) · min(t^(−0.5), t · warmup^(−1.5)) (Vaswani et al. 2017, §5.3);
# cosine or linear: give lr_max, lr_min, warmup and total instead of d_model and factor
kind = "lr-schedule"
title = "The Transformer's learning-rate schedule"
schedule = "noam"             # «schedule»

[given]
steps = [1, 1000, 4000, 8000]  # «given.steps»
d_model = 512                  # «given.d_model»
warmup = 4000                  # «given.warmup»
# factor = 1                   # «given.factor»
# lr_max = 0.001               # «given.lr_max»
# lr_min = 0                   # «given.lr_min»
# total = 10000                # «given.total»

[settings]
decimals = 7                   # «settings.decimals»
"""

TEMPLATE = LR_SCHEDULE.fill(_TEMPLATE)
