"""Answers a student may well write that made `check` (and the practice page) crash with a traceback, exit 1
(hostile tryout 29): a speculative count out of range beside an answered next token (the label's dependants
were looked up among the numbers: KeyError), a quantization scale answered 0 (a written-out line divided
by it: ZeroDivisionError) or 1e308 (a line of −∞ read back as a float: ValueError). Each is graded now,
wrong where it is wrong, with no traceback; one such file no longer stops a class's gradebook."""

from __future__ import annotations

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
