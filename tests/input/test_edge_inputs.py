"""Inputs at the edges (float limits, a byte order mark, links, sums that overflow): each case is bad input (one line
naming the file and the key, exit 2) or output that is right, never a traceback or a non-JSON number."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import one_line_refusal

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------ a total over files past the largest double


def test_points_whose_sum_over_files_overflows_are_bad_input(cli: Any, tmp_path: Path) -> None:
    """Each file's total (its steps × 1.9e307) is finite, the sum
    over the files is not: `check -f json` printed `"out_of": Infinity`, which is not JSON."""
    problem = tmp_path / "gr2.toml"
    shutil.copy(ROOT / "problems" / "decoder-dot.toml", problem)
    with problem.open("a") as f:
        f.write("\n[grading]\ndefault = 1.9e307\n")
    steps = len(json.loads(cli("solve", str(problem), "-f", "json").stdout)["steps"])
    assert steps * 1.9e307 < 1.7976931348623157e308 < 2 * steps * 1.9e307  # one file finite, two not
    for name in ("gra.toml", "grb.toml"):
        (tmp_path / name).write_text("scores = [1,2,2]\n")
    files = [str(problem), str(tmp_path / "gra.toml"), str(tmp_path / "grb.toml")]
    for fmt in ("json", "text"):
        err = one_line_refusal(cli("check", *files, "-f", fmt), str(problem), "grading.default")
        assert "add up to more than the largest number" in err
    one = cli("check", *files[:2], "-f", "json")  # one file: finite, JSON that parses strictly
    json.loads(one.stdout, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))


# ------------------------------------------------------------------ numbers near the float limits


def test_answers_near_the_float_limits_are_written_in_scientific_notation(cli: Any, tmp_path: Path) -> None:
    """1e308 was written as a 309-digit number and 1e-320 as 320 zeros, in the given, the expected
    value and the notes; one note wrote the same Z as "1 / 1.00e-320" and "1 / 0.0000…"."""
    answers = tmp_path / "a-big.toml"
    answers.write_text('scores = [1e308, 1e308, 2]\nexp_sum = 1e-320\nweights = [1e308, 0, "1e-400"]\n')
    result = cli("check", str(ROOT / "problems" / "decoder-dot.toml"), str(answers), "--width", "80")
    assert result.exit_code == 1 and "Traceback" not in result.output
    out = result.stdout
    assert "0" * 30 not in out
    numbers = [w for w in out.replace(",", " ").split() if "/" not in w and any(c.isdigit() for c in w)]
    assert max(len(w) for w in numbers) <= 26  # 24 characters and ⟨ ⟩
    assert "not 1e+308" in out and "not 1e-320" in out  # as written, in the notes
    assert "⟨1e-320⟩" in out
    assert out.count("1 / 1e-320") == 2  # α_1 and α_2 divide by the same Z, written the same way


def test_the_scientific_form_of_a_number_too_long_for_fixed_point() -> None:
    """Fixed point up to 24 characters, then scientific notation with the digits that tell the double
    apart (repr's), never the noise of a 320-decimal format."""
    from attncalc.derivation.fmt import LONGEST_FIXED, fixed, fmt

    assert LONGEST_FIXED == 24
    assert fmt(0.155, 3) == "0.155" and fixed(1.76, 3) == "1.760"  # short numbers are as before
    assert fmt(1e-320, 3) == fmt(1e-320, 320) == fixed(1e-320, 320) == "1e-320"
    assert fixed(1e308, 0) == fmt(1e308, 3) == "1e+308"
    assert float(fmt(17.496394026320345, 320)) == 17.496394026320345  # all of the double, no more
    assert len(fmt(17.496394026320345, 320)) <= LONGEST_FIXED


def test_a_value_rounded_to_one_figure_in_scientific_notation_has_no_bare_point() -> None:
    """exp(397 − 929) = 9.0227e-232 at an answer's one decimal was written "9.e-232" (numpy keeps the
    point when the digit after it rounds away)."""
    from attncalc.derivation.fmt import fmt, sci

    assert sci(9.02268150821e-232, 2) == "9e-232"
    assert fmt(9.02268150821e-232, 1) == "9e-232"
    assert sci(-9.96e-300, 2) == "-1e-299"  # 9.96 rounds up to 10: one figure, the exponent moved on
    assert sci(1.25e-200, 3) == "1.25e-200" and sci(1.25e-200, 2) == "1.2e-200"  # the double is 1.2499999…e-200


# ------------------------------------------------------------------ -o a link to what is not a file


def test_force_refuses_a_link_to_what_is_not_a_regular_file(cli: Any, tmp_path: Path) -> None:
    """`-o so.json --force`, so.json a link to /proc/self/fd/1 (or /dev/null), replaced the link with a
    regular file; as root, `-o /dev/stdout --force` would have replaced /dev/stdout."""
    import os

    problem = str(ROOT / "problems" / "decoder-dot.toml")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for target in (os.devnull, str(fifo)):  # a character device, a FIFO
        link = tmp_path / "so.json"
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        err = one_line_refusal(cli("solve", problem, "-f", "json", "-o", str(link), "--force"), str(link))
        assert "is a symbolic link to" in err and "not a file" in err
        assert link.is_symlink() and os.readlink(link) == target  # left as it was
    kept = tmp_path / "kept.json"
    kept.write_text("old\n")
    link.unlink()
    link.symlink_to(kept)  # a link to a regular file: --force replaces the name, as documented
    assert cli("solve", problem, "-f", "json", "-o", str(link), "--force").exit_code == 0
    assert json.loads(link.read_text())["kind"] and kept.read_text() == "old\n"


# ------------------------------------------------------------------ a byte order mark


def test_a_byte_order_mark_at_the_start_of_a_file_is_read(cli: Any, tmp_path: Path) -> None:
    """Windows Notepad starts a UTF-8 file with a BOM: a JSON problem file was refused with Python's
    "Unexpected UTF-8 BOM (decode using utf-8-sig)"; TOML and YAML files are read the same way."""
    import tomllib

    import yaml

    raw = tomllib.loads((ROOT / "problems" / "decoder-dot.toml").read_text())
    plain = json.loads(cli("solve", str(ROOT / "problems" / "decoder-dot.toml"), "-f", "json").stdout)
    texts = {
        "p.json": json.dumps(raw),
        "p.toml": (ROOT / "problems" / "decoder-dot.toml").read_text(),
        "p.yaml": yaml.safe_dump(raw),
    }
    for name, text in texts.items():
        f = tmp_path / name
        f.write_bytes(b"\xef\xbb\xbf" + text.encode())
        result = cli("solve", str(f), "-f", "json")
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout)["steps"] == plain["steps"]
    answers = tmp_path / "a.json"
    answers.write_bytes(b'\xef\xbb\xbf{"scores": [1, 2, 2]}')
    assert cli("check", str(ROOT / "problems" / "decoder-dot.toml"), str(answers)).exit_code in (0, 1)


