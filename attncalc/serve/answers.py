"""The practice page's answers: form fields to the mapping :func:`attncalc.api.check` grades (as
the answers file of :mod:`attncalc.serve.download`), and a check error back to the field it names.

A field is named by its step id and the entry's indices: ``weights[1]``, ``head.1.scores[0][2]``,
``exp_sum`` (one number), ``prediction`` (a label). What is typed is kept as text, so ``0.420`` is
an answer to 3 decimals, as in an answers file. An empty field is an entry not answered (written
``"?"``, not graded); a step with no entry typed is left out. An entry the problem fixes (a masked
score, −∞) is shown on the page and never asked: it is ``"?"`` too. A field that cannot be read is
named with its message, never left out unsaid. Nothing here grades.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..derivation import Derivation, Stated, Step
from ..errors import NOT_TEXT, ProblemError, all_text, composed, is_text
from .download import ANSWERS_FILE, MAX_ENTRY  # (how check names the answers; characters of one typed entry)
from .pair_heads import is_pair_table, past_the_pairs, slots

UNANSWERED = "?"
# a field as the page names it (ASCII digits only: Python's \d also matches "١"); it is read back
# only when it is that name again (weights[01] and weights[1] are not both weights[1])
_FIELD = re.compile(r"([A-Za-z0-9_.\-]+)((?:\[[0-9]{1,6}\])*)")
_INDEX = re.compile(r"\[([0-9]+)\]")
# check's "[matrix 2, ][row 2, ]entry 1: " prefix
_WHERE = re.compile(r"^(?:matrix (\d+), )?(?:row (\d+), )?entry (\d+): ")


def field_name(step_id: str, idx: tuple[int, ...]) -> str:
    """The form field of one entry: ``weights[1]``, ``scores[0][2]``; the step id for one number."""
    return step_id + "".join(f"[{i}]" for i in idx)


def asked(d: Derivation) -> list[Step]:
    """The steps a student answers, in derivation order (a value the problem states is not asked)."""
    return [s for s in d.steps if not isinstance(s, Stated)]


def fixed_entries(step: Step) -> set[tuple[int, ...]]:
    """Entries the problem fixes rather than the student computes: a masked score (−∞)."""
    if isinstance(step.value, str):
        return set()
    v = np.asarray(step.value, dtype=float)
    return {idx for idx in entries(step) if np.isinf(v[idx])}


def entries(step: Step) -> list[tuple[int, ...]]:
    """Every entry's indices, row by row ([()] for one number or a label)."""
    if isinstance(step.value, str):
        return [()]
    return [tuple(int(i) for i in idx) for idx in np.ndindex(*np.shape(step.value))]


@dataclass(frozen=True)
class Typed:
    """What the student typed, by field name (stripped; empty fields left out)."""

    fields: dict[str, str]

    def get(self, name: str) -> str:
        return self.fields.get(name, "")


def typed_from_form(pairs: Iterable[tuple[str, str]], d: Derivation) -> tuple[Typed, dict[str, str]]:
    """The answer fields of a posted form (other fields, such as the buttons, are skipped by name),
    and a message for each field that cannot be read, by its name: a name that is no entry's field
    as the page writes it (``weights[01]``, ``weights[-1]``, ``weights[1][2]`` of a list), an entry
    typed twice differently, text that is not UTF-8 or too long, a value for an entry the problem
    fixes. Nothing sent is dropped without its message."""
    steps = {s.id: s for s in asked(d)}
    out: dict[str, str] = {}
    errors: dict[str, str] = {}
    places: dict[str, tuple[set[tuple[int, ...]], set[tuple[int, ...]]]] = {}  # a step's entries, and fixed ones
    for name, value in pairs:
        if name in ("action", "reveal", "checked"):
            continue
        shown = name[:60] if is_text(name) else name[:60].encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        m = _FIELD.fullmatch(name)
        step = steps.get(m.group(1)) if m else None
        idx = tuple(int(i) for i in _INDEX.findall(m.group(2))) if m else ()
        if m is None or step is None:
            errors[name] = f"{shown!r} is not an answer field of this problem"
            continue
        past = past_the_pairs(d, step, idx[0]) if len(idx) == 1 and field_name(step.id, idx) == name else None
        if past is not None:  # (a pair table's field past the true pairs: fine empty, said when typed)
            if value.strip() not in ("", UNANSWERED):
                errors[name] = f"{shown}: {past}"
            continue
        if step.id not in places:  # (worked out once a step, not once a field)
            places[step.id] = (set(entries(step)), fixed_entries(step))
        if idx not in places[step.id][0] or field_name(step.id, idx) != name:
            errors[name] = f"{shown!r} is not an entry of step {step.id} ({_fields_of(step)})"
            continue
        text = value.strip()
        if is_text(text) and not text.isascii():  # counted and kept composed (NFC), as check reads it
            text = unicodedata.normalize("NFC", text)
        if not is_text(text):
            errors[name] = f"{shown}: not UTF-8 text"
        elif len(text) > MAX_ENTRY:
            errors[name] = f"{shown}: an entry of more than {MAX_ENTRY} characters"
        elif name in out and out[name] != text:
            errors[name] = f"{shown}: typed twice, as {out[name][:40]!r} and {text[:40]!r}"
        elif text and text != UNANSWERED and idx in places[step.id][1]:
            errors[name] = f"{shown}: fixed by the problem (a masked score), not asked"
        elif text:
            out.setdefault(name, text)
    return Typed(out), errors


