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


# absmax 8-bit per tensor of [1.2, −0.5, −4.3, 1.2, −3.1, 0.8, 2.4, 5.4]: s = 5.4 / 127 = 27/635
TENSOR = [[1.2, -0.5, -4.3, 1.2], [-3.1, 0.8, 2.4, 5.4]]


def _half_up(x: Fraction, places: int) -> Decimal:
    return (Decimal(x.numerator) / Decimal(x.denominator)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)


def test_an_output_line_of_rounded_weights_says_what_it_gives_as_written(tmp_path: Path) -> None:
    """x = [1, 1, 1, 1]: ŷ_2 = (−73 + 19 + 56 + 127) · 27/635 = 3483/635 = 5.48504, shown 5.4850; its line
    writes w' rounded to 4 decimals, −3.1039 + 0.8079 + 2.3811 + 5.4 = 5.4851, and says so."""
    s = Fraction("5.4") / 127
    q = [[round(Fraction(str(w)) / s) for w in row] for row in TENSOR]
    assert q == [[28, -12, -101, 28], [-73, 19, 56, 127]]
    true = sum(qi * s for qi in q[1])
    assert true == Fraction(3483, 635) and _half_up(true, 4) == Decimal("5.4850")
    as_written = sum(_half_up(qi * s, 4) for qi in q[1])
    assert as_written == Decimal("5.4851")
    f = _problem(tmp_path, TENSOR, "absmax", "tensor", 8, 4)
    f.write_text(f.read_text(encoding="utf-8").replace("[settings]", "x = [1, 1, 1, 1]\n[settings]"), encoding="utf-8")
    text = run_cli("solve", str(f)).stdout
    line = " ".join(text.split("ŷ_2 (row 2) = ")[1].split("ŷ =")[0].split())
    assert line.endswith("= 5.4850 (as written: 5.4851)"), line


def test_an_error_line_writes_the_dequantized_weight_it_needs(tmp_path: Path) -> None:
    """max |w| = 2.5 at 3 decimals: s = 2.5/127, w' for −0.61 is −31 · s = −0.610236…, e = 0.000236…
    (3/12700 exactly); "−0.61 − (−0.610)" would be 0 as written: each error line's numbers, as written,
    give what it shows."""
    s = Fraction("2.5") / 127
    e = Fraction("-0.61") - round(Fraction("-0.61") / s) * s
    assert round(Fraction("-0.61") / s) == -31 and e == Fraction(3, 12700)
    f = _problem(tmp_path, [[0.5, -1.2, 0.3, 2.5], [-0.4, -0.61, 0.9, -0.6]], "absmax", "tensor", 8, 3)
    text = run_cli("solve", str(f)).stdout
    lines = re.findall(rf"^\s+e\[(\d),(\d)\] = ({NUM}) − \(?({NUM})\)? = ({NUM})$", text, re.M)
    assert len(lines) == 8, text
    for _, _, w, deq, shown in lines:
        got = Fraction(w) - Fraction(deq)
        assert float(got) == pytest.approx(float(shown), abs=0.5 * 10 ** -max(_shown_decimals(shown), 3)), (w, deq)
    assert ("2", "2", "-0.61", "-0.610236", "0.000236") in lines
