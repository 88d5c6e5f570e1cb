"""The JSON Schema generated from the kinds' declarations: it accepts every example problem, rejects
misspelt keys and wrong types, the shipped docs/schema files are current, and attncalc accepts the
editor modelines (`#:schema` in TOML, `"$schema"` in JSON, the YAML language server's comment)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from attncalc import kinds
from attncalc.numbers import parse_number

from ..helpers import PROBLEM_FILES, ROOT

jsonschema = pytest.importorskip("jsonschema")

KINDS = list(kinds.KINDS)  # every registered kind: a new one without its golden file fails
SCHEMA_DIR = ROOT / "docs" / "schema"


def _schema(cli: Any, *kind: str) -> dict[str, Any]:
    result = cli("schema", *kind)
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def _errors(schema: dict[str, Any], instance: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)]


def _examples(kind: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in PROBLEM_FILES:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        if raw.get("kind") == kind:
            out.append((path.name, raw))
    return out


def test_every_kind_has_examples() -> None:
    """The validation below is not vacuous: each kind with example files has some."""
    kinds = {tomllib.loads(p.read_text(encoding="utf-8"))["kind"] for p in PROBLEM_FILES}
    assert kinds <= set(KINDS)
    assert {"attention", "self-attention", "softmax", "sequence", "lstm", "seq2seq", "similarity"} <= kinds


@pytest.mark.parametrize("kind", KINDS)
def test_kind_schema_accepts_every_example_and_template(cli: Any, kind: str) -> None:
    """`attncalc schema KIND` validates every problem of that kind in problems/ and the `new` template."""
    schema = _schema(cli, kind)
    whole = _schema(cli)
    template = tomllib.loads(cli("new", kind).stdout)
    for name, raw in [*_examples(kind), ("template", template)]:
        assert _errors(schema, raw) == [], name
        assert _errors(whole, raw) == [], name
        # the same table written as JSON or YAML is the same instance
        assert _errors(schema, json.loads(json.dumps(raw))) == [], name
        assert _errors(schema, yaml.safe_load(yaml.safe_dump(raw))) == [], name


@pytest.mark.parametrize("score", ["dot", "scaled-dot", "general", "additive", "concat"])
def test_every_attention_template_validates(cli: Any, score: str) -> None:
    raw = tomllib.loads(cli("new", "attention", "--score", score).stdout)
    assert _errors(_schema(cli, "attention"), raw) == []


def _attention() -> dict[str, Any]:
    return tomllib.loads((ROOT / "problems" / "decoder-dot.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("which", [("attention",), ()])
def test_misspelt_keys_are_rejected(cli: Any, which: tuple[str, ...]) -> None:
    """A misspelt key is flagged at the top, in [given] and in [settings] (per kind and whole-file)."""
    schema = _schema(cli, *which)
    for where, key in (("given", "querry"), (None, "titel"), ("settings", "decimal")):
        raw = _attention()
        table = raw if where is None else raw[where]
        table[key] = table.pop({"querry": "query", "titel": "title", "decimal": "decimals"}[key], 1)
        errors = _errors(schema, raw)
        assert errors and any(key in e for e in errors), (key, errors)


@pytest.mark.parametrize("which", [("attention",), ()])
@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("given", "query"), "not a number"),  # a string outside the number grammar
        (("given", "query"), [[1, 1]]),  # a matrix where a vector belongs
        (("given", "keys"), [1, 0]),  # a vector where a matrix belongs
        (("given", "keys"), [[1, "1,5"]]),  # a decimal comma
        (("score",), "cosine"),  # not an attention score
        (("settings", "decimals"), "3"),  # a string where a whole number belongs
        (("settings", "decimals"), 13),  # out of range
        (("settings", "exact"), "yes"),
        (("tokens",), []),
    ],
)
def test_wrong_types_are_rejected(cli: Any, which: tuple[str, ...], path: tuple[str, ...], value: Any) -> None:
    raw = _attention()
    table = raw
    for p in path[:-1]:
        table = table[p]
    table[path[-1]] = value
    assert _errors(_schema(cli, *which), raw)


def test_the_whole_schema_selects_by_kind(cli: Any) -> None:
    """A key of another kind is flagged: [cell] belongs to rnn/lstm/gru, not to attention; a missing
    or unknown kind is flagged too."""
    whole = _schema(cli)
    raw = _attention()
    raw["cell"] = {"layout": "gates"}
    assert any("cell" in e for e in _errors(whole, raw))
    lstm = tomllib.loads(cli("new", "lstm").stdout)
    assert _errors(whole, lstm) == []
    lstm["given"]["query"] = [1, 1]
    assert any("query" in e for e in _errors(whole, lstm))
    assert _errors(whole, {"title": "no kind"})
    assert _errors(whole, {"kind": "transformer"})


def test_number_strings_follow_the_grammar(cli: Any) -> None:
    """Strings the number grammar reads pass the schema's pattern; others do not."""
    schema = _schema(cli, "sequence")
    good = ["1/3", "sqrt(2)/2", "exp(-1)", "ln(2)", "tanh(1/2)", "2*pi", "e", "-0.25", "pi^2", "2**3", "1e-3", "−1"]
    for s in good:
        parse_number(s)  # the grammar reads it
        assert _errors(schema, {"kind": "sequence", "given": {"probabilities": [s]}}) == [], s
    for s in ["1,5", "abc", "", "import os", "x+1"]:
        with pytest.raises(Exception):
            parse_number(s)
        assert _errors(schema, {"kind": "sequence", "given": {"probabilities": [s]}}), s


