"""`generate --kind bpe`: an option the bpe drawer does not read is bad input (docs/interface.md: "an
option a kind does not take is bad input unless left at its default"), --tokens (the corpus's distinct
words) is read; and a draw that runs out advises only what helps bpe."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from attncalc.homework.base import draws_advice
from attncalc.homework.bpe import DRAWER
from attncalc.homework.options import Options

NOT_READ = [
    ("--values", "decimal"),  # the corpus's counts are whole numbers
    ("--allow-ties",),  # every bpe variant is drawn with a tie that matters
    ("--decimals", "2"),  # counts are asked with 0 decimals
    ("--dim", "3"),  # no vectors
]


@pytest.mark.parametrize("args", NOT_READ, ids=[a[0] for a in NOT_READ])
def test_an_option_bpe_does_not_read_is_refused(cli: Any, tmp_path: Path, args: tuple[str, ...]) -> None:
    out = tmp_path / "hw"
    result = cli("generate", "--out", str(out), "--kind", "bpe", *args)
    assert result.exit_code == 2
    assert f"{args[0]} does not apply to bpe" in result.stderr
    assert "Traceback" not in result.output
    assert not out.exists() or not any(out.iterdir())


def test_tokens_is_the_number_of_distinct_words(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "hw"
    result = cli("generate", "--out", str(out), "--kind", "bpe", "--tokens", "5", "--count", "2")
    assert result.exit_code == 0, result.output
    for path in sorted(out.glob("variant-*.toml")):
        corpus = tomllib.loads(path.read_text())["given"]["corpus"]
        assert len(set(corpus.split())) == 5


def test_a_quiz_that_runs_out_advises_seed_and_count(cli: Any, tmp_path: Path) -> None:
    # the TA's tryout: variant 1 of seed 11 has a shape no later draw in 500 matches
    result = cli("generate", "--out", str(tmp_path / "q"), "--kind", "bpe", "--count", "3", "--seed", "11",
                 "--format", "moodle")  # fmt: skip
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert "no fit variant" in line and "another --seed" in line and "--count" in line
    for ignored in ("--values", "--allow-ties", "tokens"):
        assert ignored not in line


def test_a_worksheet_that_runs_out_advises_only_what_bpe_reads() -> None:
    advice = draws_advice(Options(kind="bpe"), DRAWER, 0)
    assert "--seed" in advice and "--tokens" in advice
    assert "--values" not in advice and "--allow-ties" not in advice
