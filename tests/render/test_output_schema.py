"""`attncalc schema --output solve|check`: the JSON Schema of what `solve -f json` and `check -f json`
print, and every example's output valid under it (docs/interface.md, "JSON")."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ..helpers import PROBLEM_FILES, PROBLEMS, json_of

ANSWER_FILES = sorted((PROBLEMS / "answers").glob("*"))


@pytest.fixture(scope="module")
def schemas() -> dict[str, jsonschema.Draft202012Validator]:
    from typer.testing import CliRunner

    from attncalc.cli import app

    runner = CliRunner()
    out = {}
    for which in ("solve", "check"):
        r = runner.invoke(app, ["schema", "--output", which], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        schema = json.loads(r.stdout)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        out[which] = jsonschema.Draft202012Validator(schema)
    return out


def _errors(validator: jsonschema.Draft202012Validator, data: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(data)]


@pytest.mark.parametrize("path", PROBLEM_FILES, ids=lambda p: p.name)
def test_every_example_solved_is_valid(cli: Any, schemas: Any, path: Path) -> None:
    data = json_of(cli("solve", str(path), "-f", "json"))
    assert _errors(schemas["solve"], data) == []


@pytest.mark.parametrize("path", ANSWER_FILES, ids=lambda p: p.name)
def test_every_example_answers_file_checked_is_valid(cli: Any, schemas: Any, path: Path) -> None:
    r = cli("check", "--problems", str(PROBLEMS), str(path), "-f", "json")
    assert r.exit_code in (0, 1), r.output  # 1: an answer is not correct, still a report
    data = json.loads(r.stdout)
    assert data["results"], path  # a report with results: the schema has something to hold
    assert _errors(schemas["check"], data) == []


def test_several_problems_and_several_answers_files_are_valid(cli: Any, schemas: Any) -> None:
    both = json_of(cli("solve", str(PROBLEMS / "bpe-cs336.toml"), str(PROBLEMS / "decode-beam.toml"), "-f", "json"))
    assert isinstance(both, list) and len(both) == 2
    assert _errors(schemas["solve"], both) == []
    answers = [str(ANSWER_FILES[0]), str(ANSWER_FILES[1])]
    r = cli("check", "--problems", str(PROBLEMS), *answers, "-f", "json")
    data = json.loads(r.stdout)
    assert len(data["submissions"]) == 2
    assert _errors(schemas["check"], data) == []


def test_the_schema_refuses_the_old_forms(cli: Any, schemas: Any) -> None:
    """Not a schema that holds anything: the forms the contract replaced (a comma-joined list, a count
    as 5.0, labels of another shape) are refused."""
    good = json_of(cli("solve", str(PROBLEMS / "bpe-cs336.toml"), "-f", "json"))
    assert _errors(schemas["solve"], good) == []
    steps = {s["id"]: i for i, s in enumerate(good["steps"])}

    def broken(step_id: str, field: str, value: Any) -> Any:
        bad = copy.deepcopy(good)
        bad["steps"][steps[step_id]][field] = value
        return bad

    assert _errors(schemas["solve"], broken("merges", "value", "s t, e st, o w, l ow, w est, n e"))
    assert _errors(schemas["solve"], broken("encode.1", "shown", "ne, west"))
    assert _errors(schemas["solve"], broken("1.words", "value", ["l o w", "l o w e r", "w i d e st", "n e w e st"]))
    assert _errors(schemas["solve"], broken("words", "value", [5.0, 2.0, 3.0, 6.5]))
    assert _errors(schemas["solve"], broken("2.pairs", "value", [7.5] * 10))
    assert _errors(schemas["solve"], broken("words", "labels", {"rows": "low"}))
    assert _errors(schemas["solve"], broken("words", "labels", {"cells": ["low"]}))
    missing = copy.deepcopy(good)
    del missing["steps"][0]["shown"]
    assert _errors(schemas["solve"], missing)
    counts = json_of(cli("solve", str(PROBLEMS / "gpt2-small-accounting.toml"), "-f", "json"))
    assert _errors(schemas["solve"], counts) == []
    counts["steps"][0]["value"] = 38597376.5
    assert _errors(schemas["solve"], counts)


def test_the_check_schema_refuses_a_joined_token_list(cli: Any, schemas: Any, tmp_path: Path) -> None:
    answers = tmp_path / "bpe.toml"
    answers.write_text(
        'merges = ["s t", "e st", "o w", "l ow", "w est", "n e"]\nwords = [5, 2, 3, 6]\n', encoding="utf-8"
    )
    data = json.loads(cli("check", str(PROBLEMS / "bpe-cs336.toml"), str(answers), "-f", "json").stdout)
    assert _errors(schemas["check"], data) == []
    by_id = {r["id"]: r for r in data["results"]}
    assert by_id["merges"]["given"] == ["s t", "e st", "o w", "l ow", "w est", "n e"]
    by_id["merges"]["expected"] = "s t, e st, o w, l ow, w est, n e"
    assert _errors(schemas["check"], data)
    by_id["merges"]["expected"] = by_id["merges"]["given"]
    by_id["words"]["expected"] = [5.0, 2.5, 3.0, 6.0]
    assert _errors(schemas["check"], data)


def test_a_kind_and_output_together_is_bad_input(cli: Any) -> None:
    r = cli("schema", "attention", "--output", "solve")
    assert r.exit_code == 2 and "not both" in r.output


def test_the_problem_file_schema_is_unchanged_by_the_option(cli: Any) -> None:
    with_kind = json_of(cli("schema", "attention"))
    assert with_kind["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "properties" in json.dumps(with_kind) and "attncalc solve --format json" not in json.dumps(with_kind)
