"""Hints for answers files that a reader refuses in its own words (TOML's "Cannot overwrite a value"),
or that are of another shape than the step: the message says what in the file to change, naming the
file and the step id."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ProblemError
from ..render.asked import past_the_pairs

_UNANSWERED_DECIMALS = -2  # an entry written "?" (answers.UNANSWERED_DECIMALS)

_OVERWRITE = re.compile(r"Cannot overwrite a value \(at line (\d+), column \d+\)")
_BARE_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*)\s*=")


def _bare_key(line: str) -> str | None:
    m = _BARE_KEY.match(line)
    return re.sub(r"\s+", "", m.group(1)) if m else None


def dotted_id_clash(err: ProblemError, path: str | Path) -> ProblemError:
    """TOML's "Cannot overwrite a value" in an answers file, where an unquoted dotted step id
    (``layer.attention = …`` beside ``layer = …``, ``head.1.weights = …`` beside ``head.1 = …``) made
    tables of its parts: the hint to quote the id, naming it. Any other error is returned as it is."""
    m = _OVERWRITE.search(err.message)
    if m is None or Path(str(path)).suffix.lower() not in (".toml", ""):
        return err
    try:
        lines = Path(path).read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError):
        return err
    n = int(m.group(1))
    here = _bare_key(lines[n - 1]) if 0 < n <= len(lines) else None
    if here is None:
        return err
    dotted = [k for k in (_bare_key(line) for line in lines[: n - 1]) if k is not None and "." in k]
    # the earlier answer this line clashes with: a dotted id below this key, or this dotted id's own start
    earlier = [k for k in dotted if k.startswith(here + ".") or here.startswith(k + ".")]
    plain = [k for k in (_bare_key(line) for line in lines[: n - 1]) if k is not None and here.startswith(k + ".")]
    if earlier and earlier[0].startswith(here + "."):
        step_id, other = earlier[0], here  # head.1.weights = …, then head.1 = …
    elif "." in here and plain:
        step_id, other = here, plain[0]  # layer = …, then layer.attention = …
    else:
        return err
    return ProblemError(
        err.file,
        step_id,
        f"line {n}: TOML reads a step id with dots written without quotes as tables within tables, so "
        f'{step_id} makes "{other}" a table, and "{other}" is also answered on its own: quote the id, '
        f'"{step_id}" = …',
    )


def open_past(decs: Any, shape: tuple[int, ...]) -> bool:
    """Whether a list's entries past ``shape``'s length are all "?" (nothing answered there)."""
    d = np.asarray(decs)
    return d.ndim == 1 == len(shape) and d.size > shape[0] and bool((d[shape[0] :] == _UNANSWERED_DECIMALS).all())


def other_shape(
    shape: tuple[int, ...], own: tuple[int, ...], values: Any, decimals: Any, merge: int, slots: int = 0
) -> str:
    """The message for an answer of another shape: for a bpe pair table longer than the pairs (``own``:
    the student's own, or the true ones), the first count typed past them, as the practice page says it;
    a pair table after merge 1 of another length is measured against the page's size (``slots``), never
    the true number of pairs, which would say how the earlier merges went."""
    n = int(np.size(values))
    if merge > 1 and slots and (n > slots or n < own[0]):
        return (
            f"expected a list of {slots} entries (the page's size): one count for each distinct pair of your "
            f"words, in the order they first occur, and '?' for the places past your last pair; got {n}"
        )
    if merge and np.size(values) > own[0]:
        k = own[0] + int(np.argmax(np.asarray(decimals)[own[0] :] != _UNANSWERED_DECIMALS))
        return f"entry {k + 1}: {past_the_pairs(merge)}"
    return f"expected {_shape_words(shape)}, got {_shape_words(np.shape(values))}"


def _shape_words(shape: tuple[int, ...]) -> str:
    if not shape:
        return "one number"
    if len(shape) == 1:
        return f"a list of {shape[0]} numbers"
    if len(shape) == 2:
        return f"a {shape[0]}×{shape[1]} matrix"
    return f"{shape[0]} matrices of {shape[1]}×{shape[2]}"


def unknown_step(step_id: str, valid: list[str]) -> str:
    """The message for an answer id that is not a step: a close id, if any, and the ids to choose from.

    A near miss is looked for among the ids that share everything up to the last dot first, so that
    ``decoder.1.input`` is not taken for ``decoder.1.i``. Long lists of time steps are shown as
    patterns (``encoder.t.h``) so that the message stays readable.
    """
    import difflib

    head, _, leaf = step_id.rpartition(".")
    siblings = [v.rpartition(".")[2] for v in valid if v.rpartition(".")[0] == head]
    if head and siblings:
        close = [f"{head}.{m}" for m in difflib.get_close_matches(leaf, siblings, n=1)]
    else:
        close = difflib.get_close_matches(step_id, valid, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    if len(valid) <= 15:
        return f"not a step of this problem{hint}; its steps are: {', '.join(valid)}"
    patterns = list(dict.fromkeys(re.sub(r"(^|\.)\d+(?=\.)", r"\1t", v) for v in valid))
    return (
        f"not a step of this problem{hint}; its steps are (t {'a head' if any(v.startswith('head.') for v in valid) else 'a time step'}): "
        f"{', '.join(patterns)};"
        " attncalc solve --format json lists each one"
    )
