"""A derivation in Jupyter: the HTML a notebook shows and the LaTeX nbconvert exports to PDF.

Both carry what they need, since the page or document around them is not attncalc's:
- the HTML is the sheet's body inside ``<div class="attncalc">`` with the sheet's own stylesheet in a
  ``<style>`` scoped to that div (the weight bars, the label columns, the accents drawn by CSS), so the
  notebook and its HTML export show what ``solve --format html`` shows, and restyle nothing else;
- the LaTeX is the sheet's body using only what nbconvert's LaTeX template loads (xcolor without its
  ``table`` option, so no colortbl): the shade of a weight is a ``\\colorbox`` instead of a
  ``\\cellcolor``, and the colour is defined in the body (``\\providecolor``).
"""

from __future__ import annotations

import re
from typing import Any

from .write_html import HTML_STYLE
from .write_tex import LatexWriter

SCOPE = "attncalc"
TEX_SETUP = "\\providecolor{attnshade}{RGB}{40,90,200}\\setcounter{MaxMatrixCols}{30}%"


class NotebookLatexWriter(LatexWriter):
    """The sheet's body for nbconvert's LaTeX template."""

    @staticmethod
    def _shaded(level: int, cell: str) -> str:
        return f"{{\\setlength{{\\fboxsep}}{{1pt}}\\colorbox{{attnshade!{level}}}{{{cell}}}}}"

    def write(self, fragment: bool = True) -> str:
        # the written-out lines beside a value were measured for the sheet's 17 cm line (A4, 2 cm
        # margins); nbconvert's line is shorter (letter, 1 inch), and a share of it would wrap them
        return TEX_SETUP + "\n" + self.body().replace("\\dimexpr\\linewidth*", "\\dimexpr 17cm*")


def scoped(css: str, scope: str) -> str:
    """The stylesheet with every rule limited to elements inside ``.scope`` (``body`` becomes the
    scope itself); @media blocks keep their condition."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out = []
    head_re = re.compile(r"\s*([^{}]+)\{")
    i = 0
    while (m := head_re.match(css, i)) is not None:
        head, j = m.group(1).strip(), m.end()
        if head.startswith("@"):
            depth, k = 1, j
            while depth:
                depth += {"{": 1, "}": -1}.get(css[k], 0)
                k += 1
            out.append(f"{head} {{ {scoped(css[j : k - 1], scope)} }}")
            i = k
            continue
        k = css.index("}", j)
        selectors = [s.strip() for s in head.split(",")]
        out.append(", ".join(f".{scope}" if s == "body" else f".{scope} {s}" for s in selectors) + f" {{{css[j:k]}}}")
        i = k + 1
    return "\n".join(out)


def notebook_html(d: Any, sheet: str = "solution", detail: str = "first") -> str:
    from .writers import render

    body = render([d], "html", sheet, fragment=True, detail=detail)
    return f'<div class="{SCOPE}">\n<style>\n{scoped(HTML_STYLE, SCOPE)}\n</style>\n{body}</div>\n'


def notebook_latex(d: Any, sheet: str = "solution", detail: str = "first") -> str:
    from .sheet import build
    from .writers import visible_text

    return visible_text(NotebookLatexWriter(build([d], sheet, None, False, detail)).write(), "latex")