def _fields_of(step: Step) -> str:
    """How the fields of a step are named, for a message about one that is not."""
    first, last = entries(step)[0], entries(step)[-1]
    if not last:
        return f"its one field is {step.id}"
    return f"its fields are {field_name(step.id, first)} to {field_name(step.id, last)}"


def answers_of(typed: Typed, d: Derivation) -> dict[str, Any]:
    """The answers mapping (step id -> text, or nested lists of text) of what was typed: the
    entries not typed (or typed ``"?"``) are ``"?"``, a step with nothing typed is left out. A bpe pair table is
    written at the page's size (:func:`attncalc.serve.pair_heads.slots`), ``"?"`` past its pairs."""
    from ..check.tokens import none_answered
    from ..derivation import Tokens

    out: dict[str, Any] = {}
    for step in asked(d):
        texts = {  # a field typed "?" is one left empty (not graded): no step of them alone is answered
            idx: typed.fields[field_name(step.id, idx)]
            for idx in entries(step)
            if typed.fields.get(field_name(step.id, idx), UNANSWERED) != UNANSWERED
        }
        if isinstance(step, Tokens) and all(none_answered(t, step) for t in texts.values()):
            continue  # tokens typed "?, ?, ?": every item left out, as the answers file reads it
        if not texts:
            continue
        shape = () if isinstance(step.value, str) else np.shape(step.value)
        if is_pair_table(d, step):  # all the page's fields, "?" past the pairs: the file does not say how many
            shape = (slots(d, step),)
        out[step.id] = _nest(shape, (), texts)
    return out


def _nest(shape: tuple[int, ...], at: tuple[int, ...], texts: dict[tuple[int, ...], str]) -> Any:
    if len(at) == len(shape):
        return texts.get(at, UNANSWERED)
    return [_nest(shape, (*at, i), texts) for i in range(shape[len(at)])]


def typed_from_answers(answers: dict[str, Any], d: Derivation) -> Typed:
    """The fields showing an answers mapping (what the JSON route or a retry fills in), so far as
    its shapes fit the problem's steps."""
    steps = {s.id: s for s in asked(d)}
    out: dict[str, str] = {}
    for step_id, value in answers.items():
        step = steps.get(step_id)
        if step is None:
            continue
        for idx in entries(step):
            x: Any = value
            for i in idx:
                x = x[i] if isinstance(x, list) and i < len(x) else None
            if x is not None and not isinstance(x, (list, dict)) and str(x) != UNANSWERED:
                out[field_name(step_id, idx)] = str(x)
    return Typed(out)


