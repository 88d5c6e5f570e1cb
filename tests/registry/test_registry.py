"""The registry of kinds (attncalc/kinds/__init__.py): one entry per kind, and everything about a kind is
reachable from it: its declaration, parser, mechanism, step ids, template and homework drawer."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from attncalc import kinds, parse
from attncalc.homework.base import Drawer
from attncalc.mechanisms import MECHANISMS
from attncalc.parse import output as parse_output
from attncalc.parse import seq2seq as parse_seq2seq
from attncalc.schema.decl import KindSchema

from ..helpers import json_of

DRAWN = list(kinds.KINDS)  # `attncalc generate --kind` covers every kind


def test_one_entry_per_listed_kind(cli: Any) -> None:
    listed = json_of(cli("list", "--format", "json"))
    assert list(kinds.KINDS) == list(listed["kinds"])
    assert all(kinds.KINDS[k].name == k for k in kinds.KINDS)


@pytest.mark.parametrize("kind", list(kinds.KINDS))
def test_everything_about_a_kind_is_reachable(cli: Any, kind: str, tmp_path: Path) -> None:
    e = kinds.entry(kind)
    listed = json_of(cli("list", "--format", "json"))
    decl = e.declaration
    assert isinstance(decl, KindSchema) and decl.kind == kind
    assert decl.summary == listed["kinds"][kind]
    assert decl.top["kind"].choices == (kind,)
    assert callable(e.load("parser"))
    mech = e.load("mechanism")
    assert callable(mech.run) and callable(mech.inputs)
    assert MECHANISMS[kind] is mech
    assert [i for i, _ in e.load("step_ids")] == listed["step_ids"][kind]
    template = cli("new", kind).stdout
    assert kinds.template(kind) == template
    # the template is a problem of this kind that the declared schema describes
    raw = tomllib.loads(template)
    assert raw["kind"] == kind and set(raw) <= set(decl.top.names)
    assert isinstance(e.load("drawer"), Drawer)
    result = cli("generate", "--kind", kind, "--out", str(tmp_path / kind))
    assert result.exit_code == 0, result.output
    assert (tmp_path / kind / "variant-01.toml").exists()


def test_drawers_are_the_generated_kinds() -> None:
    assert kinds.with_drawer() == DRAWN == list(kinds.KINDS)


def test_validation_reads_the_declarations() -> None:
    """The unknown-key check's allowed keys are the declared keys, in the declared order."""
    decls = {d.kind: d for d in kinds.declarations()}
    top = {n for d in decls.values() for n in d.top.names} - {"$schema"}
    assert set(parse.TOP_KEYS) == top
    assert parse.HEAD_KEYS == decls["attention"].top["head"].table.names  # type: ignore[union-attr]
    from attncalc.parse import settings_table
    from attncalc.schema.common import SETTINGS_KEYS

    # every kind's settings keys and no other (top.py refuses the others'): the shared keys in their
    # order, then a kind's own in the order first declared
    taken = [n for d in decls.values() if "settings" in d.top for n in d.top["settings"].table.names]  # type: ignore[union-attr]
    shared = [k.name for k in SETTINGS_KEYS if k.name in taken]
    assert (
        parse.SETTINGS_KEYS == settings_table().names == (*shared, *dict.fromkeys(n for n in taken if n not in shared))
    )
    assert "label_smoothing" in parse.SETTINGS_KEYS and "jacobian" in parse.SETTINGS_KEYS
    enc = decls["seq2seq"].top["encoder"].table
    dec = decls["seq2seq"].top["decoder"].table
    assert parse_seq2seq.ENCODER_KEYS == enc.names  # type: ignore[union-attr]
    assert parse_seq2seq.DECODER_KEYS == dec.names  # type: ignore[union-attr]
    assert parse_output.TRAINING_KEYS == decls["lstm"].top["training"].table.names  # type: ignore[union-attr]
    for kind in ("rnn", "lstm", "gru"):
        assert set(decls[kind].top.names) - {"$schema"} == {
            "title",
            "kind",
            "tokens",
            "description",
            "given",
            "settings",
            "answers",
            "grading",
            "cell",
            "training",
        }
    from attncalc.parse.grading import GRADING_TABLE

    for d in decls.values():  # every kind takes the same [grading] table
        assert d.top["grading"].table is GRADING_TABLE


def test_every_declared_key_has_a_description() -> None:
    """The descriptions feed the templates, the editors' hovers and the JSON Schema: none is empty."""

    def walk(t: Any, where: str) -> None:
        for k in t.keys:
            assert k.doc.strip() and "\n" not in k.doc, f"{where}{k.name}"
            if k.table is not None:
                walk(k.table, f"{where}{k.name}.")

    for d in kinds.declarations():
        walk(d.top, f"{d.kind}: ")


@pytest.mark.parametrize("kind", list(kinds.KINDS))
def test_template_comments_come_from_the_declaration(cli: Any, kind: str) -> None:
    """The template's example values are its own; its key comments are the declared descriptions."""
    import re

    raw = raw_template(kind, "additive")
    paths = re.findall("«([^»]+)»", raw)
    assert paths, "the template takes at least one comment from the declaration"
    scored = callable(kinds.entry(kind).load("template"))  # a template per score: `new KIND --score S`
    out = cli("new", kind, *(["--score", "additive"] if scored else [])).stdout
    assert "«" not in out
    decl = kinds.entry(kind).declaration
    from attncalc.schema.attention import SCORE_GIVEN

    for path in paths:
        doc = SCORE_GIVEN[path.split(":")[0]].doc_of(path.split(":")[1]) if ":" in path else decl.doc_of(path)
        assert f"# {doc}\n" in out, path


def raw_template(kind: str, score: str) -> str:
    """A kind's template before its «placeholders» are filled, kept beside the filled one under the same
    name with a leading underscore (``TEMPLATE`` and ``_TEMPLATE``, ``TEMPLATE.lstm`` and
    ``_TEMPLATE.lstm``; a function of the score when the template is one: attention's), or as
    ``RAW_TEMPLATE`` when the entry names a function (a plugin may)."""
    path = kinds.entry(kind).template
    module, _, attr = path.partition(":")
    try:
        raw = kinds.load(f"{module}:_{attr}")
    except AttributeError:
        try:
            raw = kinds.load(f"{module}:RAW_TEMPLATE")
        except AttributeError:
            raise AssertionError(
                f"kind {kind!r}: keep its template's unfilled text as {module}:_{attr} or {module}:RAW_TEMPLATE"
            ) from None
    return str(raw(score) if callable(raw) else raw)
