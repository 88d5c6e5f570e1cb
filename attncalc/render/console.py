"""The rich Console every terminal view prints through: user text is shown as it is written.

Labels, tokens, titles and notes come from problem files, so nothing in them may act on the
terminal: markup is off (a token ``[/]`` was a MarkupError, and ``[red]`` or ``[link=…]`` changed
what was shown), so are emoji codes (``:cat:``) and highlighting, and a render hook writes any
control character (an ANSI escape, a lone surrogate, a bidirectional override) that reaches the
output as an escape such as ``\\x1b``. Newlines and tabs are the views' own.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderHook, RenderResult
from rich.segment import Segment

from ..errors import printable


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
