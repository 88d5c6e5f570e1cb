"""Problem files at the edge: TOML, YAML or JSON parsed once into typed, validated objects.

No other module reads the raw dictionaries. Every problem found here raises
:class:`~attncalc.errors.ProblemError` naming the file, the key and what is wrong.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import catalog
from .errors import NumberSyntaxError, ProblemError
from .numbers import Node, parse_number, to_exact, to_float
from .schema import feedforward as ff
from .schema.common import SETTINGS_ALL
from .schema.validate import names, suggest

if TYPE_CHECKING:  # problem_rnn reads its tables with this module's _Reader and Given
    from .problem_rnn import Recurrent, Seq2Seq, Training


@dataclass(frozen=True, eq=False)
class Given:
    """A vector or matrix from the problem file: the parsed number trees and their float values."""

    name: str
    nodes: np.ndarray  # object array of number trees, shape (n,) or (n, m)
    floats: np.ndarray  # float64, same shape

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.floats.shape)

    def exact(self) -> np.ndarray:
        """The exact values as an object array of sympy expressions (imports sympy)."""
        out = np.empty(self.nodes.shape, dtype=object)
        for idx, node in np.ndenumerate(self.nodes):
            out[idx] = to_exact(node)
        return out

    @classmethod
    def from_floats(cls, name: str, values: np.ndarray) -> Given:
        """A given built in code (templates, generators) from plain numbers."""
        nodes = np.empty(values.shape, dtype=object)
        for idx, x in np.ndenumerate(values):
            nodes[idx] = parse_number(float(x))
        return cls(name, nodes, np.asarray(values, dtype=float))


@dataclass(frozen=True)
class Settings:
    decimals: int = 3
    carry_rounded: bool = False
    exact: bool = True
    convention: str = "default"  # default | row | column
    temperature: Node | None = None
    shift_max: str = "auto"  # auto | always | never


@dataclass(frozen=True)
class Head:
    combine: str  # add | concat
    order: str  # context-query | query-context (concat only)
    W_c: Given | None
    W_out: Given | None  # None: the head stops at the combined (or attentional) vector
    b_out: Given | None
    vocab: tuple[str, ...] | None


@dataclass(frozen=True)
class Problem:
    path: str
    title: str
    kind: str
    score: str | None
    tokens: tuple[str, ...] | None
    given: dict[str, Given]
    head: Head | None
    settings: Settings
    description: str = ""
    mask: np.ndarray | None = None  # self-attention: bool (n, n), True = may attend
    mask_text: str | None = None  # "causal" or None for an explicit matrix
    target: int | None = None  # softmax: 0-based index
    vocab: tuple[str, ...] | None = None  # softmax labels
    answers: dict[str, Any] = field(default_factory=dict)
    recurrent: Recurrent | None = None  # kinds rnn, lstm, gru
    seq2seq: Seq2Seq | None = None  # kind seq2seq
    training: Training | None = None  # kind softmax: one update of W_out (and b_out)
    labels: tuple[str, ...] | None = None  # kind sequence: the target token of each step
    measures: tuple[str, ...] = ()  # kind similarity: dot, cosine, euclidean (in the catalogue's order)
    labels_B: tuple[str, ...] | None = None  # kind similarity: labels of the rows of B

    @property
    def row_convention(self) -> bool:
        """True when weights multiply from the right (x W), as in the transformer papers."""
        if self.kind in RECURRENT_KINDS:
            return False
        if self.settings.convention == "default":
            return self.kind == "self-attention"
        return self.settings.convention == "row"


# --------------------------------------------------------------------------- allowed keys

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
RECURRENT_KINDS = ("rnn", "lstm", "gru", "seq2seq")
SETTINGS_KEYS = names(SETTINGS_ALL)
HEAD_KEYS = names(ff.HEAD)
GIVEN_KEYS: dict[str, tuple[str, ...]] = {
    "attention": names(ff.ATTENTION_GIVEN),
    "self-attention": names(ff.SELF_ATTENTION_GIVEN),
    "softmax": names(ff.SOFTMAX_GIVEN),
    "sequence": names(ff.SEQUENCE_GIVEN),
    "similarity": names(ff.SIMILARITY_GIVEN),
}
SCORE_KEYS: dict[str, tuple[str, ...]] = {score: names(t) for score, t in ff.SCORE_GIVEN.items()}
_suggest = suggest


class _Reader:
    """Validates one raw table; knows the file name for every message."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, key: str, message: str) -> ProblemError:
        return ProblemError(self.file, key, message)

    def table(self, raw: Any, key: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            raise self.fail(key, f"expected a table of keys, got {_describe(raw)}")
        for k in raw:
            if k not in allowed:
                where = f"{key}.{k}" if key else str(k)
                raise self.fail(
                    where,
                    f"unknown key{_suggest(str(k), allowed)}; allowed here: {', '.join(allowed)}",
                )
        return raw

    def string(self, raw: Any, key: str, choices: tuple[str, ...] | None = None) -> str:
        if not isinstance(raw, str):
            raise self.fail(key, f"expected a string, got {_describe(raw)}")
        if choices is not None and raw not in choices:
            raise self.fail(key, f"unknown value {raw!r}{_suggest(raw, choices)}; choose one of: {', '.join(choices)}")
        return raw

    def labels(self, raw: Any, key: str) -> tuple[str, ...]:
        if not isinstance(raw, list) or not raw:
            raise self.fail(key, f"expected a non-empty list of labels, got {_describe(raw)}")
        out = []
        for i, item in enumerate(raw, 1):
            if isinstance(item, bool) or not isinstance(item, (str, int, float, Decimal)):
                raise self.fail(key, f"entry {i}: expected a label, got {_describe(item)}")
            out.append(str(item))
        return tuple(out)

    def number(self, raw: Any, key: str) -> Node:
        try:
            return parse_number(raw)
        except NumberSyntaxError as exc:
            raise self.fail(key, _number_message(raw, exc)) from None

    def vector(self, raw: Any, key: str) -> Given:
        if not isinstance(raw, list):
            raise self.fail(key, f"expected a vector (a list of numbers), got {_describe(raw)}")
        if not raw:
            raise self.fail(key, "the vector is empty")
        if any(isinstance(x, list) for x in raw):
            raise self.fail(key, "expected a vector (a list of numbers), got a matrix (a list of rows)")
        nodes = np.empty(len(raw), dtype=object)
        for i, x in enumerate(raw):
            nodes[i] = self.number_at(x, key, f"entry {i + 1}")
        return _given(key, nodes)

    def matrix(self, raw: Any, key: str) -> Given:
        if not isinstance(raw, list):
            raise self.fail(key, f"expected a matrix (a list of rows), got {_describe(raw)}")
        if not raw:
            raise self.fail(key, "the matrix is empty")
        if not all(isinstance(r, list) for r in raw):
            if not any(isinstance(r, list) for r in raw):
                raise self.fail(key, "expected a matrix (a list of rows), got a vector; write one row as [[...]]")
            bad = next(i for i, r in enumerate(raw, 1) if not isinstance(r, list))
            raise self.fail(key, f"row {bad} is not a list")
        widths = [len(r) for r in raw]
        if widths[0] == 0:
            raise self.fail(key, "row 1 is empty")
        for i, w in enumerate(widths, 1):
            if w != widths[0]:
                raise self.fail(key, f"ragged rows: row 1 has {widths[0]} entries but row {i} has {w}")
        nodes = np.empty((len(raw), widths[0]), dtype=object)
        for i, row in enumerate(raw):
            for j, x in enumerate(row):
                if isinstance(x, list):
                    raise self.fail(key, f"row {i + 1}, entry {j + 1}: expected a number, got a list")
                nodes[i, j] = self.number_at(x, key, f"row {i + 1}, entry {j + 1}")
        return _given(key, nodes)

    def number_at(self, raw: Any, key: str, where: str) -> Node:
        try:
            return parse_number(raw)
        except NumberSyntaxError as exc:
            raise self.fail(key, f"{where}: {_number_message(raw, exc)}") from None


def _given(key: str, nodes: np.ndarray) -> Given:
    floats = np.empty(nodes.shape, dtype=float)
    for idx, node in np.ndenumerate(nodes):
        floats[idx] = to_float(node)
    return Given(key.split(".")[-1], nodes, floats)


def _number_message(raw: Any, exc: Exception) -> str:
    shown = repr(raw) if isinstance(raw, str) else _describe(raw)
    if isinstance(raw, str):
        return f"{shown} is not a number: {exc}"
    return str(exc)


def _describe(raw: Any) -> str:
    if isinstance(raw, bool):
        return f"the boolean {str(raw).lower()}"
    if isinstance(raw, dict):
        return "a table"
    if isinstance(raw, list):
        return "a list"
    if isinstance(raw, str):
        return f"the string {raw!r}"
    if raw is None:
        return "nothing (null)"
    return f"{type(raw).__name__} {raw!r}"


# --------------------------------------------------------------------------- reading files


def read_raw(path: str | Path) -> dict[str, Any]:
    """Read a TOML, YAML or JSON file into a dict, decimals kept as exact ``Decimal``."""
    p = Path(path)
    file = str(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ProblemError(file, "", "no such file") from None
    except IsADirectoryError:
        raise ProblemError(file, "", "is a directory, not a problem file") from None
    except OSError as exc:
        raise ProblemError(file, "", f"cannot be read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ProblemError(file, "", "is not a UTF-8 text file") from None
    suffix = p.suffix.lower()
    if suffix in (".yaml", ".yml"):
        raw = _read_yaml(file, text)
    elif suffix == ".json":
        try:
            raw = json.loads(text, parse_float=Decimal)
        except json.JSONDecodeError as exc:
            raise ProblemError(
                file, "", f"is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
            ) from None
    else:
        try:
            raw = tomllib.loads(text, parse_float=Decimal)
        except tomllib.TOMLDecodeError as exc:
            raise ProblemError(file, "", f"is not valid TOML: {exc}") from None
    if not isinstance(raw, dict):
        raise ProblemError(file, "", f"expected a table of keys at the top, got {_describe(raw)}")
    return raw


def _read_yaml(file: str, text: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ProblemError(file, "", f"is not valid YAML: {problem}{where}") from None


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
        given, head = _attention(r, given_raw, score or "dot", settings, head_raw)
        n = given["keys"].shape[0]
        _check_tokens(r, tokens, n, "given.keys has")
        return Problem(given=given, head=head, **common)  # type: ignore[arg-type]
    if kind == "self-attention":
        given, mask, mask_text = _self_attention(r, given_raw, settings)
        _check_tokens(r, tokens, given["X"].shape[0], "given.X has")
        return Problem(given=given, head=None, mask=mask, mask_text=mask_text, **common)  # type: ignore[arg-type]
    if kind == "similarity":
        from .problem_similarity import similarity

        given, measures, labels_B = similarity(r, raw, given_raw, tokens)
        return Problem(given=given, head=None, measures=measures, labels_B=labels_B, **common)  # type: ignore[arg-type]
    if kind == "sequence":
        given, labels = _sequence(r, given_raw, tokens)
        return Problem(given=given, head=None, labels=labels, **common)  # type: ignore[arg-type]
    given, target, vocab = _softmax(r, given_raw, tokens)
    train = None
    if "training" in raw:
        from .problem_rnn import training

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
    from . import problem_rnn

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
        from .problem_seq2seq import seq2seq

        s2s = seq2seq(r, raw)
        _check_tokens(r, tokens, s2s.x.shape[0], "encoder.x has")
        return Problem(seq2seq=s2s, **common)
    if "given" not in raw:
        raise r.fail("given", "missing: the [given] table holds the inputs")
    rec = problem_rnn.recurrent(r, kind, raw["given"], raw.get("cell"), raw.get("training"))
    _check_tokens(r, tokens, rec.steps, "the sequence has")
    return Problem(recurrent=rec, **common)


def _check_tokens(r: _Reader, tokens: tuple[str, ...] | None, n: int, what: str) -> None:
    if tokens is not None and len(tokens) != n:
        raise r.fail("tokens", f"{len(tokens)} labels, but {what} {n} rows (one label per position)")


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


def _require(r: _Reader, t: dict[str, Any], key: str, why: str) -> Any:
    if key not in t:
        raise r.fail(f"given.{key}", f"missing: {why}")
    return t[key]


def _shape(g: Given) -> str:
    return "×".join(str(s) for s in g.shape)


def _attention(
    r: _Reader, t: dict[str, Any], score: str, settings: Settings, head_raw: Any
) -> tuple[dict[str, Given], Head | None]:
    extra = set(t) - {"query", "keys", "values"} - set(SCORE_KEYS[score])
    if extra:
        key = sorted(extra)[0]
        users = [s for s, keys in SCORE_KEYS.items() if key in keys]
        hint = f" (it belongs to score {' or '.join(map(repr, users))})" if users else ""
        raise r.fail(f"given.{key}", f"not used by score {score!r}{hint}")
    q = r.vector(_require(r, t, "query", "the decoder state s_t"), "given.query")
    keys = r.matrix(_require(r, t, "keys", "the encoder states h_i, one per row"), "given.keys")
    values = r.matrix(t["values"], "given.values") if "values" in t else keys
    g = {"query": q, "keys": keys, "values": values}
    n, d_k = keys.shape
    d_q = q.shape[0]
    if values.shape[0] != n:
        raise r.fail("given.values", f"has {values.shape[0]} rows but given.keys has {n}: one value per key")
    row = settings.convention == "row"
    conv = "row" if row else "column"
    if score in ("dot", "scaled-dot"):
        if d_q != d_k:
            raise r.fail(
                "given.query",
                f"has length {d_q} but the rows of given.keys have width {d_k}; "
                f"the {score} score needs q and k_i of the same length",
            )
        if "scale" in t:
            nodes = np.empty(1, dtype=object)  # np.array([node]) would unpack the node's tuple
            nodes[0] = r.number(t["scale"], "given.scale")
            g["scale"] = _given("given.scale", nodes)
    elif score == "general":
        W = r.matrix(_require(r, t, "W", "the general score's weight matrix"), "given.W")
        want = (d_k, d_q) if row else (d_q, d_k)
        if W.shape != want:
            raise r.fail(
                "given.W",
                f"is {_shape(W)}, but with a query of length {d_q} and keys of width {d_k} the {conv} "
                f"convention needs {want[0]}×{want[1]}",
            )
        g["W"] = W
    elif score == "additive":
        W_q = r.matrix(_require(r, t, "W_q", "the query projection"), "given.W_q")
        W_k = r.matrix(_require(r, t, "W_k", "the key projection"), "given.W_k")
        v = r.vector(_require(r, t, "v", "the scoring vector"), "given.v")
        a = v.shape[0]
        for name, M, width in (("W_q", W_q, d_q), ("W_k", W_k, d_k)):
            want = (width, a) if row else (a, width)
            if M.shape != want:
                raise r.fail(
                    f"given.{name}",
                    f"is {_shape(M)}, but with v of length {a} and inputs of length {width} the {conv} "
                    f"convention needs {want[0]}×{want[1]}",
                )
        g.update(W_q=W_q, W_k=W_k, v=v)
        if "b" in t:
            b = r.vector(t["b"], "given.b")
            if b.shape[0] != a:
                raise r.fail("given.b", f"has length {b.shape[0]} but v has length {a}")
            g["b"] = b
    elif score == "concat":
        W = r.matrix(_require(r, t, "W", "the concat score's weight matrix over [q; k_i]"), "given.W")
        v = r.vector(_require(r, t, "v", "the scoring vector"), "given.v")
        a, width = v.shape[0], d_q + d_k
        want = (width, a) if row else (a, width)
        if W.shape != want:
            raise r.fail(
                "given.W",
                f"is {_shape(W)}, but [q; k_i] has length {d_q}+{d_k}={width} and v has length {a}: the "
                f"{conv} convention needs {want[0]}×{want[1]}",
            )
        g.update(W=W, v=v)
    head = _head(r, head_raw, d_q, values.shape[1], row) if head_raw is not None else None
    return g, head


def _head(r: _Reader, raw: Any, d_q: int, d_v: int, row: bool) -> Head:
    t = r.table(raw, "head", HEAD_KEYS)
    combine = r.string(t.get("combine", "add"), "head.combine", ("add", "concat"))
    order = r.string(t.get("order", "context-query"), "head.order", ("context-query", "query-context"))
    conv = "row" if row else "column"
    W_c = None
    if combine == "add":
        if "W_c" in t:
            raise r.fail("head.W_c", 'W_c is used only with combine = "concat"')
        if d_q != d_v:
            raise r.fail(
                "head.combine", f'"add" needs the query (length {d_q}) and the context (length {d_v}) to match'
            )
        width = d_q
    else:
        if "W_c" not in t:
            raise r.fail("head.W_c", 'missing: combine = "concat" computes tanh(W_c [c; s])')
        W_c = r.matrix(t["W_c"], "head.W_c")
        cat = d_q + d_v
        have = W_c.shape[0] if row else W_c.shape[1]
        if have != cat:
            want = f"{cat}×h" if row else f"h×{cat}"
            raise r.fail(
                "head.W_c",
                f"is {_shape(W_c)}, but [c; s] has length {d_v}+{d_q}={cat}: the {conv} convention needs {want}",
            )
        width = W_c.shape[1] if row else W_c.shape[0]
    if "W_out" not in t:
        for key in ("b_out", "vocab"):
            if key in t:
                raise r.fail(f"head.{key}", "needs head.W_out, the output layer's weights")
        return Head(combine, order, W_c, None, None, None)
    W_out = r.matrix(t["W_out"], "head.W_out")
    have = W_out.shape[0] if row else W_out.shape[1]
    if have != width:
        want = f"{width}×V" if row else f"V×{width}"
        raise r.fail(
            "head.W_out",
            f"is {_shape(W_out)}, but the vector it multiplies has length {width}: the {conv} convention needs {want}",
        )
    V = W_out.shape[1] if row else W_out.shape[0]
    b_out = None
    if "b_out" in t:
        b_out = r.vector(t["b_out"], "head.b_out")
        if b_out.shape[0] != V:
            raise r.fail("head.b_out", f"has length {b_out.shape[0]} but W_out gives {V} logits")
    vocab = r.labels(t["vocab"], "head.vocab") if "vocab" in t else None
    if vocab is not None and len(vocab) != V:
        raise r.fail("head.vocab", f"has {len(vocab)} labels but W_out gives {V} logits")
    return Head(combine, order, W_c, W_out, b_out, vocab)


def _self_attention(
    r: _Reader, t: dict[str, Any], settings: Settings
) -> tuple[dict[str, Given], np.ndarray | None, str | None]:
    X = r.matrix(_require(r, t, "X", "the input rows x_i"), "given.X")
    n, d = X.shape
    g = {"X": X}
    row = settings.convention != "column"
    widths: dict[str, int] = {}
    for name in ("W_Q", "W_K", "W_V"):
        if name not in t:
            widths[name] = d
            continue
        M = r.matrix(t[name], f"given.{name}")
        have = M.shape[0] if row else M.shape[1]
        if have != d:
            want = f"{d}×k" if row else f"k×{d}"
            conv = "row" if row else "column"
            raise r.fail(f"given.{name}", f"is {_shape(M)}, but X has width {d}: the {conv} convention needs {want}")
        widths[name] = M.shape[1] if row else M.shape[0]
        g[name] = M
    if widths["W_Q"] != widths["W_K"]:
        raise r.fail(
            "given.W_K",
            f"gives keys of width {widths['W_K']} but W_Q gives queries of width {widths['W_Q']}; Q Kᵀ needs them equal",
        )
    mask = None
    mask_text = None
    if "mask" in t:
        raw = t["mask"]
        if isinstance(raw, str):
            mask_text = r.string(raw, "given.mask", ("causal",))
            mask = np.tril(np.ones((n, n), dtype=bool))
        else:
            M = r.matrix(raw, "given.mask")
            if M.shape != (n, n):
                raise r.fail("given.mask", f"is {_shape(M)} but X has {n} rows: the mask must be {n}×{n}")
            if not np.all((M.floats == 0) | (M.floats == 1)):
                raise r.fail("given.mask", "entries must be 0 or 1 (1 = may attend)")
            mask = M.floats == 1
            empty = [i + 1 for i in range(n) if not mask[i].any()]
            if empty:
                raise r.fail("given.mask", f"row {empty[0]} lets the position attend to nothing; every row needs a 1")
    return g, mask, mask_text


def _softmax(
    r: _Reader, t: dict[str, Any], tokens: tuple[str, ...] | None
) -> tuple[dict[str, Given], int | None, tuple[str, ...] | None]:
    """Logits given, or computed by an output layer from a hidden state: z = W_out h + b_out."""
    given: dict[str, Given] = {}
    if "W_out" in t:
        if "logits" in t:
            raise r.fail(
                "given.logits", "give either the logits or W_out with hidden (the logits are then W_out·hidden + b_out)"
            )
        hidden = r.vector(
            _require(r, t, "hidden", "the vector W_out multiplies (the logits are W_out·hidden)"), "given.hidden"
        )
        W_out = r.matrix(t["W_out"], "given.W_out")
        if W_out.shape[1] != hidden.shape[0]:
            raise r.fail(
                "given.W_out",
                f"has rows of width {W_out.shape[1]}, but given.hidden has length {hidden.shape[0]}: "
                "one row per vocabulary entry, as wide as hidden",
            )
        V = W_out.shape[0]
        given.update(hidden=hidden, W_out=W_out)
        if "b_out" in t:
            b_out = r.vector(t["b_out"], "given.b_out")
            if b_out.shape[0] != V:
                raise r.fail("given.b_out", f"has length {b_out.shape[0]} but W_out gives {V} logits")
            given["b_out"] = b_out
        what = "W_out gives"
    else:
        if "b_out" in t:
            raise r.fail("given.b_out", "needs given.W_out and given.hidden (the logits are W_out·hidden + b_out)")
        logits = r.vector(
            _require(r, t, "logits", "the logits z (or W_out and hidden, to compute them)"), "given.logits"
        )
        given["logits"] = logits
        V = logits.shape[0]
        if "hidden" in t:
            given["hidden"] = r.vector(t["hidden"], "given.hidden")
        what = "there are"
    vocab = r.labels(t["vocab"], "given.vocab") if "vocab" in t else tokens
    if vocab is not None and len(vocab) != V:
        raise r.fail("given.vocab", f"has {len(vocab)} labels but {what} {V} logits")
    target = None
    if "target" in t:
        raw = t["target"]
        if isinstance(raw, int) and not isinstance(raw, bool):
            if not 0 <= raw < V:
                raise r.fail(
                    "given.target",
                    f"index {raw} is out of range: with {V} logits it runs from 0 to {V - 1} (0-based, as in PyTorch)",
                )
            target = raw
        elif isinstance(raw, str):
            if vocab is None or raw not in vocab:
                labels = f"; labels: {', '.join(vocab)}" if vocab else "; give given.vocab to use labels"
                raise r.fail("given.target", f"{raw!r} is not a vocabulary label{_suggest(raw, vocab or ())}{labels}")
            target = vocab.index(raw)
        else:
            raise r.fail("given.target", f"expected a 0-based index or a vocabulary label, got {_describe(raw)}")
    if "hidden" in given and "W_out" not in given and target is None:
        raise r.fail("given.hidden", "is used for the gradient with respect to W_out, which needs given.target")
    return given, target, vocab


def _sequence(
    r: _Reader, t: dict[str, Any], tokens: tuple[str, ...] | None
) -> tuple[dict[str, Given], tuple[str, ...] | None]:
    """The probability a model gave the target token at each step."""
    probs = r.vector(
        _require(r, t, "probabilities", "the probability of the target token at each step"), "given.probabilities"
    )
    for k, v in enumerate(probs.floats, 1):
        if not 0 < v <= 1:
            why = "−ln 0 is infinite" if v == 0 else "a probability lies in (0, 1]"
            raise r.fail("given.probabilities", f"entry {k} is {v:g}: {why}")
    labels = r.labels(t["targets"], "given.targets") if "targets" in t else tokens
    if labels is not None and len(labels) != probs.shape[0]:
        raise r.fail(
            "given.targets" if "targets" in t else "tokens",
            f"has {len(labels)} labels but there are {probs.shape[0]} probabilities: one target per step",
        )
    return {"probabilities": probs}, labels
