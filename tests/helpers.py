"""Shared helpers: run the CLI in-process, solve problem files, find the examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attncalc.cli import app
from attncalc.mechanisms import solve
from attncalc.parse import load_problem, parse_problem

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "problems"
PROBLEM_FILES = sorted(PROBLEMS.glob("*.toml"))


@pytest.fixture
def cli() -> Any:
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(app, list(args), catch_exceptions=False)

    return run


def solve_file(name: str, **kw: Any) -> Any:
    return solve(load_problem(PROBLEMS / name), **kw)


def solve_raw(raw: dict[str, Any], **kw: Any) -> Any:
    return solve(parse_problem(raw, "test.toml"), **kw)


def json_of(result: Any) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


MEMORY_LIMIT = 1536 * 2**20  # address space of one CLI run: a blow-up is a MemoryError, not a swapping machine


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 60, env: dict[str, str] | None = None) -> Any:
    """The real ``attncalc`` in a subprocess, bounded in time and memory.

    A run still going after ``timeout`` seconds has hung: the test fails saying so (the bound is
    far above any honest run, so this is not a timing assertion).
    """
    import os
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    try:
        return subprocess.run(
            [sys.executable, "-m", "attncalc", *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="backslashreplace",
            cwd=cwd,
            timeout=timeout,
            env={**os.environ, **(env or {})},
            preexec_fn=limit,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"attncalc {' '.join(args)} still ran after {timeout} s: it hangs")


def one_line_refusal(result: Any, file: str, key: str = "") -> str:
    """Assert exit 2 with one line on stderr naming the file (and the key), no traceback; the line.

    ``result`` is a subprocess's (run_cli) or CliRunner's (the cli fixture).
    """
    code = result.returncode if hasattr(result, "returncode") else result.exit_code
    err = result.stderr
    assert code == 2, err
    assert "Traceback" not in err, err
    assert err.count("\n") == 1 and err.startswith("attncalc: error: "), err
    assert file in err, err
    if key:
        assert f": {key}:" in err, err
    return err
