"""A problem file's top level: the kind, the title, [settings]; then the kind's own parser.

The allowed keys, top-level and in ``[settings]``, are read from the registry's declarations
(attncalc/schema/, a plugin kind's own): :func:`top_keys`, :func:`settings_keys`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import kinds
from ..errors import composed
from ..numbers import to_float
from ..schema.common import SETTINGS_DOC
from ..schema.common import SETTINGS_KEYS as SHARED_SETTINGS
from ..schema.decl import Key, Table
from ..schema.validate import names
from .grading import parse_grading
from .reader import Reader, describe_raw, read_raw
from .types import RECURRENT_KINDS, Problem, Settings

# the keys the top level handles itself before a kind's own parser: each names the kinds that take it
_SAID_BY_NAME = ("score", "measure", "tokens", "head")


def top_keys() -> tuple[str, ...]:
    """Every kind's top-level keys, read from the registry's declarations (a plugin kind's included),
    in the order they are first declared: the unknown-key message names them so."""
    out: dict[str, None] = {}
    for e in kinds.KINDS.values():
        out.update(dict.fromkeys(n for n in e.declaration.top.names if n != "$schema"))
    return tuple(out)


def kind_only_keys() -> tuple[str, ...]:
    """The top-level keys only some kinds take (other than those said by name): another kind refuses
    each as not applying to it."""
    decls = [e.declaration.top for e in kinds.KINDS.values()]
    return tuple(k for k in top_keys() if k not in _SAID_BY_NAME and not all(k in top for top in decls))


def settings_table() -> Table:
    """Every kind's ``[settings]`` keys (the unknown-key check), read from the registry's declarations:
    the shared keys of attncalc/schema/common.py in their order, then the keys of a kind's own
    (label_smoothing, jacobian, a plugin kind's) in the order they are first declared."""
    taken: dict[str, Key] = {}
    for e in kinds.KINDS.values():
        settings = e.declaration.top["settings"].table if "settings" in e.declaration.top else None
        for key in settings.keys if settings is not None else ():
            taken.setdefault(key.name, key)
    shared = [k.name for k in SHARED_SETTINGS]
    order = [k for k in shared if k in taken] + [k for k in taken if k not in shared]
    return Table(tuple(taken[k] for k in order), SETTINGS_DOC)


def settings_keys() -> tuple[str, ...]:
    return names(settings_table())


# as the registry stood at import (the built-ins and the installed plugin kinds); the parser asks anew
TOP_KEYS = top_keys()
SETTINGS_KEYS = settings_keys()
LAYER_TABLES = ("self_attention", "cross_attention", "ffn", "norm1", "norm2", "norm3")


def load_problem(path: str | Path, max_bytes: int | None = None) -> Problem:
    """Read and validate a problem file (of at most ``max_bytes``; see :func:`read_raw`)."""
    return parse_problem(read_raw(path, max_bytes), str(path))


def parse_problem(raw: dict[str, Any], file: str) -> Problem:
    """Validate an already-read problem table."""
    r = Reader(file)
    raw = composed(raw, file)  # café one way, whichever way the file wrote it (labels, words, targets)
    if isinstance(raw, dict) and "$schema" in raw:  # names the JSON Schema an editor checks the file with
        raw = {k: v for k, v in raw.items() if k != "$schema"}
    r.table(raw, "", top_keys())
    if "kind" not in raw:
        raise r.fail("kind", f"missing; choose one of: {', '.join(kinds.KINDS)}")
    kind = r.string(raw["kind"], "kind", tuple(kinds.KINDS))
    title = r.string(raw.get("title", Path(file).stem), "title")
    description = r.string(raw.get("description", ""), "description")
    settings = _settings(r, raw.get("settings"), kind)

    decl = kinds.entry(kind).declaration
    score: str | None = None
    if "score" in decl.top:  # attention, self-attention: their own choices and default
        key = decl.top["score"]
        score = r.string(raw.get("score", key.default), "score", key.choices)
    elif "score" in raw:
        where = _nested("score", decl.top)
        raise r.fail(
            "score",
            f"{_a(kind)} problem has no top-level score function"
            + (f"; use {where}" if where else "; remove this key"),
        )
    if "measure" in raw and "measure" not in decl.top:
        raise r.fail("measure", f"{_a(kind)} problem has no measure; 'measure' belongs to {_takers('measure')}")
    for key_name in kind_only_keys():
        if key_name in raw and key_name not in decl.top:
            raise r.fail(key_name, f"does not apply to kind {kind!r}")
    tokens = r.labels(raw["tokens"], "tokens", answers=False) if "tokens" in raw else None
    common: dict[str, Any] = dict(
        path=file,
        title=title,
        kind=kind,
        score=score,
        tokens=tokens,
        settings=settings,
        description=description,
        grading=parse_grading(r, raw.get("grading")),
    )
    if "memory_tokens" in decl.top:
        common["memory_tokens"] = (
            r.labels(raw["memory_tokens"], "memory_tokens", answers=False) if "memory_tokens" in raw else None
        )
    if kind in RECURRENT_KINDS:
        answers = _answers(r, raw.get("answers"))
        if "head" in raw:
            raise r.fail(
                "head",
                f"an output head belongs to {_takers('head')}; a {kind} problem gives W_out with its other inputs",
            )
        common.update(given={})
    else:
        if "given" not in raw:
            raise r.fail("given", "missing: the [given] table holds the inputs")
        if raw["given"] is None:  # `given:` left empty in YAML, `"given": null` in JSON
            raise r.fail("given", "empty: the [given] table holds the inputs")
        r.table(raw["given"], "given", decl.top["given"].table.names)  # type: ignore[union-attr]
        answers = _answers(r, raw.get("answers"))
        if raw.get("head") is not None and "head" not in decl.top:
            raise r.fail("head", f"an output head belongs to {_takers('head')}, not {kind!r}")
    common["answers"] = dict(answers)
    parser: Callable[[Reader, dict[str, Any], dict[str, Any]], Problem] = kinds.entry(kind).load("parser")
    problem = parser(r, raw, common)
    _check_payload(problem, kinds.entry(kind))
    if "tokens" in raw and "tokens" not in decl.top:  # the JSON Schema refuses it too: they read one declaration
        raise r.fail("tokens", f"does not apply to kind {kind!r}: it has no positions to label")
    return problem


def _check_payload(problem: Problem, entry: kinds.KindEntry) -> None:
    """The parser put the payload its entry declares in ``Problem.data`` (a program error if not, never
    the file's: so it is no user message)."""
    cls = entry.load("data")
    if not isinstance(problem.data, cls):
        raise TypeError(
            f"the {entry.name} parser put {type(problem.data).__name__} in Problem.data, "
            f"but its registry entry declares {entry.data}"
        )


def _takers(key: str) -> str:
    """The kinds whose declaration has this top-level key: "kind 'similarity'"."""
    takers = [k for k, e in kinds.KINDS.items() if key in e.declaration.top]
    return f"kind{'s' if len(takers) > 1 else ''} {' and '.join(map(repr, takers))}"


def _nested(key: str, top: Any) -> str:
    """Where the kind's declaration takes a key one table down ("decoder.score"), or ""."""
    for k in top.keys:
        if k.table is not None and key in k.table:
            return f"{k.name}.{key}"
    return ""


def _answers(r: Reader, raw: Any) -> dict[str, Any]:
    """The problem's own [answers]: any step ids (checked against the derivation by check)."""
    return r.table(raw, "answers", tuple(raw) if isinstance(raw, dict) else ())


def _a(kind: str) -> str:
    """ "a lstm" reads badly: the article as the name is said (an rnn, an lstm, a gru)."""
    return f"an {kind}" if kind[0] in "aeiou" or kind in ("rnn", "lstm") else f"a {kind}"


def _refuse_undeclared(r: Reader, t: dict[str, Any], kind: str) -> None:
    """A settings key the kind's declaration leaves out is refused, naming the kinds that take it (the
    parser and the JSON Schema read the same declaration, so they agree)."""
    declared = kinds.entry(kind).declaration.top["settings"].table.names  # type: ignore[union-attr]
    for key in (k for k in settings_keys() if k in t and k not in declared):
        e = kinds.entry(kind)
        if key == "convention" and e.convention_fixed:
            formula = "Q = X W_Q" if e.convention == "row" else "W x"
            raise r.fail(
                "settings.convention", f"{_a(kind)} problem uses the {e.convention} convention ({formula}) throughout"
            )
        takers = [k for k, other in kinds.KINDS.items() if key in other.declaration.top["settings"].table.names]  # type: ignore[union-attr]
        raise r.fail(
            f"settings.{key}", f"applies to kind{'s' if len(takers) > 1 else ''} {' and '.join(map(repr, takers))} only"
        )


def _settings(r: Reader, raw: Any, kind: str) -> Settings:
    own = kinds.entry(kind).declaration.top["settings"].table.names  # type: ignore[union-attr]
    t = r.table(raw, "settings", settings_keys(), shown=tuple(k for k in settings_keys() if k in own))
    decimals = t.get("decimals", 3)
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 12:
        raise r.fail("settings.decimals", f"expected a whole number from 0 to 12, got {describe_raw(decimals)}")
    flags = {}
    for key, default in (("carry_rounded", False), ("exact", True)):
        value = t.get(key, default)
        if not isinstance(value, bool):
            raise r.fail(f"settings.{key}", f"expected true or false, got {describe_raw(value)}")
        flags[key] = value
    convention = r.string(t.get("convention", "default"), "settings.convention", ("default", "row", "column"))
    _refuse_undeclared(r, t, kind)
    e = kinds.entry(kind)
    if e.convention_fixed and convention not in ("default", e.convention):  # "column" is what an rnn does
        formula = "Q = X W_Q" if e.convention == "row" else "W x"
        raise r.fail(
            "settings.convention", f"{_a(kind)} problem uses the {e.convention} convention ({formula}) throughout"
        )
    shift = t.get("shift_max", "auto")
    if isinstance(shift, bool):
        shift = "always" if shift else "never"
    shift = r.string(shift, "settings.shift_max", ("auto", "always", "never"))
    temperature = None
    if "temperature" in t:
        temperature = r.number(t["temperature"], "settings.temperature")
        if to_float(temperature) <= 0:
            raise r.fail("settings.temperature", "must be greater than 0")
    return Settings(decimals, flags["carry_rounded"], flags["exact"], convention, temperature, shift)
