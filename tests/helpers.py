"""Shared helpers: run the CLI in-process, solve problem files, find the examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attncalc.cli import app
from attncalc.mechanisms import solve
from attncalc.problem import load_problem, parse_problem

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
