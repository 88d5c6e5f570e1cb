"""The number grammar: exact values, and nothing in a problem file is ever run as code."""

from __future__ import annotations

import math
import re

import pytest
import sympy as sp

from attncalc.errors import NumberSyntaxError
from attncalc.numbers import parse_number, to_exact, to_float


@pytest.mark.parametrize(
    ("text", "exact"),
    [
        ("1/3", sp.Rational(1, 3)),
        ("0.3", sp.Rational(3, 10)),
        ("-0.25", sp.Rational(-1, 4)),
        ("sqrt(2)/2", sp.sqrt(2) / 2),
        ("exp(-1)", sp.exp(-1)),
        ("e", sp.E),
        ("2*pi", 2 * sp.pi),
        ("2^3^2", sp.Integer(512)),  # right-associative, as in maths
        ("-2^2", sp.Integer(-4)),  # the power binds tighter than unary minus
        ("(1 + 2) * 3 - 4 / 8", sp.Rational(17, 2)),
        ("1e-3", sp.Rational(1, 1000)),
        ("ln(e)", sp.Integer(1)),
        ("ln(2)", sp.log(2)),
        ("log(2)", sp.log(2)),  # log is the natural logarithm, as documented
        ("tanh(1/2)", sp.tanh(sp.Rational(1, 2))),
        ("2**3", sp.Integer(8)),  # ** is the same as ^
        ("2^-3", sp.Rational(1, 8)),
        ("−1", sp.Integer(-1)),  # a typographic minus sign, as pasted from a PDF
    ],
)
def test_strings_parse_to_their_exact_value(text: str, exact: sp.Expr) -> None:
    """Each string in the grammar means the number a reader expects, exactly and as a float."""
    node = parse_number(text)
    assert sp.simplify(to_exact(node) - exact) == 0
    assert to_float(node) == pytest.approx(float(exact), rel=1e-15)


def test_toml_float_is_exact_decimal() -> None:
    """0.1 read as a float is the decimal 1/10, not the binary double nearest it."""
    assert to_exact(parse_number(0.1)) == sp.Rational(1, 10)


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('touch /tmp/attncalc-pwned')",
        "os.system('x')",
        "lambda: 1",
        "1; 2",
        "[1]",
        "2e",  # implicit multiplication is not allowed
        "sqrt",
        "1 +",
        "(1",
        "abc",
        "",
    ],
)
def test_non_numbers_are_refused(text: str, tmp_path: object) -> None:
    """Strings outside the grammar raise NumberSyntaxError and are never executed."""
    with pytest.raises(NumberSyntaxError):
        parse_number(text)
    assert not __import__("os").path.exists("/tmp/attncalc-pwned")


@pytest.mark.parametrize(
    "raw", [float("nan"), float("inf"), "inf", "nan", "1/0", "sqrt(-1)", "ln(0)", "10^400", True, None, [1]]
)
def test_non_finite_or_non_numbers_are_refused(raw: object) -> None:
    """NaN, infinities, division by zero, complex results, booleans and lists are not numbers."""
    with pytest.raises(NumberSyntaxError):
        parse_number(raw)


def test_huge_inputs_are_refused_quickly() -> None:
    """Pathological strings (deep nesting, huge powers, long input) fail fast instead of hanging."""
    for text in ["(" * 100 + "1" + ")" * 100, "9^9^9^9", "1" * 300, "-" * 100 + "1"]:
        with pytest.raises(NumberSyntaxError):
            parse_number(text)
    assert math.isclose(to_float(parse_number("2^10")), 1024)


@pytest.mark.parametrize(("text", "example"), [("2e", "2*e"), ("3 pi", "3*pi"), ("2(1 + e)", "2*e")])
def test_a_product_without_its_star_says_how_to_write_it(text: str, example: str) -> None:
    with pytest.raises(NumberSyntaxError, match=rf"write \* for a product, as in {re.escape(example)}"):
        parse_number(text)
