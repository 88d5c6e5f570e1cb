"""A number refused says what is true of it: `1/3**1000` underflows (it was called "too large", for
3**1000 on the way), `ln(0)` is undefined (it was called a negative number's logarithm); and a value a
double holds, reached through a step it does not, is that value.

Expected values are worked by hand or with the standard library (fractions, math), never attncalc's.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from attncalc.errors import NumberSyntaxError
from attncalc.numbers import parse_number, to_float

from ..helpers import PROBLEMS, one_line_refusal

# 1/3^1000: a positive fraction (never 0) whose double is 0; log10 = -1000·log10(3) = -477.12, so 7.6e-478
TINY = Fraction(1, 3**1000)
TINY_EXPONENT = math.floor(-1000 * math.log10(3))  # -478


def test_the_fraction_underflows_independently() -> None:
    assert TINY > 0 and float(TINY) == 0.0 and TINY_EXPONENT == -478


@pytest.mark.parametrize("text", ["1/3**1000", "1/3^1000", "-1/3^1000", "(1/3)*(1/3^999)"])
def test_a_value_that_underflows_is_too_small_not_too_large(text: str) -> None:
    with pytest.raises(NumberSyntaxError) as info:
        parse_number(text)
    message = str(info.value)
    assert "too small" in message and "underflows to 0" in message and "too large" not in message
    assert message.startswith(text)  # named by what was written
    assert "about 1e-478" in message or text.startswith("(1/3)")


@pytest.mark.parametrize("text", ["ln(0)", "log(0)", "ln(1 - 1)", "2 + ln(0)"])
def test_the_logarithm_of_zero_is_undefined_not_a_negative(text: str) -> None:
    with pytest.raises(NumberSyntaxError) as info:
        parse_number(text)
    assert "ln(0) is undefined (the logarithm of zero)" in str(info.value)
    assert "negative" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("ln(-1)", "the logarithm of a negative number is not a real number"),
        ("sqrt(-2)", "the square root of a negative number is not a real number"),
        ("(-8)^(1/3)", "a negative number to a fractional power is not a real number"),
        ("1/0", "division by zero"),
        ("0^-1", "division by zero"),
        ("exp(1000)", "too large"),  # e^1000 = 10^434.29: past a double's 1.8e308
        ("1e300 * 1e300", "too large"),
    ],
)
def test_other_refusals_say_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(NumberSyntaxError, match=words):
        parse_number(text)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("3^1000/3^999", 3.0),  # 3^1000 overflows a double; the quotient is 3
        ("ln(exp(-1000))", -1000.0),  # exp(-1000) underflows a double; its logarithm is -1000
        ("1e300 * 1e300 / 1e300", 1e300),
    ],
)
def test_a_value_a_double_holds_is_that_value(text: str, want: float) -> None:
    assert to_float(parse_number(text)) == pytest.approx(want, rel=1e-15)


def _answers(tmp_path: Path, entry: str) -> str:
    path = tmp_path / "a.toml"
    path.write_text(f'scores = ["{entry}", 2, 2]\n', encoding="utf-8")
    return str(path)


def test_check_names_the_entry_with_the_true_reason(cli: Any, tmp_path: Path) -> None:
    problem = str(PROBLEMS / "decoder-dot.toml")
    line = one_line_refusal(cli("check", problem, _answers(tmp_path, "1/3**1000")), "a.toml", "scores")
    assert "entry 1: 1/3**1000 is too small to hold as a number" in line and "too large" not in line
    line = one_line_refusal(cli("check", problem, _answers(tmp_path, "ln(0)")), "a.toml", "scores")
    assert "entry 1: ln(0) is undefined (the logarithm of zero)" in line and "negative" not in line


def test_a_whole_exponent_past_a_double_keeps_its_parity() -> None:
    """(-1)^(10^400 + 1) is -1 (an odd exponent), 1^(1e400) is 1: the exponent is taken exactly, not
    rounded to 30 digits (which made it even)."""
    assert to_float(parse_number("(-1)^(1e400 + 1)")) == -1.0
    assert to_float(parse_number("(-1)^(1e400)")) == 1.0
    assert to_float(parse_number("1^(1e400)")) == 1.0


def test_a_power_past_a_doubles_exponent_is_refused_by_its_size() -> None:
    """(1/2)^(1e400): the size estimate of its exact value overflowed a float (OverflowError); it is
    refused as a power with too many digits to compute exactly."""
    with pytest.raises(NumberSyntaxError, match="too large to compute exactly"):
        parse_number("(1/2)^(1e400)")
    with pytest.raises(NumberSyntaxError, match=r"the exponent 1e\+400 is too large"):
        parse_number("e^(1e400)")
