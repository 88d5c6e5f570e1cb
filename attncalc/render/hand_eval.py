"""The value of a written-out line as written: "0.646·0.5 + 0.354·(-1)" read as the arithmetic it shows,
with the rounded numbers it shows (for the views' "as written" remark on a :class:`~attncalc.derivation.Formula`
step that writes rounded numbers, ``hand=True``).

Only arithmetic is read: numbers, + − · × * / ^, parentheses, unary signs, and exp, ln, log, sqrt (√),
min, max, abs of it. Anything else (a word, a bracket, a sum sign, "…") makes the line unreadable, and
then no remark is made. Nothing is ever run as code: the text is parsed here, token by token."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)|([A-Za-z]+)|(.))")
FUNCS: dict[str, Callable[..., float]] = {
    "exp": math.exp,
    "ln": math.log,
    "log": math.log,
    "sqrt": math.sqrt,
    "√": math.sqrt,
    "abs": abs,
    "min": min,
    "max": max,
}
OPS = {"·": "*", "×": "*", "*": "*", "/": "/", "+": "+", "-": "-", "−": "-", "^": "^", "(": "(", ")": ")", ",": ","}


class Unreadable(ValueError):
    """A line that is not plain arithmetic."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if m is None:
            raise Unreadable(text)
        pos = m.end()
        num, word, other = m.groups()
        if num is not None:
            out.append(("num", num))
        elif word is not None:
            if word not in FUNCS:
                raise Unreadable(word)
            out.append(("fn", word))
        elif other == "√":
            out.append(("fn", "√"))
        elif other in OPS:
            out.append(("op", OPS[other]))
        elif other is not None and not other.isspace():
            raise Unreadable(other)
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.t = tokens
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self, op: str) -> bool:
        if self.peek() == ("op", op):
            self.i += 1
            return True
        return False

    def expr(self) -> float:
        v = self.term()
        while True:
            if self.take("+"):
                v += self.term()
            elif self.take("-"):
                v -= self.term()
            else:
                return v

    def term(self) -> float:
        v = self.unary()
        while True:
            if self.take("*"):
                v *= self.unary()
            elif self.take("/"):
                v /= self.unary()
            else:
                return v

    def unary(self) -> float:
        if self.take("-"):
            return -self.unary()
        if self.take("+"):
            return self.unary()
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self.take("^"):
            return float(base ** self.unary())
        return base

    def atom(self) -> float:
        tok = self.peek()
        if tok is None:
            raise Unreadable("end")
        kind, text = tok
        self.i += 1
        if kind == "num":
            return float(text)
        if kind == "fn":
            if text == "√" and self.peek() is not None and self.peek() != ("op", "("):
                return math.sqrt(self.power())
            if not self.take("("):
                raise Unreadable(text)
            args = [self.expr()]
            while self.take(","):
                args.append(self.expr())
            if not self.take(")"):
                raise Unreadable(text)
            return float(FUNCS[text](*args))
        if tok == ("op", "("):
            v = self.expr()
            if not self.take(")"):
                raise Unreadable("(")
            return v
        raise Unreadable(text)


def evaluate(text: str) -> float:
    """The value of ``text`` read as arithmetic (:class:`Unreadable` when it is not)."""
    p = _Parser(_tokens(text))
    value = p.expr()
    if p.i != len(p.t):
        raise Unreadable(text)
    return value
