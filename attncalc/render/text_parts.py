"""Pieces of the terminal view that know only rich: exact forms cut to a width at whole terms, and
renderables that fit a line or a table to the console (a written-out line breaking before an operator)."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
from rich.text import Text

EXACT_WIDTH = 160  # characters of an exact-form line (two lines at 80 columns) shown before it is shortened


def cut_exact(head: str, form: str, width: int = EXACT_WIDTH) -> str:
    """``head + form`` when it fits ``width``; else the form's leading terms that fit, then
    "+ … (k more terms)"; a form that is not a sum, or whose first term does not fit, is named by its
    length instead. Never a cut in the middle of a term, which would show a form that is not there."""
    if len(head) + len(form) <= width:
        return head + form
    terms = top_level_terms(form)
    kept = ""
    for k, term in enumerate(terms):
        more = len(terms) - k - 1
        tail = f" + … ({more} more terms)" if more > 1 else " + … (1 more term)"
        if len(head) + len(kept) + len(term) + len(tail) > width:
            break
        kept += term
    else:
        return head + form
    n_left = len(terms) - len(top_level_terms(kept)) if kept else len(terms)
    if not kept or n_left == len(terms):
        return f"{head}… (a form of {len(form)} characters)"
    return f"{head}{kept} + … ({n_left} more {'term' if n_left == 1 else 'terms'})"


def top_level_terms(form: str) -> list[str]:
    """A printed sum split before each + or - outside parentheses: "a + f(b - c) - d" gives
    ["a", " + f(b - c)", " - d"]."""
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(form):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and i > 0 and form[i - 1 : i + 2] in (" + ", " - "):
            terms.append(form[start : i - 1])
            start = i - 1
    terms.append(form[start:])
    return terms


class Narrowest:
    """A table built with the widest bar (20 cells, then 14, then 10) that fits the console, so that
    a bar and its "◀ most" stay on one line at 80 columns."""

    def __init__(self, build: Any) -> None:
        self.build = build

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.measure import Measurement

        for width in (20, 14, 10):
            table = self.build(width)
            if Measurement.get(console, options.update(width=10_000), table).maximum <= options.max_width:
                break
        yield table


class SplitColumns:
    """A table of numbers too wide for the console as several narrower ones, the first column
    repeated in each, rather than numbers cut short with "…" (a merged gate table of ten columns)."""

    def __init__(self, header: list[str], rows: list[list[str]], title: str, make: Any) -> None:
        self.header, self.rows, self.title, self.make = header, rows, title, make

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.measure import Measurement

        n = len(self.header) - 1
        tables: list[Any] = []
        for parts in range(1, n + 1):
            size = -(-n // parts)
            tables = [
                self.make(
                    [self.header[0], *self.header[1 + i : 1 + i + size]],
                    [[r[0], *r[1 + i : 1 + i + size]] for r in self.rows],
                    self.title if i == 0 else f"{self.title} (continued)",
                )
                for i in range(0, n, size)
            ]
            wide = options.update(width=10_000)
            if all(Measurement.get(console, wide, t).maximum <= options.max_width for t in tables):
                break
        for k, table in enumerate(tables):
            if k:
                yield Text("")
            yield table


class Fit:
    """ "name  role  = vector" on one line when it fits the console, else the vector on its own line."""

    def __init__(self, head: Text, value: Text) -> None:
        self.head, self.value = head, value

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        one = Text.assemble(self.head, "  = ", self.value)
        if one.cell_len <= options.max_width:
            yield one
            return
        yield self.head
        yield Padding(Text.assemble("= ", self.value), (0, 0, 0, 2), expand=False)


class Hanging:
    """A written-out line that, when too long for the console, breaks before an operator and indents
    what follows, so "+ 0.3·0.9 − 0.5 = 0.22" does not start a line of its own at the margin."""

    OPERATORS = ("+", "−", "-", "=", "/", "·")

    def __init__(self, text: str, hang: int = 6, style: str = "") -> None:
        self.text, self.hang, self.style = text, hang, style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if cell_len(self.text) <= width:
            yield Text(self.text, style=self.style)
            return
        indent = len(self.text) - len(self.text.lstrip(" "))
        units: list[str] = []  # an operator travels with its operand
        for word in self.text.strip().split(" "):
            if units and units[-1] in self.OPERATORS:
                units[-1] += " " + word
            else:
                units.append(word)
        lines, line = [], " " * indent + units[0]
        for unit in units[1:]:
            if cell_len(line) + 1 + cell_len(unit) > width and line.strip():
                lines.append(line)
                line = " " * (indent + self.hang) + unit
            else:
                line += " " + unit
        lines.append(line)
        for text in lines:
            yield Text(text, style=self.style)
