"""Adding a kind is its own modules and one registry entry: the tiny kind
``scale`` of tests/fixtures/scale_kind.py is registered at test time, and every command works on it
with no other change: new, list, schema, solve in every format, check and generate."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from attncalc import kinds

from ..fixtures import scale_kind


@pytest.fixture
def scale(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The kind registered (one entry), and the problem `attncalc new scale` prints, saved to a file."""
    monkeypatch.setitem(kinds.KINDS, "scale", scale_kind.ENTRY)
    path = tmp_path / "scale.toml"
    path.write_text(scale_kind.TEMPLATE, encoding="utf-8")
    return path


def test_new_prints_the_kinds_template(cli: Any, scale: Path) -> None:
    result = cli("new", "scale")
    assert result.exit_code == 0 and result.stdout == scale_kind.TEMPLATE


def test_list_shows_the_kind_and_its_step_ids(cli: Any, scale: Path) -> None:
    out = cli("list").stdout
    assert "scale" in out and "every entry of x times a, and their total" in out
    assert "Step ids for scale, in order:" in out and "Σ y_i" in out
    listed = json.loads(cli("list", "--format", "json").stdout)
    assert listed["kinds"]["scale"] == scale_kind.DECLARATION.summary


def test_schema_describes_the_kind_and_accepts_its_template(cli: Any, scale: Path) -> None:
    schema = json.loads(cli("schema", "scale").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    template = tomllib.loads(scale_kind.TEMPLATE)
    jsonschema.validate(template, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**template, "given": {"x": [1]}}, schema)  # a missing: the declaration requires it
    whole = cli("schema").stdout
    assert '"scale"' in whole


def test_solve_in_every_format(cli: Any, scale: Path, tmp_path: Path) -> None:
    """2 · [1, 2, 3] = [2, 4, 6] and 2 + 4 + 6 = 12 (by hand); the header line is the kind's own."""
    steps = {s["id"]: s for s in json.loads(cli("solve", str(scale), "-f", "json").stdout)["steps"]}
    assert steps["scaled"]["value"] == [2, 4, 6] or steps["scaled"]["value"] == [2.0, 4.0, 6.0]
    assert float(steps["total"]["value"]) == 12.0
    text = cli("solve", str(scale), "--width", "80").stdout
    assert "a = 2" in text and "12" in text
    for fmt, mark in (("latex", r"\begin{document}"), ("html", "<html"), ("markdown", "# ")):
        result = cli("solve", str(scale), "-f", fmt)
        assert result.exit_code == 0 and mark in result.stdout, fmt


def test_check_grades_answers_of_the_kind(cli: Any, scale: Path, tmp_path: Path) -> None:
    right = tmp_path / "right.toml"
    right.write_text(f'problem = "{scale.name}"\nscaled = [2, 4, 6]\ntotal = 12\n', encoding="utf-8")
    assert cli("check", str(scale), str(right)).exit_code == 0
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(f'problem = "{scale.name}"\nscaled = [2, 4, 6]\ntotal = 11\n', encoding="utf-8")
    result = cli("check", str(scale), str(wrong), "-f", "json")
    assert result.exit_code == 1
    verdicts = {s["id"]: s["verdict"] for s in json.loads(result.stdout)["results"]}
    assert verdicts == {"scaled": "correct", "total": "wrong"}


def test_generate_draws_homework_of_the_kind(cli: Any, scale: Path, tmp_path: Path) -> None:
    out = tmp_path / "hw"
    result = cli("generate", "--kind", "scale", "--out", str(out), "--count", "2", "--seed", "1")
    assert result.exit_code == 0, result.output
    variants = sorted(out.rglob("*.toml"))
    assert variants, sorted(out.rglob("*"))
    assert any(tomllib.loads(v.read_text(encoding="utf-8")).get("kind") == "scale" for v in variants)


def test_the_tests_over_the_registry_take_the_kind_with_no_line_of_their_own(
    cli: Any, scale: Path, tmp_path: Path
) -> None:
    """Every list a kind once had to join by hand is now read from the registry: the option sets the
    generate tests draw with include the new kind, and the per-kind bodies of the tests parametrised
    over the registry pass on it (pytest collects them before this test registers `scale`, so they are
    called here). What stays by hand is documentation (docs/guide/problem-files.md's and docs/interface.md's kind lists,
    held to the registry by tests/docs/test_readme_kinds.py and tests/docs/test_docs_complete.py) and the
    generated files (tests/golden/new/, docs/schema/)."""
    from ..cli import test_cli
    from ..homework import test_generate, test_generate_dead
    from . import test_kind_data, test_kind_hooks, test_registry

    assert ["--kind", "scale"] in test_generate.every_kind()
    assert ("scale", {}) in test_generate_dead.dead_unit_runs()
    test_registry.test_everything_about_a_kind_is_reachable(cli, "scale", tmp_path / "registry")
    test_registry.test_template_comments_come_from_the_declaration(cli, "scale")
    test_cli.test_new_templates_solve_as_they_are(cli, tmp_path, "scale", None)
    test_kind_hooks.test_the_parser_refuses_exactly_the_settings_the_declaration_leaves_out("scale")
    test_kind_hooks.test_every_kind_has_a_header_and_its_hooks_load()
    test_kind_data.test_every_kind_declares_a_frozen_payload_class("scale")
    test_kind_data.test_every_template_carries_its_kinds_payload("scale", kinds.template("scale"))
    test_generate.test_every_variant_solves_and_its_key_checks_correct(cli, tmp_path / "gen", ["--kind", "scale"])
    test_generate_dead.test_many_seeds_draw_no_dead_unit("scale", {})
    test_generate_dead.test_the_lists_name_only_kinds_generate_covers()


def test_without_its_entry_the_kind_is_unknown(cli: Any, tmp_path: Path) -> None:
    """The entry is what makes the kind: without it, the same file is refused by name."""
    path = tmp_path / "scale.toml"
    path.write_text(scale_kind.TEMPLATE, encoding="utf-8")
    result = cli("solve", str(path))
    assert result.exit_code == 2 and "kind" in result.stderr


def test_the_contributing_guide_names_every_hook_of_the_entry() -> None:
    """docs/contributing.md's "Adding a kind" stays the registry's checklist: its table of KindEntry
    fields is the dataclass's fields, the required ones marked required, and every test file it
    promises exists."""
    import dataclasses
    import re

    root = Path(__file__).resolve().parents[2]
    guide = (root / "docs" / "contributing.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Adding a kind") :]
    entry = section[section.index("### The one entry") : section.index("### The tests it gets for free")]
    rows = re.findall(r"^\| `(\w+)` \| .* \| (.*) \|$", entry, flags=re.M)
    fields = dataclasses.fields(kinds.KindEntry)
    required = {f.name for f in fields if f.default is dataclasses.MISSING}
    assert sorted(name for name, _ in rows) == sorted(f.name for f in fields), "the table's fields"
    for name, default in rows:
        assert (default == "required") is (name in required), (name, default)
    for test in re.findall(r"`(tests/[\w/]+\.py)`", section):
        assert (root / test).is_file(), test
