"""What is true of a number that floating point could not evaluate: :func:`attncalc.numbers.to_float`
tries float first, and on a failure (an overflow, a math domain error, a division by zero, an infinity
or NaN) evaluates the same tree again with :mod:`decimal` over an exponent range far past a double's.

Then the refusal says what the value is: ``1/3^1000`` is too small to hold (about 1e-478, it
underflows to 0), not "too large" (3^1000 overflowed on the way); ``ln(0)`` is undefined, not "a
negative"; and a value a double holds, reached through a step it does not (``3^1000/3^999``, ``ln(exp(-1000))``),
is that value. And the bound on a power with a large exponent (:func:`check_power`), which both
evaluations apply before computing. Standard library only: ``attncalc --help`` imports neither numpy
nor sympy.
"""

from __future__ import annotations

import decimal
import math
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .errors import NumberSyntaxError

Node = tuple[Any, ...]

MAX_POWER = 64  # the b of a^b, in size; larger only for a power of a plain number (check_power)
MAX_POWER_DIGITS = 330  # digits of such a power's exact value (2^-1074, the smallest double, has 324)

# 30 digits, and exponents far past a double's (1e-324 to 1e308) and past anything the grammar can
# write within its limits (a power's value is bounded before it is computed: check_power, below)
_CONTEXT = decimal.Context(
    prec=30,
    Emax=decimal.MAX_EMAX,
    Emin=decimal.MIN_EMIN,
    traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow, decimal.Underflow],
)
_E = Decimal(1).exp(_CONTEXT)
_PI = Decimal("3.14159265358979323846264338327950288")
_SMALLEST = Decimal(math.ldexp(1.0, -1074))  # the smallest positive double (subnormal), exactly
_LARGEST = Decimal(sys.float_info.max)


class _Undefined(Exception):
    """A value that is no real number, with the reason."""


def true_value(node: Node) -> float:
    """The float of ``node`` when a double holds its value; else NumberSyntaxError saying what is true
    of it: undefined (with why), too large, or too small (it would underflow to 0)."""
    try:
        value = _decimal(node)
    except _Undefined as exc:
        raise NumberSyntaxError(str(exc)) from None
    except (decimal.Overflow, OverflowError):
        raise NumberSyntaxError(too_large(None)) from None
    except decimal.Underflow:
        raise NumberSyntaxError(too_small(None)) from None
    except (decimal.InvalidOperation, decimal.DivisionByZero):  # none left unnamed above; kept as a backstop
        raise NumberSyntaxError("the value is not a real number") from None
    if value.copy_abs() > _LARGEST:
        raise NumberSyntaxError(too_large(value))
    if value and value.copy_abs() < _SMALLEST / 2:  # rounds to 0 as a double: not the number written
        raise NumberSyntaxError(too_small(value))
    return float(value)


def _about(value: Decimal) -> str:
    return f"about 1e{value.adjusted()}"


def too_large(value: Decimal | None) -> str:
    if value is None:  # past even the decimal range: the value, or a step on the way to it
        return "the value is too large to compute (it, or a step of it, is past 1e999999999999999999)"
    return f"the value is too large to hold as a number ({_about(value)}, above 1.8e308)"


def too_small(value: Decimal | None) -> str:
    if value is None:
        return "the value is too small to compute (it, or a step of it, underflows past 1e-999999999999999999)"
    return f"the value is too small to hold as a number ({_about(value)}, below 5e-324: it underflows to 0)"


def _decimal(node: Node) -> Decimal:
    tag = node[0]
    if tag == "num":
        return _CONTEXT.divide(Decimal(node[1].numerator), Decimal(node[1].denominator))
    if tag == "const":
        return _E if node[1] == "e" else _PI
    if tag == "neg":
        return _decimal(node[1]).copy_negate()
    if tag == "call":
        return _call(node[1], _decimal(node[2]))
    a, b = _decimal(node[1]), _decimal(node[2])
    if tag == "add":
        return _CONTEXT.add(a, b)
    if tag == "sub":
        return _CONTEXT.subtract(a, b)
    if tag == "mul":
        return _CONTEXT.multiply(a, b)
    if tag == "div":
        if not b:
            raise _Undefined("division by zero")
        return _CONTEXT.divide(a, b)
    if tag == "pow":
        if b.copy_abs() > MAX_POWER:
            check_power(node[1], node[2], b.normalize(_CONTEXT))  # named as 1e+400, not 30 digits
        exact = rational(node[2])  # a whole exponent exactly: (-1)^(1e400 + 1) is -1, past 30 digits
        if exact is not None and exact.denominator == 1:
            b = Decimal(exact.numerator)
        whole = b == b.to_integral_value()
        if not a and b < 0:
            raise _Undefined("division by zero (0 to a negative power)")
        if a < 0 and not whole:
            raise _Undefined("a negative number to a fractional power is not a real number")
        if not a:
            return Decimal(0) if b else Decimal(1)
        return _CONTEXT.power(a, b if not whole else int(b))
    raise AssertionError(tag)


def _call(fn: str, x: Decimal) -> Decimal:
    if fn == "ln":
        if not x:
            raise _Undefined("ln(0) is undefined (the logarithm of zero)")
        if x < 0:
            raise _Undefined("the logarithm of a negative number is not a real number")
        return x.ln(_CONTEXT)
    if fn == "sqrt":
        if x < 0:
            raise _Undefined("the square root of a negative number is not a real number")
        return x.sqrt(_CONTEXT)
    if fn == "exp":
        return x.exp(_CONTEXT)
    if fn == "tanh":  # within 1e-30 of ±1 past |x| = 40
        return Decimal(math.copysign(1.0, x)) if x.copy_abs() > 40 else Decimal(math.tanh(float(x)))
    raise AssertionError(fn)


def check_power(base: Node, exponent: Node, b: float | Decimal) -> None:
    """A power with an exponent above MAX_POWER in size: only a whole power of a plain number
    (a fraction or decimal), and only while its exact value has at most MAX_POWER_DIGITS digits.

    Raised before anything is computed: sympy would expand (1 + 1e-30)^1000000000 exactly.
    """
    p = rational(base)
    q = rational(exponent)
    if p is None or q is None or q.denominator != 1:
        raise NumberSyntaxError(
            f"the exponent {b:g} is too large (at most {MAX_POWER} in size, except a whole power of a plain number)"
        )
    size = max(abs(p.numerator), p.denominator)
    # in whole numbers: an exponent past a float's range (1e400) must not overflow the estimate itself
    if size > 1 and abs(q.numerator) * (size.bit_length() - 1) * 30103 > MAX_POWER_DIGITS * 100_000:
        raise NumberSyntaxError(
            f"the power is too large to compute exactly (its exact value would have more than {MAX_POWER_DIGITS} digits)"
        )


def rational(node: Node) -> Fraction | None:
    """The exact value of a node made of plain numbers and + − × / only; None otherwise."""
    tag = node[0]
    if tag == "num":
        return node[1]  # type: ignore[no-any-return]
    if tag == "neg":
        v = rational(node[1])
        return None if v is None else -v
    if tag not in ("add", "sub", "mul", "div"):
        return None
    a, b = rational(node[1]), rational(node[2])
    if a is None or b is None:
        return None
    if tag == "add":
        return a + b
    if tag == "sub":
        return a - b
    if tag == "mul":
        return a * b
    return a / b if b else None
