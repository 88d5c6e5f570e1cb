"""The online softmax's closing line: its weights (and output) against the one-shot softmax of whole rows."""

from __future__ import annotations

import numpy as np

from ..derivation.arith import Chain, is_exact, to_float
from ..derivation.fmt import fmt

# exact differences simplified one by one up to this many entries; past it the line gives the float difference
MAX_EXACT_COMPARED = 400


def _one_shot(S: np.ndarray, exact: bool) -> np.ndarray:
    """softmax of every row of S written from the definition: exp(S_j − max S) / Σ_k exp(S_k − max S)."""
    if exact:
        import sympy as sp

        out = np.empty(S.shape, dtype=object)
        for i in range(S.shape[0]):
            top = max(S[i], key=lambda e: float(e))
            e = [sp.exp(x - top) for x in S[i]]
            total = sum(e)
            for j in range(S.shape[1]):
                out[i, j] = e[j] / total
        return out
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=float)


def _is_zero(x: object) -> bool:
    """x is 0 exactly: at once when the two forms cancel as written or multiplied out, else by simplify."""
    import sympy as sp

    return bool(x == 0 or sp.expand(x) == 0 or sp.simplify(x) == 0)


def _all_zero(diff: np.ndarray) -> bool:
    return all(_is_zero(x) for x in diff.ravel())


def closing_note(chain: Chain, S: np.ndarray, A: np.ndarray, V: np.ndarray | None, out: np.ndarray | None) -> str:
    """One sentence: the block-by-block result equals the one-shot softmax (0 exactly in exact forms;
    the largest difference in floats, or with every step rounded and carried)."""
    what = "these weights" + (" and softmax(S) V this output" if V is not None else "")
    line = f"The one-shot softmax of each whole row, exp(S_j − max S) / Σ_k exp(S_k − max S), gives {what}"
    exact = chain.mode == "exact" and is_exact(S) and is_exact(A) and (out is None or is_exact(out))
    if exact and A.size + (0 if out is None else out.size) <= MAX_EXACT_COMPARED:
        one = _one_shot(S, True)
        diffs = [np.asarray(A - one, dtype=object)]
        if V is not None and out is not None:
            diffs.append(np.asarray(out - one.dot(V), dtype=object))
        if all(_all_zero(d) for d in diffs):
            return f"{line}: the difference is 0 exactly."
    Sf = to_float(S)
    one_f = _one_shot(Sf, False)
    gap = float(np.max(np.abs(to_float(A) - one_f)))
    if V is not None and out is not None:
        gap = max(gap, float(np.max(np.abs(to_float(out) - one_f @ to_float(V)))))
    if chain.mode == "hand":
        return (
            f"{line}: with every step rounded to {chain.decimals} decimals and carried, the largest difference "
            f"is {fmt(gap, chain.decimals + 1)} (the rounding carried from block to block)."
        )
    size = "0" if gap == 0 else f"{gap:.1e}"
    return f"{line}: the largest difference is {size} (floating-point rounding)."
