"""JSON Schema (draft 2020-12) generated from the kinds' declarations, never written by hand.

``attncalc schema KIND`` prints one kind's schema; ``attncalc schema`` one schema for every kind,
selected by ``kind``. Editors read it (TOML: ``#:schema``; JSON: ``"$schema"``; YAML: the
language server's modeline) to complete keys and flag mistakes before the file is solved.
"""

from __future__ import annotations

import json
from typing import Any

from .decl import Key, KindSchema, Table

DRAFT = "https://json-schema.org/draft/2020-12/schema"

# the number grammar's tokens (see attncalc.numbers): numbers, e, pi, the functions, + - * / ^ ** ( )
NUMBER_PATTERN = r"^\s*(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|e|pi|sqrt|exp|ln|log|tanh|\*\*|[-+*/^()\u2212]|\s)+$"

DEFS: dict[str, Any] = {
    "number": {
        "description": 'a number, or a string in attncalc\'s number grammar: "1/3", "sqrt(2)/2", "exp(-1)", "2*pi"',
        "anyOf": [
            {"type": "number"},
            {"type": "string", "pattern": NUMBER_PATTERN, "minLength": 1, "maxLength": 200},
        ],
    },
    "label": {"description": "a label (text or a number)", "type": ["string", "number"]},
    "vector": {
        "description": "a list of numbers",
        "type": "array",
        "minItems": 1,
        "items": {"$ref": "#/$defs/number"},
    },
    "matrix": {
        "description": "a list of rows of numbers, all of the same length",
        "type": "array",
        "minItems": 1,
        "items": {"$ref": "#/$defs/vector"},
    },
}


def _one(t: str, key: Key) -> dict[str, Any]:
    if t == "number" and (key.min is not None or key.max is not None):  # a bound on its value (a string is exact text)
        bounds = {k: v for k, v in (("minimum", key.min), ("maximum", key.max)) if v is not None}
        return {"allOf": [{"$ref": "#/$defs/number"}, bounds]}
    if t in ("number", "vector", "matrix"):
        return {"$ref": f"#/$defs/{t}"}
    if t == "integer":
        out: dict[str, Any] = {"type": "integer"}
        if key.min is not None:
            out["minimum"] = key.min
        if key.max is not None:
            out["maximum"] = key.max
        return out
    if t == "bool":
        return {"type": "boolean"}
    if t == "string":
        return {"type": "string"}
    if t == "choice":
        return {"enum": list(key.choices)}
    if t == "choices":
        return {
            "anyOf": [
                {"enum": list(key.choices)},
                {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(key.choices)}},
            ]
        }
    if t == "labels":
        return {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/label"}}
    if t == "sentences":
        tokens = {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/label"}}
        return {"type": "array", "minItems": 1, "items": {"anyOf": [tokens, {"type": "string", "minLength": 1}]}}
    if t == "label":
        return {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]}
    if t == "indices":
        return {
            "type": "array",
            "minItems": 1,
            "items": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]},
        }
    if t == "matrices":
        return {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/matrix"}}
    if t == "vectors":
        return {"anyOf": [{"$ref": "#/$defs/vector"}, {"$ref": "#/$defs/matrix"}]}
    if t == "table":
        assert key.table is not None
        return table_schema(key.table)
    if t == "tables":
        assert key.table is not None
        return {"type": "array", "items": table_schema(key.table)}
    if t == "any":
        return {"type": "object"}
    raise ValueError(t)


def key_schema(key: Key) -> dict[str, Any]:
    types = (key.type, *key.also)
    out = _one(key.type, key) if len(types) == 1 else {"anyOf": [_one(t, key) for t in types]}
    if key.type == "vector" and key.shape and isinstance(key.shape[0], int):
        out = {"allOf": [out], "minItems": key.shape[0], "maxItems": key.shape[0]}
    described = {"description": key.doc + _shape_note(key)}
    if key.default is not None and key.type not in ("table", "tables", "any"):
        described["default"] = key.default
    return {**described, **out}


def _shape_note(key: Key) -> str:
    if not key.shape or all(isinstance(s, int) for s in key.shape):
        return ""
    if key.type in ("labels", "indices", "sentences"):  # a list's length
        return f" (length {key.shape[0]})"
    return f" (shape {' × '.join(str(s) for s in key.shape)})"


def table_schema(t: Table) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object"}
    if t.doc:
        out["description"] = t.doc
    out["properties"] = {k.name: key_schema(k) for k in t.keys}
    required = [k.name for k in t.keys if k.required]
    if required:
        out["required"] = required
    if t.alternatives:
        out["oneOf"] = [
            {"required": list(need), "properties": {n: False for n in refused}} for need, refused in t.alternatives
        ]
    out["additionalProperties"] = False
    return out


def _selects(k: KindSchema, body: dict[str, Any]) -> dict[str, Any]:
    """Per value of a selecting choice: the keys it requires, and the other values' keys it forbids."""
    rules = []
    for sel in k.selects:
        choice = k.top[sel.key]
        for value, own in sel.keys.items():
            others = {n for t in sel.keys.values() for n in t.names} - set(own.names) - set(sel.always)
            governed: dict[str, Any] = {"properties": {n: False for n in sorted(others)}}
            required = [key.name for key in own.keys if key.required]
            if required:
                governed["required"] = required
            cond: dict[str, Any] = {"properties": {sel.key: {"const": value}}}
            if value != choice.default:  # the default applies when the key is absent too
                cond["required"] = [sel.key]
            rules.append({"if": cond, "then": {"properties": {sel.table: governed}}})
    if rules:
        body["allOf"] = rules
    return body


def kind_schema(k: KindSchema) -> dict[str, Any]:
    """One kind's schema, complete with its $defs."""
    body = _selects(k, table_schema(k.top))
    body["description"] = k.summary
    return {"$schema": DRAFT, "title": f"attncalc problem, kind {k.kind}", **body, "$defs": DEFS}


def whole_schema(kinds: list[KindSchema]) -> dict[str, Any]:
    """One schema for every kind: the `kind` key selects which kind's keys apply."""
    defs: dict[str, Any] = dict(DEFS)
    branches = []
    for k in kinds:
        body = _selects(k, table_schema(k.top))
        body["description"] = k.summary
        defs[f"kind-{k.kind}"] = body
        branches.append(
            {
                "if": {"properties": {"kind": {"const": k.kind}}, "required": ["kind"]},
                "then": {"$ref": f"#/$defs/kind-{k.kind}"},
            }
        )
    names = [k.kind for k in kinds]
    return {
        "$schema": DRAFT,
        "title": "attncalc problem",
        "description": "an attncalc problem file; the kind selects its keys",
        "type": "object",
        "properties": {"kind": {"description": " | ".join(names), "enum": names}},
        "required": ["kind"],
        "allOf": branches,
        "$defs": defs,
    }


def dumps(schema: dict[str, Any]) -> str:
    """The text `attncalc schema` prints and docs/schema/ holds."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
