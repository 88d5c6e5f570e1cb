"""Kind ``multi-head``'s positions: the sinusoidal or learned rows added to X (and the memory), and
RoPE's rotation of each head's queries and keys; with the row ranges both write."""

from __future__ import annotations

import numpy as np

from ..derivation import Add, Arrange, Step
from ..derivation.arith import Chain
from ..parse import Problem
from ..parse.types import MultiHead
from . import positions as pos


def position_steps(
    p: Problem,
    chain: Chain,
    X: np.ndarray,
    M: np.ndarray | None,
    q_pos: list[int],
    tok: tuple[str, ...],
    steps: list[Step],
) -> tuple[np.ndarray, np.ndarray | None]:
    """Sinusoidal or learned positions added to X (and sinusoidal ones to memory)."""
    mh = p.payload(MultiHead)
    if mh.positions == "sinusoidal":
        theta, _ = pos.angles(chain, q_pos, X.shape[1], mh.base)
        P = chain.finish("positions", pos.sinusoid(chain, theta))
        steps.append(pos.positions_step("positions", P, theta, tok))
    elif mh.P is not None:  # learned positions
        steps.append(
            chain.step(
                Arrange,
                "positions",
                chain.given(mh.P),
                title="Positions (learned)",
                formula="P: one learned row per position",
                latex="P",
                symbol="P",
                rows=tok,
                source="the given matrix",
                explain="Learned positions are parameters of the model: one row per position, added to X.",
            )
        )
        P = steps[-1].value
    else:
        return X, M
    X0, P0 = chain.coerce(X, P)
    X = chain.finish("X_pos", X0 + P0)
    steps.append(add_step("X_pos", "Inputs with positions", "X_pos = X + P", "X_pos", X, (X0, P0), ("X", "P"), tok))
    if M is not None and mh.positions == "sinusoidal":
        theta_m, _ = pos.angles(chain, list(range(M.shape[0])), M.shape[1], mh.base)
        P_m = pos.sinusoid(chain, theta_m)
        M0, Pm0 = chain.coerce(M, P_m)
        M = chain.finish("memory_pos", M0 + Pm0)
        title = "Memory with positions (from 0)"
        steps.append(add_step("memory_pos", title, "M_pos = M + P", "M_pos", M, (M0, Pm0), ("M", "P"), mh.key_labels))
    return X, M


def add_step(
    step_id: str,
    title: str,
    formula: str,
    symbol: str,
    value: np.ndarray,
    parts: tuple[np.ndarray, ...],
    names: tuple[str, str],
    rows: tuple[str, ...],
) -> Add:
    return Add(
        id=step_id,
        title=title,
        formula=formula,
        latex=formula.replace("X_pos", "X_{pos}").replace("M_pos", "M_{pos}"),
        symbol=symbol,
        value=value,
        rows=rows,
        parts=parts,
        part_names=names,
        explain="The position of each token is added to its row, entry by entry.",
    )


def rope_steps(
    p: Problem,
    chain: Chain,
    steps: list[Step],
    j: int,
    Qj: np.ndarray,
    Kj: np.ndarray,
    q_pos: list[int],
    k_pos: list[int],
    tok: tuple[str, ...],
    keys: tuple[str, ...],
) -> tuple[np.ndarray, np.ndarray]:
    mh = p.payload(MultiHead)
    Qr, terms = pos.rope(chain, Qj, q_pos, mh.base, mh.rope)
    Qr = chain.finish(f"head.{j}.Q_rot", Qr)
    steps.append(
        pos.rope_step(f"head.{j}.Q_rot", f"Head {j}: queries rotated (RoPE)", f"q̃_{j}", Qr, terms, tok, mh.rope)
    )
    t = mh.t
    if t:
        new, terms = pos.rope(chain, Kj[t:], q_pos, mh.base, mh.rope)
        new = chain.finish(f"head.{j}.K_new_rot", new)
        steps.append(
            pos.rope_step(
                f"head.{j}.K_new_rot", f"Head {j}: new keys rotated (RoPE)", f"k̃_{j}", new, terms, tok, mh.rope
            )
        )
        old, new = chain.coerce(Kj[:t], new)
        steps.append(
            chain.step(
                Arrange,
                f"head.{j}.K_rot",
                np.concatenate([old, new], axis=0),
                title=f"Head {j}: keys rotated",
                formula=f"K̃_{j} = [cached keys (already rotated); new keys rotated]",
                latex=rf"\tilde K_{j}",
                symbol=f"k̃_{j}",
                rows=keys,
                source=f"{row_range(1, t)}: the cache, rotated when it was stored; {row_range(t + 1, t + len(q_pos))}: rotated now",
                explain="A cache stores keys already rotated by their positions.",
            )
        )
        Kr = steps[-1].value
        return Qr, Kr
    Kr, terms = pos.rope(chain, Kj, k_pos, mh.base, mh.rope)
    Kr = chain.finish(f"head.{j}.K_rot", Kr)
    steps.append(pos.rope_step(f"head.{j}.K_rot", f"Head {j}: keys rotated (RoPE)", f"k̃_{j}", Kr, terms, keys, mh.rope))
    return Qr, Kr


def row_range(a: int, b: int) -> str:
    return f"rows {a}–{b}" if b > a else f"row {a}"
