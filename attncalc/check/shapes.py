"""An answer of another shape than its step, seen before any of its entries is read.

Reading an entry (a number, a fraction, an expression) costs far more than looking at the lists that
hold it: 140,000 entries ``"1/3"`` for a step of 3 took 1.5 to 2 s to read before they were refused
as "expected a list of 3 numbers, got a list of 140000 numbers". So a list answer's shape (and which
of its entries are ``"?"``, all that the message about another shape uses) is looked at first; an
answer whose shape is not the step's is read only when it stands: a table of the answerer's own
labels' shape (a bpe merge answered otherwise leaves the student's own pairs). Otherwise it is
refused with the message it always had, none of its entries read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .hints import open_past, other_shape

if TYPE_CHECKING:
    from ..derivation import Derivation

Answer = Any  # (check.answers.Answer, which imports this module: changed here by dataclasses.replace alone)

_UNANSWERED = "?"
_UNANSWERED_DECIMALS = -2  # answers.UNANSWERED_DECIMALS: an entry written "?"


@dataclass(frozen=True)
class Glance:
    """A list answer as its reader would shape it, its entries unread."""

    shape: tuple[int, ...]
    value: Any

    def unanswered(self) -> np.ndarray:
        """Its entries written ``"?"`` (True), in its shape (looked at only for a bpe pair table)."""
        return np.array(_marks(self.value), dtype=bool).reshape(self.shape)


def glance(value: Any) -> Glance | None:
    """The shape the reader gives a list answer (a list, a matrix of rows of one width, a list of
    matrices of one shape); None for what is not such a list (not a list, an empty one, ragged rows,
    a list among the entries): reading it says what is wrong."""
    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(r, list) and r and all(isinstance(x, list) for x in r) for r in value):
        blocks = [glance(block) for block in value]  # a list of matrices (moe's expert outputs)
        first = blocks[0]
        if first is None or any(b is None or b.shape != first.shape for b in blocks):
            return None
        return Glance((len(blocks), *first.shape), value)
    if all(isinstance(r, list) for r in value):
        width = len(value[0])
        if not width or any(len(r) != width or any(isinstance(x, list) for x in r) for r in value):
            return None
        return Glance((len(value), width), value)
    if any(isinstance(x, list) for x in value):
        return None
    return Glance((len(value),), value)


def _marks(value: Any) -> Any:
    return [_marks(v) for v in value] if isinstance(value, list) else _unanswered(value)


def unanswered_throughout(value: Any) -> bool:
    """The step written "?" as a whole, or every entry of it "?" (nested lists as well)."""
    if isinstance(value, list):
        return bool(value) and all(unanswered_throughout(v) for v in value)
    return isinstance(value, str) and value.strip() == _UNANSWERED


def _unanswered(x: Any) -> bool:
    return isinstance(x, str) and x.strip() == _UNANSWERED


def stands(seen: Glance, shape: tuple[int, ...], pair_table: bool) -> bool:
    """Whether the reader takes an answer so shaped as the step's ``shape``: that shape, a bpe pair
    table with only "?" past its pairs (cut to them), a single column or row written as a plain list."""
    if seen.shape == shape:
        return True
    if pair_table and len(seen.shape) == 1 == len(shape) and seen.shape[0] > shape[0]:
        return bool(seen.unanswered()[shape[0] :].all())
    return len(seen.shape) == 1 and len(shape) == 2 and 1 in shape and seen.shape[0] == max(shape) > 1


def glanced(raw: dict[str, Any], derivation: Derivation, unanswered: bool = False) -> dict[str, Glance]:
    """The numeric answers (by step id, answering something: not "?" throughout) whose shape, seen
    before any entry is read, is not their step's (``unanswered``: those "?" throughout instead)."""
    from ..derivation import Argmax, Count, Tokens
    from ..render.asked import pair_merge

    ids, out = set(derivation.step_ids), {}
    for step_id, value in raw.items():
        step = derivation.step(step_id) if step_id in ids else None
        if step is None or isinstance(step, (Argmax, Tokens, Count)) or unanswered_throughout(value) != unanswered:
            continue  # (a count is read by its unit; a label or tokens by their own readers)
        seen = glance(value)
        if seen is not None and not stands(seen, np.shape(step.value), bool(pair_merge(derivation, step))):
            out[step_id] = seen
    return out


class Reread(Exception):
    """An answer of another shape stands, and its decimals change the file's usual precision, which
    the answers read before it were read at: all are read again, with every answer's decimals."""


def unread(seen: Glance, pair_table: bool) -> tuple[np.ndarray, np.ndarray, Any]:
    """An answer's values, decimals and written entries from its shape alone (its values not read:
    NaN; written: :data:`UNREAD`); for a bpe pair table, its "?" entries too (all that the message
    for another shape, or the cut of the answerer's own table, looks at)."""
    marks = seen.unanswered() if pair_table else np.zeros(seen.shape, dtype=bool)
    return np.full(seen.shape, np.nan), np.where(marks, _UNANSWERED_DECIMALS, 0), UNREAD


UNREAD = ("(not read)",)  # the written entries of an answer only glanced at


def settle(
    other: list[tuple[str, Answer, tuple[int, ...], Any]],
    out: list[Answer],
    derivation: Derivation,
    own_shapes: Callable[[dict[str, str]], dict[str, tuple[int, ...]]] | None,
    file: str,
    read: Callable[[str, str, Any], Answer],
) -> None:
    """The answers of another shape than their steps (key, answer, true shape, the value as written):
    each stands when the answerer's own labels give its step that shape (then it is read, by
    ``read(step_id, key, value)``, if it was only glanced at), else it is refused as before."""
    from ..errors import ProblemError
    from ..render.asked import pair_merge, pair_slots

    labels = {a.id: a.values for a in out if isinstance(a.values, str)}
    differ = {k: v for k, v in labels.items() if v != str(derivation.step(k).value)}
    theirs = own_shapes(labels) if own_shapes is not None and differ else {}
    for key, ans, shape, value in other:
        own = theirs.get(ans.id, shape)  # the student's own pairs (kind bpe), else the true ones
        merge = pair_merge(derivation, derivation.step(ans.id)) if np.ndim(ans.values) == 1 == len(own) else 0
        ans = _cut(ans, own) if merge else ans
        if theirs.get(ans.id) != np.shape(ans.values):
            slots = pair_slots(derivation, derivation.step(ans.id)) if merge else 0
            raise ProblemError(file, key, other_shape(shape, own, ans.values, ans.decimals, merge, slots))
        if ans.written is UNREAD:  # it stands: its entries read now
            ans = read(ans.id, key, value)
            ans = _cut(ans, own) if merge else ans
        out.append(ans)


def _cut(ans: Answer, own: tuple[int, ...]) -> Answer:
    """The student's own pair table at the page's size ("?" past their pairs) cut to their pairs."""
    import dataclasses

    if not open_past(ans.decimals, own):
        return ans
    written = ans.written if ans.written is UNREAD else ans.written[: own[0]]
    return dataclasses.replace(
        ans, values=ans.values[: own[0]], decimals=np.asarray(ans.decimals)[: own[0]], written=written
    )
