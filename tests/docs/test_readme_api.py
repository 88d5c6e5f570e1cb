"""The Python API page's block (docs/python-api.md) runs, and the values its comments show are what Python shows.

Independently of attncalc: the weights of query [1, 1] over keys [[1, 0], [0, 2]] are
softmax([1, 2]) = [1/(1 + e), e/(1 + e)], computed here with numpy.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from ..helpers import ROOT


def _api_block() -> str:
    text = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    section = text.split("# Python API", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_block_runs_and_its_comments_are_true(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    scope: dict[str, Any] = {}
    shown: list[tuple[str, str]] = []
    for line in _api_block().splitlines():
        code, _, comment = line.partition("#")
        exec(code, scope)  # the page's own example code, run as a reader would
        value = re.match(r"\s*([\[{].*?[\]}])(:|,|$)", comment)
        if value and code.strip() and "=" not in code.split("(")[0]:
            shown.append((code.strip(), value.group(1)))
    assert len(shown) >= 3
    for expr, text in shown:
        assert str(eval(expr, scope)) == text, expr
    w = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()
    np.testing.assert_allclose(scope["d"]["weights"], w, rtol=1e-15)
