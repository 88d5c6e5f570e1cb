"""Kind ``positional-encoding``: the "compute the encoding" exercises on their own.

Sinusoidal: the angles pos / base^(2i/d), the encoding P (sin in the even columns, cos in the odd
ones) and, with X, X + P. RoPE: q and k rotated pair by pair, and the scores q̃ · k̃ of every pair of
rows, which depend only on how far apart the two positions are.
"""

from __future__ import annotations

import numpy as np

from ..derivation import Add, Input, Product, Step
from ..derivation.arith import Chain
from ..derivation.fmt import fmt
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.types import PosEnc
from . import positions as pos


def inputs(p: Problem) -> list[Input]:
    pe = p.payload(PosEnc)
    rows = _rows(p)
    out = [Input("positions", "pos", np.array(pe.positions, dtype=float), None, role="positions (counted from 0)")]
    for name, g, role in (("X", pe.X, "rows the positions are added to"), ("q", pe.q, "queries"), ("k", pe.k, "keys")):
        if g is not None:
            out.append(Input(name, name, g.floats, None, rows=rows, role=role))
    return out


def exact_entries(p: Problem) -> tuple[int, str]:
    """What the exact bound counts: the input entries and the positions × d/2 angles, each an exact
    form of its own (only the positions were counted, so 4 positions of width 20,000 ran past 30 s
    in sympy, inside one step the wall-clock backstop never interrupts)."""
    pe = p.payload(PosEnc)
    given = sum(np.size(i.value) for i in inputs(p))
    return given + len(pe.positions) * (pe.d // 2), "input entries and angles"


def _rows(p: Problem) -> tuple[str, ...]:
    pe = p.payload(PosEnc)
    return p.tokens or tuple(f"pos {k}" for k in pe.positions)


def run(p: Problem, chain: Chain) -> list[Step]:
    pe = p.payload(PosEnc)
    rows = _rows(p)
    positions = list(pe.positions)
    steps: list[Step] = []
    theta, written = pos.angles(chain, positions, pe.d, pe.base)
    theta = chain.finish("angles", theta)
    steps.append(pos.angles_step("angles", theta, written, rows, pe.d))
    if pe.type == "sinusoidal":
        P = chain.finish("positions", pos.sinusoid(chain, theta))
        steps.append(pos.positions_step("positions", P, theta, rows, title="Positional encoding"))
        if pe.X is not None:
            X, P0 = chain.coerce(chain.given(pe.X), P)
            steps.append(
                chain.step(
                    Add,
                    "X_pos",
                    X + P0,
                    title="Inputs with positions",
                    formula="X_pos = X + P",
                    latex=r"X_{pos} = X + P",
                    symbol="X_pos",
                    rows=rows,
                    parts=(X, P0),
                    part_names=("X", "P"),
                    explain="The encoding is added to the inputs entry by entry.",
                )
            )
        return steps
    rot: dict[str, np.ndarray] = {}
    for name, g in (("q", pe.q), ("k", pe.k)):
        if g is None:
            continue
        value, terms = pos.rope(chain, chain.given(g), positions, pe.base, pe.rope)
        value = chain.finish(f"{name}_rot", value)
        title = {"q": "Queries rotated (RoPE)", "k": "Keys rotated (RoPE)"}[name]
        steps.append(pos.rope_step(f"{name}_rot", title, f"{name}̃", value, terms, rows, pe.rope))
        rot[name] = value
    if "q" in rot and "k" in rot:
        steps.append(
            chain.step(
                Product,
                "scores",
                chain.matmul(rot["q"], rot["k"].T),
                title="Scores of the rotated rows",
                formula="S_ab = q̃_a · k̃_b",
                latex=r"S_{ab} = \tilde q_a \cdot \tilde k_b",
                symbol="S",
                rows=rows,
                cols=rows,
                left=rot["q"],
                right=rot["k"].T,
                explain="Each score depends on q_a, k_b and the distance between their positions only.",
                note=_distance_note(pe.positions),
            )
        )
    return steps


def _distance_note(positions: tuple[int, ...]) -> str:
    if len(positions) < 2:
        return ""
    return (
        "Rotated q_a times rotated k_b equals q_a times k_b rotated by the angle of pos_b − pos_a: only the "
        "distance between the positions enters, so moving both tokens by the same number of positions "
        "leaves the score unchanged."
    )


def header(p: Problem) -> list[str]:
    pe = p.payload(PosEnc)
    width = f"d_model = {pe.d}" if pe.type == "sinusoidal" else f"d_k = {pe.d}, {pe.rope} pairs"
    return [p.kind, pe.type, width, f"base {fmt(node_float(pe.base), 6)}"]
