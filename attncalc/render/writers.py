"""Markdown, LaTeX and HTML writers of a :class:`~attncalc.render.sheet.Sheet`.

Each writer has one ``_block_<TypeName>`` method per block type (a test holds them to it) and
knows nothing of attention: the sheet builder decided what to say, the writer only typesets it.
"""

from __future__ import annotations

import html
import re
from typing import Any

from .blocks import Details, Exact, Heading, MathLines, Matrix, Para, Sheet, Table
from .exact import exact_latex, exact_mathml
from .typeset import GREEK, tex_text, to_html, to_tex


class Writer:
    """Base: dispatch on block type."""

    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        self.out: list[str] = []

    def body(self) -> str:
        for block in self.sheet.blocks:
            getattr(self, f"_block_{type(block).__name__}")(block)
        return "\n".join(self.out).rstrip() + "\n"

    def _block_Details(self, b: Details) -> None:
        """Where nothing is hidden (Markdown, LaTeX), the revealed blocks are simply shown."""
        for block in b.blocks:
            getattr(self, f"_block_{type(block).__name__}")(block)


# ---------------------------------------------------------------------------------- Markdown


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


PLAIN_HEADERS = ("i", "token", "step", "value", "entry", "p", "#", "compute")


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
            self.out.append(f"- exact: ${_tex(labels)} = {_exact_tex(expr)}$")
        if b.more:
            self.out.append(f"- … and {b.more} more exact forms")
        self.out.append("")


# ---------------------------------------------------------------------------------- LaTeX

LATEX_PREAMBLE = r"""\documentclass[11pt]{article}
\ifdefined\pdftrailerid\pdftrailerid{}\fi
\usepackage[T1]{fontenc}
\IfFileExists{lmodern.sty}{\usepackage{lmodern}}{}% scalable fonts (Debian: lmodern)
\usepackage[margin=2cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{booktabs}
\usepackage{longtable}
\usepackage[table]{xcolor}
\setlength{\parindent}{0pt}
\setlength{\parskip}{4pt}
\definecolor{attnshade}{RGB}{40,90,200}
\setcounter{MaxMatrixCols}{30}
"""


# a symbol with subscripts in running text (W_out, b_hn, h_t, W_Q): set as maths, W with subscript out
_SUBSCRIPTED = re.compile(
    r"(?<![\w\\.])([A-Za-z][\u0303\u0302→←]?(?:_[A-Za-z0-9]{1,5})+|weight_ih|weight_hh|bias_ih|bias_hh|recurrent_kernel)(?![\w])"
)


# a step id in brackets ([encoder.fwd.1.r_pre]) is copied into answers files: it stays as written
_STEP_ID = re.compile(r"(\[[\w.]+\])")


def _tex_safe(s: str) -> str:
    """Text mode, with the symbols the sheets use typeset as maths (not inside a [step.id])."""
    out = []
    for k, piece in enumerate(_STEP_ID.split(s)):
        if k % 2:
            out.append(_tex_text_part(piece))
            continue
        parts = _SUBSCRIPTED.split(piece)  # odd parts are the symbols
        out += [f"${to_tex(p)}$" if j % 2 else _tex_text_part(p) for j, p in enumerate(parts)]
    return "".join(out)


def _tex_text_part(s: str) -> str:
    out = tex_text(s)
    for ch, rep in {
        **{ch: f"$\\{name}$" for ch, name in GREEK.items()},
        "ᵀ": r"$^\top$",
        "✓": r"$\checkmark$",
        "✗": r"$\times$",
        "–": "--",
        "∞": r"$\infty$",
        "∂": r"$\partial$",
        "≈": r"$\approx$",
        "ŷ": r"$\hat y$",
        "◀": "",
        "′": "'",
        "″": r"$''$",
        "‖": r"$\|$",
        "⋮": r"$\vdots$",
        "⟨": r"$\langle$",
        "⟩": r"$\rangle$",
        "█": "",
        "×": r"$\times$",
        "→": r"$\to$",
        "←": r"$\leftarrow$",
        "⊙": r"$\odot$",
        "₀": r"$_0$",
        "−": "-",
    }.items():
        out = out.replace(ch, rep)
    for base in "hcmv":
        out = out.replace(base + "\u0303", rf"$\tilde {base}$").replace(base + "\u0302", rf"$\hat {base}$")
    return "".join(c if ord(c) < 0x100 or c == "$" else "?" for c in out)


