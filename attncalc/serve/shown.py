"""What the practice page's templates write (Jinja's ``finalize``): text as the terminal shows it,
every character that is not printable text as its escape, a field's typed text as typed."""

from __future__ import annotations

import re
from typing import Any

from ..errors import printable


def shown(value: Any) -> Any:
    """What a template writes, as the solution page and the terminal show it: a control character of
    a problem's title, tokens or labels (U+0008 raw was invisible on the page, and is no valid HTML)
    written as its escape (``\\x08``; a newline or tab in a token too, ``\\n``), in HTML already made
    (the givens' tables, a formula) too; a field's typed text as typed."""
    from markupsafe import Markup

    from .page import AsTyped

    if isinstance(value, AsTyped) or not isinstance(value, str):
        return value
    if isinstance(value, Markup):  # (HTML made from user text: a backslash escape is plain text in HTML)
        if value.isprintable():
            return value
        # a field's value attribute (a macro's output: the typed text) kept as typed, so that the
        # field sends back what was typed (its quotes are escaped: the attribute ends at the next '"')
        parts = _VALUE.split(value)
        return Markup("".join(p if k % 2 else _html_shown(p) for k, p in enumerate(parts)))
    return printable(value)  # a token or label "a\nb" shown as written, never as "a b"


_VALUE = re.compile(r'(<input id="[^"]*" name="[^"]*" value="[^"]*")')
_TAG = re.compile(r"(<[^>]*>)")


def _html_shown(html: str) -> str:
    """HTML's text with every unprintable character as its escape (a newline or tab in a token too:
    "a\nb" raw shows as "a b"); the newlines and tabs between its tags, and in them, kept."""
    parts = _TAG.split(html)
    return "".join(printable(p, keep="\n\t") if k % 2 or not p.strip() else printable(p) for k, p in enumerate(parts))
