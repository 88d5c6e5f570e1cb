"""Answers a student may well write that made `check` (and the practice page) crash with a traceback, exit 1
(hostile tryout 29): a speculative count out of range beside an answered next token (the label's dependants
were looked up among the numbers: KeyError), a quantization scale answered 0 (a written-out line divided
by it: ZeroDivisionError) or 1e308 (a line of −∞ read back as a float: ValueError). Each is graded now,
wrong where it is wrong, with no traceback; one such file no longer stops a class's gradebook."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS

SPECULATIVE = [
    'accepted = [2, 0]\nnext_token = "a"\n',
    'n_accepted = 5\nnext_token = "a"\n',
    'n_accepted = 1000\nnext_token = "a"\noutput = ["a", "b"]\n',
]


@pytest.mark.parametrize("body", SPECULATIVE)
def test_a_speculative_count_out_of_range_beside_a_token_is_graded(cli: Any, tmp_path: Path, body: str) -> None:
    shutil.copy(PROBLEMS / "speculative-two-drafts.toml", tmp_path / "p.toml")
    (tmp_path / "a.toml").write_text(body, encoding="utf-8")
    done = cli("check", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"), "--format", "json")
    assert done.exit_code == 1, done.output  # (graded: something is wrong; a crash raised here before)
    import json

    verdicts = {r["id"]: r["verdict"] for r in json.loads(done.stdout)["results"]}
    # 2 of 2 drafts, or 5 or 1000 accepted, is more than the round has: never right
    assert "wrong" in {verdicts.get("accepted"), verdicts.get("n_accepted")}


def test_a_scale_answered_zero_is_graded_with_its_working(cli: Any, tmp_path: Path) -> None:
    shutil.copy(PROBLEMS / "quantization-absmax-rows.toml", tmp_path / "p.toml")
    (tmp_path / "a.toml").write_text("scales = [0, 0]\nquantized = [[0,0,0,0],[0,0,0,0]]\n", encoding="utf-8")
    done = cli("check", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"), "--width", "200")
    assert done.exit_code == 1, done.output
    # absmax: s = max|w| / 127 = 2.0 / 127 and 0.9 / 127, never 0
    assert "✗ wrong    scales" in done.stdout and "Traceback" not in done.output


def test_a_huge_zeropoint_scale_is_graded(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(
        'kind = "quantization"\ntitle = "zero point, groups of 2"\n[given]\n'
        "W = [[-2.5, 1.5, -2.3, 0.6], [-0.4, 2.4, 2.1, 0.1], [1.4, 2.2, -2.7, 0.2]]\n"
        'bits = 8\nscheme = "zeropoint"\ngranularity = "group"\ngroup = 2\n[settings]\ndecimals = 6\n',
        encoding="utf-8",
    )
    (tmp_path / "a.toml").write_text(
        'scales = [[0.015686, 1e308], ["?","?"], ["?","?"]]\nzero_points = [["?", 1000], ["?","?"], ["?","?"]]\n'
        'errors = [["?","?",1000,"?"], ["?","?","?","?"], ["?","?","?","?"]]\n',
        encoding="utf-8",
    )
    done = cli("check", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"))
    assert done.exit_code == 1, done.output
    assert "✗ wrong    scales" in done.stdout and "Traceback" not in done.output


def test_a_huge_angle_is_graded_in_bounded_time(cli: Any, tmp_path: Path) -> None:
    """Tryout 30: one angle answered 1e25 (or 1e308): every number within half a unit of it is as good,
    and sin over them takes every value in [-1, 1]; the interval chain looked for sin's extrema one
    period at a time where a period is below the float spacing (k·π rounds to the same float): a loop
    without end, 24 GB. θ[1,1] = pos / 10000^(0/d) = 0 for position 0."""
    (tmp_path / "a.toml").write_text('angles = [[1e25, "?"], ["?", "?"], ["?", "?"], ["?", "?"]]\n', encoding="utf-8")
    done = cli("check", str(PROBLEMS / "positions-sinusoidal.toml"), str(tmp_path / "a.toml"))
    assert done.exit_code == 1, done.output
    assert "1 wrong; the first error is at angles" in done.stdout and "Traceback" not in done.output


def test_interval_sine_of_a_huge_number_is_the_whole_range() -> None:
    from attncalc.derivation.interval import Iv

    for x in (1e25, 1e308, -1e300, 2.0**53):
        assert (Iv(x, x).sin().lo, Iv(x, x).sin().hi) == (-1.0, 1.0)
        assert (Iv(x, x).cos().lo, Iv(x, x).cos().hi) == (-1.0, 1.0)
    got = Iv(0.0, 7.0).sin()  # a whole period: every value
    assert (got.lo, got.hi) == (-1.0, 1.0)
    got = Iv(0.1, 0.2).sin()  # monotone there: sin 0.1 to sin 0.2, widened by ulps
    assert got.lo <= math.sin(0.1) < math.sin(0.1) + 1e-12 and math.sin(0.2) <= got.hi < math.sin(0.2) + 1e-12


def test_a_count_of_minus_infinity_beside_its_residual_is_graded(cli: Any, tmp_path: Path) -> None:
    """Tryout 30: n_accepted = "-inf" beside a residual of "-inf": the residual's working was looked up
    past the lines the answerer's own run wrote (IndexError, exit 1). Graded: both wrong (1 draft is
    accepted in this problem: n = 1)."""
    (tmp_path / "a.toml").write_text('n_accepted = "-inf"\nresidual = ["-inf", "-inf", "-inf", "-inf"]\n')
    shutil.copy(PROBLEMS / "speculative-two-drafts.toml", tmp_path / "p.toml")
    done = cli("check", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"), "--format", "json")
    assert done.exit_code == 1, done.output
    import json

    verdicts = {r["id"]: r["verdict"] for r in json.loads(done.stdout)["results"]}
    assert verdicts == {"n_accepted": "wrong", "residual": "wrong"}
