"""Four small user-facing messages: a value with a unit, an unquoted dotted step id, the check
report's score line at 80 columns, and a tiny size in GiB; and the `[settings]` table of
docs/interface.md, complete and held against the registry of kinds."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from attncalc import kinds
from attncalc.parse import settings_table

from ..helpers import PROBLEMS, ROOT, json_of, run_cli

ACCOUNTING = PROBLEMS / "gpt2-small-accounting.toml"
PARAMETERS = 124_439_808  # GPT-2 small, tied embeddings (Radford et al. 2019; Hugging Face's gpt2: 124,439,808)


# ------------------------------------------------------------------------------ 1. a value with a unit


def test_a_count_with_a_unit_is_told_units_are_not_read(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "a.toml"
    f.write_text('parameters = "124.439808M"\n', encoding="utf-8")
    r = cli("check", str(ACCOUNTING), str(f))
    assert r.exit_code == 2
    msg = r.output.strip()
    assert str(f) in msg and "parameters" in msg and "units" in msg and "not read" in msg
    assert "write * for a product" not in msg and "Traceback" not in msg
    hint = re.search(r"(\d+(?:\.\d+)?e\d+)", msg)  # the hint's number: following it gives the count
    assert hint is not None and hint.group(1) == "124.439808e6"
    f.write_text(f'parameters = "{hint.group(1)}"\n', encoding="utf-8")
    r = cli("check", str(ACCOUNTING), str(f), "-f", "json")
    data = json.loads(r.stdout)
    assert data["results"][0]["verdict"] == "correct" and data["results"][0]["given"] == PARAMETERS


@pytest.mark.parametrize("text", ["13.0B", "0.5 GiB", "7 params"])
def test_any_unit_after_a_number_is_refused_plainly(cli: Any, tmp_path: Path, text: str) -> None:
    f = tmp_path / "a.toml"
    f.write_text(f'layer = "{text}"\n', encoding="utf-8")
    r = cli("check", str(ACCOUNTING), str(f))
    assert r.exit_code == 2 and "write the number alone" in r.output
    if text == "7 params":  # no unit attncalc reads
        assert "units and suffixes are not read" in r.output
    else:  # a unit of bytes on a step that counts parameters: said as such
        assert "counts parameters, not bytes" in r.output and text.split()[-1].lstrip("0123456789.") in r.output
    assert "*" not in r.output  # no product to write


def test_a_missing_product_sign_keeps_its_hint(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "a.toml"
    f.write_text('scores = ["2e", 1, 1]\n', encoding="utf-8")
    r = cli("check", str(PROBLEMS / "lecture-dot.toml"), str(f))
    assert r.exit_code == 2 and "2*e" in r.output


# ------------------------------------------------------------------------------ 2. an unquoted dotted step id


@pytest.mark.parametrize(
    ("text", "step_id"),
    [
        ("layer = 7087872\nlayer.attention = 2362368\n", "layer.attention"),
        ("layer.attention = 2362368\nlayer = 7087872\n", "layer.attention"),
    ],
)
def test_an_unquoted_dotted_id_beside_its_start_is_told_to_quote_it(
    cli: Any, tmp_path: Path, text: str, step_id: str
) -> None:
    f = tmp_path / "a.toml"
    f.write_text(text, encoding="utf-8")
    r = cli("check", str(ACCOUNTING), str(f))
    assert r.exit_code == 2 and "Traceback" not in r.output
    msg = r.output.strip()
    assert msg.count("\n") == 0, msg
    assert "Cannot overwrite" not in msg
    assert f"{f}: {step_id}:" in msg and f'"{step_id}" = ' in msg and "quote" in msg
    # the hint followed: the file is read and both answers graded
    fixed = text.replace(f"{step_id} =", f'"{step_id}" =')
    f.write_text(fixed, encoding="utf-8")
    data = json.loads(cli("check", str(ACCOUNTING), str(f), "-f", "json").stdout)
    assert {x["id"] for x in data["results"]} == {"layer", "layer.attention"}


def test_a_dotted_head_id_beside_its_head_names_the_dotted_id(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "a.toml"
    f.write_text("head.1.weights = [[1, 0, 0], [0.5, 0.5, 0], [0.3, 0.3, 0.4]]\nhead.1 = 3\n", encoding="utf-8")
    r = cli("check", str(PROBLEMS / "mh-grouped-query.toml"), str(f))
    assert r.exit_code == 2
    assert f"{f}: head.1.weights:" in r.output and '"head.1.weights" = ' in r.output


def test_other_toml_errors_are_left_as_they_were(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "a.toml"
    f.write_text("scores = [1, 2\n", encoding="utf-8")
    r = cli("check", str(PROBLEMS / "lecture-dot.toml"), str(f))
    assert r.exit_code == 2 and "is not valid TOML" in r.output


# ------------------------------------------------------------------------------ 3. the score line at 80 columns


def _lines_keep_quotients(text: str) -> None:
    for line in text.splitlines():
        assert not re.search(r"(^|\s)/\s*$", line), line  # a line never ends in "1 /"
        assert not re.match(r"\s*/\s", line), line  # nor starts with "/ 27"
        assert not re.search(r"\bscore \d+(?:\.\d+)?\s*$", line), line  # nor ends in "score 1"


@pytest.mark.parametrize("step_id", ["encoder.fwd.1.hx", "encoder.fwd.2.hx", "encoder.bwd.1.h"])
def test_the_score_is_never_broken_at_80_columns(tmp_path: Path, step_id: str) -> None:
    """The summary "…; the first error is at encoder.fwd.1.hx; score 0 / 91" is 81 characters:
    rich broke it after "0 /"."""
    f = tmp_path / "a.toml"
    f.write_text(
        f'"{step_id}" = [9, 9]\n' if step_id.endswith(".h") else f'"{step_id}" = [9, 9, 9, 9]\n', encoding="utf-8"
    )
    g = tmp_path / "b.toml"
    g.write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    env = {"COLUMNS": "80"}
    one = run_cli("check", str(PROBLEMS / "seq2seq-bahdanau.toml"), str(f), env=env)
    assert one.returncode == 1, one.stderr
    assert re.search(r"score \d+ / \d+", one.stdout)
    assert max(len(line) for line in one.stdout.splitlines()) <= 80
    _lines_keep_quotients(one.stdout)
    both = run_cli(
        "check", str(PROBLEMS / "seq2seq-bahdanau.toml"), "a.toml", "b.toml", cwd=tmp_path, env={"COLUMNS": "60"}
    )
    assert "mean score" in both.stdout
    _lines_keep_quotients(both.stdout)
    assert len(re.findall(r"score \d+ / \d+", both.stdout)) == 3


# ------------------------------------------------------------------------------ 4. a tiny size in GiB


def _three_significant(q: Fraction) -> str:
    """q written with three significant digits, rounded half up (by hand: Decimal, not attncalc)."""
    x = Decimal(q.numerator) / Decimal(q.denominator)
    exponent = x.adjusted()  # the place of the first significant digit
    return str(x.quantize(Decimal(1).scaleb(exponent - 2), rounding="ROUND_HALF_UP"))


def test_a_per_token_kv_cache_keeps_three_significant_digits(cli: Any, tmp_path: Path) -> None:
    text = ACCOUNTING.read_text(encoding="utf-8").replace("tokens = 1024", "tokens = 1")
    f = tmp_path / "one-token.toml"
    f.write_text(text, encoding="utf-8")
    # one token's KV cache in fp32: 2 (K and V) · 12 layers · 12 heads · 64 · 1 token · 1 · 4 bytes
    size = 2 * 12 * 12 * 64 * 1 * 1 * 4
    assert size == 73_728
    want = _three_significant(Fraction(size, 2**30))
    assert want == "0.0000687"
    steps = {s["id"]: s for s in json_of(cli("solve", str(f), "-f", "json"))["steps"]}
    assert steps["kv_cache"]["value"] == size
    assert steps["kv_cache"]["gib"]["decimal"] == want
    out = cli("solve", str(f)).stdout
    assert f"≈ {want} GiB" in out and "≈ 0.0001 GiB" not in out


def test_sizes_at_the_asked_decimals_are_unchanged(cli: Any) -> None:
    steps = {s["id"]: s for s in json_of(cli("solve", str(ACCOUNTING), "-f", "json"))["steps"]}
    # memory.parameters = 124,439,808 · 4 bytes = 486,093/1,048,576 GiB = 0.46358… GiB
    assert steps["memory.parameters"]["gib"] == {"exact": "486093/1048576", "decimal": "0.464"}


# ------------------------------------------------------------------------------ the [settings] table


def _settings_table() -> dict[str, list[str]]:
    """The rows of docs/interface.md's `[settings]` table: key -> its cells after the key."""
    lines = (ROOT / "docs" / "interface.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("### `[settings]`")
    rows: dict[str, list[str]] = {}
    for line in lines[start + 1 :]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        m = re.fullmatch(r"`(\w+)`", cells[0])
        if m:
            rows[m.group(1)] = cells[1:]
    return rows


def _takers() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for kind, entry in kinds.KINDS.items():
        settings = entry.declaration.top["settings"].table
        assert settings is not None
        for key in settings.keys:
            out.setdefault(key.name, set()).add(kind)
    return out


def _kinds_cell(cell: str) -> set[str]:
    every = set(kinds.KINDS)
    named = set(re.findall(r"`([\w-]+)`", cell))
    assert named <= every, named - every
    if cell.startswith("every kind but"):
        return every - named
    if cell == "every kind":
        return every
    return named


def test_the_settings_table_names_every_key_and_the_kinds_that_take_it() -> None:
    rows = _settings_table()
    takers = _takers()
    assert set(rows) == set(settings_table().names)
    for name, who in takers.items():
        assert _kinds_cell(rows[name][1]) == who, (name, rows[name][1], sorted(who))


def test_the_settings_table_gives_each_declared_default() -> None:
    rows = _settings_table()
    for key in settings_table().keys:
        cell = rows[key.name][0]
        if key.default is None or key.name == "convention":
            continue  # no default (temperature: 1 when absent, label_smoothing: none), or one per kind
        written = json.dumps(key.default) if isinstance(key.default, (bool, str)) else str(key.default)
        if key.name == "eps":
            written = "1e-5"
        assert cell.strip("`") in (written, written.strip('"')), (key.name, cell, written)
