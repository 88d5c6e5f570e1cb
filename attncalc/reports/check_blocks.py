"""The check report when its table would not fit the terminal: one block per step.

Each step gets a heading line (verdict and step id, never cut), then ``given``, ``expected`` and
``note`` on their own lines, wrapped at the console's width under a hanging indent; a matrix is
written one row a line. Nothing is truncated: a value or a word is only ever moved to the next line.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

LABEL = 10  # "  expected" + two spaces: where values and notes start
INDENT = " " * (LABEL + 2)


def _pack(pieces: list[str], width: int, sep: str) -> list[str]:
    """Pieces joined by ``sep`` into lines at most ``width`` cells (a piece longer than that has a
    line of its own)."""
    lines: list[str] = []
    line = ""
    for piece in pieces:
        candidate = piece if not line else line + sep + piece
        if line and cell_len(candidate) > width:
            lines.append(line)
            line = piece
        else:
            line = candidate
    if line or not lines:
        lines.append(line)
    return lines


def _kept_together(words: list[str]) -> list[str]:
    """Words with a quotient "a / b" (a score "7.5 / 9", "1 / √2") joined into one piece, with the word
    "score" before it: a line is never broken inside it."""
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i] == "/" and out and i + 1 < len(words):
            out[-1] += " / " + words[i + 1]
            if len(out) > 1 and out[-2] == "score":  # "score 1 / 27" as one
                quotient = out.pop()
                out[-1] += " " + quotient
            i += 2
        else:
            out.append(words[i])
            i += 1
    return out


def wrap_words(text: str, width: int) -> list[str]:
    """Plain text wrapped at spaces to ``width`` cells; words, numbers and quotients "a / b" are never cut."""
    return _pack(_kept_together(text.split()), width, " ")


class Wrapped:
    """One line of the report that rich wraps to the room it is given by :func:`wrap_words`, never
    inside a number or a quotient "a / b" (rich's own wrapping breaks at any space, inside "score 1 /
    27" too); in a table cell, the room of its column."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(wrap_words(self.text, options.max_width)))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        pieces = _kept_together(self.text.split())
        return Measurement(max((cell_len(p) for p in pieces), default=0), cell_len(self.text))


def value_lines(value: str | list[str], width: int) -> list[str]:
    """A value (one string, or one string per matrix row) wrapped at its commas to ``width`` cells."""
    rows = value if isinstance(value, list) else [value]
    out: list[str] = []
    for row in rows:
        if cell_len(row) <= width:
            out.append(row)
        else:
            pieces = row.split(", ")
            out.extend(_pack([p + "," for p in pieces[:-1]] + pieces[-1:], width, " "))
    return out


def field(label: str, lines: list[str]) -> list[Text]:
    head = f"  {label:<{LABEL - 2}}  "
    return [Text(head + line if i == 0 else INDENT + line) for i, line in enumerate(lines)]


def step_block(mark: str, style: str, step: str, rows: list[tuple[str, Any]], width: int) -> list[Text]:
    """The lines of one step: ``rows`` are (label, value) with value a string, a list of row strings
    (a matrix) or, for the note, plain text to wrap at spaces."""
    heading = Text()
    heading.append(f"{mark:<9}", style=style)
    heading.append("  " + step, style="bold")
    out = [heading]
    room = max(width - len(INDENT), 20)
    for label, value in rows:
        if value in ("", None, []):
            continue
        lines = wrap_words(value, room) if label == "note" else value_lines(value, room)
        out.extend(field(label, lines))
    return out
