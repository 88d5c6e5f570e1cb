"""A problem file's top level: the kind, the title, [settings]; then the kind's own parser.

The allowed keys come from the kinds' declarations (attncalc/schema/); TOP_KEYS lists every kind's
top-level keys in the order the unknown-key message names them (a test holds it to the declarations).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import catalog
from ..numbers import to_float
from ..schema import feedforward as ff
from ..schema.common import SETTINGS_ALL
from ..schema.validate import names
from . import attention, self_attention, sequence, softmax
from .output import training
from .reader import _check_tokens, _describe, _Reader, read_raw
from .recurrent import recurrent
from .seq2seq import seq2seq
from .similarity import similarity
from .types import RECURRENT_KINDS, Problem, Settings

# The allowed keys come from the kinds' declarations (attncalc/schema/); TOP_KEYS lists every kind's
# top-level keys in the order the unknown-key message names them (a test holds it to the declarations).
TOP_KEYS = (
    "title",
    "kind",
    "score",
    "measure",
    "tokens",
    "description",
    "given",
    "head",
    "settings",
    "answers",
    "cell",
    "encoder",
    "decoder",
    "training",
)
SETTINGS_KEYS = names(SETTINGS_ALL)
GIVEN_KEYS: dict[str, tuple[str, ...]] = {
    "attention": names(ff.ATTENTION_GIVEN),
    "self-attention": names(ff.SELF_ATTENTION_GIVEN),
    "softmax": names(ff.SOFTMAX_GIVEN),
    "sequence": names(ff.SEQUENCE_GIVEN),
    "similarity": names(ff.SIMILARITY_GIVEN),
}


def load_problem(path: str | Path) -> Problem:
    """Read and validate a problem file."""
    return parse_problem(read_raw(path), str(path))


def parse_problem(raw: dict[str, Any], file: str) -> Problem:
    """Validate an already-read problem table."""
    r = _Reader(file)
    if isinstance(raw, dict) and "$schema" in raw:  # names the JSON Schema an editor checks the file with
        raw = {k: v for k, v in raw.items() if k != "$schema"}
    r.table(raw, "", TOP_KEYS)
    if "kind" not in raw:
        raise r.fail("kind", f"missing; choose one of: {', '.join(catalog.KINDS)}")
    kind = r.string(raw["kind"], "kind", tuple(catalog.KINDS))
    title = r.string(raw.get("title", Path(file).stem), "title")
    description = r.string(raw.get("description", ""), "description")
    settings = _settings(r, raw.get("settings"), kind)

    score: str | None = None
    if kind == "attention":
        score = r.string(raw.get("score", "dot"), "score", tuple(catalog.SCORES))
    elif kind == "self-attention":
        score = r.string(raw.get("score", "scaled-dot"), "score", catalog.SELF_ATTENTION_SCORES)
    elif "score" in raw:
        where = "decoder.score" if kind == "seq2seq" else ""
        raise r.fail(
            "score",
            f"a {kind} problem has no top-level score function" + (f"; use {where}" if where else "; remove this key"),
        )
    if "measure" in raw and kind != "similarity":
        raise r.fail("measure", f"a {kind} problem has no measure; 'measure' belongs to kind 'similarity'")
    for key in ("cell", "encoder", "decoder", "training"):
        if key in raw and not _kind_has(kind, key):
            raise r.fail(key, f"does not apply to kind {kind!r}")
    tokens_early = r.labels(raw["tokens"], "tokens") if "tokens" in raw else None
    if kind in RECURRENT_KINDS:
        return _recurrent_problem(r, raw, kind, file, title, description, settings, tokens_early)

    if "given" not in raw:
        raise r.fail("given", "missing: the [given] table holds the inputs")
    allowed = GIVEN_KEYS[kind]
    given_raw = r.table(raw["given"], "given", allowed)
    tokens = r.labels(raw["tokens"], "tokens") if "tokens" in raw else None
    answers = r.table(raw.get("answers"), "answers", tuple(raw.get("answers") or ()))

    head_raw = raw.get("head")
    if head_raw is not None and kind != "attention":
        raise r.fail("head", f"an output head belongs to kind 'attention', not {kind!r}")

    common = dict(
        path=file,
        title=title,
        kind=kind,
        score=score,
        tokens=tokens,
        settings=settings,
        description=description,
        answers=dict(answers),
    )
    if kind == "attention":
        given, head = attention.read(r, given_raw, score or "dot", settings, head_raw)
        n = given["keys"].shape[0]
        _check_tokens(r, tokens, n, "given.keys has")
        return Problem(given=given, head=head, **common)  # type: ignore[arg-type]
    if kind == "self-attention":
        given, mask, mask_text = self_attention.read(r, given_raw, settings)
        _check_tokens(r, tokens, given["X"].shape[0], "given.X has")
        return Problem(given=given, head=None, mask=mask, mask_text=mask_text, **common)  # type: ignore[arg-type]
    if kind == "similarity":
        given, measures, labels_B = similarity(r, raw, given_raw, tokens)
        return Problem(given=given, head=None, measures=measures, labels_B=labels_B, **common)  # type: ignore[arg-type]
    if kind == "sequence":
        given, labels = sequence.read(r, given_raw, tokens)
        return Problem(given=given, head=None, labels=labels, **common)  # type: ignore[arg-type]
    given, target, vocab = softmax.read(r, given_raw, tokens)
    train = None
    if "training" in raw:
        if "hidden" not in given:
            raise r.fail("training", "a training step updates W_out: give given.hidden (and given.W_out to see W_out')")
        train = training(r, raw["training"], target is not None)
    return Problem(given=given, head=None, target=target, vocab=vocab, training=train, **common)  # type: ignore[arg-type]


def _kind_has(kind: str, key: str) -> bool:
    if key in ("cell",):
        return kind in ("rnn", "lstm", "gru")
    if key in ("encoder", "decoder"):
        return kind == "seq2seq"
    return kind in RECURRENT_KINDS or kind == "softmax"  # training


def _recurrent_problem(
    r: _Reader,
    raw: dict[str, Any],
    kind: str,
    file: str,
    title: str,
    description: str,
    settings: Settings,
    tokens: tuple[str, ...] | None,
) -> Problem:
    answers = r.table(raw.get("answers"), "answers", tuple(raw.get("answers") or ()))
    if "head" in raw:
        raise r.fail(
            "head", f"an output head belongs to kind 'attention'; a {kind} problem gives W_out with its other inputs"
        )
    common: dict[str, Any] = dict(
        path=file,
        title=title,
        kind=kind,
        score=None,
        tokens=tokens,
        given={},
        head=None,
        settings=settings,
        description=description,
        answers=dict(answers),
    )
    if kind == "seq2seq":
        if "given" in raw:
            raise r.fail("given", "a seq2seq problem puts its inputs under [encoder] and [decoder]")
        s2s = seq2seq(r, raw)
        _check_tokens(r, tokens, s2s.x.shape[0], "encoder.x has")
        return Problem(seq2seq=s2s, **common)
    if "given" not in raw:
        raise r.fail("given", "missing: the [given] table holds the inputs")
    rec = recurrent(r, kind, raw["given"], raw.get("cell"), raw.get("training"))
    _check_tokens(r, tokens, rec.steps, "the sequence has")
    return Problem(recurrent=rec, **common)


def _settings(r: _Reader, raw: Any, kind: str) -> Settings:
    t = r.table(raw, "settings", SETTINGS_KEYS)
    decimals = t.get("decimals", 3)
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 12:
        raise r.fail("settings.decimals", f"expected a whole number from 0 to 12, got {_describe(decimals)}")
    flags = {}
    for key, default in (("carry_rounded", False), ("exact", True)):
        value = t.get(key, default)
        if not isinstance(value, bool):
            raise r.fail(f"settings.{key}", f"expected true or false, got {_describe(value)}")
        flags[key] = value
    convention = r.string(t.get("convention", "default"), "settings.convention", ("default", "row", "column"))
    shift = t.get("shift_max", "auto")
    if isinstance(shift, bool):
        shift = "always" if shift else "never"
    shift = r.string(shift, "settings.shift_max", ("auto", "always", "never"))
    temperature = None
    if "temperature" in t:
        if kind != "softmax":
            raise r.fail("settings.temperature", "temperature applies to kind 'softmax' only")
        temperature = r.number(t["temperature"], "settings.temperature")
        if to_float(temperature) <= 0:
            raise r.fail("settings.temperature", "must be greater than 0")
    return Settings(decimals, flags["carry_rounded"], flags["exact"], convention, temperature, shift)
