"""Where a built-in kind's pieces live, one rule for every kind (docs/contributing.md, "Where a kind's
pieces live"): its step ids and its `attncalc new` template in the schema module of its declaration
(attncalc/schema/<module>.py; kinds declared together in one family module share it), its header in
its mechanism module (attncalc/mechanisms/<module>.py)."""

from __future__ import annotations

import ast
import importlib
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from attncalc import kinds
from attncalc.kinds import BUILTIN, KindEntry


@cache
def defined_names(module: str) -> frozenset[str]:
    """The names a module's own top level assigns or defines (an imported name is not one of them)."""
    source = Path(importlib.import_module(module).__file__ or "").read_text(encoding="utf-8")
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return frozenset(names)


def misplaced(e: KindEntry) -> list[str]:
    """What of the entry's step ids, template and header is not at home: the field, where it is, and
    where it belongs."""
    homes = {
        "step_ids": e.schema.partition(":")[0],
        "template": e.schema.partition(":")[0],
        "header": e.mechanism,
    }
    wrong = []
    for field, home in homes.items():
        path: str = getattr(e, field)
        module, _, attr = path.partition(":")
        name = attr.split(".")[0]
        if module != home:
            wrong.append(f"{e.name}: {field} is in {module}, not in {home}")
        elif name not in defined_names(module):
            wrong.append(f"{e.name}: {field}'s {name} is imported into {module}, not defined there")
        else:
            obj = e.load(field)
            if callable(obj) and getattr(obj, "__module__", module) != module:
                wrong.append(f"{e.name}: {field} is {obj.__module__}'s function, not {module}'s")
    return wrong


@pytest.mark.parametrize("kind", list(BUILTIN))
def test_step_ids_and_template_beside_the_declaration_and_the_header_in_the_mechanism(kind: str) -> None:
    e = BUILTIN[kind]
    assert e.schema.startswith("attncalc.schema."), e.schema
    assert e.mechanism.startswith("attncalc.mechanisms."), e.mechanism
    assert misplaced(e) == []
    assert e.load("step_ids") and kinds.template(kind), kind  # what they name loads


def test_the_rule_finds_a_piece_out_of_place() -> None:
    """The check itself: a header of another mechanism, step ids of another schema module, a template
    imported into the schema module, a header function re-exported from elsewhere are all refused."""
    e = BUILTIN["softmax"]
    assert misplaced(replace(e, header="attncalc.mechanisms.bleu:header")) == [
        "softmax: header is in attncalc.mechanisms.bleu, not in attncalc.mechanisms.softmax"
    ]
    assert misplaced(replace(e, step_ids="attncalc.schema.attention:STEP_IDS.attention")) == [
        "softmax: step_ids is in attncalc.schema.attention, not in attncalc.schema.feedforward"
    ]
    # a name the module imports (the decl module's Key) is not the module's own
    assert misplaced(replace(e, template="attncalc.schema.feedforward:Key")) == [
        "softmax: template's Key is imported into attncalc.schema.feedforward, not defined there"
    ]
    # softmax's mechanism imports temperature_bits from mechanisms/common.py
    assert misplaced(replace(e, header="attncalc.mechanisms.softmax:temperature_bits")) == [
        "softmax: header's temperature_bits is imported into attncalc.mechanisms.softmax, not defined there"
    ]


def test_the_family_modules_hold_each_kind_once() -> None:
    """A module declaring several kinds keys its STEP_IDS and TEMPLATE by kind: exactly the kinds it declares."""
    by_module: dict[str, set[str]] = {}
    for name, e in BUILTIN.items():
        by_module.setdefault(e.schema.partition(":")[0], set()).add(name)
    for module, names in by_module.items():
        if len(names) < 2:
            continue
        m = importlib.import_module(module)
        assert set(m.STEP_IDS) == names, module
        assert set(m.TEMPLATE) == names, module
