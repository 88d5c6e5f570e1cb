"""Kind ``similarity``: how alike embedding vectors are, every row of A against every row of B.

dot: a_i · b_j. cosine: a_i · b_j / (‖a_i‖ ‖b_j‖), the dot product of the two directions, from −1
(opposite) to 1 (same direction). euclidean: ‖a_i − b_j‖ = √(Σ_k (a_ik − b_jk)²). A flat vector is
one row whose axis the results drop: two flat vectors give numbers, rows an (rows of A) × (rows of
B) matrix.
"""

from __future__ import annotations

import numpy as np

from ..derivation import Add, Cosine, Input, Norm, Product, Step
from ..derivation.arith import Chain, is_exact
from ..parse import Problem
from ..parse.data import Similarity
from ..parse.similarity import labels
from .common import simplify_radicals


def inputs(p: Problem) -> list[Input]:
    la, lb = labels(p)
    d = p.payload(Similarity)
    out = []
    for name, lab, g in (("A", la, d.A), ("B", lb, d.B)):
        if g is None:
            continue
        role = "the vectors compared" if name == "A" else "compared with every row of A"
        out.append(Input(name, name, g.floats, None, rows=lab if len(g.shape) == 2 else None, role=role))
    return out


def _sqrt_sum_squares(chain: Chain, X: np.ndarray) -> np.ndarray:
    """√(Σ_k x_k²) over the last axis (Σ x_k² under the mistake that leaves the root out)."""
    squares = X * X
    total = np.asarray(squares.sum(axis=-1), dtype=object if is_exact(X) else float)
    return total if chain.mistake == "norm_squared" else chain.sqrt(total)


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(Similarity)
    ms = d.measures
    la, lb = labels(p)
    A = chain.given(d.A)
    B = chain.given(d.B) if d.B is not None else A
    A, B = chain.coerce(A, B)
    flat_a, flat_b = A.ndim == 1, B.ndim == 1
    rows = la if not flat_a else (lb if not flat_b else None)
    cols = lb if not (flat_a or flat_b) else None
    A2, B2 = A.reshape(-1, A.shape[-1]), B.reshape(-1, B.shape[-1])
    shape = (() if flat_a else (A2.shape[0],)) + (() if flat_b else (B2.shape[0],))
    steps: list[Step] = []
    ai, bj = ("a" if flat_a else "a_i"), ("b" if flat_b else "b_j")
    ak, bk = ("a_k" if flat_a else "a_ik"), ("b_k" if flat_b else "b_jk")

    dots = None
    if "dot" in ms or "cosine" in ms:
        right = B if flat_b else B.T
        steps.append(
            chain.step(
                Product,
                "dots",
                np.asarray(chain.matmul(A, right)).reshape(shape),
                title="Dot products",
                formula=f"{ai} · {bj} = Σ_k {ak} {bk}",
                latex="",
                symbol="a·b",
                rows=rows,
                cols=cols,
                left=A,
                right=right,
                explain="Multiply the vectors entry by entry and add: large when they point the same way and are long.",
            )
        )
        dots = steps[-1].value
    if "cosine" in ms or "euclidean" in ms:
        na = chain.finish("norms_A", _sqrt_sum_squares(chain, A).reshape(A.shape[:-1]))
        steps.append(_norm_step("norms_A", "a", A, na, la if not flat_a else None, "of A"))
        nb = na
        if d.B is not None:
            nb = chain.finish("norms_B", _sqrt_sum_squares(chain, B).reshape(B.shape[:-1]))
            steps.append(_norm_step("norms_B", "b", B, nb, lb if not flat_b else None, "of B"))
        if "cosine" in ms:
            assert dots is not None
            da = np.broadcast_to(na.reshape(na.shape + (1,) * (0 if flat_b else 1)), shape)
            db = np.broadcast_to(nb, shape)
            den = da if chain.mistake == "cosine_one_norm" else da * db
            steps.append(
                chain.step(
                    Cosine,
                    "cosines",
                    simplify_radicals(np.asarray(dots / den, dtype=dots.dtype)),
                    title="Cosine similarities",
                    formula=f"cos({ai}, {bj}) = {ai} · {bj} / (‖{ai}‖ ‖{bj}‖)",
                    latex="",
                    symbol="cos",
                    rows=rows,
                    cols=cols,
                    num=dots,
                    den_a=np.array(da),
                    den_b=np.array(db),
                    explain="The dot product of the two directions: 1 the same direction, 0 at right angles, "
                    "−1 opposite; the lengths no longer matter.",
                )
            )
    if "euclidean" in ms:
        Ab = A2[:, None, :]
        diff3 = Ab - B2[None, :, :]  # (rows of A, rows of B, d)
        n_pairs = diff3.shape[0] * diff3.shape[1]
        diff_shape = (A.shape[-1],) if not shape else (n_pairs, A.shape[-1])
        parts = (
            np.broadcast_to(Ab, diff3.shape).reshape(diff_shape),
            np.asarray(np.broadcast_to(B2[None, :, :], diff3.shape)).reshape(diff_shape),
        )
        pair_names = tuple(f"{la[i]} − {lb[j]}" for i in range(A2.shape[0]) for j in range(B2.shape[0]))
        steps.append(
            chain.step(
                Add,
                "differences",
                np.asarray(diff3, dtype=diff3.dtype).reshape(diff_shape),
                title="Differences",
                formula=f"{ai} − {bj}" + (", one row per pair" if shape else ""),
                latex="",
                symbol="a−b" if not shape else "d",
                rows=pair_names if shape else None,
                parts=tuple(np.array(x) for x in parts),
                part_names=("a", "b"),
                signs=(1, -1),
                explain="Subtract entry by entry: the vector from b to a.",
            )
        )
        diff = steps[-1].value
        arg = diff.reshape((*shape, A.shape[-1]))
        total = np.asarray((arg * arg).sum(axis=-1), dtype=arg.dtype)
        steps.append(
            chain.step(
                Norm,
                "distances",
                total if chain.mistake == "distance_squared" else chain.sqrt(total),
                title="Euclidean distances",
                formula=f"‖{ai} − {bj}‖ = √(Σ_k ({ak} − {bk})²)",
                latex="",
                symbol="dist",
                rows=rows,
                cols=cols,
                arg=arg,
                explain="The length of the difference: 0 for equal vectors, larger the further apart they are.",
            )
        )
    return steps


def _norm_step(
    step_id: str, v: str, X: np.ndarray, value: np.ndarray, rows: tuple[str, ...] | None, whose: str
) -> Norm:
    i = "" if X.ndim == 1 else ("i" if v == "a" else "j")
    sub = f"_{i}" if i else ""
    return Norm(
        id=step_id,
        title=f"Length{'s of the rows' if i else ''} {whose}",
        formula=f"‖{v}{sub}‖ = √(Σ_k {v}_{i}k²)",
        latex="",
        symbol=f"‖{v}‖",
        value=value,
        rows=rows,
        arg=X,
        explain="The length (Euclidean norm) of a vector: the square root of the sum of its squared entries.",
    )


def header(p: Problem) -> list[str]:
    d = p.payload(Similarity)
    return [p.kind, ", ".join(d.measures), "B = A" if d.B is None else "A against B"]
