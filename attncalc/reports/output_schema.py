"""JSON Schema (draft 2020-12) of what ``solve --format json`` and ``check --format json`` print:
``attncalc schema --output solve|check`` (docs/interface.md, "JSON").

The schema states the contract a script relies on: every field's type, ``labels`` beside ``value``,
the steps that list tokens as lists of strings (or of token lists), and the counts as integers. The
steps of each form are named by id patterns made from the same table the JSON views read
(:mod:`attncalc.render.json_forms`), so the schema and the output cannot drift apart;
tests/render/test_output_schema.py validates every example's output against it.
"""

from __future__ import annotations

import re
from typing import Any

from ..render.json_forms import counts, token_lists, word_segments

DRAFT = "https://json-schema.org/draft/2020-12/schema"
KINDS = ("solve", "check")


def id_pattern(ids: tuple[str, ...]) -> str:
    """A regular expression for step ids written as the registry writes them, "t" for a number:
    ("encode.t", "merges") -> ^(?:encode\\.[0-9]+|merges)$."""
    parts = [r"\.".join("[0-9]+" if p == "t" else re.escape(p) for p in i.split(".")) for i in ids]
    return "^(?:" + "|".join(parts) + ")$"


def _nested(leaf: dict[str, Any], name: str) -> dict[str, Any]:
    """A leaf, or lists of lists of it, as deep as a step's value goes."""
    return {"anyOf": [leaf, {"type": "array", "items": {"$ref": f"#/$defs/{name}"}}]}


DEFS: dict[str, Any] = {
    "numbers": {
        "description": "a number (null for a masked −∞), a label, or lists of them, nested as the step's value",
        **_nested({"type": ["number", "string", "null"]}, "numbers"),
    },
    "texts": {"description": "text, or lists of texts", **_nested({"type": "string"}, "texts")},
    "integers": {"description": "a whole number, or lists of them", **_nested({"type": "integer"}, "integers")},
    "strings": {"type": "array", "items": {"type": "string"}},
    "token_lists": {"type": "array", "items": {"$ref": "#/$defs/strings"}},
    "labels": {
        "description": "one label per entry of a vector; for a matrix, the labels of its rows and of its columns; "
        "for a value of three axes (moe's expert_outputs), its rows, columns and depth, and a label per "
        "(row, column) pair (cells)",
        "anyOf": [
            {"$ref": "#/$defs/strings"},
            {
                "type": "object",
                "properties": {"rows": {"$ref": "#/$defs/strings"}, "columns": {"$ref": "#/$defs/strings"}},
                "additionalProperties": False,
                "minProperties": 1,
            },
            {
                "type": "object",
                "properties": {
                    "rows": {"$ref": "#/$defs/strings"},
                    "columns": {"$ref": "#/$defs/strings"},
                    "depth": {"$ref": "#/$defs/strings"},
                    "cells": {"$ref": "#/$defs/token_lists"},
                },
                "required": ["columns", "depth"],
                "additionalProperties": False,
            },
        ],
    },
}


