"""Shared by the class-confinement tests: generate's set once per module, a key's answer lines, an answers
file naming its problem, a student's own problem file, and a run of the CLI from a folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def key_body(key: Path) -> list[str]:
    """A key's answer lines (its comment and problem = left out)."""
    return [line for line in key.read_text(encoding="utf-8").splitlines() if not line.startswith(("#", "problem"))]


def answers_text(problem: str, body: list[str], student: str) -> str:
    return "\n".join([f'problem = "{problem}"', f'student = "{student}"', *body]) + "\n"


def fake_problem(real: Path) -> str:
    """A problem file of the student's own: the set's problem with other logits (other true answers)."""
    text = real.read_text(encoding="utf-8")
    lines = ["logits = [5, -3, 4]" if line.startswith("logits") else line for line in text.splitlines() if line.strip()]
    return "\n".join(lines) + "\n"


def run_in(root: Path, args: list[str]) -> tuple[int, str]:
    """The exit code and standard output of ``attncalc ARGS`` run in ``root``."""
    result = invoke_in(root, args)
    return result.exit_code, result.stdout


def invoke_in(root: Path, args: list[str]) -> Any:
    from typer.testing import CliRunner

    from attncalc.cli import app

    here = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(app, args, catch_exceptions=False)
    finally:
        os.chdir(here)
    return result
