"""What the unknown-key check says: the allowed keys come from the declarations, the suggestion from here."""

from __future__ import annotations

import difflib

from .decl import Table


def suggest(word: str, options: tuple[str, ...] | list[str]) -> str:
    """ " (did you mean 'query'?)" for a near miss (or a different capitalisation), else ""."""
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    if not close:
        lowered = {o.lower(): o for o in options}
        if word.lower() in lowered:
            close = [lowered[word.lower()]]
    return f" (did you mean {close[0]!r}?)" if close else ""


def names(t: Table, without: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A table's keys in declared order, as the unknown-key message lists them."""
    return tuple(n for n in t.names if n not in without)


def union(*tables: Table) -> tuple[str, ...]:
    """The keys of several tables, each once, in first-seen order."""
    return tuple(dict.fromkeys(n for t in tables for n in t.names))
