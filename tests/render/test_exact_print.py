"""Exact forms: a rational with a short decimal expansion prints as that decimal, fractions stay fractions."""

from __future__ import annotations

import json

import sympy as sp

from attncalc.numbers import parse_number, to_exact
from attncalc.render.exact import exact_latex, exact_mathml, exact_text, short_decimal
from attncalc.render.writers import render

from ..helpers import solve_file

R = sp.Rational
x = sp.Symbol("x")


def test_short_decimal_only_for_terminating_expansions_up_to_twelve_places() -> None:
    assert short_decimal(R(109, 500)) == "0.218"
    assert short_decimal(R(-3, 10)) == "-0.3"
    assert short_decimal(R(1, 8)) == "0.125"
    assert short_decimal(R(1, 64)) == "0.015625"  # six places
    assert short_decimal(R(1, 128)) == "0.0078125"  # seven places
    assert short_decimal(R(1, 4096)) == "0.000244140625"  # twelve places: 1/2^12
    assert short_decimal(R(1, 8192)) is None  # thirteen places
    assert short_decimal(R(1, 3)) is None
    assert short_decimal(R(7, 1)) is None  # integers print as integers
    assert short_decimal(R(1, 10**6)) == "0.000001"


def test_text_printer() -> None:
    assert exact_text(sp.exp(R(109, 500))) == "exp(0.218)"
    assert exact_text(R(3, 10) * x) == "0.3*x"
    assert exact_text(-R(3, 10) * x) == "-0.3*x"
    assert exact_text(R(1, 3)) == "1/3"
    assert exact_text(sp.E / (1 + 2 * sp.E)) == "e/(1 + 2*e)"
    assert exact_text(sp.sqrt(2) / 2) == "sqrt(2)/2"  # a half of a surd stays a fraction
    # a coefficient over an expression with a denominator stays in the fraction (as sympy prints it)
    assert exact_text(R(1, 5) * x / (1 + x)) == str(R(1, 5) * x / (1 + x)) == "x/(5*(x + 1))"


def test_latex_and_mathml_printers() -> None:
    assert exact_latex(sp.exp(R(109, 500))) == "e^{0.218}"
    assert exact_latex(R(3, 10) * x) == "0.3 x"
    assert exact_latex(R(1, 3)) == r"\frac{1}{3}"
    assert "<mn>0.218</mn>" in exact_mathml(sp.exp(R(109, 500)))
    assert "<mn>0.3</mn>" in exact_mathml(R(3, 10) * x)
    assert "<mfrac><mn>1</mn><mn>3</mn></mfrac>" in exact_mathml(R(1, 3))


def luong_json() -> dict[str, dict[str, object]]:
    from attncalc.render.json import to_dict

    d = solve_file("luong-general.toml", exact=True)
    return {s["id"]: s for s in json.loads(json.dumps(to_dict(d)))["steps"]}


def test_luong_exact_forms_are_decimals_in_every_view() -> None:
    # e = (h_i W) · s by hand: 0.6·0.65 − 0.4·0.28 + 0.5·(−0.12) = 0.218, and likewise 0.365, 0.147
    steps = luong_json()
    assert steps["exponentials"]["exact"] == ["exp(0.218)", "exp(0.365)", "exp(0.147)"]
    d = solve_file("luong-general.toml", exact=True)
    assert "exp(109/500)" not in render([d], "markdown")
    assert "e^{0.218}" in render([d], "latex")
    assert "<mn>0.218</mn>" in render([d], "html")


def test_json_exact_decimal_strings_stay_exact() -> None:
    """A script reading JSON `exact` with attncalc's number grammar (decimals are exact) gets the same value."""
    steps = luong_json()
    want = [sp.exp(R(218, 1000)), sp.exp(R(365, 1000)), sp.exp(R(147, 1000))]
    got = [to_exact(parse_number(t)) for t in steps["exponentials"]["exact"]]  # type: ignore[union-attr]
    assert [sp.simplify(g - w) for g, w in zip(got, want, strict=True)] == [0, 0, 0]
    assert sp.sympify(steps["exponentials"]["exact"][0], rational=True) == want[0]  # type: ignore[index]


def test_long_fractions_as_decimals_or_powers_that_read_back_exactly() -> None:
    """Finite decimals up to 12 places print as decimals (0.77974816 = 2436713/3125000); a fraction
    that is a power of a short one prints as that power (0.8^50 = 4^50/5^50, fifty forget gates of
    0.8); 1/9 stays 1/9. Every printed form, read back with decimals as exact rationals, is the value."""
    import sympy as sp

    from attncalc.render.exact import exact_latex, exact_text

    cases = {
        sp.Rational(2436713, 3125000): "0.77974816",
        sp.Rational(4, 5) ** 50: "0.8**50",
        sp.tanh(sp.Rational(4, 5) ** 13) / 2: "tanh(0.8**13)/2",
        sp.Rational(1, 3) ** 30: "(1/3)**30",
        sp.Rational(1, 9): "1/9",
        sp.Rational(32768, 100000): "0.32768",
    }
    for expr, text in cases.items():
        assert exact_text(expr) == text
        assert sp.sympify(text, rational=True) == expr
    assert exact_latex(sp.Rational(4, 5) ** 50) == "0.8^{50}"
    assert exact_latex(sp.Rational(1, 3) ** 30) == r"\left(\frac{1}{3}\right)^{30}"
