"""Exact forms as text and LaTeX (sympy's printers, with Euler's number written e)."""

from __future__ import annotations

from typing import Any

import numpy as np

_PRINTER: Any = None


def exact_text(expr: Any) -> str:
    """``1/(1 + 2*e)``: sympy's string printer, with E written e and -oo as -inf."""
    global _PRINTER
    if _PRINTER is None:
        from sympy.printing.str import StrPrinter

        class _Printer(StrPrinter):  # type: ignore[misc]
            def _print_Exp1(self, expr: Any) -> str:
                return "e"

            def _print_NegativeInfinity(self, expr: Any) -> str:
                return "-inf"

        _PRINTER = _Printer()
    return str(_PRINTER.doprint(expr))


def exact_nested(x: Any) -> Any:
    """Nested lists of exact_text strings in the array's nesting."""
    a = np.asarray(x, dtype=object)
    if a.ndim == 0:
        return exact_text(a.item())
    return [exact_nested(v) for v in a]


def is_interesting(x: Any, decimals: int) -> bool:
    """True when the exact form says more than the decimals do (irrational, or a long fraction)."""
    a = np.asarray(x, dtype=object)
    for e in a.flat:
        if not getattr(e, "is_Rational", False):
            if getattr(e, "is_infinite", False):
                continue
            return True
        q = int(e.q)
        while q % 2 == 0:
            q //= 2
        while q % 5 == 0:
            q //= 5
        if q != 1:
            return True
    return False


EXACT_GROUPS = 6  # distinct exact forms shown per step


def exact_groups(exact: Any, symbol: str, decimals: int) -> tuple[list[tuple[list[str], Any]], int]:
    """The step's interesting exact forms, entries sharing a form grouped: ([(labels, expr)], how many more)."""
    from .fmt import entry_indices, entry_label

    if exact is None or not is_interesting(exact, decimals):
        return [], 0
    a = np.asarray(exact, dtype=object)
    groups: dict[Any, list[str]] = {}
    for idx in entry_indices(a.shape):
        if is_interesting(a[idx], decimals):
            groups.setdefault(a[idx], []).append(entry_label(symbol, idx))
    items = [(labels, expr) for expr, labels in groups.items()]
    return items[:EXACT_GROUPS], max(0, len(items) - EXACT_GROUPS)
