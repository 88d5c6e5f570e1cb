"""The headers of a bpe pair table on the practice page, which must not give an answer away.

Merge r's pair counts are a list of counts, one per adjacent pair of the words as merge r − 1 left
them, in the order the pairs first occur. Headed by the true pairs (``h ug``, ``p ug``), the table
of merge 2 would spell out merge 1's pair and the words it re-segmented before anything is typed. So
a pair table is headed by the pairs of what the student typed for the words before it (merge 1:
the words of the corpus as characters, which the question gives), and where that answer is not
typed, or has fewer pairs than the table has entries, by the entry's position.

The number of fields says something too: merge r's table has one count per distinct pair left by
merge r − 1, so ten fields where merge 1's had eleven tell how merge 1 went. So the table of every
merge after the first has as many fields as the words have adjacent places (:func:`slots`: a bound
the corpus gives, the same for every merge, never below the pairs there are); the student fills as
many as their own words have pairs and leaves the rest empty. An entry typed past the true pairs is
said, as any entry the page cannot grade (:func:`past_the_pairs`).
"""

from __future__ import annotations

from ..check.tokens import tokens_as_written
from ..derivation import Derivation, Step
from ..mechanisms import bpe_algo as algo
from ..render.asked import pair_merge, pair_slots
from ..render.asked import past_the_pairs as past_text


def is_pair_table(d: Derivation, step: Step) -> bool:
    """Whether ``step`` is a bpe merge's pair counts."""
    return pair_merge(d, step) > 0


def slots(d: Derivation, step: Step) -> int:
    """The fields of a pair table (:func:`attncalc.render.asked.pair_slots`)."""
    return pair_slots(d, step)


def past_the_pairs(d: Derivation, step: Step, index: int) -> str | None:
    """The message for a field of a pair table typed past the pairs merge r − 1 leaves (None: a pair's field)."""
    n = len(step.rows) if step.rows is not None else 0
    if not is_pair_table(d, step) or index < n or index >= slots(d, step):
        return None
    return past_text(pair_merge(d, step))


def pair_heads(d: Derivation, step: Step, typed_words: str) -> list[str]:
    """The column headers of a pair table: the pairs of the segmentation before the merge, as the
    student typed it (``typed_words``, the field of merge r − 1's words; unused for merge 1), each
    entry past them headed by its position."""
    from ..parse.bpe import Bpe

    merge = pair_merge(d, step)
    n = slots(d, step)
    data = d.problem.payload(Bpe)
    if merge == 1:
        segs = [algo.symbols(w, data.end_of_word) for w, _ in data.words]
    else:
        items = _items(typed_words, d, f"{merge - 1}.words")
        segs = [tuple(item.split()) for item in items] if len(items) == len(data.words) else []
    pairs = [algo.pair_text(p) for p in algo.pair_counts(segs, [1.0] * len(segs))][:n]
    return pairs + [str(i + 1) for i in range(len(pairs), n)]


def _items(text: str, d: Derivation, words_id: str) -> list[str]:
    """The items of a typed list of segmented words ("l o w, l o w e r"), read as check reads them."""
    if not text.strip() or words_id not in d:
        return []
    step = d.step(words_id)
    labels = getattr(step, "labels", ())
    written = tokens_as_written(text, tuple(labels))
    return [item.strip() for item in written.split(", ") if item.strip()]
