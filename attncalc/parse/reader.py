"""Reading problem files (TOML, YAML, JSON) and checking raw values: the reader every parser shares.

Every problem found here raises :class:`~attncalc.errors.ProblemError` naming the file, the key and
what is wrong.
"""

from __future__ import annotations

import unicodedata
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import NumberSyntaxError, ProblemError, escape, hidden, shorten, visible
from ..numbers import MAX_LENGTH, Node, parse_number, to_float
from ..schema.validate import suggest
from .formats import parse_text
from .limits import MAX_DECODER_STEPS, MAX_ENTRIES, MAX_STEPS
from .types import Given


class Reader:
    """Validates one raw table; knows the file name for every message."""

    def __init__(self, file: str) -> None:
        self.file = file
        # the vectors and matrices read so far, each once (a layer's sublayers read X again):
        # (id of the raw list, key) -> the list, kept so that its id stays its own
        self.entries: dict[tuple[int, str], Any] = {}
        self.total = 0  # their entries (kept as a sum: 24,000 rows read one by one summed the dict each time)

    def count(self, raw: Any, key: str, n: int) -> None:
        """Count the n entries of a vector or matrix about to be read, before its numbers are parsed."""
        at = (id(raw), key)
        if at not in self.entries:
            self.entries[at] = raw
            self.total += n
        total = self.total
        if total > MAX_ENTRIES:
            more = f" ({total:,} with the vectors and matrices before it)" if total != n else ""
            raise self.fail(
                key, f"{n:,} entries{more}: a problem gives at most {MAX_ENTRIES:,} numbers in its vectors and matrices"
            )

    def fail(self, key: str, message: str) -> ProblemError:
        return ProblemError(self.file, key, message)

    def table(
        self, raw: Any, key: str, allowed: tuple[str, ...], shown: tuple[str, ...] | None = None
    ) -> dict[str, Any]:
        """The table's keys, each one of ``allowed``; an unknown key's message suggests and lists ``shown``
        (default: every allowed key; [settings] shows the kind's own, another kind's key is refused later)."""
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            raise self.fail(key, f"expected a table of keys, got {describe_raw(raw)}")
        listed = allowed if shown is None else shown
        for k in raw:
            if k not in allowed:
                where = f"{key}.{k}" if key else str(k)
                raise self.fail(
                    where,
                    f"unknown key{suggest(str(k), listed)}; allowed here: {', '.join(listed)}",
                )
        return raw

    def string(self, raw: Any, key: str, choices: tuple[str, ...] | None = None) -> str:
        if not isinstance(raw, str):
            raise self.fail(key, f"expected a string, got {describe_raw(raw)}")
        if choices is not None and raw not in choices:
            raise self.fail(
                key, f"unknown value {shorten(repr(raw))}{suggest(raw, choices)}; choose one of: {', '.join(choices)}"
            )
        return raw

    def labels(self, raw: Any, key: str, answers: bool = True) -> tuple[str, ...]:
        """A list of labels; ``answers``: labels an answer may be (a vocabulary, targets), so none may be
        one an answer could never match (empty, white space at an end) or ``"?"`` (not answered). Row
        labels (attention's ``tokens``) are only shown, and are taken as written (``" [CLS]"``)."""
        if not isinstance(raw, list) or not raw:
            raise self.fail(key, f"expected a non-empty list of labels, got {describe_raw(raw)}")
        out = []
        for i, item in enumerate(raw, 1):
            if isinstance(item, bool) or not isinstance(item, (str, int, float, Decimal)):
                raise self.fail(key, f"entry {i}: expected a label, got {describe_raw(item)}")
            label = unicodedata.normalize("NFC", str(item)) if answers else str(item)  # café one way, as answers are
            if answers and (not label.strip() or label != label.strip()):  # an answer is read trimmed: never matched
                raise self.fail(
                    key, f"entry {i}: {shorten(repr(label))}: a label may not be empty or start or end with white space"
                )
            if answers and label == "?":  # an answer "?" is one not answered
                raise self.fail(key, f"entry {i}: '?' cannot be a label: an answer '?' means not answered")
            if answers and len(label) > MAX_LENGTH:  # the practice page's field takes no more
                raise self.fail(key, f"entry {i}: a label of {len(label):,} characters; at most {MAX_LENGTH}")
            bad = next((ch for ch in label if hidden(ch)), None)
            if answers and (bad is not None or not visible(label)):  # two labels alike to the eye, or none seen
                raise self.fail(
                    key,
                    f"entry {i}: {shorten(repr(label))}: a label must show every character it holds "
                    f"({'it holds ' + escape(bad) if bad is not None else 'it shows nothing'})",
                )
            if answers and key.rsplit(".", 1)[-1] == "vocab" and label in out:  # which one would a prediction name?
                raise self.fail(
                    key, f"entry {i}: {shorten(repr(label))} is repeated: a vocabulary gives each label once"
                )
            out.append(label)
        return tuple(out)

    def number(self, raw: Any, key: str) -> Node:
        try:
            return parse_number(raw)
        except NumberSyntaxError as exc:
            raise self.fail(key, _number_message(raw, exc)) from None

    def vector(self, raw: Any, key: str) -> Given:
        if not isinstance(raw, list):
            raise self.fail(key, f"expected a vector (a list of numbers), got {describe_raw(raw)}")
        if not raw:
            raise self.fail(key, "the vector is empty")
        if any(isinstance(x, list) for x in raw):
            raise self.fail(key, "expected a vector (a list of numbers), got a matrix (a list of rows)")
        self.count(raw, key, len(raw))
        nodes = np.empty(len(raw), dtype=object)
        for i, x in enumerate(raw):
            nodes[i] = self.number_at(x, key, f"entry {i + 1}")
        return as_given(key, nodes)

    def matrix(self, raw: Any, key: str) -> Given:
        if not isinstance(raw, list):
            raise self.fail(key, f"expected a matrix (a list of rows), got {describe_raw(raw)}")
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
        self.count(raw, key, len(raw) * widths[0])
        nodes = np.empty((len(raw), widths[0]), dtype=object)
        for i, row in enumerate(raw):
            for j, x in enumerate(row):
                if isinstance(x, list):
                    raise self.fail(key, f"row {i + 1}, entry {j + 1}: expected a number, got a list")
                nodes[i, j] = self.number_at(x, key, f"row {i + 1}, entry {j + 1}")
        return as_given(key, nodes)

    def number_at(self, raw: Any, key: str, where: str) -> Node:
        try:
            return parse_number(raw)
        except NumberSyntaxError as exc:
            raise self.fail(key, f"{where}: {_number_message(raw, exc)}") from None


