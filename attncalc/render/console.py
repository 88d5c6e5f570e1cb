"""The rich Console every terminal view prints through: user text is shown as it is written.

Labels, tokens, titles and notes come from problem files, so nothing in them may act on the
terminal: markup is off (a token ``[/]`` was a MarkupError, and ``[red]`` or ``[link=…]`` changed
what was shown), so are emoji codes (``:cat:``) and highlighting, and a render hook writes any
control character (an ANSI escape, a lone surrogate, a bidirectional override) that reaches the
output as an escape such as ``\\x1b``. Newlines and tabs are the views' own.

rich itself drops five control characters (bell, backspace, vertical tab, form feed, carriage
return: ``rich.control.STRIP_CONTROL_CODES``) as soon as a ``Text`` is built, before the hook sees
them, so a label ``"a\\x08b"`` was shown ``ab``; while a view is built and printed
(:func:`controls_shown`) they are written as escapes too, as the other control characters are.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderHook, RenderResult
from rich.segment import Segment

from ..errors import printable

_showing = threading.local()  # .depth > 0 while this thread builds a view (rich's stripping replaced)


def _shown_or_stripped(stripped: Any) -> Any:
    def strip_control_codes(text: str, *args: Any, **kw: Any) -> str:
        if getattr(_showing, "depth", 0) > 0:
            return text if text.isprintable() else printable(text, keep="\n\t")
        return str(stripped(text, *args, **kw))

    strip_control_codes.attncalc = True  # type: ignore[attr-defined]
    return strip_control_codes


@contextmanager
def controls_shown() -> Iterator[None]:
    """While a view is built and printed in this thread, the control characters rich would drop from
    a ``Text`` (``\\x07 \\x08 \\x0b \\x0c \\r``) are kept, as escapes (elsewhere rich is unchanged)."""
    import rich.text

    current = rich.text.strip_control_codes  # type: ignore[attr-defined]
    if not getattr(current, "attncalc", False):
        rich.text.strip_control_codes = _shown_or_stripped(current)  # type: ignore[attr-defined]
    _showing.depth = getattr(_showing, "depth", 0) + 1
    try:
        yield
    finally:
        _showing.depth -= 1


def terminal_console(**options: Any) -> Console:
    """A Console with markup, emoji and highlighting off and control characters escaped."""
    console = Console(markup=False, emoji=False, highlight=False, **options)
    console.push_render_hook(_Escape())
    return console


class _Escape(RenderHook):
    def process_renderables(self, renderables: list[Any]) -> list[Any]:
        return [_Escaped(r) for r in renderables]


class _Escaped:
    """A renderable whose rendered text has its control characters written as escapes."""

    def __init__(self, inner: RenderableType) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for seg in console.render(self.inner, options):
            if seg.control or seg.text.isprintable():
                yield seg
            else:
                yield Segment(printable(seg.text, keep="\n\t"), seg.style)
