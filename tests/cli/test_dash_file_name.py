"""A problem file whose name begins with '-' (`-p.toml`) was read as the option -p: the message now says
to write ./-p.toml or to put -- before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..helpers import PROBLEMS, run_cli


@pytest.fixture
def dashed(tmp_path: Path) -> Path:
    (tmp_path / "-p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("command", ["solve", "check", "plot"])
def test_the_message_says_how_to_name_the_file(dashed: Path, command: str) -> None:
    result = run_cli(command, "-p.toml", cwd=dashed)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("attncalc: error: -p.toml: ")
    assert "./-p.toml" in result.stderr and "put -- before it" in result.stderr


def test_a_missing_dashed_name_with_a_problem_suffix_gets_the_hint_too(tmp_path: Path) -> None:
    result = run_cli("solve", "-x.yaml", cwd=tmp_path)
    assert result.returncode == 2 and "./-x.yaml" in result.stderr


@pytest.mark.parametrize("args", [["./-p.toml"], ["--", "-p.toml"]])
def test_either_way_reads_the_file(dashed: Path, args: list[str]) -> None:
    result = run_cli("solve", "-f", "json", *args, cwd=dashed)  # after --, every word is a file
    assert result.returncode == 0, result.stderr


def test_an_unknown_option_alone_has_no_hint(tmp_path: Path) -> None:
    result = run_cli("solve", "--nope", "x.toml", cwd=tmp_path)
    assert result.returncode == 2 and "./" not in result.stderr and "No such option" in result.stderr
