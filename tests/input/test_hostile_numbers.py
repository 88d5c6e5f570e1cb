"""Numbers from untrusted files: limits the grammar checks before computing, and rounding that cannot fail.

Each case here was a traceback or a hang. Expected values come from sympy, the standard
library or a one-line numpy formula, never from attncalc.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy as sp

from attncalc.derivation.arith import round_half_up
from attncalc.numbers import parse_number, to_exact, to_float

from ..helpers import json_of, one_line_refusal

SOFTMAX = 'kind = "softmax"\n[given]\nlogits = {logits}\n'


OUT_OF_RANGE = [
    ("'1e999999999'", "exponent is out of range"),  # was a billion-digit integer: ran until killed
    ("'1e-999999999'", "exponent is out of range"),
    ("Decimal('1E+999999999')", "exponent is out of range"),  # the same from a TOML or JSON number
    ("Decimal('1E-999999999')", "exponent is out of range"),
    ("Decimal('1.' + '1' * 40)", "more than 40 digits"),
    ("'(1 + 1e-30)^1000000000'", "too large to compute exactly"),  # float 1.0, exactly a billion digits
    ("'10^400'", "too large to compute exactly"),
    ("'e^100'", "exponent 100 is too large"),
    ("'2^1000.5'", "exponent 1000.5 is too large"),
    ("'exp(1000)'", "too large"),
]


def test_out_of_range_numbers_are_refused_before_computing() -> None:
    """In a child process with a time bound: before the fix, the first two never returned."""
    import subprocess
    import sys

    code = (
        "from decimal import Decimal\n"
        "from attncalc.errors import NumberSyntaxError\n"
        "from attncalc.numbers import parse_number\n"
        f"for raw in [{', '.join(raw for raw, _ in OUT_OF_RANGE)}]:\n"
        "    try:\n"
        "        print('accepted', parse_number(raw))\n"
        "    except NumberSyntaxError as exc:\n"
        "        print(exc)\n"
    )
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    except subprocess.TimeoutExpired:
        pytest.fail("parsing out-of-range numbers still ran after 60 s")
    lines = out.splitlines()
    assert len(lines) == len(OUT_OF_RANGE), out
    for (raw, words), line in zip(OUT_OF_RANGE, lines, strict=True):
        assert words in line, (raw, line)


def test_the_smallest_double_is_a_number() -> None:
    """2^-1074 was refused as "too large"; it is 5e-324, and exactly 1/2^1074."""
    node = parse_number("2^-1074")
    assert to_float(node) == math.ldexp(1.0, -1074)
    assert to_exact(node) == sp.Rational(1, 2**1074)
    assert to_exact(parse_number("(1/3)^100")) == sp.Rational(1, 3**100)  # a whole power of a fraction


@pytest.mark.parametrize(
    ("x", "decimals", "want"),
    [
        (1e26, 3, 1e26),  # was decimal.InvalidOperation: 30 digits in a 28-digit context
        (1.7e308, 440, 1.7e308),
        (-1.5e300, 12, -1.5e300),
        (0.659001139043659, 30, 0.659001139043659),  # 30 decimals: the double's own 15 digits, unchanged
        (5e-324, 440, 5e-324),
        (0.0625, 3, 0.063),  # and still half up, as by hand
    ],
)
def test_rounding_cannot_fail(x: float, decimals: int, want: float) -> None:
    assert round_half_up(x, decimals) == want


@pytest.mark.parametrize(
    ("settings", "logits", "z", "T"),
    [
        ("", "[1e26, 0]", [1e26, 0], 1.0),
        ("[settings]\ntemperature = 1e-300\n", "[1, 2]", [1, 2], 1e-300),
        ("[settings]\ntemperature = 1e300\n", "[1, 2]", [1, 2], 1e300),
        ('[settings]\ntemperature = "exp(-700)"\n', "[1, 2]", [1, 2], math.exp(-700)),
        ('[settings]\ntemperature = "exp(700)"\n', "[1, 2]", [1, 2], math.exp(700)),
        ("", "[1234567890123456789012345678901234567890, 0]", [1.2345678901234568e39, 0], 1.0),  # 40 digits
        ("", '["2^-1074", 0]', [5e-324, 0], 1.0),
    ],
)
def test_extreme_but_finite_numbers_solve(
    cli: Any, tmp_path: Path, settings: str, logits: str, z: list[float], T: float
) -> None:
    """Each was decimal.InvalidOperation when a value was rounded; the probabilities are numpy's."""
    f = tmp_path / "p.toml"
    f.write_text(SOFTMAX.format(logits=logits) + settings)
    for view in ("text", "markdown"):
        result = cli("solve", "-f", view, str(f))
        assert result.exit_code == 0, result.output
    data = json_of(cli("solve", "-f", "json", str(f)))
    p = {s["id"]: s["value"] for s in data["steps"]}["probabilities"]
    scaled = np.array(z) / T
    want = np.exp(scaled - scaled.max()) / np.exp(scaled - scaled.max()).sum()
    assert p == pytest.approx(want.tolist(), abs=1e-15)


