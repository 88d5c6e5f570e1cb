"""quiz.xml: every question shows the givens it needs (from the variant's problem file), as XHTML in CDATA."""

from __future__ import annotations

import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest

RUNS = [
    ["--kind", "attention", "--score", "dot", "--head"],
    ["--kind", "attention", "--score", "additive", "--values", "decimal"],
    ["--kind", "attention", "--score", "concat", "--values", "mixed"],
    ["--kind", "attention", "--score", "general"],
    ["--kind", "self-attention", "--mask", "causal"],
    ["--kind", "softmax", "--tokens", "4"],
]


def _cells(table: ET.Element) -> np.ndarray:
    rows = [[float(td.text or "") for td in tr.findall("td")] for tr in table.findall("tr")]
    rows = [r for r in rows if r]
    return np.array(rows[0] if len(rows) == 1 else rows)


@pytest.mark.parametrize("opts", RUNS, ids=[" ".join(r[1:4]) for r in RUNS])
def test_every_question_shows_its_givens(cli: Any, tmp_path: Path, opts: list[str]) -> None:
    result = cli("generate", *opts, "--count", "2", "--seed", "4", "--format", "moodle", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    root = ET.parse(tmp_path / "quiz.xml").getroot()  # well-formed XML
    variant = 0
    asked = 0
    for q in root.findall("question"):
        if q.get("type") == "category":
            variant += 1
            raw = tomllib.loads((tmp_path / f"variant-{variant:02d}.toml").read_text(encoding="utf-8"))
            continue
        text = q.find("questiontext/text")
        assert text is not None and text.text is not None
        body = ET.fromstring(f"<div>{text.text}</div>")  # the question text is well-formed (X)HTML
        tables = {t.get("title"): t for t in body.iter("table")}
        paras = {p.get("title"): "".join(p.itertext()) for p in body.iter("p") if p.get("title")}
        given: dict[str, Any] = dict(raw["given"])
        given.update({k: v for k, v in raw.get("head", {}).items() if k.startswith("W")})
        for key, value in given.items():
            if key == "vocab":
                assert all(f"<th>{label}</th>" in text.text for label in value)
                continue
            if key == "target":
                assert paras["target"] == f"Target: {value}"
            elif key == "mask":
                assert value == "causal" and "causal" in paras["mask"]
            else:
                np.testing.assert_allclose(_cells(tables[key]), np.array(value, dtype=float), err_msg=key)
        for label in raw.get("tokens", []) + raw.get("head", {}).get("vocab", []):
            assert label in text.text
        asked += 1
    assert variant == 2 and asked > 4