def as_given(key: str, nodes: np.ndarray) -> Given:
    floats = np.empty(nodes.shape, dtype=float)
    for idx, node in np.ndenumerate(nodes):
        floats[idx] = to_float(node)
    return Given(key.split(".")[-1], nodes, floats)


def _number_message(raw: Any, exc: Exception) -> str:
    shown = shorten(repr(raw)) if isinstance(raw, str) else describe_raw(raw)
    if isinstance(raw, str):
        return f"{shown} is not a number: {exc}"
    return str(exc)


def describe_raw(raw: Any) -> str:
    if isinstance(raw, bool):
        return f"the boolean {str(raw).lower()}"
    if isinstance(raw, dict):
        return "a table"
    if isinstance(raw, list):
        return "a list"
    if isinstance(raw, str):
        return f"the string {shorten(repr(raw))}"
    if raw is None:
        return "nothing (null)"
    if isinstance(raw, (int, float, Decimal)):  # as the file wrote it, not Python's Decimal('1.5')
        return f"the number {shorten(_number_text(raw))}"
    return f"{type(raw).__name__} {shorten(repr(raw))}"


def _number_text(raw: int | float | Decimal) -> str:
    if isinstance(raw, Decimal):
        exp = raw.as_tuple().exponent
        return format(raw, "f") if isinstance(exp, int) and abs(exp) <= 20 else str(raw)
    return str(raw)


# --------------------------------------------------------------------------- reading files


def read_raw(path: str | Path, max_bytes: int | None = None) -> dict[str, Any]:
    """Read a TOML, YAML or JSON file into a dict, decimals kept as exact ``Decimal``.

    Only a regular file of at most ``max_bytes`` (default :data:`attncalc.files.MAX_INPUT_BYTES`) is
    read, and its tables and lists are bounded (:mod:`attncalc.parse.formats`).
    """
    from ..files import MAX_INPUT_BYTES, read_input

    file = str(path)
    data = read_input(file, MAX_INPUT_BYTES if max_bytes is None else max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ProblemError(file, "", "is not a UTF-8 text file") from None
    raw = parse_text(file, text, Path(file).suffix.lower())
    if not isinstance(raw, dict):
        raise ProblemError(file, "", f"expected a table of keys at the top, got {describe_raw(raw)}")
    return raw


# --------------------------------------------------------------------------- shared checks


def check_tokens(r: Reader, tokens: tuple[str, ...] | None, n: int, what: str) -> None:
    if tokens is not None and len(tokens) != n:
        raise r.fail("tokens", f"{len(tokens)} labels, but {what} {n} rows (one label per position)")


def require(r: Reader, t: dict[str, Any], key: str, why: str) -> Any:
    if key not in t:
        raise r.fail(f"given.{key}", f"missing: {why}")
    return t[key]


def shape_text(g: Given) -> str:
    return "×".join(str(s) for s in g.shape)


def zeros_given(name: str, n: int) -> Given:
    return Given.from_floats(name, np.zeros(n))


def slice_given(
    g: Given, name: str, rows: slice | None = None, cols: slice | None = None, transpose: bool = False
) -> Given:
    nodes, floats = g.nodes, g.floats
    if transpose:
        nodes, floats = nodes.T, floats.T
    if rows is not None:
        nodes, floats = nodes[rows], floats[rows]
    if cols is not None:
        nodes, floats = nodes[:, cols], floats[:, cols]
    return Given(name, nodes.copy(), floats.copy())


def vector_or_rows(r: Reader, raw: Any, key: str) -> Given:
    """A vector (one step) or a matrix (one row per step), always returned as rows."""
    if isinstance(raw, list) and raw and not any(isinstance(x, list) for x in raw):
        v = r.vector(raw, key)
        return Given(v.name, v.nodes.reshape(1, -1), v.floats.reshape(1, -1))
    return r.matrix(raw, key)


def check_steps(r: Reader, n: int, key: str, what: str) -> None:
    """At most MAX_STEPS time steps (a seq2seq decoder's: MAX_DECODER_STEPS), ``what`` saying how
    the key gives them ("rows", "tables")."""
    decoder = key.startswith("decoder.")
    most = MAX_DECODER_STEPS if decoder else MAX_STEPS
    if n > most:
        whose = "a decoder takes" if decoder else "a sequence has"
        raise r.fail(key, f"{n:,} {what}, one per time step: {whose} at most {most} steps")


def need_shape(r: Reader, g: Given, key: str, want: tuple[int, ...], why: str) -> None:
    if g.shape != want:
        have = "×".join(map(str, g.shape))
        need = "×".join(map(str, want))
        raise r.fail(key, f"is {have}, but {why} it must be {need}")


def flat_given(g: Given) -> Given:
    return Given(g.name, g.nodes.reshape(-1), g.floats.reshape(-1))
