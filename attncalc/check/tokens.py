"""Answers to steps that hold tokens (kind bpe's merges, words, merge list, vocabulary and encodings;
speculative's output): what an answers file, the practice page's JSON route and its download may
write for one, read the same way by all of them (:func:`read_tokens`), and how an answer with some
items left out (``"?"``) is compared with the true items (:func:`open_items`, :func:`items_match`).

A step that lists items (the words, the merges, an encoding) takes its items separated by commas
and each item's tokens by spaces (``"l o w, l o w e r"``), a list of the items (``["l o w", "l o w
e r"]``), or a list of token lists (``[["l", "o", "w"], ["l", "o", "w", "e", "r"]]``, as ``solve
--format json`` writes a words step). A step that is one item (a merge's pair) takes one string,
``"s t"``, never a list. A number is never tokens. An item written ``"?"`` (or left blank) is not
answered; a step whose items all are is not answered at all. Refusals say the shape in words only:
an example made of tokens could be the problem's own answer."""

from __future__ import annotations

import re
from typing import Any

from ..derivation import Tokens, single_tokens
from ..errors import ProblemError

UNANSWERED = "?"  # (answers.UNANSWERED)
# text that is only "?"s, by commas or spaces: nothing answered, whatever the tokens hold
_ALL_OPEN = re.compile(r"\?(?:[\s,]*\?)*")


def none_answered(text: str, step: Tokens | None = None) -> bool:
    """Whether text typed for a step of tokens answers nothing: blank, or only "?"s ("?, ?, ?"); for
    a step whose tokens hold no comma, also only commas between blank or "?" items (",,,")."""
    text = " ".join(text.split())
    if not text or _ALL_OPEN.fullmatch(text) is not None:
        return True
    return step is not None and not _commas(step) and all(p.strip() in ("", UNANSWERED) for p in text.split(","))


def lists_items(step: Tokens) -> bool:
    """Whether the step's answer is a list of items (words, merges, tokens), not one item chosen
    (a merge's pair): as the JSON views write the step (a list), by the kinds' registry."""
    from ..render.json_forms import token_value

    return token_value(step) is not None


def _item(x: Any) -> str | None:
    """One item of a list answer as text (its tokens by spaces), "?" when blank, None when it is not
    text or a list of non-blank tokens."""
    if isinstance(x, str):
        return " ".join(x.split()) or UNANSWERED
    if isinstance(x, list) and x and all(isinstance(t, str) and t.strip() for t in x):
        tokens = [t.strip() for t in x]
        return UNANSWERED if all(t == UNANSWERED for t in tokens) else " ".join(tokens)
    return None


def read_tokens(step: Tokens, value: Any, file: str, key: str) -> tuple[str, tuple[str, ...] | None] | None:
    """An answer to a step of tokens as its text (items by ", ") and its items when they are known
    (written as a list, or text whose tokens hold no comma), or None when nothing of it is answered.
    Raises :class:`ProblemError` naming ``file`` and ``key`` for what is not tokens."""
    many = lists_items(step)
    items: list[str] | None = None
    if isinstance(value, str):
        text = " ".join(value.split())
        if none_answered(text, step):
            return None
    elif many and isinstance(value, list) and value:
        read = [_item(x) for x in value]
        if any(x is None for x in read):
            raise ProblemError(file, key, f"expected tokens as text: {_shape(many)}")
        items = [x for x in read if x is not None]
        if all(x == UNANSWERED for x in items):
            return None
        text = ", ".join(items)
    else:
        raise ProblemError(file, key, f"expected tokens as text: {_shape(many)}")
    text = tokens_as_written(text, step.labels)
    if not many:
        return text, None
    if not _commas(step):
        # no token holds a comma: the commas are the separators, and an item left blank between two
        # of them ("l o w,,w i d e st") is not answered, as a blank item of a list is
        items = [item.strip() or UNANSWERED for item in text.split(",")]
        if all(x == UNANSWERED for x in items):
            return None
        text = ", ".join(items)
    return text, tuple(items) if items is not None else None


def _commas(step: Tokens) -> bool:
    """Whether a token of the step's items holds a comma (a corpus may have "," as a token)."""
    return any("," in t for label in step.labels for t in label.split())


def tokens_entry(step: Tokens, value: Any, file: str, key: str) -> Any:
    """An answer to a step of tokens as an answers file writes it after :func:`read_tokens` has read
    it (the practice page's download of what its JSON route was sent): ``"?"`` when nothing of it is
    answered, else its text, or its items as a list where the text could not give them back (a
    token holds a comma)."""
    read = read_tokens(step, value, file, key)
    if read is None:
        return UNANSWERED
    text, items = read
    return list(items) if items is not None and isinstance(value, list) and _commas(step) else text


def _shape(many: bool) -> str:
    if many:
        return (
            "the items separated by commas and each item's tokens by spaces, a list of the items, or a list of "
            "token lists (as solve --format json writes it)"
        )
    return "one item as one string, its tokens separated by spaces (a merge: its pair, not a list)"


def open_items(items: tuple[str, ...] | None) -> bool:
    """Whether some items of a list answer are left out ("?")."""
    return items is not None and UNANSWERED in items


def items_match(items: tuple[str, ...], truth: tuple[str, ...]) -> bool:
    """A list answer with items left out against a list of items: as many items, and every answered
    one the item at its place."""
    return len(items) == len(truth) and all(
        g == UNANSWERED or " ".join(g.split()) == " ".join(t.split()) for g, t in zip(items, truth, strict=True)
    )


def tokens_as_written(text: str, items: tuple[str, ...]) -> str:
    """Tokens (kind bpe) in the form the views write them: one space between tokens, ", " between a
    list's items ("l o w</w>,l o w e r  </w>" as "l o w</w>, l o w e r </w>"); in a list of single
    tokens (a word encoded, the new tokens) spaces separate items too ("ne west" is "ne, west").
    Commas are read as separators only when no token of the step's items (the true list's, or the
    pairs a merge chose from) holds one: a corpus may have "," as a token."""
    text = " ".join(text.split())
    if not any("," in token for item in items for token in item.split()):
        if "," not in text and single_tokens(items):
            text = text.replace(" ", ",")  # a list of single tokens ("ne west"): a space separates them too
        text = ", ".join(part.strip() for part in text.split(","))
    return text
