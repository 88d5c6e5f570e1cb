"""generate multi-head: an odd RoPE head width is blamed on its cause (d_k = dim/heads), and wide
models (--dim 6, grouped queries) draw fit variants instead of failing after 500 draws."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest


def test_rope_with_odd_head_width_names_d_k(cli: Any, tmp_path: Path) -> None:
    r = cli(
        "generate",
        "--kind",
        "multi-head",
        "--positions",
        "rope",
        "--heads",
        "4",
        "--dim",
        "4",
        "--out",
        str(tmp_path / "g"),
    )
    assert r.exit_code == 2
    assert "d_k" in r.output and "4/4 = 1" in r.output and "even" in r.output, r.output
    assert "--positions:" not in r.output


@pytest.mark.parametrize("kv", ["1", "3"])
def test_wide_grouped_query_homework_draws(cli: Any, tmp_path: Path, kv: str) -> None:
    out = tmp_path / "g"
    args = ["--kind", "multi-head", "--heads", "3", "--dim", "6", "--kv-heads", kv, "--seed", "4", "--count", "5"]
    r = cli("generate", *args, "--out", str(out))
    assert r.exit_code == 0, r.output
    files = sorted(out.rglob("*.toml"))
    problems = [tomllib.loads(f.read_text()) for f in files if "given" in f.read_text()]
    assert len(problems) >= 5
    for p in problems:
        g = p["given"]
        assert len(g["W_K"][0]) == int(kv) * 2 and g["heads"] == 3
