"""Kind ``quantization``: the declaration of its problem file (integer quantization of a weight tensor,
absmax or zero-point, one scale per tensor, row or group), its step ids and its template."""

from __future__ import annotations

from .common import SETTINGS, SETTINGS_KEYS, top_table
from .decl import Key, KindSchema, Table, table

SCHEMES = ("absmax", "zeropoint")
GRANULARITIES = ("tensor", "row", "group")
MAX_BITS = 16  # 2^16 levels: past this no weight format is quantized by hand

GIVEN = table(
    Key(
        "W",
        "matrix",
        "the weights to quantize, rows × columns (a row is one output channel)",
        required=True,
        shape=("rows", "cols"),
    ),
    Key("bits", "integer", "the integer width b", required=True, min=2, max=MAX_BITS),
    Key(
        "scheme",
        "choice",
        "absmax: symmetric, scale = max|w| / (2^(b−1) − 1) | zeropoint: asymmetric over [min(w, 0), max(w, 0)], "
        "scale = (max − min) / (2^b − 1), zero_point = round(−min / scale)",
        default="absmax",
        choices=SCHEMES,
    ),
    Key(
        "granularity",
        "choice",
        "tensor (one scale) | row (one scale per row, per output channel) | group (per `group` entries of a row)",
        default="tensor",
        choices=GRANULARITIES,
    ),
    Key("group", "integer", 'with granularity = "group": consecutive entries of a row per scale', min=1),
    Key("x", "vector", "optional input row: compares x · Wᵀ with x · dequantized(W)ᵀ", shape=("cols",)),
    doc="the weights, the integer width, the scheme and the granularity",
)

# only how the derivation is shown and rounded (no weights act on a vector by a convention here)
SETTINGS_QUANT = SETTINGS.but(
    table=Table(tuple(k for k in SETTINGS_KEYS if k.name in ("decimals", "carry_rounded", "exact")), SETTINGS.table.doc)  # type: ignore[union-attr]
)

QUANTIZATION = KindSchema(
    "quantization",
    "integer quantization of a weight tensor: absmax or zero-point, per tensor, row or group; the errors",
    top_table("quantization", GIVEN, SETTINGS_QUANT),
)

# the step ids, in derivation order (`attncalc list` imports no numpy)
STEP_IDS: list[tuple[str, str]] = [
    ("ranges", "per scale: max|w| (absmax), or [min(w, 0), max(w, 0)] (zeropoint)"),
    ("scales", "max|w| / (2^(b−1) − 1) (absmax) or (max − min) / (2^b − 1) (zeropoint); 1 for an all-zero range"),
    ("zero_points", "zeropoint: round(−min / scale), half to even"),
    ("quantized", "q = clamp(round(w / scale) + zero_point), half to even: the integers"),
    ("dequantized", "(q − zero_point) · scale"),
    ("errors", "W − dequantized"),
    ("max_error", "max |error|"),
    ("mse", "the mean of the squared errors"),
    ("output", "with x: x · Wᵀ"),
    ("output_dequantized", "with x: x · dequantized(W)ᵀ"),
    ("output_error", "with x: output − output_dequantized"),
]

_TEMPLATE = """# attncalc problem: integer quantization of a weight matrix (absmax or zero-point).
# Solve it with:  attncalc solve this-file.toml
# q = clamp(round(w / scale) + zero_point); rounding is half to even, as torch's
kind = "quantization"
title = "8-bit absmax quantization, one scale per row"

[given]
W = [[0.5, -1.2, 0.3, 2.0], [-0.4, 0.1, 0.9, -0.6]]   # «given.W»
bits = 8                 # «given.bits»
scheme = "absmax"        # «given.scheme»
granularity = "row"      # «given.granularity»
# group = 2              # «given.group»
# x = [1, 0, -1, 2]      # «given.x»

[settings]
decimals = 4             # «settings.decimals»
"""


TEMPLATE = QUANTIZATION.fill(_TEMPLATE)
