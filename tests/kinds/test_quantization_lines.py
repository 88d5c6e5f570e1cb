"""Kind quantization: every written-out line of the zero points, the integers and the dequantized weights
gives, as written, what it shows. Each line is read back from ``solve``'s text and worked here with
Fraction: round half to even (torch.round) of the quotient of the numbers the line writes, the zero
point added, the clamp where the line writes one; (q − z) · s rounded half up to the shown decimals."""

from __future__ import annotations

import random
import re
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from ..helpers import run_cli

NUM = r"-?\d+(?:\.\d+)?"
SCALE = rf"(?:{NUM}|\(\d+/\d+\))"
ROUND = re.compile(rf"round\(({NUM}) / ({SCALE})\)(?: \+ (\d+))?")
CLAMP = re.compile(rf"^clamp\((.*), ({NUM}), ({NUM})\)$")
DEQ = re.compile(rf"^(?:\((-?\d+) − (-?\d+)\)|(-?\d+)) · ({SCALE})$")
LINE = re.compile(r"^\s+(z_\d+(?: \([^)]*\))?|z|q\[[\d,]+\]|w'\[[\d,]+\]) = (.*) = (\S+)$")


def _frac(text: str) -> Fraction:
    return Fraction(text.strip("()"))


def _half_even(x: Fraction) -> int:
    return round(x)  # Fraction.__round__ rounds half to even


def _value(expr: str) -> Fraction:
    """What a line's right-hand side gives, worked from the numbers it writes."""
    m = CLAMP.match(expr)
    if m:
        lo, hi = Fraction(m.group(2)), Fraction(m.group(3))
        return min(max(_value(m.group(1)), lo), hi)
    m = ROUND.fullmatch(expr)
    if m:
        return Fraction(_half_even(Fraction(m.group(1)) / _frac(m.group(2))) + int(m.group(3) or 0))
    m = DEQ.match(expr)
    assert m, expr
    q = Fraction(int(m.group(1)) - int(m.group(2))) if m.group(1) else Fraction(int(m.group(3)))
    return q * _frac(m.group(4))


def _shown_decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def _check_lines(path: Path) -> int:
    out = run_cli("solve", str(path))
    assert out.returncode == 0, out.stderr
    seen = 0
    for line in out.stdout.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        name, expr, shown = m.groups()
        got = _value(expr)
        if name.startswith("w'"):
            places = Decimal(1).scaleb(-_shown_decimals(shown))
            as_shown = Decimal(got.numerator) / Decimal(got.denominator)
            assert as_shown.quantize(places, rounding=ROUND_HALF_UP) == Decimal(shown), line
        else:
            assert got == int(shown), line
        seen += 1
    return seen


def _problem(tmp_path: Path, w: list[list[float]], scheme: str, gran: str, bits: int, dec: int, group: int = 0) -> Path:
    f = tmp_path / "q.toml"
    extra = f"group = {group}\n" if group else ""
    f.write_text(
        f'kind = "quantization"\n[given]\nW = {w}\nbits = {bits}\nscheme = "{scheme}"\ngranularity = "{gran}"\n'
        f"{extra}[settings]\ndecimals = {dec}\n",
        encoding="utf-8",
    )
    return f


@pytest.mark.parametrize("dec", [3, 4])
def test_a_scale_of_one_150th_writes_true_lines(tmp_path: Path, dec: int) -> None:
    """W = [−0.66, 0.13, 1.04, −0.29], 8-bit zeropoint: s = 1.7/255 = 1/150, z = round(0.66 · 150) = 99;
    0.13 · 150 = 19.5 and −0.29 · 150 = −43.5 are ties (to 20 and −44: q = 119 and 55), which no rounded
    scale meets: those lines write 1/150. 0.66 / 0.007 = 94.3 would give 94, not 99."""
    s = (Fraction("1.04") - Fraction("-0.66")) / 255
    assert s == Fraction(1, 150)
    assert round(Fraction("0.66") / s) == 99 and round(Fraction("0.66") / Fraction("0.007")) == 94
    assert round(Fraction("0.13") / s) + 99 == 119 and round(Fraction("-0.29") / s) + 99 == 55
    f = _problem(tmp_path, [[-0.66, 0.13, 1.04, -0.29]], "zeropoint", "row", 8, dec)
    assert _check_lines(f) == 9  # one zero point, four integers, four weights
    text = run_cli("solve", str(f)).stdout
    assert "round(0.13 / (1/150)) + 99 = 119" in text
    assert "round(-0.29 / (1/150)) + 99 = 55" in text


@pytest.mark.parametrize("seed", range(5))
def test_random_matrices_write_true_lines(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    rows, cols = rng.randint(1, 3), rng.choice([2, 4])
    w = [[round(rng.uniform(-2, 2), 2) for _ in range(cols)] for _ in range(rows)]
    scheme = rng.choice(["absmax", "zeropoint"])
    gran = rng.choice(["tensor", "row", "group"])
    f = _problem(
        tmp_path, w, scheme, gran, rng.choice([4, 8]), rng.choice([2, 3, 4]), group=2 if gran == "group" else 0
    )
    assert _check_lines(f) > 0


def test_the_sheet_states_the_group_once(tmp_path: Path) -> None:
    """A group granularity is said once (the group's size and what it means), not twice over."""
    from attncalc.parse import load_problem
    from attncalc.render.setup import payload_stated

    f = _problem(tmp_path, [[-0.66, 0.13, 1.04, -0.29]], "zeropoint", "group", 8, 4, group=2)
    stated = dict(payload_stated(load_problem(f)))
    assert stated["granularity"] == "Granularity: group."
    assert stated["group"] == "group = 2: one scale per 2 consecutive entries of a row."
    assert sum("consecutive" in line for line in stated.values()) == 1