class LatexWriter(Writer):
    """A complete document (amsmath, booktabs, xcolor/colortbl) or, with fragment, its body."""

    def write(self, fragment: bool = False) -> str:
        body = self.body()
        if fragment:
            return body
        title = _tex_safe(self.sheet.title)
        return LATEX_PREAMBLE + f"\\title{{{title}}}\n\\date{{}}\n\\begin{{document}}\n" + body + "\\end{document}\n"

    def _block_Heading(self, b: Heading) -> None:
        cmd = {1: "section*", 2: "subsection*", 3: "subsubsection*"}.get(b.level, "paragraph*")
        self.out.append(f"\\{cmd}{{{_tex_safe(b.text)}}}")

    def _block_Para(self, b: Para) -> None:
        t = _tex_safe(b.text)
        t = {"explain": f"\\textit{{{t}}}", "note": f"\\textbf{{Note:}} {t}", "result": f"\\textbf{{{t}}}"}.get(
            b.style, t
        )
        self.out += [t, ""]

    def _block_MathLines(self, b: MathLines) -> None:
        self.out.append("\\begin{flushleft}")
        for math, remark in b.lines:
            line = f"${to_tex(math)}$" if math else ""
            if remark:
                line += f"\\quad ({_tex_safe(remark)})"
            self.out.append(line + "\\\\")
        self.out.append("\\end{flushleft}")

    def _block_Matrix(self, b: Matrix) -> None:
        if b.vector:
            entries = " & ".join(to_tex(c) for c in b.cells[0])
            self.out.append(f"\\[ {to_tex(b.lhs)} = \\begin{{bmatrix}} {entries} \\end{{bmatrix}} \\]")
            return
        cols = b.cols or tuple(str(j + 1) for j in range(len(b.cells[0])))
        rows = b.rows or tuple(str(i + 1) for i in range(len(b.cells)))
        self.out.append("\\begin{center}\\begin{tabular}{l" + "r" * len(cols) + "}")
        self.out.append("\\toprule")
        self.out.append(f"${to_tex(b.lhs)}$ & " + " & ".join(_tex_safe(c) for c in cols) + " \\\\")
        self.out.append("\\midrule")
        for i, (label, row) in enumerate(zip(rows, b.cells, strict=True)):
            cells: list[str] = []
            for j, c in enumerate(row):
                cell = f"${to_tex(c)}$"
                if b.shade is not None:
                    cell = f"\\cellcolor{{attnshade!{round(60 * max(0.0, min(1.0, b.shade[i][j])))}}}" + cell
                cells.append(cell)
            self.out.append(f"{_tex_safe(label)} & " + " & ".join(cells) + " \\\\")
        self.out.append("\\bottomrule\n\\end{tabular}\\end{center}")

    def _block_Table(self, b: Table) -> None:
        """A longtable: an LSTM's answers run over several pages, its header repeated on each."""
        self.out.append("\\begin{longtable}{" + "l" * len(b.header) + "}")
        if b.caption:
            self.out.append(f"\\multicolumn{{{len(b.header)}}}{{c}}{{\\textbf{{{_tex_safe(b.caption)}}}}}\\\\[2pt]")
        header = (
            " & ".join(f"${to_tex(h)}$" if h and h not in PLAIN_HEADERS else _tex_safe(h) for h in b.header) + " \\\\"
        )
        self.out += ["\\toprule", header, "\\midrule", "\\endfirsthead", "\\toprule", header, "\\midrule", "\\endhead"]
        for k, row in enumerate(b.rows):
            cells = [f"${to_tex(c)}$" if j in b.math_cols else _tex_safe(c) for j, c in enumerate(row)]
            if b.shade is not None and k < len(b.shade):
                level = round(60 * max(0.0, min(1.0, b.shade[k])))
                cells[-1] = f"\\cellcolor{{attnshade!{level}}}" + cells[-1] if row[-1] else cells[-1]
                if b.header[-1] == "" and len(cells) > 2:
                    cells[1] = f"\\cellcolor{{attnshade!{level}}}" + cells[1]
            self.out.append(" & ".join(cells) + " \\\\")
        self.out.append("\\bottomrule\n\\end{longtable}")

    def _block_Exact(self, b: Exact) -> None:
        self.out.append("\\begin{flushleft}")
        for labels, expr in b.items:
            self.out.append(f"exact: $\\displaystyle {to_tex(labels)} = {exact_latex(expr)}$\\\\[2pt]")
        if b.more:
            self.out.append(f"\\ldots{{}} and {b.more} more exact forms\\\\")
        self.out.append("\\end{flushleft}")


