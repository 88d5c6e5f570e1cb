"""Kind positional-encoding: the positions, and the width (sinusoidal) or the rows RoPE rotates.

The declaration reads the keys and its ``type`` select says which type takes which (d_model and X for
sinusoidal, q, k and d_k for rope); the positions fix the rows of X, q and k, d_model the width of X,
and q and k share a width d_k. The rules here are the ones it cannot say: a list of positions holds
whole numbers from 0, RoPE's width comes from q and k or from d_k, a stated width agrees with q and
k, the width is even and at most MAX_ENCODING_WIDTH, and the settings of the other type are refused.
"""

from __future__ import annotations

from typing import Any

from .. import kinds
from ..numbers import to_float
from ..schema.transformer import POSITIONAL_GIVEN, POSITIONAL_TYPES
from .declared import Dims, check_select, read_declared
from .limits import MAX_ENCODING_WIDTH
from .reader import Reader, check_tokens
from .types import Given, PosEnc, Problem

MAX_POSITIONS = 64  # written out one row each


def _positions(r: Reader, value: int | Given) -> tuple[int, ...]:
    """A count (0 … count − 1) or a list of positions, each a whole number from 0."""
    if isinstance(value, int):
        positions = tuple(range(value))
    else:
        for i, x in enumerate(value.floats, 1):
            if x < 0 or not float(x).is_integer():
                raise r.fail("given.positions", f"entry {i}: expected a position 0, 1, 2, …, got {x:g}")
        positions = tuple(int(x) for x in value.floats)
    if len(positions) > MAX_POSITIONS:
        raise r.fail("given.positions", f"{len(positions)} positions: at most {MAX_POSITIONS} are written out")
    return positions


def _width(r: Reader, kind_type: str, g: dict[str, Any], dims: Dims) -> tuple[int, str, str]:
    """The encoding's width, the key it comes from, and what that key says of it ("is 6")."""
    if kind_type == "sinusoidal":
        return g["d_model"], "given.d_model", f"is {g['d_model']:,}"
    rows = g["q"] if g["q"] is not None else g["k"]
    if rows is None:
        if g["d_k"] is None:
            raise r.fail("given.d_k", "missing: the head width (or give q and k rows)")
        return g["d_k"], "given.d_k", f"is {g['d_k']:,}"
    for key in ("d_k", "d_model"):  # a stated width agrees with the rows (named under the key the file has)
        if g[key] is not None:
            dims.bind(r, "d_k", g[key], f"given.{key}", f"is {g[key]!r}")
    name = "given.q" if g["q"] is not None else "given.k"
    return rows.shape[1], name, f"has rows of width {rows.shape[1]:,}"


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind positional-encoding, past the top level."""
    decl = kinds.entry("positional-encoding").declaration
    top = read_declared(r, raw, decl.top, "", only=("type",))
    kind_type: str = top["type"]
    check_select(r, raw["given"], POSITIONAL_TYPES, kind_type, "given")
    g = read_declared(r, raw["given"], POSITIONAL_GIVEN, "given", skip=("X", "q", "k"))
    positions = _positions(r, g["positions"])
    dims = Dims()
    dims.bind(r, "positions", len(positions), "given.positions", "")
    if g["d_model"] is not None and kind_type == "sinusoidal":
        dims.bind(r, "d_model", g["d_model"], "given.d_model", "")
    g.update(read_declared(r, raw["given"], POSITIONAL_GIVEN, "given", dims, only=("X", "q", "k")))
    d, key, what = _width(r, kind_type, g, dims)
    if d > MAX_ENCODING_WIDTH:
        raise r.fail(key, f"{what}: a positional encoding is at most {MAX_ENCODING_WIDTH:,} wide")
    if d % 2:
        tail = "the encoding pairs columns" if key != "given.q" and key != "given.k" else "RoPE turns pairs of columns"
        raise r.fail(key, f"{d} is odd: {tail}" if what.startswith("is") else f"{what}, which is odd: {tail}")
    settings_raw: dict[str, Any] = raw["settings"] if isinstance(raw.get("settings"), dict) else {}
    if kind_type == "sinusoidal" and "rope" in settings_raw:
        raise r.fail("settings.rope", "applies to type 'rope' only")
    s = read_declared(r, settings_raw, decl.top["settings"].table, "settings", only=("position_base", "rope"))  # type: ignore[arg-type]
    if to_float(s["position_base"]) <= 1:
        raise r.fail("settings.position_base", "must be greater than 1 (the papers use 10000)")
    check_tokens(r, common["tokens"], len(positions), "given.positions lists")
    pe = PosEnc(kind_type, positions, d, g["X"], g["q"], g["k"], s["position_base"], s["rope"])
    given = {name: v for name, v in (("X", pe.X), ("q", pe.q), ("k", pe.k)) if v is not None}
    return Problem(given=given, data=pe, **common)
