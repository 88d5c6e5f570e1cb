"""The Markdown writer: pipe tables and $...$ / $$...$$ math, as GitHub and Jupyter render them."""

from __future__ import annotations

from .blocks import Exact, Heading, MathLines, Matrix, Para, Table
from .exact import exact_latex
from .typeset import to_tex
from .write_base import PLAIN_HEADERS, Writer


def _md_html(s: str) -> str:
    """Raw HTML in user text (a title <script>…</script>) shown as text: Markdown passes tags through."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _md_escape(s: str) -> str:
    return (
        _md_html(s)
        .replace("\\", "\\\\")
        .replace("*", "\\*")
        .replace("_", "\\_")
        .replace("|", "\\|")
        .replace("$", "\\$")
    )


def _md_cell(s: str) -> str:
    return _md_html(s).replace("|", "\\|")


def _md_math(tex: str) -> str:
    """LaTeX inside $…$: a "<" there would still open an HTML tag for the Markdown renderer."""
    return tex.replace("<", r"\lt ").replace(">", r"\gt ")


def _tex(plain: str) -> str:
    return _md_math(to_tex(plain))


def _exact_tex(expr: object) -> str:
    return _md_math(exact_latex(expr))


class MarkdownWriter(Writer):
    """Pipe tables and $...$ / $$...$$ math, as GitHub and Jupyter render them."""

    def write(self) -> str:
        return self.body()

    def _block_Heading(self, b: Heading) -> None:
        self.out += ["#" * b.level + " " + _md_html(b.text), ""]

    def _block_Para(self, b: Para) -> None:
        text = _md_escape(b.text)
        text = {"explain": f"*{text}*", "note": f"> **Note:** {text}", "result": f"**{text}**"}.get(b.style, text)
        self.out += [text, ""]

    def _block_MathLines(self, b: MathLines) -> None:
        if len(b.lines) == 1 and not b.lines[0][1]:
            self.out += ["$$", _tex(b.lines[0][0]), "$$", ""]
            return
        for math, remark in b.lines:
            line = f"- ${_tex(math)}$" if math else "-"
            if remark:
                line += f" ({_md_escape(remark)})"
            self.out.append(line)
        self.out.append("")

    def _block_Matrix(self, b: Matrix) -> None:
        if b.vector:
            sep = ",\\ "
            self.out += [f"${_tex(b.lhs)} = [{sep.join(_tex(c) for c in b.cells[0])}]$", ""]
            return
        cols = b.cols or tuple(str(j + 1) for j in range(len(b.cells[0])))
        rows = b.rows or tuple(str(i + 1) for i in range(len(b.cells)))
        self.out.append("| $" + _tex(b.lhs) + "$ | " + " | ".join(_md_cell(c) for c in cols) + " |")
        self.out.append("|---|" + "---:|" * len(cols))
        for label, row in zip(rows, b.cells, strict=True):
            self.out.append(f"| {_md_cell(label)} | " + " | ".join(row) + " |")
        self.out.append("")

    def _block_Table(self, b: Table) -> None:
        if b.caption:
            self.out += [f"**{_md_escape(b.caption)}**", ""]
        header = [f"${_tex(h)}$" if h and h not in PLAIN_HEADERS else h for h in b.header]
        if b.shade is not None:
            header.append("bar")
        self.out.append("| " + " | ".join(header) + " |")
        self.out.append("|" + "---|" * len(header))
        for k, row in enumerate(b.rows):
            # a | inside the math (|i − k|) would end the table cell: write it \vert
            cells = [
                f"${_md_math(to_tex(c).replace('|', chr(92) + 'vert '))}$" if j in b.math_cols else _md_cell(c)
                for j, c in enumerate(row)
            ]
            if b.shade is not None:
                w = b.shade[k]
                cells.append("█" * round(w * 20) if w > 0 else "")
            self.out.append("| " + " | ".join(cells) + " |")
        self.out.append("")

    def _block_Exact(self, b: Exact) -> None:
        for labels, expr in b.items:
            if isinstance(expr, str):
                self.out.append(f"- exact: ${_tex(labels)}$: {_md_escape(expr)}")
            else:
                self.out.append(f"- exact: ${_tex(labels)} = {_exact_tex(expr)}$")
        if b.more:
            self.out.append(f"- … and {b.more} more exact forms")
        self.out.append("")
