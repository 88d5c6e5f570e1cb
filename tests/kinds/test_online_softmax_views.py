"""Kind online-softmax everywhere: every view of `solve`, `new`, `list`, `schema`,
the Python API and `generate` (seeded, no ties, a maximum that rises, keys that check as correct). The
numbers the views must show are the oracles' (torch.softmax) or the hand values of the row example."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

import attncalc

from ..helpers import PROBLEMS, json_of

ROW = str(PROBLEMS / "online-softmax-row.toml")
MAT = str(PROBLEMS / "online-softmax-matrix-v.toml")
QK = str(PROBLEMS / "online-softmax-qk.toml")


@pytest.mark.parametrize("path", [ROW, MAT, QK])
def test_the_text_view_fits_80_columns(cli: Any, path: str) -> None:
    out = cli("solve", path, "--width", "80").stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    flat = " ".join(out.split())
    assert "one-shot softmax" in flat and "the difference is 0 exactly" in flat
    carried = cli("solve", path, "--width", "80", "--carry").stdout
    assert max(len(line) for line in carried.splitlines()) <= 80
    assert "rounded to 3 decimals and carried" in " ".join(carried.split())


def test_the_row_example_shows_the_hand_values(cli: Any) -> None:
    """By hand: l_2 = (1 + e⁻²)·e⁻² + e⁻³ + 1 = 1.203, L = 5 + ln 1.578 = 5.456."""
    out = cli("solve", ROW, "--width", "80").stdout
    assert "r_1 = exp(−∞ − 3) = 0" in out
    assert "r_2 = exp(3 − 5) = 0.135" in out
    assert "l_2 = 1.135·0.135 + 0.050 + 1 = 1.203" in out
    assert f"L = 5 + ln(1.578) = {5 + math.log(1 + sum(math.exp(-k) for k in range(1, 6))):.3f}" in out
    assert "exact: l_3 = exp(-5) + exp(-4) + exp(-3) + exp(-2) + exp(-1) + 1" in out


def test_json_markdown_html_reveal_and_detail(cli: Any) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch==2.13.0)")

    data = json_of(cli("solve", MAT, "-f", "json"))
    steps = {s["id"]: s for s in data["steps"]}
    S = torch.tensor([[1, 3, 2, 5], [4, 0, 3, 1]], dtype=torch.float64)
    V = torch.tensor([[1, 0], [0, 2], [1, 1], [2, 0]], dtype=torch.float64)
    np.testing.assert_allclose(steps["weights"]["value"], torch.softmax(S, -1).numpy(), atol=1e-9)
    np.testing.assert_allclose(steps["output"]["value"], (torch.softmax(S, -1) @ V).numpy(), atol=1e-9)
    assert list(steps)[:3] == ["1.scores", "1.block_max", "1.max"] and "2.output" in steps
    md = cli("solve", MAT, "-f", "markdown").stdout
    assert "[2.rescale]" in md and "the difference is 0 exactly" in md
    html = cli("solve", MAT, "-f", "html").stdout
    assert "<html" in html and "2.rescale" in html
    reveal = cli("solve", MAT, "-f", "html", "--reveal").stdout
    assert '<details class="reveal"' in reveal and "<details" not in html  # each step opens in stages
    for detail in ("full", "first", "summary"):
        assert cli("solve", MAT, "--detail", detail, "--width", "80").exit_code == 0
    question = cli("solve", ROW, "-f", "markdown", "--sheet", "question").stdout
    assert "5.456" not in question and "[logsumexp]" in question


def test_new_list_and_schema(cli: Any, tmp_path: Path) -> None:
    template = cli("new", "online-softmax").stdout
    path = tmp_path / "new.toml"
    path.write_text(template, encoding="utf-8")
    assert cli("solve", str(path)).exit_code == 0
    listed = json_of(cli("list", "--format", "json"))
    assert listed["step_ids"]["online-softmax"][:4] == ["scores", "t.scores", "t.block_max", "t.max"]
    schema = json.loads(cli("schema", "online-softmax").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    for example in (ROW, MAT, QK, str(path)):
        jsonschema.validate(tomllib.loads(Path(example).read_text(encoding="utf-8")), schema)
    with pytest.raises(jsonschema.ValidationError):  # block is required
        jsonschema.validate({"kind": "online-softmax", "given": {"scores": [1, 2]}}, schema)


def test_the_python_api() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch==2.13.0)")

    raw = {"kind": "online-softmax", "given": {"scores": [[0.5, 2, -1], [1, 1.5, 0]], "block": 2}}
    d = attncalc.solve(raw)
    np.testing.assert_allclose(d["weights"], torch.softmax(torch.tensor(raw["given"]["scores"]), -1), atol=1e-6)
    assert d.step_ids[-1] == "weights" and "2.sum" in d
    rep = attncalc.check(ROW, {"2.sum": "2.185"})  # l_1 + Σ P_2 = 1.135 + 1.050: the old sum not rescaled
    assert rep.results[0].mistake == "online_sum_not_rescaled"
    variants = attncalc.generate(kind="online-softmax", count=2, seed=4)
    assert len(variants) == 2 and all(v.derivation.problem.kind == "online-softmax" for v in variants)


@pytest.mark.parametrize(
    "args", [[], ["--values", "decimal", "--tokens", "6"], ["--score", "scaled-dot", "--dim", "2"], ["--score", "dot"]]
)
def test_generate_is_seeded_fit_and_its_keys_check(cli: Any, tmp_path: Path, args: list[str]) -> None:
    """The same seed writes the same variants; every variant has no tied scores in a row and a maximum
    that rises after block 1 (recomputed here with numpy), and its key checks as all correct."""
    runs = []
    for folder in ("a", "b"):
        out = tmp_path / folder
        result = cli("generate", "--kind", "online-softmax", *args, "--count", "4", "--seed", "11", "--out", str(out))
        assert result.exit_code == 0, result.stderr
        runs.append({p.name: p.read_bytes() for p in sorted(out.glob("variant-*.toml"))})
    assert runs[0] == runs[1] and len(runs[0]) == 4
    for k in range(1, 5):
        path = tmp_path / "a" / f"variant-{k:02d}.toml"
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        g = raw["given"]
        if "scores" in g:
            S = np.atleast_2d(np.asarray(g["scores"], dtype=float))
        else:
            Q, K = np.asarray(g["Q"], dtype=float), np.asarray(g["K"], dtype=float)
            S = Q @ K.T / (math.sqrt(Q.shape[1]) if raw["score"] == "scaled-dot" else 1)
        for row in S:
            assert np.min(np.diff(np.sort(row))) >= 1e-3, row  # no ties
        b = g["block"]
        assert any(row[b:].max() > row[:b].max() for row in S)  # some rescale is neither 0 nor 1
        report = attncalc.check(path, tmp_path / "a" / "answers" / f"variant-{k:02d}.toml")
        assert report.all_correct, [(r.id, r.note) for r in report.results if r.verdict != "correct"]


def test_generate_refuses_options_that_do_not_apply(cli: Any, tmp_path: Path) -> None:
    result = cli("generate", "--kind", "online-softmax", "--mask", "causal", "--out", str(tmp_path / "x"))
    assert result.exit_code == 2 and "--mask does not apply to online-softmax" in result.stderr
    result = cli("generate", "--kind", "online-softmax", "--score", "general", "--out", str(tmp_path / "y"))
    assert result.exit_code == 2 and "--score" in result.stderr