def test_answers_written_to_30_decimals_are_graded(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(SOFTMAX.format(logits="[2, 1, 0.1]"))
    p = np.exp([2, 1, 0.1]) / np.exp([2, 1, 0.1]).sum()
    (tmp_path / "a.toml").write_text(f"probabilities = [{p[0]:.30f}, {p[1]:.30f}, {p[2]:.30f}]\n")
    result = cli("check", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"))
    assert result.exit_code == 0, result.output


ATTENTION = 'kind = "attention"\n[given]\nquery = {query}\nkeys = {keys}\n'


def test_a_large_but_finite_query_solves(cli: Any, tmp_path: Path) -> None:
    """query = ["exp(700)"] (1.01e304): the scores stay finite and the weights are softmax's (numpy)."""
    f = tmp_path / "p.toml"
    f.write_text(ATTENTION.format(query='["exp(700)", 1]', keys="[[1, 0], [0, 2]]"))
    for mode in ("--exact", "--no-exact"):
        data = json_of(cli("solve", "-f", "json", mode, str(f)))
        values = {s["id"]: s["value"] for s in data["steps"]}
        e = np.array([math.exp(700), 2.0])
        assert values["weights"] == pytest.approx((np.exp(e - e.max()) / np.exp(e - e.max()).sum()).tolist())


@pytest.mark.parametrize("mode", ["--no-exact", "--carry"])
def test_an_overflow_to_nan_is_refused_naming_where_it_began(cli: Any, tmp_path: Path, mode: str) -> None:
    """Scores of 1e5·exp(700) overflow to ∞ and the weights were NaN with exit 0; now one line
    naming the step where the numbers left the finite ones, and no numpy warning on stderr."""
    f = tmp_path / "p.toml"
    f.write_text(ATTENTION.format(query='["exp(700)", 1]', keys="[[100000, 0], [0, 2]]"))
    for fmt in ("text", "json", "markdown"):
        err = one_line_refusal(cli("solve", mode, "-f", fmt, str(f)), str(f), "scores")
        assert "overflow" in err and "'weights' is then not a number" in err


def test_exact_mode_refuses_the_same_overflow(cli: Any, tmp_path: Path) -> None:
    """An input of 1e304 is beyond the exact budget (10^12): exact forms are skipped, and the numbers
    overflow as they do without them: the same one line, never NaN output."""
    f = tmp_path / "p.toml"
    f.write_text(ATTENTION.format(query='["exp(700)", 1]', keys="[[100000, 0], [0, 2]]"))
    err = one_line_refusal(cli("solve", "-f", "json", str(f)), str(f), "scores")
    assert "'weights' is then not a number" in err


def test_softmax_without_the_shift_overflows_in_one_line(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "p.toml"
    f.write_text(SOFTMAX.format(logits="[1000, 0]") + '[settings]\nshift_max = "never"\n')
    err = one_line_refusal(cli("solve", "--no-exact", str(f)), str(f), "exponentials")
    assert "'probabilities' is then not a number" in err


def test_the_shift_note_writes_a_huge_power_of_ten_briefly(cli: Any, tmp_path: Path) -> None:
    """exp(2e300) is about 10^(8.68589e+299) (2e300 / ln 10), not a 300-digit exponent."""
    f = tmp_path / "p.toml"
    f.write_text(SOFTMAX.format(logits="[1, 2]") + "[settings]\ntemperature = 1e-300\n")
    result = cli("solve", "--no-exact", "--width", "200", str(f))
    assert f"about 10^({2e300 / math.log(10):.6g})" in result.stdout


LSTM = 'kind = "lstm"\n[given]\nx = [[1, 0]]\n' + "".join(
    f"{k} = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]\n" for k in ("W_f", "W_i", "W_c", "W_o")
)


@pytest.mark.parametrize(
    ("gates", "ok"),
    [
        ("f = [0, 1]", True),  # the ends of σ's range, as a rounded document may state them
        ("c_tilde = [-1, 1]", True),
        ("f = [1e30, 0.5]", False),  # was decimal.InvalidOperation deep in the output
        ("o = [0.5, -0.01]", False),
        ("c_tilde = [-1.5, 0]", False),
    ],
)
def test_stated_gates_lie_in_their_functions_range(cli: Any, tmp_path: Path, gates: str, ok: bool) -> None:
    f = tmp_path / "p.toml"
    f.write_text(LSTM + f"[[given.gates]]\n{gates}\n")
    result = cli("solve", str(f))
    if ok:
        assert result.exit_code == 0, result.output
    else:
        err = one_line_refusal(result, str(f), f"given.gates[1].{gates.split()[0]}")
        assert "is outside [" in err and "the range of" in err
