"""`attncalc new` and `attncalc list` print exactly what they printed before the kinds moved into one registry.

The golden files in tests/golden/new/ were recorded from the code before the refactoring (that is the
behaviour to keep); they change only on purpose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from attncalc import kinds

GOLDEN = Path(__file__).parents[1] / "golden" / "new"
KINDS = list(kinds.KINDS)  # every registered kind: a new one without its golden file fails
SCORES = ["dot", "scaled-dot", "general", "additive", "concat"]


@pytest.mark.parametrize(
    ("args", "golden"),
    [(["new", k], f"{k}.toml") for k in KINDS]
    + [(["new", "attention", "--score", s], f"attention-{s}.toml") for s in SCORES]
    + [(["list"], "list.txt"), (["list", "--format", "json"], "list.json")],
)
def test_output_unchanged(cli: Any, args: list[str], golden: str) -> None:
    result = cli(*args)
    assert result.exit_code == 0
    assert result.stdout == (GOLDEN / golden).read_text(encoding="utf-8")