# ------------------------------------------------------------------ the API's arguments, the student note


def test_the_api_names_its_own_function_and_checks_format_without_out() -> None:
    """plot(decimals=99) named `attncalc.solve: decimals`; generate(format="x") without out was not checked."""
    import pytest

    import attncalc

    with pytest.raises(attncalc.ProblemError, match=r"^attncalc\.plot: decimals: expected a whole number from 0 to 12"):
        attncalc.plot(str(ROOT / "problems" / "decoder-dot.toml"), decimals=99)
    with pytest.raises(attncalc.ProblemError, match=r"^generate: --format: unknown format 'x'"):
        attncalc.generate(format="x")


def test_a_refused_student_is_not_also_said_to_name_no_student(cli: Any, tmp_path: Path) -> None:
    """`student = "a,b\\nc"` is refused on its own line; the note "1 answers file(s) name no student"
    was printed for it too, though it names one."""
    bad = tmp_path / "s1.toml"
    bad.write_text('student = "a,b\\nc"\nscores = [1, 2, 2]\n')
    good = tmp_path / "s2.toml"
    good.write_text('student = "bob"\nscores = [1, 2, 2]\n')
    result = cli("check", str(ROOT / "problems" / "decoder-dot.toml"), str(bad), str(good), "-f", "csv")
    assert result.exit_code == 2
    assert "s1.toml: student: expected one line" in result.stderr
    assert "name no student" not in result.stderr


def test_an_underflow_to_0_over_0_is_not_called_an_overflow(tmp_path: Path) -> None:
    """Scores −800 and −840 with the maximum not subtracted: exp underflows to 0 in floats (below about
    −745), so the weights are 0/0. The message says underflow, names the weights, and exact mode (which
    keeps e^(−800)) solves it: α = [1/(1 + e^(−40)), e^(−40)/(1 + e^(−40))]."""
    from attncalc.errors import ProblemError
    from attncalc.mechanisms import solve
    from attncalc.parse import parse_problem

    raw = {"kind": "attention", "given": {"query": [-40], "keys": [[20], [21]]}, "settings": {"shift_max": "never"}}
    with pytest.raises(ProblemError, match=r"comes out 0/0: the numbers underflow floating point") as err:
        solve(parse_problem(raw, "u.toml"), exact=False)
    assert err.value.key == "weights" and "overflow" not in str(err.value)
    weights = solve(parse_problem(raw, "u.toml")).step("weights").value
    assert abs(float(weights[1]) - math.exp(-40) / (1 + math.exp(-40))) < 1e-30
