"""What a view says of a step it asks, the same in every view that asks it (the practice page, the
question sheet, the LMS items): what kind of answer it asks for, and whether its entries' labels may
be shown before it is answered.

A bpe merge's pair counts are labelled by the pairs of the words as the merge before left them: after
merge 1 those pairs spell out the earlier merges (merge 2's "e st" is merge 1's s t), so a view that
asks the counts labels them by position (or, on the practice page, by the pairs of the student's own
answer; see :mod:`attncalc.serve.pair_heads`).
"""

from __future__ import annotations

import re

from ..derivation import Argmax, Count, Derivation, Step, Tokens
from . import json_forms

_PAIRS = re.compile(r"([0-9]+)\.pairs")


def asks(step: Step, d: Derivation) -> str:
    """What a step asks for: "a count", "tokens", "a label", "3 decimals".

    A count is a step that counts (parameters, FLOPs; the steps the JSON contract writes as integers:
    bpe's words and pairs, BLEU's n-gram counts, a schedule's peak step): said by what the step is,
    never by its value (a step whose value happens to be whole is still asked to its decimals)."""
    if isinstance(step, Tokens):
        return "tokens"
    if isinstance(step.value, str):
        return "a label"
    if isinstance(step, Count) or json_forms.form(step.id) == "count":
        return "a count"
    return decimals_text(d.decimals)


def tie_rule(step: Step) -> str:
    """The order a view states for entries tied in value, where the step has one (a beam search's kept
    beams: the earlier beam, then the earlier token), else "": check accepts that order only."""
    return str(getattr(step, "ties", "") or "")


def answer_layout(step: Step) -> str:
    """How the step's answer is laid out, where its shape is not one number and its formula does not
    say it (quantization's ranges per group: "one [min, max] pair (min first) per group: a list of 6
    pairs ..."), else ""."""
    return str(getattr(step, "layout", "") or "")


def decimals_text(decimals: int) -> str:
    return f"{decimals} decimal{'s' if decimals != 1 else ''}"


# steps whose entries are 0/1 flags (asked as whole numbers): what 1 and 0 say
FLAGS = {"accepted": "1 if accepted, 0 if rejected", "kept": "1 if kept, 0 if not"}
# whole-number steps that are no count: what their entries are (moe's chosen experts, numbered from 1)
NUMBERED = {"top_k": "expert numbers (whole numbers, the first expert 1)"}


def flag_meaning(step: Step) -> str | None:
    """What a 0/1 flag step's entries say ("1 if accepted, 0 if rejected"), or None."""
    return FLAGS.get(step.id) if not isinstance(step.value, str) else None


def asks_sentence(step: Step, d: Derivation) -> str:
    """The precision hint of a numeric item: "Give 3 decimals." or "Give a count (a whole number)."."""
    what = asks(step, d)
    if what == "a count" and flag_meaning(step) is not None:
        return f"Give {flag_meaning(step)}."
    if what == "a count" and step.id in NUMBERED and not isinstance(step.value, str):
        return f"Give {NUMBERED[step.id]}."
    unit = getattr(step, "unit", "")
    if what == "a count" and unit in ("bytes", "FLOPs"):  # accounting's memory and compute: the unit said
        return f"Give the number of {unit} (a whole number)."
    return "Give a count (a whole number)." if what == "a count" else f"Give {what}."


def pair_merge(d: Derivation, step: Step) -> int:
    """The merge whose pair counts ``step`` is (kind bpe), else 0."""
    m = _PAIRS.fullmatch(step.id)
    return int(m.group(1)) if m is not None else 0  # (r.pairs is bpe's alone: render/json_forms.py)


def pair_slots(d: Derivation, step: Step) -> int:
    """The entries a view asks of a bpe pair table: merge 1's pairs (the corpus gives them), and for
    every later merge the adjacent places in the corpus's distinct words (a bound on any merge's
    distinct pairs that no merge changes): one per true pair would say how the earlier merges went
    (CS336: 11 pairs, then 10 after s t). Not a pair table: its entries."""
    import numpy as np

    n = int(np.size(step.value)) if not isinstance(step.value, str) else 1
    if pair_merge(d, step) <= 1:
        return n
    from ..mechanisms import bpe_algo as algo
    from ..parse.bpe import Bpe

    data = d.problem.payload(Bpe)
    places = sum(max(0, len(algo.symbols(w, data.end_of_word)) - 1) for w, _ in data.words)
    return max(n, places)


def past_the_pairs(merge: int) -> str:
    """What is said of a count typed past the pairs of a bpe pair table (the page's field, check's entry)."""
    words = f"the words after merge {merge - 1}" if merge > 1 else "the corpus's words"
    return (
        f"past the last pair: {words} have fewer distinct pairs than this (check those words, and leave "
        "the fields past your last pair empty)"
    )


def labels_give_away(d: Derivation, step: Step) -> bool:
    """Whether the step's own row labels would give an answer away: a pair table after merge 1, the
    problem's labels in a computed order (decode's probabilities largest first), or rows that are what
    a choice asks (a beam search's kept beams, "beam 1: cat", before the step that asks which beams
    are kept): such entries are labelled by rank. The problem's own labels in their own order (a
    vocabulary, the tokens) are given, and shown."""
    if pair_merge(d, step) > 1:
        return True
    rows = tuple(step.rows) if step.rows is not None else None
    given = {tuple(x) for i in d.inputs for x in (getattr(i, "rows", None), getattr(i, "cols", None)) if x}
    if rows is None or rows in given:  # the problem's own labels (a vocabulary, the tokens) give nothing away
        return False
    if any(sorted(rows) == sorted(g) for g in given):  # given labels in a computed order (largest first)
        return True
    return any(isinstance(a, Argmax) and tuple(a.labels) == rows for a in d.steps)
