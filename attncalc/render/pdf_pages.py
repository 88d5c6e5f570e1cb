"""How long a PDF would be, estimated from its LaTeX before pdflatex typesets it, and the bound on it.

A decode step over 100,000 tokens made an 1,820-page PDF (11 s of pdflatex, and a file no one
reads); within the documented input limits a sheet can still run to thousands of pages. Such a
sheet is refused before typesetting, in one line naming the option that raises the bound
(``--max-pages``), as the other limits are (``--max-file-size``).

The estimate counts the lines the sheet breaks (``\\\\`` and ``\\par``) and its characters: one page
of a sheet holds about 50 to 58 broken lines, or 4,000 to 5,400 characters of LaTeX source
(measured on the example problems' sheets and a 2,000-token decode, compiled by pdflatex); the
larger of the two, at 50 lines and 5,000 characters a page, is within a few pages of the real
count and errs long.
"""

from __future__ import annotations

import math

from ..errors import ProblemError

MAX_PAGES = 500  # pages of one PDF unless --max-pages says otherwise
LINES_PER_PAGE = 50
CHARS_PER_PAGE = 5000


def estimate_pages(tex: str) -> int:
    """About how many pages ``tex`` typesets to (errs long by a page or two in ten)."""
    lines = tex.count("\\\\") + tex.count("\\par")
    return max(1, math.ceil(max(lines / LINES_PER_PAGE, len(tex) / CHARS_PER_PAGE)))


def check_pages(tex: str, file: str, limit: int | None = None, what: str = "the PDF") -> None:
    """Refuse ``tex`` when its estimated pages pass ``limit`` (default :data:`MAX_PAGES`), naming ``file``."""
    bound = MAX_PAGES if limit is None else limit
    pages = estimate_pages(tex)
    if pages > bound:
        raise ProblemError(
            file,
            "",
            f"{what} would be about {pages:,} pages, more than the {bound:,}-page limit; "
            "--max-pages raises it (--format latex writes the .tex without typesetting)",
        )
