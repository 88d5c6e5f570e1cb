"""The Markdown writer: pipe tables and $...$ / $$...$$ math, as GitHub and Jupyter render them."""

from __future__ import annotations

import re

from .blocks import Exact, Heading, MathLines, Matrix, Para, Table
from .exact import exact_latex
from .typeset import to_tex
from .write_base import PLAIN_HEADERS, Writer


def _md_html(s: str) -> str:
    """Raw HTML in user text (a title <script>…</script>) shown as text: Markdown passes tags through."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# every ASCII character CommonMark or GFM reads as inline syntax (emphasis, code, table cells,
# strikethrough, math), written with a backslash: each renders as itself. An underscore inside a word
# (exp_sum) is left: it can neither open nor close emphasis there.
_MD_SYNTAX = re.compile(r"(?<=[^\W_])_(?=[^\W_])|([\\`*_|$~])")
# brackets: a link or an image needs "](" or "][" (or a definition "[x]:", which is escaped so none
# can be written); a bracketed span followed by none of them ([scores], [0.155, 0.422]) is left
_MD_BRACKETS = re.compile(r"\[[^\[\]]*\](?![(\[:])|[\[\]]")


def _md_text(s: str) -> str:
    """Text as written, whatever Markdown would read in it (titles, tokens, labels and notes come
    from problem files written by anyone: ``![x](https://…)`` must not become an image, a newline in
    a token must not start a heading). A line break is a space, as Markdown and HTML show one in a
    paragraph; a bare address (``https://…``, ``www.…``) is kept from GFM's autolinks."""
    s = " ".join(s.splitlines())
    s = _MD_SYNTAX.sub(lambda m: "\\" + m.group(1) if m.group(1) else m.group(), _md_html(s))
    s = _MD_BRACKETS.sub(lambda m: "\\" + m.group() if len(m.group()) == 1 else m.group(), s)
    return re.sub(r"(?i)(?<=www)\.|:(?=//)", lambda m: "\\" + m.group(), s)


def _md_para(s: str) -> str:
    """Text that starts a line: what would open a block there (a list item "- x" or "1. x", a
    heading, a thematic break, an indented code block) is written as text."""
    s = _md_text(s).lstrip()
    if re.match(r"[-+=#]", s):
        return "\\" + s
    return re.sub(r"^(\d+)([.)])", r"\1\\\2", s)


def _md_math(tex: str, cell: bool = False) -> str:
    """LaTeX inside $…$, where a token can stand (ŷ = [CLS]): a "<" there would still open an HTML
    tag for the Markdown renderer, brackets a link or an image; in a table cell a "|" ends the cell."""
    tex = tex.replace("<", r"\lt ").replace(">", r"\gt ")
    tex = _MD_BRACKETS.sub(lambda m: {"[": r"\lbrack ", "]": r"\rbrack "}.get(m.group(), m.group()), tex)
    tex = tex.replace("`", r"\grave{}").replace("*", r"\ast ")
    return re.sub(r"(?<!\\)\|", r"\\vert ", tex) if cell else tex


def _tex(plain: str) -> str:
    return _md_math(to_tex(plain))


def _exact_tex(expr: object) -> str:
    return _md_math(exact_latex(expr))


class MarkdownWriter(Writer):
    """Pipe tables and $...$ / $$...$$ math, as GitHub and Jupyter render them."""

    def write(self) -> str:
        return self.body()

    def _block_Heading(self, b: Heading) -> None:
        self.out += ["#" * b.level + " " + _md_text(b.text).replace("#", "\\#"), ""]  # no closing sequence

    def _block_Para(self, b: Para) -> None:
        text = _md_para(b.text) if b.style == "normal" else _md_text(b.text)
        text = {"explain": f"*{text}*", "note": f"> **Note:** {text}", "result": f"**{text}**"}.get(b.style, text)
        self.out += [text, ""]

    def _block_MathLines(self, b: MathLines) -> None:
        if len(b.lines) == 1 and not b.lines[0][1]:
            self.out += ["$$", _tex(b.lines[0][0]), "$$", ""]
            return
        for math, remark in b.lines:
            line = f"- ${_tex(math)}$" if math else "-"
            if remark:
                line += f" ({_md_text(remark)})"
            self.out.append(line)
        self.out.append("")

    def _block_Matrix(self, b: Matrix) -> None:
        if b.vector:
            sep = ",\\ "
            self.out += [f"${_tex(b.lhs)} = [{sep.join(_tex(c) for c in b.cells[0])}]$", ""]
            return
        cols = b.cols or tuple(str(j + 1) for j in range(len(b.cells[0])))
        rows = b.rows or tuple(str(i + 1) for i in range(len(b.cells)))
        self.out.append(
            "| $" + _md_math(to_tex(b.lhs), cell=True) + "$ | " + " | ".join(_md_text(c) for c in cols) + " |"
        )
        self.out.append("|---|" + "---:|" * len(cols))
        for label, row in zip(rows, b.cells, strict=True):
            self.out.append(f"| {_md_text(label)} | " + " | ".join(_md_text(c) for c in row) + " |")
        self.out.append("")

    def _block_Table(self, b: Table) -> None:
        if b.caption:
            self.out += [f"**{_md_text(b.caption)}**", ""]
        header = [
            f"${_md_math(to_tex(h), cell=True)}$" if h and h not in PLAIN_HEADERS else _md_text(h) for h in b.header
        ]
        if b.shade is not None:
            header.append("bar")
        self.out.append("| " + " | ".join(header) + " |")
        self.out.append("|" + "---|" * len(header))
        for k, row in enumerate(b.rows):
            # a | inside the math (|i − k|) would end the table cell: _md_math writes it \vert
            cells = [
                f"${_md_math(to_tex(c), cell=True)}$" if j in b.math_cols else _md_text(c) for j, c in enumerate(row)
            ]
            if b.shade is not None:
                w = b.shade[k]
                cells.append("█" * round(w * 20) if w > 0 else "")
            self.out.append("| " + " | ".join(cells) + " |")
        self.out.append("")

    def _block_Exact(self, b: Exact) -> None:
        for labels, expr in b.items:
            if isinstance(expr, str):
                self.out.append(f"- {b.label}: ${_tex(labels)}$: {_md_text(expr)}")
            else:
                self.out.append(f"- {b.label}: ${_tex(labels)} = {_exact_tex(expr)}$")
        if b.more:
            self.out.append(f"- … and {b.more} more exact forms")
        self.out.append("")
