"""Markdown, LaTeX and HTML sheets of derivations: :func:`render` builds the sheet once and hands it
to the writer of the format (write_md, write_tex, write_html)."""

from __future__ import annotations

from typing import Any

from .write_base import Writer
from .write_html import HtmlWriter, html_text
from .write_md import MarkdownWriter
from .write_tex import LATEX_PREAMBLE, LatexWriter, tex_safe

__all__ = ["LATEX_PREAMBLE", "WRITERS", "Writer", "html_text", "render", "tex_safe"]

WRITERS: dict[str, type[Writer]] = {"markdown": MarkdownWriter, "latex": LatexWriter, "html": HtmlWriter}


def render(
    derivations: list[Any],
    fmt: str,
    sheet: str = "solution",
    fragment: bool = False,
    title: str | None = None,
    reveal: bool = False,
    detail: str = "first",
) -> str:
    """Render derivations as a Markdown, LaTeX or HTML sheet (``reveal``: steps open in stages;
    ``detail``: full | first | summary, how much of a recurrent derivation's time steps is written out)."""
    from .sheet import build

    s = build(derivations, sheet, title, reveal, detail)
    w = WRITERS[fmt](s)
    out = w.write() if isinstance(w, MarkdownWriter) else w.write(fragment=fragment)  # type: ignore[attr-defined]
    return visible_text(str(out), fmt)


def visible_text(text: str, fmt: str) -> str:
    """Control characters from user text (an ANSI escape in a title) written as escapes such as \\x1b,
    in every sheet: raw they reach a terminal through cat, and pdflatex stops at them."""
    from ..errors import printable

    if fmt != "latex":
        return printable(text, keep="\n\t")
    out = []
    for ch in text:
        shown = printable(ch, keep="\n\t")
        out.append(ch if shown == ch else r"\textbackslash{}" + shown[1:])
    return "".join(out)
