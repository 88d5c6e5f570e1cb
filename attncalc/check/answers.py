"""Answers files for ``attncalc check``: reading them, validating them against a derivation's steps,
and the precision each entry was written with (which is the precision it is judged at)."""

from __future__ import annotations

import math
import os
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from ..derivation import Argmax, Count, Derivation, Step, Tokens
from ..errors import (
    NOT_TEXT,
    NumberSyntaxError,
    ProblemError,
    all_text,
    composed,
)
from ..numbers import MAX_LENGTH, parse_number, to_float
from ..parse import read_raw
from ..render.asked import pair_merge
from . import shapes
from .hints import dotted_id_clash, open_past, unknown_step
from .student import student_of
from .tokens import read_tokens
from .tokens import tokens_as_written as tokens_as_written  # (where it was first: tests import it here)
from .units import GROUPED, read_count, ungrouped  # noqa: F401  (GROUPED: as this module always had it)

_PLAIN_DECIMAL = re.compile(r"^\s*[-+−]?\d*\.(\d+)\s*$")
# 1.7496e1, 1.55E-1, 2e3: a calculator's display; its decimals are the mantissa's less the exponent
_E_NOTATION = re.compile(r"^\s*[-+−]?(?:\d+\.?(\d*)|\.(\d+))[eE]([-+−]?\d+)\s*$")
# 0.155, -2, 12.5: read by float() as parse_number reads them (both round the exact decimal once)
_PLAIN_NUMBER = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,15})?")
UNANSWERED = "?"  # an entry left out of an answer: not graded
UNANSWERED_DECIMALS = -2
SLACK = 1e-9


class NothingAnswered(ProblemError):
    """An answers file that answers nothing: no step, or every step written ``"?"``. Bad input for
    ``check`` of one file; in a gradebook, a student who answered nothing (0 of the total)."""


@dataclass(frozen=True)
class Answer:
    """One answered step: its entries as floats and the decimals each was written with."""

    id: str
    values: np.ndarray | str  # float array (or the label of a prediction)
    decimals: np.ndarray | None  # int array, -1 where exact (a fraction or expression)
    written: Any = None  # the entries as the answerer wrote them (nested lists of strings)
    # a count (kind accounting): the bytes of one unit of its precision (0.1 GiB for "145.5 GiB", 10^21 for
    # "5.88e23"), the whole number written, exactly (compared with the count as integers), and its unit
    scale: float = 1.0
    exact: int | None = None
    unit: str | None = None
    # a list of tokens (kind bpe's words): its items, when known (check.tokens), some maybe "?"
    items: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Tolerance:
    """How close is close enough: the answer's own precision unless --rtol/--atol/--sigfigs say otherwise."""

    rtol: float | None = None
    atol: float | None = None
    sigfigs: int | None = None

    @property
    def plain(self) -> bool:
        """The answers' own precision (no --rtol, --atol or --sigfigs)."""
        return self.rtol is None and self.atol is None and self.sigfigs is None

    def close(self, given: float, target: float, decimals: int, units: float = 0.5) -> bool:
        """True when ``given`` is ``target`` written to ``decimals`` places (±``units`` of the last place)."""
        if math.isinf(given) or math.isinf(target):
            return given == target
        if not math.isfinite(target):
            return False
        if self.rtol is not None or self.atol is not None:
            return abs(given - target) <= (self.atol or 0.0) + (self.rtol or 0.0) * abs(target) + 1e-15
        if self.sigfigs is not None:
            if target == 0:
                return abs(given) <= 0.5 * 10.0 ** (-self.sigfigs)
            place = math.floor(math.log10(abs(target))) - self.sigfigs + 1
            return abs(given - target) <= units * 10.0**place * (1 + SLACK)
        if decimals < 0:  # an exact form such as "1/3": agree to rounding error
            return abs(given - target) <= 1e-9 * max(1.0, abs(target))
        return abs(given - target) <= units * 10.0 ** (-decimals) * (1 + SLACK) + 1e-12


