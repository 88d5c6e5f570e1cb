"""The views ``attncalc solve`` and ``attncalc check`` write, registered in :mod:`attncalc.views`.

Each function renders exactly what the command writes for the same options, so a derivation's
``to_markdown()`` is ``attncalc solve --format markdown`` and the CLI and the Python API cannot
drift apart. Importing this module is cheap: each renderer loads when first called.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..errors import ArgumentError, ProblemError
from ..views import register, register_argument_error

register_argument_error(ArgumentError)  # what a view raises for a keyword it does not take

if TYPE_CHECKING:
    from ..check import Report
    from ..derivation import Derivation


# the narrowest text view, as `--width` takes it (min=40); the widest a terminal or a file reasonably is
MIN_WIDTH, MAX_WIDTH = 40, 10_000


def checked_width(where: str, width: object) -> int:
    """``width`` as the text views take it: a whole number from 40 to 10,000, else a ProblemError naming
    the method and the argument (a string gave a TypeError from deep in the renderer, 0 an empty text)."""
    if isinstance(width, bool) or not isinstance(width, int) or not MIN_WIDTH <= width <= MAX_WIDTH:
        small = isinstance(width, (int, float, str)) and not (isinstance(width, int) and width.bit_length() > 64)
        shown = (
            (repr(width)[:37] + ("..." if len(repr(width)) > 37 else ""))
            if small
            else ("a whole number far too large" if isinstance(width, int) else f"a {type(width).__name__}")
        )
        raise ProblemError(where, "width", f"expected a whole number from {MIN_WIDTH} to {MAX_WIDTH:,}, got {shown}")
    return width


SHEETS = ("solution", "answers", "question")  # (render.sheet.SHEETS: a test holds them equal)


def checked_sheet(where: str, sheet: object) -> str:
    """``sheet`` as the sheet views take it, else a ProblemError naming the method, ``sheet`` and the
    choices (an unknown sheet was a bare ``ValueError: answer`` from the renderer)."""
    if not isinstance(sheet, str) or sheet not in SHEETS:
        shown = _shown(sheet)
        close = [s for s in SHEETS if isinstance(sheet, str) and (s.startswith(sheet) or sheet.startswith(s))]
        hint = f" (did you mean {close[0]!r}?)" if isinstance(sheet, str) and close else ""
        raise ProblemError(where, "sheet", f"unknown sheet {shown}{hint}; choose one of: {', '.join(SHEETS)}")
    return sheet


def checked_flag(where: str, name: str, value: object) -> bool:
    """A switch (``fragment``, ``reveal``): True or False only (``"no"`` is a non-empty string, true to
    Python, and -1 or 10**100 were taken silently)."""
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise ProblemError(where, name, f"expected True or False, got {_shown(value)}")
    return bool(value)


def _shown(value: object) -> str:
    """A short value as a message quotes it; a long or odd one by its type (a 5,000-digit int has no repr)."""
    if value is None or isinstance(value, (bool, float)) or (isinstance(value, str) and len(value) <= 40):
        return repr(value)
    if isinstance(value, int) and value.bit_length() <= 64:
        return repr(value)
    return "a whole number far too large" if isinstance(value, int) else f"a value of type {type(value).__name__}"


def text_view(derivations: list[Derivation], width: int, detail: str = "first") -> str:
    """The terminal view of one or more derivations as plain text, at a fixed width (no colours)."""
    from rich.rule import Rule

    from ..render.console import terminal_console
    from ..render.text import TextRenderer

    with open(os.devnull, "w") as sink:
        console = terminal_console(width=width, color_system=None, record=True, file=sink, force_jupyter=False)
        for k, d in enumerate(derivations):
            if len(derivations) > 1:
                console.print(Rule(f"Problem {k + 1}"))
            TextRenderer(d, detail).print(console)
        # rich pads each line to the width: a file or a diff wants no trailing spaces
        return "".join(line.rstrip() + "\n" for line in console.export_text().splitlines())


@register("derivation", "text")
def derivation_text(d: Derivation, width: int = 80, detail: str = "first") -> str:
    return text_view([d], checked_width("Derivation.to_text", width), detail)


@register("derivation", "json")
def derivation_json(d: Derivation) -> dict[str, Any]:
    from ..render.json import to_dict

    return to_dict(d)


@register("derivation", "markdown")
def derivation_markdown(d: Derivation, sheet: str = "solution", detail: str = "first") -> str:
    from ..render.writers import render

    return render([d], "markdown", checked_sheet("Derivation.to_markdown", sheet), detail=detail)


@register("derivation", "latex")
def derivation_latex(d: Derivation, sheet: str = "solution", fragment: bool = False, detail: str = "first") -> str:
    from ..render.writers import render

    where = "Derivation.to_latex"
    return render([d], "latex", checked_sheet(where, sheet), checked_flag(where, "fragment", fragment), detail=detail)


@register("derivation", "html")
def derivation_html(
    d: Derivation, sheet: str = "solution", fragment: bool = False, reveal: bool = False, detail: str = "first"
) -> str:
    from ..render.writers import render

    where = "Derivation.to_html"
    sheet, fragment = checked_sheet(where, sheet), checked_flag(where, "fragment", fragment)
    return render([d], "html", sheet, fragment, reveal=checked_flag(where, "reveal", reveal), detail=detail)


@register("derivation", "notebook-html")
def derivation_notebook_html(d: Derivation, sheet: str = "solution", detail: str = "first") -> str:
    from ..render.notebook import notebook_html

    return notebook_html(d, sheet, detail)


@register("derivation", "notebook-latex")
def derivation_notebook_latex(d: Derivation, sheet: str = "solution", detail: str = "first") -> str:
    from ..render.notebook import notebook_latex

    return notebook_latex(d, sheet, detail)


@register("report", "json")
def report_json(rep: Report) -> dict[str, Any]:
    from .check_view import report_dict

    return report_dict(rep)


@register("report", "text")
def report_text(rep: Report, width: int = 80) -> str:
    from .check_view import reports_text

    return reports_text([rep], checked_width("Report.to_text", width))
