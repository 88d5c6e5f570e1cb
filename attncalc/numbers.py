"""attncalc's own grammar for exact numbers in problem files.

A number field holds a TOML/YAML/JSON number or a string such as ``"1/3"``, ``"sqrt(2)/2"``,
``"exp(-1)"``, ``"2e"`` is *not* allowed (write ``"2*e"``), ``"-0.25"`` or ``"pi^2"``.

The grammar (recursive descent; nothing is ever handed to ``eval`` or ``sympify``)::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := ("+" | "-") unary | power
    power  := atom ("^" unary)?            # right-associative, binds tighter than unary minus
    atom   := NUMBER | "e" | "pi" | FUNC "(" expr ")" | "(" expr ")"
    FUNC   := sqrt | exp | ln | log | tanh  (log is the natural logarithm)

A parsed number is a small tree of tuples that evaluates to a float with :mod:`math` (no sympy
needed) or to an exact sympy expression. Decimals are exact: ``0.3`` is 3/10.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from .errors import NumberSyntaxError, shorten
from .magnitude import MAX_POWER, check_power

# A node is ("num", Fraction) | ("const", name) | ("neg", node) | (op, node, node) | ("call", fn, node)
Node = tuple[Any, ...]

MAX_LENGTH = 200  # characters of one string
MAX_DEPTH = 40  # nesting of brackets, signs and powers
MAX_DIGITS = 40  # significant digits of one literal
MAX_EXPONENT = 400  # the n of a literal's e±n, in size

FUNCTIONS = ("sqrt", "exp", "ln", "log", "tanh")
CONSTANTS = ("e", "pi")

_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+(?![A-Za-z_(]))?)|(?P<name>[A-Za-z_]\w*)|(?P<op>\*\*|[-+*/^()\u2212]))"
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            bad = text[pos:].lstrip()[:1]
            hint = ": use a decimal point (0.5), not a comma" if bad == "," else ""
            raise NumberSyntaxError(f"unexpected character {bad!r}{hint}")
        pos = m.end()
        if m.group("num") is not None:
            out.append(("num", m.group("num")))
        elif m.group("name") is not None:
            out.append(("name", m.group("name")))
        else:
            op = m.group("op")
            out.append(("op", {"**": "^", "\u2212": "-"}.get(op, op)))
    return out


# a suffix that scales a number (13.0B, 7B parameters, 2.5k): its power of ten, for the hint
SCALES = {"k": 3, "K": 3, "M": 6, "B": 9, "G": 9, "T": 12}
SCALE_WORDS = {3: "thousand", 6: "million", 9: "billion", 12: "trillion"}


def _unit_message(number: str, name: str) -> str:
    """A number followed by a unit or a suffix ("13.0B", "0.5GiB", "3 params"): units are not read."""
    said = f"units and suffixes are not read ({name!r} after {number})"
    if name in SCALES:
        power = SCALES[name]
        return f"{said}: write the number alone, {number}e{power} for {number} {SCALE_WORDS[power]}"
    return f"{said}: write the number alone, a plain number in the step's own unit"


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise NumberSyntaxError("the expression ends too early")
        self.i += 1
        return tok

    def expect(self, op: str) -> None:
        tok = self.take()
        if tok != ("op", op):
            raise NumberSyntaxError(f"expected {op!r}, found {tok[1]!r}")

    def parse(self) -> Node:
        if not self.toks:
            raise NumberSyntaxError("empty expression")
        node = self.expr()
        tok = self.peek()
        if tok is not None:
            before = self.toks[self.i - 1] if self.i > 0 else None
            if before is not None and before[0] == "num" and tok[0] == "name" and tok[1] not in FUNCTIONS + CONSTANTS:
                raise NumberSyntaxError(_unit_message(before[1], tok[1]))
            if before is not None and (tok[0] in ("name", "num") or tok == ("op", "(")) and before[1] != "(":
                # "2e", "2 pi", "2(1+e)": a product needs its *
                example = f"{before[1]}*{tok[1]}" if before[0] == "num" and tok[0] == "name" else "2*e"
                raise NumberSyntaxError(f"unexpected {tok[1]!r}: write * for a product, as in {example}")
            raise NumberSyntaxError(f"unexpected {tok[1]!r}")
        return node

    def _nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise NumberSyntaxError("the expression is nested too deeply")

    def expr(self) -> Node:
        node = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            node = ("add" if op == "+" else "sub", node, self.term())
        return node

    def term(self) -> Node:
        node = self.unary()
        while self.peek() in (("op", "*"), ("op", "/")):
            op = self.take()[1]
            node = ("mul" if op == "*" else "div", node, self.unary())
        return node

    def unary(self) -> Node:
        tok = self.peek()
        if tok in (("op", "+"), ("op", "-")):
            self.take()
            self._nest()
            inner = self.unary()
            self.depth -= 1
            return ("neg", inner) if tok == ("op", "-") else inner
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        if self.peek() == ("op", "^"):
            self.take()
            self._nest()
            exponent = self.unary()
            self.depth -= 1
            return ("pow", base, exponent)
        return base

    def atom(self) -> Node:
        kind, text = self.take()
        if kind == "num":
            try:
                d = Decimal(text)
            except InvalidOperation:  # 1e9999999999999999999: an exponent past what Decimal holds
                raise NumberSyntaxError(_OUT_OF_RANGE) from None
            return ("num", _literal(d))
        if kind == "name":
            if text in CONSTANTS:
                return ("const", text)
            if text in FUNCTIONS:
                self.expect("(")
                self._nest()
                arg = self.expr()
                self.depth -= 1
                self.expect(")")
                return ("call", "ln" if text == "log" else text, arg)
            raise NumberSyntaxError(f"unknown name {text!r} (allowed: {', '.join(FUNCTIONS + CONSTANTS)})")
        if text == "(":
            self._nest()
            node = self.expr()
            self.depth -= 1
            self.expect(")")
            return node
        raise NumberSyntaxError(f"unexpected {text!r}")


def parse_number(raw: object) -> Node:
    """Parse one number field (int, float, Decimal or string) into a node; raise on anything else."""
    if isinstance(raw, bool):
        raise NumberSyntaxError(f"expected a number, got the boolean {str(raw).lower()}")
    if isinstance(raw, int):
        if abs(raw) >= 10**MAX_DIGITS:
            raise NumberSyntaxError(f"a number with more than {MAX_DIGITS} digits")
        return ("num", Fraction(raw))
    if isinstance(raw, Decimal):
        if not raw.is_finite():
            raise NumberSyntaxError(f"{raw} is not a finite number")
        node = ("num", _literal(raw))
        to_float(node)
        return node
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise NumberSyntaxError(f"{raw} is not a finite number")
        return ("num", Fraction(Decimal(repr(raw))))
    if isinstance(raw, str):
        if len(raw) > MAX_LENGTH:
            raise NumberSyntaxError(f"the expression is longer than {MAX_LENGTH} characters")
        if raw.strip().lower() in ("nan", "inf", "+inf", "-inf", "infinity", "-infinity"):
            raise NumberSyntaxError(f"{raw.strip()} is not a finite number")
        node = _Parser(raw).parse()
        try:
            to_float(node)  # reject values that overflow or leave the reals, at load time
        except NumberSyntaxError as exc:  # "the value is too small ...": named by what was written
            text = str(exc)
            if text.startswith("the value "):
                raise NumberSyntaxError(f"{shorten(raw.strip(), 40)} {text.removeprefix('the value ')}") from None
            raise
        return node
    kind = {list: "a list", dict: "a table", type(None): "nothing"}.get(type(raw), type(raw).__name__)
    raise NumberSyntaxError(f"expected a number, got {kind}")


_OUT_OF_RANGE = f"the exponent is out of range (at most {MAX_EXPONENT} in size: 1e-{MAX_EXPONENT} to 1e{MAX_EXPONENT})"


def _literal(d: Decimal) -> Fraction:
    """A literal's exact value, once its digits and exponent are known to be in range.

    Checked before the Fraction is built: 1e999999999 would otherwise be a billion-digit integer.
    """
    t = d.as_tuple()
    if len(t.digits) > MAX_DIGITS:
        raise NumberSyntaxError(f"a number with more than {MAX_DIGITS} digits")
    if d and abs(d.adjusted()) > MAX_EXPONENT:
        raise NumberSyntaxError(_OUT_OF_RANGE)
    return Fraction(d)


def to_float(node: Node) -> float:
    """Evaluate a node with floating point; raise NumberSyntaxError outside the finite reals. Where
    float fails (an overflow on the way, ln(0), an infinity), the value is evaluated again with wider
    exponents (:mod:`attncalc.magnitude`): the error says what is true of it (undefined, too large, too
    small), and a value a double holds is returned."""
    try:
        value = _float(node)
    except NumberSyntaxError:
        raise
    except (OverflowError, ZeroDivisionError, ValueError):
        value = math.nan
    if not math.isfinite(value):
        from .magnitude import true_value

        return true_value(node)
    return value


def _float(node: Node) -> float:
    tag = node[0]
    if tag == "num":
        return float(node[1])
    if tag == "const":
        return math.e if node[1] == "e" else math.pi
    if tag == "neg":
        return -_float(node[1])
    if tag == "call":
        x = _float(node[2])
        fn = {"sqrt": math.sqrt, "exp": math.exp, "ln": math.log, "tanh": math.tanh}[node[1]]
        return float(fn(x))
    a, b = _float(node[1]), _float(node[2])
    if tag == "add":
        return a + b
    if tag == "sub":
        return a - b
    if tag == "mul":
        return a * b
    if tag == "div":
        return a / b
    if tag == "pow":
        if abs(b) > MAX_POWER:
            check_power(node[1], node[2], b)
        result = a**b
        if isinstance(result, complex):
            raise ValueError
        return float(result)
    raise AssertionError(tag)


def to_exact(node: Node) -> Any:
    """Evaluate a node to an exact sympy expression (sympy is imported only here)."""
    import sympy as sp

    tag = node[0]
    if tag == "num":
        frac: Fraction = node[1]
        return sp.Rational(frac.numerator, frac.denominator)
    if tag == "const":
        return sp.E if node[1] == "e" else sp.pi
    if tag == "neg":
        return -to_exact(node[1])
    if tag == "call":
        x = to_exact(node[2])
        fn = {"sqrt": sp.sqrt, "exp": sp.exp, "ln": sp.log, "tanh": sp.tanh}[node[1]]
        return fn(x)
    a, b = to_exact(node[1]), to_exact(node[2])
    ops = {
        "add": lambda: a + b,
        "sub": lambda: a - b,
        "mul": lambda: a * b,
        "div": lambda: a / b,
        "pow": lambda: a**b,
    }
    return ops[tag]()