def close_all(
    tol: Tolerance, given: np.ndarray, target: np.ndarray, decimals: np.ndarray, units: float = 0.5
) -> np.ndarray:
    """:meth:`Tolerance.close` entry by entry, in numpy (an answer can have 65,536 entries)."""
    g, t = np.asarray(given, dtype=float), np.asarray(target, dtype=float)
    d = np.broadcast_to(np.asarray(decimals), g.shape).astype(float)
    with np.errstate(all="ignore"):
        diff = np.abs(g - t)
        if tol.rtol is not None or tol.atol is not None:
            ok = diff <= (tol.atol or 0.0) + (tol.rtol or 0.0) * np.abs(t) + 1e-15
        elif tol.sigfigs is not None:
            place = np.floor(np.log10(np.abs(np.where(t == 0, 1.0, t)))) - tol.sigfigs + 1
            ok = np.where(t == 0, np.abs(g) <= 0.5 * 10.0 ** (-tol.sigfigs), diff <= units * 10.0**place * (1 + SLACK))
        else:
            exact = diff <= 1e-9 * np.maximum(1.0, np.abs(t))
            ok = np.where(d < 0, exact, diff <= units * 10.0 ** (-np.maximum(d, 0)) * (1 + SLACK) + 1e-12)
    inf = np.isinf(g) | np.isinf(t)
    ok = np.where(inf, g == t, ok & np.isfinite(t))
    return np.asarray(ok, dtype=bool)


def load_answers(path: str | Path, max_bytes: int | None = None) -> tuple[dict[str, Any], str | None]:
    """Read an answers file: a table of step ids (or one under [answers]), and an optional ``problem``."""
    raw, problem, _student = read_answers(path, max_bytes)
    if problem is not None:  # the library's caller chose the file: relative to it, as written
        problem = os.path.normpath(Path(path).parent / problem)
    return raw, problem


def read_answers(
    path: str | Path, max_bytes: int | None = None, blank: bool = False
) -> tuple[dict[str, Any], str | None, str | None]:
    """Read an answers file: its answers, the ``problem`` it names, as written (the command line reads it
    only inside the answers file's folder: :func:`attncalc.cli.files.problem_named`), and the ``student``
    it names (or None). With ``blank`` (a gradebook), a file that answers no step is read as ``{}``
    instead of being refused (:class:`NothingAnswered`)."""
    try:
        raw = read_raw(path, max_bytes)
    except ProblemError as err:  # TOML's "Cannot overwrite a value": an unquoted dotted step id
        raise dotted_id_clash(err, path) from None
    return answers_of_table(raw, str(path), blank)


def answers_of_table(
    raw: dict[str, Any], path: str, blank: bool = False
) -> tuple[dict[str, Any], str | None, str | None]:
    """An answers file's table as :func:`read_answers` reads it (``problem`` as written): the page of
    ``attncalc serve`` reads the file it downloads with this, so that it grades what check will."""
    student = student_of(raw.pop("student", None), str(path))
    problem = raw.pop("problem", None)
    if problem is not None and (not isinstance(problem, str) or not problem.strip()):
        err = ProblemError(str(path), "problem", "expected the path of a problem file")
        err.student = student  # the gradebook's row of the file is still its student's
        raise err
    if "answers" in raw and len(raw) == 1:
        if not isinstance(raw["answers"], dict):
            raise ProblemError(str(path), "answers", "expected a table of answers keyed by step id")
        raw = raw["answers"]
    if not raw and not blank:  # an empty file would grade as "0 correct, all correct" and exit 0
        raise NothingAnswered(str(path), "", "no answers to check: write step ids and values (weights = [0.2, 0.8])")
    return raw, problem, student


def _as_written(x: Any) -> Any:
    """An answer's entries as strings the way they were written: 1 stays 1, 0.340 stays 0.340."""
    if isinstance(x, list):
        return [_as_written(v) for v in x]
    if isinstance(x, Decimal):
        from ..derivation.fmt import LONGEST_FIXED

        text = format(x, "f")  # 1e308 in fixed point is 309 digits: the digits written, in scientific notation
        return text if len(text) <= LONGEST_FIXED else format(x, "e")
    if isinstance(x, float):
        from ..derivation.fmt import fmt

        return fmt(x, 6) if "e" in repr(x) else repr(x)
    return str(x).strip()


