"""Exact forms as text and LaTeX (sympy's printers, with Euler's number written e)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

_PRINTER: Any = None
_LATEX: Any = None
_MATHML: Any = None

SHORT_DECIMALS = 12  # a rational whose decimal expansion ends within this many places is shown as a decimal
LONG_DECIMAL = 8  # characters of a decimal (0.2097152) from which a power of a short one is written 0.8**7


def short_decimal(q: Any) -> str | None:
    """``"0.218"`` for 109/500: the finite decimal of a non-integer rational with at most SHORT_DECIMALS places.

    None for integers and for genuine fractions (1/3) or long expansions; the decimal is exact, the
    same number the problem file's decimal stands for.
    """
    if not getattr(q, "is_Rational", False) or getattr(q, "is_Integer", False):
        return None
    num, den = int(q.p), int(q.q)
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    places = max(twos, fives)
    if den != 1 or places > SHORT_DECIMALS:
        return None
    scaled = abs(num) * 10**places // int(q.q)
    digits = str(scaled).rjust(places + 1, "0")
    text = f"{digits[:-places]}.{digits[-places:]}".rstrip("0")
    return ("-" if num < 0 else "") + text


def power_form(q: Any) -> tuple[str, int] | None:
    """(``"0.8"``, 50) for 4**50/5**50: a fraction that is a power of a short one, else None.

    Fifty forget gates of 0.8 leave c_0 times 0.8^50, a 35-digit fraction; written as a power it
    says what it is. The base is a short decimal where it has one, else a fraction in parentheses.
    """
    if not getattr(q, "is_Rational", False) or getattr(q, "is_Integer", False):
        return None
    num, den = abs(int(q.p)), int(q.q)
    if den < 1000:  # 1/9 stays 1/9, not (1/3)**2
        return None
    from math import gcd

    from sympy import Rational, perfect_power

    found = perfect_power(den)
    if not found:
        return None
    bd, ed = found
    if num == 1:
        bn, en = 1, ed
    else:
        found = perfect_power(num)
        if not found:
            return None
        bn, en = found
    k = gcd(int(en), int(ed))
    if k < 2:
        return None
    base = Rational(int(bn) ** (int(en) // k), int(bd) ** (int(ed) // k))
    text = short_decimal(base) or f"({base.p}/{base.q})"
    return ("-" if q.p < 0 else "") + text, k


def _decimal_coeff(expr: Any) -> tuple[str, Any] | None:
    """(``"0.3"``, x) for 3*x/10 when the rest has no denominator; None otherwise.

    Only coefficients whose denominator has a factor 5 (the mark of a decimal input): halves and
    quarters of a surd stay fractions (sqrt(2)/2, not 0.5*sqrt(2)).
    """
    coeff, rest = expr.as_coeff_Mul()
    text = short_decimal(coeff)
    if text is None or int(coeff.q) % 5 != 0 or rest.as_numer_denom()[1] != 1:
        return None
    return text, rest


def ordered_terms(expr: Any, order: str | None = None) -> list[Any]:
    """The terms of a sum in the order sympy's printers write them, found without sympy's evalf.

    sympy orders the terms of a numeric sum by their values, each computed with evalf at whatever
    precision it takes: for nested forms such as ((1 + e)^9 + e((1 + e)^8 + …))/(1 + e)^9 that cost
    tens of milliseconds per term, and seconds per step. The values here come from one pass at 40
    digits (attncalc.derivation.budget.fast_float), and the order is sympy's own key over them.
    """
    from sympy import Add, Mul, Number, NumberSymbol, S

    if order is None and expr.is_Add:  # sympy's special case: 2 - 3*x stays in that order
        plain = lambda x: not isinstance(x, (Number, NumberSymbol))  # noqa: E731
        add_args = sorted(Add.make_args(expr), key=plain)
        if len(add_args) == 2 and isinstance(add_args[0], (Number, NumberSymbol)) and isinstance(add_args[1], Mul):
            mul_args = sorted(Mul.make_args(add_args[1]), key=plain)
            if (
                len(mul_args) == 2
                and isinstance(mul_args[0], Number)
                and add_args[0].is_positive
                and mul_args[0].is_negative
            ):
                return add_args
    try:
        if not expr.is_number:
            return list(expr.as_ordered_terms(order=order))
        key, reverse = expr._parse_order(order)
    except AttributeError:
        return list(expr.as_ordered_terms(order=order))
    terms = []
    for term in Add.make_args(expr):
        coeff, rest = term.as_coeff_Mul()
        value = _value(coeff)
        if rest is not S.One:
            for factor in Mul.make_args(rest):
                value *= _value(factor)
        if value != value:  # nan: leave it to sympy
            return list(expr.as_ordered_terms(order=order))
        terms.append((term, ((value.real, value.imag), (), ())))
    return [term for term, _ in sorted(terms, key=key, reverse=reverse)]


def _value(e: Any) -> complex:
    from ..derivation.budget import fast_float

    return complex(float(fast_float(np.array([e], dtype=object))[0]))


def _with_decimals(base: Any, times: str) -> Any:
    """A subclass of the sympy printer ``base`` that writes short decimals as decimals: 109/500 as
    0.218, and 3*x/10 as 0.3, ``times``, x; the terms of a sum ordered by :func:`ordered_terms`."""
    from sympy.printing.precedence import PRECEDENCE

    class _Decimals(base):  # type: ignore[misc,valid-type]
        def _as_ordered_terms(self, expr: Any, order: str | None = None) -> list[Any]:
            order = order or self.order
            if order in ("old", "none"):
                return list(super()._as_ordered_terms(expr, order=order))
            return ordered_terms(expr, order)

        def _print_Rational(self, expr: Any) -> str:
            text = short_decimal(expr)
            power = power_form(expr) if text is None or len(text) > LONG_DECIMAL else None
            if power is not None:  # 0.8**50 (text) or 0.8^{50} (LaTeX)
                if times == "*":
                    return f"{power[0]}**{power[1]}"
                base = re.sub(r"\((\d+)/(\d+)\)", r"\\left(\\frac{\1}{\2}\\right)", power[0])
                return f"{base}^{{{power[1]}}}"
            return text if text is not None else str(super()._print_Rational(expr))

        def _print_Mul(self, expr: Any) -> str:
            split = _decimal_coeff(expr)
            if split is None:
                return str(super()._print_Mul(expr))
            text, rest = split
            return f"{text}{times}{self.parenthesize(rest, PRECEDENCE['Mul'])}"

    return _Decimals


def exact_text(expr: Any) -> str:
    """``1/(1 + 2*e)``, ``exp(0.218)``: sympy's string printer, with E written e, -oo as -inf and
    short decimals (109/500) as decimals (0.218)."""
    global _PRINTER
    if _PRINTER is None:
        from sympy.printing.str import StrPrinter

        class _Printer(_with_decimals(StrPrinter, "*")):  # type: ignore[misc]
            def _print_Exp1(self, expr: Any) -> str:
                return "e"

            def _print_NegativeInfinity(self, expr: Any) -> str:
                return "-inf"

        _PRINTER = _Printer()
    return str(_PRINTER.doprint(expr))


def exact_latex(expr: Any) -> str:
    """sympy's LaTeX with short decimals written as decimals (``e^{0.218}``, ``0.3 x``)."""
    global _LATEX
    if _LATEX is None:
        from sympy.printing.latex import LatexPrinter

        _LATEX = _with_decimals(LatexPrinter, " ")()
    return str(_LATEX.doprint(expr))


