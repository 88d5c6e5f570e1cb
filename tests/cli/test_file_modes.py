"""Files written by -o and by generate honour the umask, arrive whole, and never overwrite without --force."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS

DOT = str(PROBLEMS / "decoder-dot.toml")


@pytest.fixture(params=[0o022, 0o027, 0o077])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_solve_output_honours_the_umask(cli: Any, tmp_path: Path, umask: int) -> None:
    """-o writes 0644 under umask 022, 0640 under 027, 0600 under 077 (0666 & ~umask)."""
    want = {0o022: 0o644, 0o027: 0o640, 0o077: 0o600}[umask]
    for fmt, name in (("markdown", "s.md"), ("text", "s.txt"), ("json", "s.json")):
        result = cli("solve", DOT, "-f", fmt, "-o", str(tmp_path / name))
        assert result.exit_code == 0, result.output
        assert mode(tmp_path / name) == want, (name, oct(mode(tmp_path / name)))
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left


def test_generate_files_honour_the_umask(cli: Any, tmp_path: Path, umask: int) -> None:
    """Every file generate writes (variants, keys, sheets, quiz.xml) gets 0666 & ~umask."""
    want = 0o666 & ~umask
    result = cli("generate", "--count", "2", "--format", "moodle", "--out", str(tmp_path / "hw"))
    assert result.exit_code == 0, result.output
    files = [p for p in (tmp_path / "hw").rglob("*") if p.is_file()]
    assert len(files) >= 8
    assert {p.name: oct(mode(p)) for p in files} == {p.name: oct(want) for p in files}


def test_existing_file_is_kept_without_force(cli: Any, tmp_path: Path) -> None:
    """Without --force an existing file is left as it was (exit 2); with --force it is replaced, mode kept to the umask."""
    old = os.umask(0o022)
    try:
        target = tmp_path / "s.md"
        target.write_text("mine\n", encoding="utf-8")
        result = cli("solve", DOT, "-f", "markdown", "-o", str(target))
        assert result.exit_code == 2 and "--force" in result.stderr
        assert target.read_text(encoding="utf-8") == "mine\n"
        assert cli("solve", DOT, "-f", "markdown", "-o", str(target), "--force").exit_code == 0
        assert target.read_text(encoding="utf-8") != "mine\n" and mode(target) == 0o644
    finally:
        os.umask(old)