def _numbers_of(
    derivation: Derivation, step: Step, value: Any, file: str, key: str, default_dec: int
) -> tuple[np.ndarray, Any, Any, Any]:
    """A numeric answer's entries, their decimals, the answer as written and (a count) how it was read:
    a bpe pair table at the page's size cut to the pairs, a single column or row written as a plain
    list (top-1 experts, one per token) read as that column or row."""
    shape = np.shape(step.value)
    written = value
    count = None
    if isinstance(step, Count):  # "75,497,472", "145.5 GiB", "5.88e23", 68976648192
        count = read_count(ungrouped(value), step.unit, file, key)
        value = count.number
    vals, decs = _numbers(value, file, key, default_dec)
    if count is not None:  # in bytes, each at the precision written in its unit
        vals, decs = count.judged(vals, decs)
    if pair_merge(derivation, step) and open_past(decs, shape):  # a bpe pair table at the page's size
        vals, decs, written = vals[: shape[0]], decs[: shape[0]], written[: shape[0]]
    if vals.ndim == 1 and len(shape) == 2 and 1 in shape and vals.size == max(shape) > 1:
        vals, decs = vals.reshape(shape), np.asarray(decs).reshape(shape)
        if isinstance(written, list):
            written = [[x] for x in written] if shape[1] == 1 else [written]
    return vals, decs, written, count


def parse_answers(
    raw: dict[str, Any],
    derivation: Derivation,
    file: str,
    key_prefix: str = "",
    own_shapes: Callable[[dict[str, str]], dict[str, tuple[int, ...]]] | None = None,
    glancing: bool = True,
) -> list[Answer]:
    """Validate answers against a derivation's steps: known ids, right shapes, numbers. A table of
    another shape stands when ``own_shapes`` (the steps' shapes worked from the answered labels, as
    a merge answered otherwise leaves the student's own pairs) gives it that shape; it is seen
    before its entries are read, and read only if it stands (:mod:`.shapes`; ``glancing=False``:
    every answer read first, as when its decimals set the file's precision)."""
    given, valid = raw, derivation.step_ids
    known = set(valid)
    out: list[Answer] = []
    other: list[tuple[str, Answer, tuple[int, ...], Any]] = []  # (key, answer, true shape, value): another shape
    raw = flatten_ids(composed(raw, file), file=file)  # composed, as the problem's labels and words are
    glanced = shapes.glanced(raw, derivation) if glancing else {}
    # a whole number is judged at the file's usual precision; a file of whole numbers only, at the
    # problem's decimals (else weights = [0, 0, 0] would pass as 0.155, 0.422, 0.422 "to 0 decimals")
    decided = {k: v for k, v in raw.items() if k not in glanced and not _all_unanswered(v)}  # ("?": no decimals)
    default_dec = _file_decimals(decided, derivation.decimals)
    skipped: list[str] = []
    for step_id, value in raw.items():
        key = f"{key_prefix}{step_id}"
        if step_id not in known:
            raise ProblemError(file, key, unknown_step(str(step_id), valid))
        if not all_text(value):  # (JSON's "\ud800": no label or number, and no TOML download could hold it)
            raise ProblemError(file, key, NOT_TEXT)
        step = derivation.step(step_id)
        # exp_sum = "?", decay = "?", weights = ["?", "?"], prediction = "": the step left out
        if _all_unanswered(value) or (isinstance(step, Argmax) and _blank(value)):
            skipped.append(key)
            continue
        if isinstance(step, Tokens):  # the same reader as the practice page's JSON route
            read = read_tokens(step, value, file, key)
            if read is None:  # every item "?" or blank: not answered
                skipped.append(key)
            else:
                out.append(Answer(step_id, read[0], None, items=read[1]))
            continue
        if isinstance(step, Argmax):
            out.append(_label_answer(step, step_id, value, file, key))
            continue
        shape = np.shape(step.value)
        if step_id in glanced:  # another shape, seen before any entry is read: read only if it stands
            unread = shapes.unread(glanced[step_id], bool(pair_merge(derivation, step)))
            other.append((key, Answer(step_id, *unread), shape, value))
            continue
        vals, decs, written, count = _numbers_of(derivation, step, value, file, key, default_dec)
        if vals.shape != shape:
            other.append((key, Answer(step_id, vals, decs, _as_written(written)), shape, value))
            continue
        if count is None or count.scale == 1:
            decs = _whole_steps_at_the_asked_precision(step, vals, decs, derivation.decimals)
        extra = count.fields() if count is not None else {}
        out.append(Answer(step_id, vals, decs, _as_written(written), **extra))
    if other:

        def read_now(step_id: str, key: str, value: Any) -> Answer:
            if _file_decimals(raw, derivation.decimals) != default_dec:  # its decimals set the file's
                raise shapes.Reread
            vals, decs, written, _ = _numbers_of(derivation, derivation.step(step_id), value, file, key, default_dec)
            return Answer(step_id, vals, decs, _as_written(written))

        try:
            shapes.settle(other, out, derivation, own_shapes, file, read_now)
        except shapes.Reread:  # (every answer read again, at the precision of them all)
            return parse_answers(given, derivation, file, key_prefix, own_shapes, glancing=False)
    if skipped and not out:
        raise NothingAnswered(
            file,
            skipped[0],
            f"every {'step' if len(skipped) > 1 else 'entry'} is {UNANSWERED!r}, so nothing is answered: answer at "
            "least one entry",
        )
    order = {s: i for i, s in enumerate(valid)}
    return sorted(out, key=lambda a: order[a.id])