# ---------------------------------------------------------------------------------- HTML

HTML_STYLE = """
body { font-family: "DejaVu Serif", Georgia, serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem;
       color: #111; line-height: 1.45; }
h1 { font-size: 1.6rem; border-bottom: 2px solid #333; } h2 { font-size: 1.3rem; } h3 { font-size: 1.05rem; margin-bottom: .2rem; }
p.explain { font-style: italic; color: #444; } p.note { border-left: 4px solid #c90; padding-left: .6rem; }
p.result { font-weight: bold; font-size: 1.15rem; }
ul.math { list-style: none; padding-left: 1rem; margin: .3rem 0; } ul.math li { margin: .1rem 0; }
.m { font-family: "DejaVu Serif", "STIX Two Math", serif; } .r { color: #555; margin-left: .6rem; }
table { border-collapse: collapse; margin: .5rem 0 .8rem 1rem; } caption { text-align: left; font-weight: bold; }
th, td { padding: .15rem .6rem; text-align: right; } th { border-bottom: 1px solid #333; }
td.label, th.label { text-align: left; font-weight: bold; }
.bar { display: inline-block; height: .7rem; background: #2a5ac8; vertical-align: middle; }
math { font-size: 1.05em; }
.over { display: inline-block; position: relative; padding-top: .35em; }
.over::before { content: attr(data-a); position: absolute; left: 0; right: 0; top: -.2em; text-align: center;
  font-size: .95em; line-height: 1; font-style: normal; font-weight: bold; }
details.reveal { margin: .2rem 0 .4rem 0; } details.reveal > summary { cursor: pointer; color: #2a5ac8; }
details.reveal details.reveal { margin-left: 1rem; }
@media print { details.reveal > summary { display: none; } details::details-content { content-visibility: visible; display: contents; } }
@media print { body { margin: 0; max-width: none; } h3 { break-after: avoid; } table, ul.math { break-inside: avoid; }
  .bar, td { print-color-adjust: exact; -webkit-print-color-adjust: exact; } }
"""


def _html_text(s: str) -> str:
    """Running text, escaped, with symbols such as W_out set with their subscripts (as in LaTeX)."""
    out = []
    for k, piece in enumerate(_STEP_ID.split(s)):
        if k % 2:  # a [step.id] as written
            out.append(html.escape(piece))
            continue
        parts = _SUBSCRIPTED.split(piece)
        out += [to_html(p) if j % 2 else html.escape(p) for j, p in enumerate(parts)]
    return "".join(out)


def _shade(w: float) -> str:
    return f' style="background: rgba(42, 90, 200, {0.45 * max(0.0, min(1.0, w)):.3f})"'