def parse_json_answers(body: bytes) -> dict[str, Any]:
    """The ``{"answers": {...}}`` of a JSON request, numbers read as written (0.330: to 3 decimals).

    Raises :class:`ProblemError` naming what is wrong."""
    from ..parse.formats import read_json

    data = read_json("<request>", body)  # long numbers, deep nesting, a BOM: attncalc's own one line
    _refuse_constants(data)
    if not isinstance(data, dict) or not isinstance(data.get("answers"), dict):
        raise ProblemError("<request>", "answers", 'expected {"answers": {STEP_ID: VALUE, ...}}')
    if not data["answers"]:
        raise ProblemError("<request>", "answers", "no answers to check: give step ids and values")
    answers: dict[str, Any] = data["answers"]
    for key, value in answers.items():
        if key in ("problem", "student"):  # an answers file's own keys, not answers: the form refuses them too
            raise ProblemError("<request>", key, f"{key!r} is not an answer field of this problem")
        if not is_text(key):
            raise ProblemError("<request>", "answers", f"{key!r} is not a step id: it is not Unicode text")
        if not all_text(value):  # (as check says it of an answers file: attncalc.check.answers.validate)
            raise ProblemError(ANSWERS_FILE, key, NOT_TEXT)
    # every string composed (NFC), as check reads an answers file: its length counted so, and the
    # download holding the text check grades
    composed_answers: dict[str, Any] = composed(answers)
    return composed_answers


def json_labels(flat: dict[str, Any], d: Derivation) -> dict[str, Any]:
    """The JSON route's answers to label and token steps in the form an answers file writes them
    (docs/serving.md, "The JSON route"): a blank label (``""``, spaces) is not answered (``"?"``, as
    an empty field is); an answer to a step of tokens is read by the answers files' own reader
    (:func:`attncalc.check.tokens.read_tokens`: the same shapes taken, the same refusals, the same
    items left out), so that the route and ``attncalc check`` of a file agree."""
    from ..check.tokens import tokens_entry
    from ..derivation import Argmax, Tokens

    out, ids = dict(flat), set(d.step_ids)
    for key, value in flat.items():
        step = d.step(key) if key in ids else None
        if isinstance(step, Tokens):
            out[key] = entry = tokens_entry(step, value, ANSWERS_FILE, key)  # (check's words for a file)
            if isinstance(value, list) and isinstance(entry, str) and len(entry) > MAX_ENTRY:
                raise ProblemError(  # (the count the answer has, never the step's: that could be the answer)
                    ANSWERS_FILE,
                    key,
                    f"{len(value):,} item{'s' if len(value) != 1 else ''}, more than a field takes: their text is over "
                    f"{MAX_ENTRY} characters",
                )
        elif isinstance(step, Argmax) and isinstance(value, str):
            out[key] = value if value.strip() else UNANSWERED
        # (a label given otherwise: check says what it takes)
    return out


def _refuse_constants(data: Any) -> None:
    """NaN and Infinity (Python's JSON reads them) are not numbers an answer can be."""
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
        elif isinstance(x, float) and not math.isfinite(x):
            name = "NaN" if math.isnan(x) else "Infinity" if x > 0 else "-Infinity"
            raise ProblemError("<request>", "", f"not JSON: {name} is not a number an answer can be")


def field_of_error(exc: ProblemError, answers: dict[str, Any]) -> str | None:
    """The field a check error names: its key is the step id, its "row i, entry j:" the entry."""
    step_id = exc.key
    if step_id not in answers:
        return None
    value = answers[step_id]
    m = _WHERE.match(exc.message)
    if m is None:
        return step_id if not isinstance(value, list) else None
    block, row, entry = m.group(1), m.group(2), int(m.group(3)) - 1
    idx = (entry,) if row is None else (int(row) - 1, entry)
    idx = idx if block is None else (int(block) - 1, *idx)
    x = value  # the entry named must be one of the answer's (a message of another shape names none)
    for i in idx:
        if not isinstance(x, list) or i >= len(x):
            return None
        x = x[i]
    return field_name(step_id, idx) if not isinstance(x, list) else None


def without_field(answers: dict[str, Any], field: str) -> dict[str, Any]:
    """The answers with one field's entry made ``"?"`` (the step left out when nothing else is typed)."""
    m = _FIELD.fullmatch(field)
    assert m is not None
    step_id, idx = m.group(1), tuple(int(i) for i in _INDEX.findall(m.group(2)))
    out = dict(answers)
    if not idx:
        del out[step_id]
        return out
    value = json.loads(json.dumps(out[step_id], default=str))  # a deep copy of nested lists of text
    target = value
    for i in idx[:-1]:
        target = target[i]
    target[idx[-1]] = UNANSWERED
    if all(x == UNANSWERED for x in np.ravel(np.asarray(value, dtype=object))):
        del out[step_id]
    else:
        out[step_id] = value
    return out