def _label_answer(step: Argmax, step_id: str, value: Any, file: str, key: str) -> Answer:
    """A label step's answer (a prediction, kept beams) as text (tokens: :mod:`attncalc.check.tokens`)."""
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        value = ", ".join(value)  # kept beams listed one by one: "beam 1: cat", "beam 2: dog"
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        # in general words only: the step's own value as the example would give the answer away
        raise ProblemError(file, key, "expected a vocabulary label as text, as the problem writes it")
    # a field's trailing space is not part of the label; composed as the problem's labels are (NFC)
    return Answer(step_id, unicodedata.normalize("NFC", str(value).strip()), None)


def _whole_steps_at_the_asked_precision(step: Any, vals: np.ndarray, decs: np.ndarray, asked: int) -> np.ndarray:
    """A step whose true entries are all whole numbers (top-p's 0/1 flags, a count): "1.0" says
    nothing of the precision the answerer worked to, so it is judged at the decimals asked, not as a
    1-decimal answer (which a 1-decimal hand chain would match: flags from probabilities rounded to
    one decimal are not the flags asked for)."""
    coarse = (decs >= 0) & (decs < asked)
    if not coarse.any():  # (most answers: written to the decimals asked)
        return decs
    true = np.asarray(step.value, dtype=float)
    if true.shape != vals.shape or not (np.isfinite(true) & (true == np.round(true))).all():
        return decs
    with np.errstate(invalid="ignore"):
        whole = np.isfinite(vals) & (vals == np.round(vals)) & coarse
    return np.where(whole, asked, decs)


def flatten_ids(raw: dict[str, Any], prefix: str = "", file: str = "<answers>") -> dict[str, Any]:
    """Nested tables to dotted step ids: TOML reads `encoder.2.f = [...]` as {"encoder": {"2": {"f": ...}}}.

    One step written twice (``encoder.1.h`` dotted and ``"encoder.1.h"`` quoted) is refused: the second
    would silently win. An empty table is refused too: it answers nothing."""
    out: dict[str, Any] = {}
    for k, v in raw.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            if not v:
                raise ProblemError(file, key, "an empty table: expected a number, a list or a label")
            inner = flatten_ids(v, key + ".", file)
        else:
            inner = {key: v}
        for step_id, value in inner.items():
            if step_id in out:
                raise ProblemError(file, step_id, "answered twice (once written with dots, once quoted?)")
            out[step_id] = value
    return out


