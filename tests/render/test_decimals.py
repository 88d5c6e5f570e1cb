"""--decimals 0..12: positional numbers throughout, and the formatting rule pinned by hand."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from attncalc.derivation.fmt import fmt

from ..helpers import PROBLEMS

SCIENTIFIC = re.compile(r"\d\.?\d*[eE][+-]?\d")


def _shown(data: dict[str, Any]) -> list[str]:
    out: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, list):
            for v in x:
                walk(v)
        else:
            out.append(str(x))

    for step in data["steps"]:
        walk(step["shown"])
    return out


@pytest.mark.parametrize("name", ["lecture-dot.toml", "decoder-dot.toml", "softmax-cross-entropy.toml"])
@pytest.mark.parametrize("decimals", range(13))
def test_every_decimals_prints_positional_numbers(cli: Any, name: str, decimals: int) -> None:
    """No e-/e+ notation in the text view or the JSON shown forms, whatever decimals asks for."""
    path = str(PROBLEMS / name)
    text = cli("solve", path, "--decimals", str(decimals), "--width", "200")
    assert text.exit_code == 0, text.output
    assert not SCIENTIFIC.search(text.stdout), SCIENTIFIC.findall(text.stdout)
    data = json.loads(cli("solve", path, "--decimals", str(decimals), "-f", "json").stdout)
    assert data["decimals"] == decimals
    shown = _shown(data)
    assert not [s for s in shown if SCIENTIFIC.search(s)]


@pytest.mark.parametrize(
    ("x", "decimals", "want"),
    [
        (0.27, 0, "0.27"),  # a weight at 0 decimals: "0" would hide it; two significant digits
        (0.3, 0, "0.3"),  # exactly 3/10: no padding
        (0.05, 0, "0.05"),
        (-0.042, 1, "-0.042"),
        (2.718281828459045, 0, "3"),
        (1.5, 0, "2"),  # half away from zero, as by hand
        (0.6224593312018546, 0, "1"),
        (0.6224593312018546, 5, "0.62246"),
        (0.8**50, 3, "0.0000143"),  # 1.4272476927059604e-05, three significant digits
        (0.8**50, 1, "0.000014"),
        (1 / 3, 12, "0.333333333333"),
        (0.39, 3, "0.39"),
        (2.0, 4, "2"),
    ],
)
def test_fmt_by_hand(x: float, decimals: int, want: str) -> None:
    assert fmt(x, decimals) == want


def test_as_written_uses_the_numbers_the_line_shows_at_zero_decimals(cli: Any) -> None:
    """At decimals 0 the weights show their leading digits (0.16, 0.42): c_1 = 0.16·1 + 0.42·0 + 0.42·1
    = 0.58, which rounds to the shown 1; the line must not claim the written numbers give 0."""
    text = cli("solve", str(PROBLEMS / "decoder-dot.toml"), "--decimals", "0", "--width", "80").stdout
    line = next(x for x in text.splitlines() if x.strip().startswith("c_1 = "))
    assert line.strip() == "c_1 = 0.16·1 + 0.42·0 + 0.42·1 = 1"


@pytest.mark.parametrize("decimals", [11, 12])
def test_many_decimals_are_all_right(cli: Any, decimals: int) -> None:
    """Z = e + 2e² = 17.496394026320345…: at 11 and 12 decimals every digit shown is right (it was
    rounded to 12 significant digits first, which cut 17.4963940263203 to 17.4963940263)."""
    import math

    z = math.e + 2 * math.e**2
    text = cli("solve", str(PROBLEMS / "decoder-dot.toml"), "--decimals", str(decimals), "--width", "200").stdout
    line = next(x for x in text.splitlines() if x.strip().startswith("Z = 2."))
    assert f"= {z:.{decimals}f}" in line, line
    assert f"{math.e:.{decimals}f}" in line


def test_huge_values_round_without_error() -> None:
    from attncalc.derivation.arith import round_half_up

    assert round_half_up(1.5e30, 3) == 1.5e30 and round_half_up(-2.5e200, 12) == -2.5e200