@pytest.mark.parametrize("name", [*KINDS, "attncalc"])
def test_docs_schema_files_are_current(cli: Any, name: str) -> None:
    """docs/schema/*.json are exactly what `attncalc schema` prints (regenerate them with it)."""
    args = () if name == "attncalc" else (name,)
    path = SCHEMA_DIR / f"{name}.json"
    assert path.exists(), (
        f"{path.name} is missing: write it with `attncalc schema {' '.join(args)} > docs/schema/{path.name}`"
    )
    assert path.read_text(encoding="utf-8") == cli("schema", *args).stdout, (
        f"{path.name} is out of date: `attncalc schema {' '.join(args)} > docs/schema/{path.name}`"
    )


def test_docs_schema_holds_a_file_per_kind_and_no_other() -> None:
    """One file per kind and attncalc.json (the one that accepts any kind): a missing kind fails once, here."""
    on_disk = {p.stem for p in SCHEMA_DIR.glob("*.json")}
    assert on_disk - {*KINDS, "attncalc"} == set(), "schema files of no kind"
    assert {*KINDS, "attncalc"} - on_disk == set(), "kinds without docs/schema/KIND.json"


def test_schema_rejects_an_unknown_kind(cli: Any) -> None:
    result = cli("schema", "transformer")
    assert result.exit_code == 2
    assert "unknown kind 'transformer'; choose one of: attention," in result.stderr


def test_schema_imports_neither_numpy_nor_sympy() -> None:
    code = (
        "import sys\nfrom attncalc.cli import app\n"
        "try:\n    app(['schema'])\nexcept SystemExit:\n    pass\n"
        "print('HEAVY', sorted(m for m in ('sympy', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out


def _weights(cli: Any, path: Path) -> list[float]:
    result = cli("solve", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    return next(s["value"] for s in data["steps"] if s["id"] == "weights")


def test_modelines_are_accepted(cli: Any, tmp_path: Path) -> None:
    """A problem naming its schema solves as without it, in TOML, JSON and YAML; the dot-product
    weights of q = [1, 1] over keys [1, 0], [0, 2], [1, 1] are softmax([1, 2, 2])."""
    import math

    e = [math.exp(1), math.exp(2), math.exp(2)]
    want = [x / sum(e) for x in e]
    body = 'kind = "attention"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2], [1, 1]]\n'
    toml = tmp_path / "p.toml"
    toml.write_text("#:schema ../docs/schema/attention.json\n" + body, encoding="utf-8")
    raw = tomllib.loads(body)
    js = tmp_path / "p.json"
    js.write_text(json.dumps({"$schema": "../docs/schema/attncalc.json", **raw}), encoding="utf-8")
    yml = tmp_path / "p.yaml"
    yml.write_text(
        "# yaml-language-server: $schema=../docs/schema/attention.json\n" + yaml.safe_dump(raw), encoding="utf-8"
    )
    for path in (toml, js, yml):
        assert _weights(cli, path) == pytest.approx(want, abs=1e-12), path.name
    # "$schema" is allowed by the schema itself (it names the schema) and by every kind's schema
    assert _errors(_schema(cli), json.loads(js.read_text(encoding="utf-8"))) == []
    assert _errors(_schema(cli, "attention"), json.loads(js.read_text(encoding="utf-8"))) == []


def test_unknown_key_messages_unchanged(cli: Any, tmp_path: Path) -> None:
    """The unknown-key check now reads the declarations; its messages are today's."""
    p = tmp_path / "p.toml"
    p.write_text('kind = "attention"\n[given]\nquerry = [1, 1]\nkeys = [[1, 0]]\n', encoding="utf-8")
    result = cli("solve", str(p))
    assert result.exit_code == 2
    assert result.stderr == (
        f"attncalc: error: {p}: given.querry: unknown key (did you mean 'query'?); "
        "allowed here: query, keys, values, scale, W, W_q, W_k, v, b\n"
    )
    p.write_text('kind = "lstm"\n[cell]\nlayot = "gates"\n[given]\nx = [1]\n', encoding="utf-8")
    result = cli("solve", str(p))
    assert result.stderr == (
        f"attncalc: error: {p}: cell.layot: unknown key (did you mean 'layout'?); "
        "allowed here: layout, reset, update, nonlinearity, order\n"
    )


@pytest.mark.parametrize("which", [("attention",), ()])
def test_the_score_decides_the_given_keys(cli: Any, which: tuple[str, ...]) -> None:
    """As the parser does: general needs W; a key of another score (W with the default dot score,
    scale with general) is flagged; additive with its four keys passes."""
    schema = _schema(cli, *which)
    base = {"kind": "attention", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2]]}}
    general = {**base, "score": "general"}
    assert any("W" in e for e in _errors(schema, general))
    assert _errors(schema, {**general, "given": {**base["given"], "W": [[1, 0], [0, 1]]}}) == []
    assert _errors(schema, {**base, "given": {**base["given"], "W": [[1, 0], [0, 1]]}})  # dot (default)
    assert _errors(schema, {**general, "given": {**base["given"], "W": [[1, 0], [0, 1]], "scale": 2}})
    additive = {"W_q": [[1, 0]], "W_k": [[0, 1]], "v": [1], "b": [0]}
    assert _errors(schema, {**base, "score": "additive", "given": {**base["given"], **additive}}) == []
    assert _errors(schema, {**base, "score": "additive", "given": base["given"]})
