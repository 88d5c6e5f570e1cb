"""Decisions of a decode in float arithmetic that agree with the exact ones (issue 26).

A float running sum carries rounding: with probabilities [0.2] × 5 the third sum is
0.6000000000000001, so "the first F_i > u" with u = 0.6 picked c where the exact sum (and the hand)
gives d. Every comparison of a float with a bound (the draw, the top-p cut, the argmax) goes
through here: values further apart than :data:`TIE` compare as floats; closer ones are decided
exactly where the derivation has exact values cheaply (the given probabilities and u, summed as
fractions or with sympy; the logits for an argmax, since softmax keeps their order), and otherwise are taken to be equal. The interval convention:
token i owns [F_(i−1), F_i), so a u on a boundary belongs to the next token.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cmp_to_key
from typing import Any

TIE = 1e-9  # float mode: sums this close to the bound are equal unless decided exactly

TIE_TEXT = "1e-9"


def fractions(nodes: Any) -> list[Fraction] | None:
    """The exact values of given numbers when each is written as a plain number (0.2, 1/5); else None."""
    out = []
    for node in nodes:
        if not (isinstance(node, tuple) and node and node[0] == "num"):
            return None
        out.append(node[1])
    return out


def exact_values(nodes: Any) -> list[Any]:
    """The exact values of given numbers: fractions for plain numbers, sympy for the rest (1/3 + sqrt(2))."""
    plain = fractions(nodes)
    if plain is not None:
        return list(plain)
    from ..numbers import to_exact

    return [to_exact(node) for node in nodes]


def running(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        out.append(out[-1] + v if out else v)
    return out


def _decided(relation: Any) -> bool | None:
    try:
        return bool(relation)
    except TypeError:  # sympy could not decide: taken as equal
        return None


def greater(x: float, bound: float, exact: tuple[Any, Any] | None = None) -> bool | None:
    """x > bound; None when the two are within :data:`TIE` and no exact pair decides (then equal)."""
    if abs(x - bound) > TIE:
        return x > bound
    if exact is not None:
        return _decided(exact[0] > exact[1])
    return None


def first_above(cum: list[float], u: float, exact: list[Any] | None, exact_u: Any) -> tuple[int, str]:
    """The first i with F_i > u (a running sum equal to u is not above it), and a note when u stood
    on a boundary, saying how that was decided."""
    on: int | None = None
    for i, x in enumerate(cum):
        pair = (exact[i], exact_u) if exact is not None and exact_u is not None else None
        above = greater(x, u, pair)
        if above:
            break
        if abs(x - u) <= TIE and (pair is None or _decided(pair[0] == pair[1]) is not False) and on is None:
            on = i
    else:
        i = len(cum) - 1
    if on is None:
        return i, ""
    return i, boundary_note(
        u, on + 1, "exactly" if exact is not None and exact_u is not None else f"to within {TIE_TEXT}"
    )


def boundary_note(u: float, k: int, how: str) -> str:
    """The note of a draw whose u stands on the boundary F_k (the token it picks is added after)."""
    return (
        f"u = {u:g} lies on the boundary F_{k} (the running sum equals u {how}): each token owns "
        "[F_(i−1), F_i) of [0, 1), so a u on a boundary belongs to the next token"
    )


def descending(values: list[float], exact_of: Callable[[int], Any] | None) -> list[int]:
    """Indices by value, largest first: as floats where they are further apart than TIE; within a run
    of values closer than that, by their exact values (``exact_of(i)``) where given; ties to the
    earlier index."""
    order = sorted(range(len(values)), key=lambda i: -values[i])  # stable: ties keep index order
    if exact_of is None:
        return order
    out: list[int] = []
    k = 0
    while k < len(order):
        end = k + 1
        while end < len(order) and values[order[end - 1]] - values[order[end]] <= TIE:
            end += 1
        run = order[k:end]
        out += _by_exact(run, exact_of) if len(run) > 1 else run
        k = end
    return out


def _by_exact(run: list[int], exact_of: Callable[[int], Any]) -> list[int]:
    """A run of indices (in index order) by exact value, largest first, equal values in index order.

    The indices are grouped by their exact value first (99,000 logits written to two decimals hold a
    few hundred distinct values, runs of hundreds of equal ones): only the distinct values are
    compared, and values equal but written differently, or that sympy cannot tell apart, merge."""
    groups: dict[Any, list[int]] = {}
    for i in sorted(run):
        groups.setdefault(exact_of(i), []).append(i)
    if len(groups) == 1:
        return sorted(run)

    def cmp(a: Any, b: Any) -> int:
        if _decided(a > b):
            return -1
        if _decided(b > a):
            return 1
        return 0

    keys = sorted(groups, key=cmp_to_key(cmp))
    out: list[int] = []
    k = 0
    while k < len(keys):
        end = k + 1
        while end < len(keys) and cmp(keys[end - 1], keys[end]) == 0:
            end += 1
        out += sorted(i for key in keys[k:end] for i in groups[key])
        k = end
    return out
