"""Fixtures of the export and gradebook tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def the_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from typer.testing import CliRunner

    from attncalc.cli import app

    out = tmp_path_factory.mktemp("set") / "hw3"
    result = CliRunner().invoke(
        app, ["generate", "--kind", "softmax", "--count", "2", "--seed", "7", "--out", str(out)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return out