def exact_mathml(expr: Any) -> str:
    """Presentation MathML with e for Euler's number and short decimals as decimals."""
    global _MATHML
    if _MATHML is None:
        from sympy.printing.mathml import MathMLPresentationPrinter

        class _MathML(MathMLPresentationPrinter):  # type: ignore[misc]
            def _as_ordered_terms(self, expr: Any, order: str | None = None) -> list[Any]:
                order = order or self.order
                if order in ("old", "none"):
                    return list(super()._as_ordered_terms(expr, order=order))
                return ordered_terms(expr, order)

            def _print_Rational(self, expr: Any) -> Any:
                text = short_decimal(expr)
                power = power_form(expr) if text is None or len(text) > LONG_DECIMAL else None
                if power is not None:
                    sup = self.dom.createElement("msup")
                    base = self.dom.createElement("mn")
                    base.appendChild(self.dom.createTextNode(power[0].lstrip("-")))
                    exp_ = self.dom.createElement("mn")
                    exp_.appendChild(self.dom.createTextNode(str(power[1])))
                    sup.appendChild(base)
                    sup.appendChild(exp_)
                    if not power[0].startswith("-"):
                        return sup
                    row = self.dom.createElement("mrow")
                    minus = self.dom.createElement("mo")
                    minus.appendChild(self.dom.createTextNode("-"))
                    row.appendChild(minus)
                    row.appendChild(sup)
                    return row
                if text is None:
                    return super()._print_Rational(expr)
                row = self.dom.createElement("mrow")
                if text.startswith("-"):
                    minus = self.dom.createElement("mo")
                    minus.appendChild(self.dom.createTextNode("-"))
                    row.appendChild(minus)
                num = self.dom.createElement("mn")
                num.appendChild(self.dom.createTextNode(text.lstrip("-")))
                row.appendChild(num)
                return row

            def _print_Mul(self, expr: Any) -> Any:
                split = _decimal_coeff(expr)
                if split is None:
                    return super()._print_Mul(expr)
                row = self._print_Rational(expr.as_coeff_Mul()[0])
                times = self.dom.createElement("mo")
                times.appendChild(self.dom.createTextNode("&InvisibleTimes;"))
                row.appendChild(times)
                rest = split[1]
                row.appendChild(self._print(rest) if not rest.is_Add else self._paren(rest))
                return row

            def _paren(self, expr: Any) -> Any:
                fenced = self.dom.createElement("mrow")
                for part in ("(", None, ")"):
                    if part is None:
                        fenced.appendChild(self._print(expr))
                        continue
                    mo = self.dom.createElement("mo")
                    mo.appendChild(self.dom.createTextNode(part))
                    fenced.appendChild(mo)
                return fenced

        _MATHML = _MathML()
    text = str(_MATHML.doprint(expr))
    return text.replace("&ExponentialE;", "e").replace("&#8519;", "e")


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
            if type(e).__name__ in ("Infinity", "NegativeInfinity", "ComplexInfinity"):  # a masked −∞
                continue  # (by its type: asking sympy's is_infinite evaluates a large form numerically)
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


def exact_groups(exact: Any, symbol: str, decimals: int, name: Any = None) -> tuple[list[tuple[list[str], Any]], int]:
    """The step's interesting exact forms, entries sharing a form grouped: ([(labels, expr)], how many more).

    ``name(idx)`` labels an entry (similarity: cos(cat, chat)); by default the symbol and index (e_2)."""
    from ..derivation.fmt import entry_indices, entry_label

    if exact is None or not is_interesting(exact, decimals):
        return [], 0
    a = np.asarray(exact, dtype=object)
    groups: dict[Any, list[str]] = {}
    for idx in entry_indices(a.shape):
        if is_interesting(a[idx], decimals):
            groups.setdefault(a[idx], []).append(name(idx) if name is not None else entry_label(symbol, idx))
    items = [(labels, expr) for expr, labels in groups.items()]
    return items[:EXACT_GROUPS], max(0, len(items) - EXACT_GROUPS)