class HtmlWriter(Writer):
    """One self-contained page: inline CSS, MathML for exact forms, no external fetch."""

    def write(self, fragment: bool = False) -> str:
        body = self.body()
        if fragment:
            return body
        title = html.escape(self.sheet.title)
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{title}</title>\n<style>{HTML_STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
        )

    def _block_Heading(self, b: Heading) -> None:
        self.out.append(f"<h{b.level}>{_html_text(b.text)}</h{b.level}>")

    def _block_Details(self, b: Details) -> None:
        """A stage of --reveal: closed until the reader opens it; no script, works offline."""
        self.out.append(f'<details class="reveal"><summary>{html.escape(b.summary)}</summary>')
        super()._block_Details(b)
        self.out.append("</details>")

    def _block_Para(self, b: Para) -> None:
        prefix = "<b>Note:</b> " if b.style == "note" else ""
        self.out.append(f'<p class="{b.style}">{prefix}{_html_text(b.text)}</p>')

    def _block_MathLines(self, b: MathLines) -> None:
        self.out.append('<ul class="math">')
        for math, remark in b.lines:
            r = f'<span class="r">({_html_text(remark)})</span>' if remark else ""
            self.out.append(f'<li><span class="m">{to_html(math)}</span>{r}</li>')
        self.out.append("</ul>")

    def _block_Matrix(self, b: Matrix) -> None:
        if b.vector:
            self.out.append(f'<p><span class="m">{to_html(b.lhs)} = [{", ".join(b.cells[0])}]</span></p>')
            return
        cols = b.cols or tuple(str(j + 1) for j in range(len(b.cells[0])))
        rows = b.rows or tuple(str(i + 1) for i in range(len(b.cells)))
        t = [f'<table><thead><tr><th class="label"><span class="m">{to_html(b.lhs)}</span></th>']
        t += [f"<th>{html.escape(c)}</th>" for c in cols]
        t.append("</tr></thead><tbody>")
        for i, (label, row) in enumerate(zip(rows, b.cells, strict=True)):
            t.append(f'<tr><td class="label">{html.escape(label)}</td>')
            for j, c in enumerate(row):
                style = _shade(b.shade[i][j]) if b.shade is not None else ""
                t.append(f"<td{style}>{html.escape(c)}</td>")
            t.append("</tr>")
        t.append("</tbody></table>")
        self.out.append("".join(t))

    def _block_Table(self, b: Table) -> None:
        t = ["<table>"]
        if b.caption:
            t.append(f"<caption>{_html_text(b.caption)}</caption>")
        t.append("<thead><tr>" + "".join(f'<th><span class="m">{to_html(h)}</span></th>' for h in b.header))
        if b.shade is not None:
            t.append("<th>bar</th>")
        t.append("</tr></thead><tbody>")
        for k, row in enumerate(b.rows):
            cells = "".join(
                f'<td class="label"><span class="m">{to_html(c)}</span></td>'
                if j in b.math_cols
                else f"<td>{html.escape(c)}</td>"
                for j, c in enumerate(row)
            )
            if b.shade is not None:
                w = b.shade[k]
                cells += f'<td style="text-align:left"><span class="bar" style="width:{8 * w:.2f}rem"></span></td>'
            t.append(f"<tr>{cells}</tr>")
        t.append("</tbody></table>")
        self.out.append("".join(t))

    def _block_Exact(self, b: Exact) -> None:
        self.out.append('<ul class="math">')
        for labels, expr in b.items:
            mm = exact_mathml(expr)
            self.out.append(
                f'<li>exact: <span class="m">{to_html(labels)}</span> = '
                f'<math xmlns="http://www.w3.org/1998/Math/MathML">{mm}</math></li>'
            )
        if b.more:
            self.out.append(f"<li>… and {b.more} more exact forms</li>")
        self.out.append("</ul>")


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
    return _visible(str(out), fmt)


def _visible(text: str, fmt: str) -> str:
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