def _numbers(value: Any, file: str, key: str, default_dec: int) -> tuple[np.ndarray, np.ndarray]:
    def one(x: Any, where: str) -> tuple[float, int]:
        if isinstance(x, str) and x.strip() in ("-inf", "−inf", "-∞", "−∞"):
            return -math.inf, 0
        if isinstance(x, str) and x.strip() == UNANSWERED:
            return math.nan, UNANSWERED_DECIMALS
        if isinstance(x, str) and _PLAIN_NUMBER.fullmatch(x):  # most answers: the float is Python's own
            return float(x), _decimals_of(x, default_dec)
        try:
            node = parse_number(x)
        except NumberSyntaxError as exc:
            raise ProblemError(file, key, f"{where}{exc}") from None
        return to_float(node), _decimals_of(x, default_dec)

    if isinstance(value, list):
        if not value:
            raise ProblemError(file, key, "the answer is an empty list")
        if all(isinstance(r, list) and r and all(isinstance(x, list) for x in r) for r in value):
            return _blocks(value, file, key, default_dec)  # a list of matrices (moe's expert outputs)
        if all(isinstance(r, list) for r in value):
            widths = {len(r) for r in value}
            if len(widths) != 1:
                raise ProblemError(file, key, "ragged rows")
            if not value[0]:
                raise ProblemError(file, key, "the rows are empty")
            pairs = [[one(x, f"row {i + 1}, entry {j + 1}: ") for j, x in enumerate(r)] for i, r in enumerate(value)]
        else:
            pairs = [one(x, f"entry {i + 1}: ") for i, x in enumerate(value)]  # type: ignore[misc]
        arr = np.array(pairs, dtype=float)
        return arr[..., 0], arr[..., 1].astype(int)
    v, d = one(value, "")
    return np.array(v), np.array(d)


def _blocks(value: list[Any], file: str, key: str, default_dec: int) -> tuple[np.ndarray, np.ndarray]:
    """An answer of three axes, a list of matrices of one shape: each read as a matrix, then stacked."""
    read = []
    for b, block in enumerate(value, 1):  # (which matrix is named: "matrix 4, row 1, entry 1: ...")
        try:
            read.append(_numbers(block, file, key, default_dec))
        except ProblemError as exc:
            raise ProblemError(file, key, f"matrix {b}, {exc.message}") from None
    if len({v.shape for v, _ in read}) != 1:
        raise ProblemError(file, key, "matrices of different shapes: each entry of the list is one matrix of one shape")
    return np.stack([v for v, _ in read]), np.stack([d for _, d in read])


def _blank(value: Any) -> bool:
    """A label or tokens written empty or as spaces (``prediction = ""``): no answer, as ``"?"``."""
    if isinstance(value, list):
        return bool(value) and all(_blank(v) for v in value)
    return isinstance(value, str) and not value.strip()


_all_unanswered = shapes.unanswered_throughout  # the step written "?" as a whole, or every entry of it


def _decimals_of(x: Any, default: int) -> int:
    """Decimals as written: 0.155 → 3, 0.50 → 2, "1.55e-1" → 3, "1.7496e1" → 3, "1/3" → -1 (exact),
    2 → the file's usual precision."""
    if isinstance(x, Decimal):
        exp = x.as_tuple().exponent
        return max(0, -exp) if isinstance(exp, int) else default
    if isinstance(x, float):
        text = repr(x)
        return len(text.split(".")[1]) if "." in text and "e" not in text else default
    if isinstance(x, str):
        if len(x) > MAX_LENGTH:  # refused when read as a number; its digits are not worth counting (and
            return default  # a long run of them makes the patterns below backtrack for minutes)
        m = _PLAIN_DECIMAL.match(x)
        if m:
            return len(m.group(1))
        e = _E_NOTATION.match(x)
        if e:  # 17.496 written as 1.7496e1 is 17.496 to 3 decimals, not an exact form
            places = len(e.group(1) or e.group(2) or "") - int(e.group(3).replace("−", "-"))
            return max(0, places)
        return default if re.fullmatch(r"\s*[-+−]?\d+\s*", x) else -1
    return default


def _file_decimals(raw: dict[str, Any], fallback: int) -> int:
    """The precision an answerer works to: the most decimals in any answer (``fallback`` if none has any)."""
    best = -1

    def walk(x: Any) -> None:
        nonlocal best
        if isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, (Decimal, float, str)) and not isinstance(x, bool):
            d = _decimals_of(x, 0)
            best = max(best, d)

    for v in raw.values():
        walk(v)
    return best if best > 0 else fallback