def _forms(value: str, also: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The conditions on a step's (or a result's) values by its id: token lists, words as token
    lists, counts (``value`` is the field a count constrains; ``also``, fields listing tokens too)."""
    values = [value, *also]
    return [
        {
            "if": {"properties": {"id": {"pattern": id_pattern(token_lists())}}},
            "then": {"properties": {v: {"$ref": "#/$defs/strings"} for v in values}},
        },
        {
            "if": {"properties": {"id": {"pattern": id_pattern(word_segments())}}},
            "then": {"properties": {v: {"$ref": "#/$defs/token_lists"} for v in values}},
        },
        {
            "if": {"properties": {"id": {"pattern": id_pattern(counts())}}},
            "then": {"properties": {value: {"$ref": "#/$defs/integers"}}},
        },
    ]


STEP: dict[str, Any] = {
    "type": "object",
    "required": ["id", "title", "formula", "latex", "value", "exact", "shown"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "title": {"type": "string"},
        "formula": {"type": "string"},
        "latex": {"type": "string"},
        "value": {"$ref": "#/$defs/numbers"},
        "exact": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/texts"}]},
        "shown": {"$ref": "#/$defs/texts"},
        "labels": {"$ref": "#/$defs/labels"},
        "unit": {"type": "string"},
        "gib": {
            "type": "object",
            "required": ["exact", "decimal"],
            "properties": {"exact": {"type": "string"}, "decimal": {"type": "string"}},
        },
        "note": {"type": "string"},
        "intro": {"type": "string"},
    },
    "allOf": [
        *_forms("value", ("exact", "shown")),
        {  # a count of kind accounting: an exact integer, its digits in shown
            "if": {"required": ["unit"]},
            "then": {
                "properties": {"value": {"type": "integer"}, "shown": {"type": "string", "pattern": r"^-?[0-9]+$"}}
            },
        },
    ],
}

DERIVATION: dict[str, Any] = {
    "type": "object",
    "required": ["title", "kind", "score", "convention", "decimals", "carry_rounded", "exact", "steps", "notes"],
    "properties": {
        "title": {"type": ["string", "null"]},
        "kind": {"type": "string"},
        "score": {"type": ["string", "null"]},
        "convention": {"enum": ["row", "column"]},
        "decimals": {"type": "integer", "minimum": 0},
        "carry_rounded": {"type": "boolean"},
        "exact": {"type": "boolean"},
        "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}},
        "notes": {"$ref": "#/$defs/strings"},
        "measures": {"$ref": "#/$defs/strings"},
    },
}

RESULT: dict[str, Any] = {
    "type": "object",
    "required": ["id", "verdict", "given", "expected", "wrong_entries", "note", "points", "out_of"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "verdict": {"enum": ["correct", "carried", "wrong"]},
        "given": {"$ref": "#/$defs/numbers"},
        "expected": {"$ref": "#/$defs/numbers"},
        "wrong_entries": {"type": "array", "items": {"type": "array", "items": {"type": "integer", "minimum": 0}}},
        "note": {"type": "string"},
        "mistake": {"type": "string"},
        "began_at": {"type": "string"},
        "points": {"type": "number", "minimum": 0},
        "out_of": {"type": "number", "minimum": 0},
    },
    "allOf": _forms("expected", ("given",)),
}

COUNTS_OBJECT: dict[str, Any] = {
    "type": "object",
    "required": ["correct", "carried", "wrong"],
    "properties": {k: {"type": "integer", "minimum": 0} for k in ("correct", "carried", "wrong")},
}

SCORE: dict[str, Any] = {
    "type": "object",
    "required": ["points", "out_of"],
    "properties": {"points": {"type": "number", "minimum": 0}, "out_of": {"type": "number", "minimum": 0}},
}

REPORT: dict[str, Any] = {
    "type": "object",
    "required": ["summary", "score", "results", "unanswered"],
    "properties": {
        "summary": {"$ref": "#/$defs/counts"},
        "score": {"$ref": "#/$defs/score"},
        "results": {"type": "array", "items": {"$ref": "#/$defs/result"}},
        "unanswered": {"$ref": "#/$defs/strings"},
    },
}

SUBMISSIONS: dict[str, Any] = {
    "type": "object",
    "required": ["submissions", "total", "score", "all_correct"],
    "properties": {
        "submissions": {
            "type": "array",
            "items": {
                "allOf": [
                    {"$ref": "#/$defs/report"},
                    {
                        "type": "object",
                        "required": ["problem", "answers"],
                        "properties": {"problem": {"type": "string"}, "answers": {"type": "string"}},
                    },
                ]
            },
        },
        "total": {"$ref": "#/$defs/counts"},
        "score": {"$ref": "#/$defs/score"},
        "all_correct": {"type": "integer", "minimum": 0},
        "not_read": {  # the class's files refused (a link out of its folder, no file named...), each with why
            "type": "array",
            "items": {
                "type": "object",
                "required": ["answers", "reason"],
                "properties": {
                    "answers": {"type": "string"},
                    "reason": {"type": "string"},
                    "student": {"type": "string"},
                },
                "additionalProperties": False,
            },
        },
    },
}


def output_schema(which: str) -> dict[str, Any]:
    """The schema of ``solve --format json`` ("solve") or ``check --format json`` ("check")."""
    if which == "solve":
        return {
            "$schema": DRAFT,
            "title": "attncalc solve --format json",
            "description": "one solved problem, or a list of them (several problems, in order)",
            "oneOf": [{"$ref": "#/$defs/derivation"}, {"type": "array", "items": {"$ref": "#/$defs/derivation"}}],
            "$defs": {**DEFS, "step": STEP, "derivation": DERIVATION},
        }
    if which == "check":
        return {
            "$schema": DRAFT,
            "title": "attncalc check --format json",
            "description": "the report of one answers file, or of several (submissions, with their totals)",
            "oneOf": [{"$ref": "#/$defs/report"}, {"$ref": "#/$defs/submissions"}],
            "$defs": {
                **DEFS,
                "result": RESULT,
                "counts": COUNTS_OBJECT,
                "score": SCORE,
                "report": REPORT,
                "submissions": SUBMISSIONS,
            },
        }
    raise ValueError(f"no output schema {which!r}; choose one of: {', '.join(KINDS)}")
