"""Each kind's registry entry names the payload class its parser puts in ``Problem.data``
(``KindEntry.data``), and ``parse_problem`` holds the parser to it: every example and every template
of every kind parses to an instance of the declared class."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import pytest

from attncalc import kinds
from attncalc.parse import load_problem, parse_problem

from ..fixtures import scale_kind

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "problems").glob("*.toml"))


def _templates() -> list[tuple[str, str]]:
    out = []
    for kind, e in kinds.KINDS.items():
        scores = e.declaration.top["score"].choices if "score" in e.declaration.top else None
        for score in scores or (None,):
            out.append((kind, kinds.template(kind, score)))
    return out


@pytest.mark.parametrize("kind", list(kinds.KINDS))
def test_every_kind_declares_a_frozen_payload_class(kind: str) -> None:
    e = kinds.entry(kind)
    cls = e.load("data")
    assert dataclasses.is_dataclass(cls) and isinstance(cls, type), e.data
    assert cls.__dataclass_params__.frozen, f"{e.data} is not frozen"  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_carries_its_kinds_payload(path: Path) -> None:
    p = load_problem(path)
    e = kinds.entry(p.kind)
    assert isinstance(p.data, e.load("data")), (path.name, type(p.data).__name__, e.data)


@pytest.mark.parametrize(("kind", "text"), _templates(), ids=lambda v: v if len(v) < 40 else "")
def test_every_template_carries_its_kinds_payload(kind: str, text: str) -> None:
    p = parse_problem(tomllib.loads(text), f"{kind}.toml")
    e = kinds.entry(kind)
    assert p.kind == kind
    assert isinstance(p.data, e.load("data")), (kind, type(p.data).__name__, e.data)


def test_a_parser_that_puts_another_class_is_a_program_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a message about the file: the file is fine, the parser and its entry disagree."""
    wrong = dataclasses.replace(scale_kind.ENTRY, data="attncalc.parse.data:Sequence")
    monkeypatch.setitem(kinds.KINDS, "scale", wrong)
    with pytest.raises(TypeError, match=r"the scale parser put Scale in Problem\.data, .*parse\.data:Sequence"):
        parse_problem(tomllib.loads(scale_kind.TEMPLATE), "scale.toml")
    monkeypatch.setitem(kinds.KINDS, "scale", scale_kind.ENTRY)
    assert isinstance(parse_problem(tomllib.loads(scale_kind.TEMPLATE), "scale.toml").data, scale_kind.Scale)


def test_a_payload_of_none_is_refused_too(monkeypatch: pytest.MonkeyPatch) -> None:
    original = scale_kind.parse

    def parse(r: Any, raw: dict[str, Any], common: dict[str, Any]) -> Any:
        return dataclasses.replace(original(r, raw, common), data=None)

    monkeypatch.setattr(scale_kind, "parse", parse)
    monkeypatch.setitem(kinds.KINDS, "scale", scale_kind.ENTRY)
    with pytest.raises(TypeError, match=r"put NoneType in Problem\.data"):
        parse_problem(tomllib.loads(scale_kind.TEMPLATE), "scale.toml")
