"""Parsing of kind ``similarity``: the vectors compared and the measures asked for.

Every row of ``given.A`` is compared with every row of ``given.B`` (default: A with itself). A flat
vector stands for one row and drops its axis from the results, so two flat vectors give numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import kinds
from ..schema import catalog
from ..schema.feedforward import SIMILARITY_GIVEN
from .data import Similarity
from .declared import read_declared
from .limits import MAX_PAIR_ENTRIES, MAX_PAIRS
from .types import Given, Problem

if TYPE_CHECKING:
    from .reader import Reader


def _rows(g: Given) -> int:
    return 1 if len(g.shape) == 1 else g.shape[0]


def similarity(r: Reader, raw: dict[str, Any], tokens: tuple[str, ...] | None) -> Similarity:
    """The vectors and the measures, read from the declaration (A and B of one width d, labels_B one per
    row of B); the cross-key rules: labels only for a B that is given, a zero row only without cosine."""
    decl = kinds.entry("similarity").declaration.top
    top = read_declared(r, raw, decl, "", only=("measure",))
    measures = tuple(m for m in catalog.MEASURES if m in top["measure"])  # computed in the catalogue's order
    given = read_declared(r, raw["given"], SIMILARITY_GIVEN, "given")
    A, B, labels_B = given["A"], given["B"], given["labels_B"]
    _check_pairs(r, A, B)
    if tokens is not None and len(tokens) != _rows(A):
        raise r.fail(
            "tokens",
            f"{len(tokens)} labels, but given.A has {_rows(A)} {'row' if _rows(A) == 1 else 'rows'} "
            "(tokens label the rows of A, one each)",
        )
    if labels_B is not None:
        if B is None:
            raise r.fail("given.labels_B", "labels the rows of B, but B is not given (A is compared with itself)")
        if len(labels_B) != _rows(B):  # a flat B is one row (the declaration binds the rows of a matrix)
            raise r.fail("given.labels_B", f"{len(labels_B)} labels, but given.B has 1 row (one label each)")
    if "cosine" in measures:
        for name, g in (("A", A), ("B", B)):
            if g is not None:
                _nonzero(r, g, name)
    return Similarity(A, B, measures, labels_B)


def _check_pairs(r: Reader, A: Given, B: Given | None) -> None:
    """Every row of A meets every row of B: at most MAX_PAIRS pairs, and MAX_PAIR_ENTRIES pairs of
    entries (3,000 rows of 2-d vectors took 40 s and 3 GB; 300 × 300 ones, euclidean, 30 s and 2.6 GB)."""
    rows_b = _rows(A if B is None else B)
    pairs = _rows(A) * rows_b
    key = "given.A" if B is None else "given.B"
    what = (
        f"A's {_rows(A):,} rows compared with themselves"
        if B is None
        else f"A's {_rows(A):,} rows times B's {rows_b:,}"
    )
    if pairs > MAX_PAIRS:
        raise r.fail(key, f"{what} make {pairs:,} pairs: at most {MAX_PAIRS:,} pairs are compared")
    work = pairs * A.shape[-1]
    if work > MAX_PAIR_ENTRIES:
        raise r.fail(
            key,
            f"{what} make {pairs:,} pairs of {A.shape[-1]:,} entries each, {work:,} in all: "
            f"at most {MAX_PAIR_ENTRIES:,} (pairs × width) are compared",
        )


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind similarity, past the top level."""
    d = similarity(r, raw, common["tokens"])
    given = {"A": d.A} if d.B is None else {"A": d.A, "B": d.B}
    return Problem(given=given, data=d, **common)


def _nonzero(r: Reader, g: Given, name: str) -> None:
    rows = [g.floats] if len(g.shape) == 1 else list(g.floats)
    for i, row in enumerate(rows, 1):
        if not row.any():
            where = "is the zero vector" if len(g.shape) == 1 else f"row {i} is the zero vector"
            raise r.fail(
                f"given.{name}",
                f"{where}: its length is 0, so the cosine (a · b / (‖a‖ ‖b‖)) is undefined; "
                "drop 'cosine' from measure or change the row",
            )


def labels(p: Problem) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Labels of the rows of A and of B (B = A: A's labels): tokens and labels_B, or a_i and b_j."""
    d = p.payload(Similarity)
    A = d.A
    a = p.tokens or (("a",) if len(A.shape) == 1 else tuple(f"a_{i}" for i in range(1, A.shape[0] + 1)))
    if d.B is None:
        return a, a
    B = d.B
    b = d.labels_B or (("b",) if len(B.shape) == 1 else tuple(f"b_{j}" for j in range(1, B.shape[0] + 1)))
    return a, b


def entry_name(p: Problem, step_id: str, idx: tuple[int, ...]) -> str:
    """How one entry of a similarity step is written: cat·chat, ‖cat‖, cos(cat, sat), (cat − sat)_2."""
    la, lb = labels(p)
    d = p.payload(Similarity)
    flat_a = len(d.A.shape) == 1
    B = d.A if d.B is None else d.B
    flat_b = len(B.shape) == 1
    k = list(idx)
    if step_id == "norms_A":
        return f"‖{la[0 if flat_a else k[0]]}‖"
    if step_id == "norms_B":
        return f"‖{lb[0 if flat_b else k[0]]}‖"
    if step_id == "differences":
        pair, comp = (0, k[0]) if len(k) == 1 else (k[0], k[1])
        i, j = divmod(pair, 1 if flat_b else B.shape[0])
        return f"({la[i]} − {lb[j]})_{comp + 1}"
    i = 0 if flat_a else k.pop(0)
    j = 0 if flat_b else k.pop(0)
    if step_id == "dots":
        return f"{la[i]}·{lb[j]}"
    if step_id == "cosines":
        return f"cos({la[i]}, {lb[j]})"
    return f"‖{la[i]} − {lb[j]}‖"
