"""The HTML writer: one self-contained page, inline CSS, MathML for exact forms, no external fetch."""

from __future__ import annotations

import html
import re

from .blocks import Details, Exact, Heading, MathLines, Matrix, Para, Table
from .exact import exact_mathml
from .typeset_html import to_html
from .write_base import STEP_ID, SUBSCRIPTED, Writer

HTML_STYLE = """
body { font-family: "DejaVu Serif", Georgia, serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem;
       color: #111; line-height: 1.45; }
h1 { font-size: 1.6rem; border-bottom: 2px solid #333; } h2 { font-size: 1.3rem; } h3 { font-size: 1.05rem; margin-bottom: .2rem; }
p.explain { font-style: italic; color: #444; } p.note { border-left: 4px solid #c90; padding-left: .6rem; }
p.result { font-weight: bold; font-size: 1.15rem; }
ul.math { list-style: none; padding-left: 1rem; margin: .3rem 0; }
ul.math li { margin: .1rem 0; padding-left: 2em; text-indent: -2em; }  /* a wrapped line hangs (whole numbers: a question sheet has no decimals but the givens) */
ul.math li.exact { overflow-x: auto; overflow-y: hidden; }  /* a wide exact form scrolls, not the page */
.m { font-family: "DejaVu Serif", "STIX Two Math", serif; } .r { color: #555; margin-left: .6rem; }
table { border-collapse: collapse; margin: .5rem 0 .8rem 1rem; } caption { text-align: left; font-weight: bold; }
th, td { padding: .15rem .6rem; text-align: right; } th { border-bottom: 1px solid #333; }
td.label, th.label { text-align: left; font-weight: bold; }
.bar { display: inline-block; height: .7rem; background: #2a5ac8; vertical-align: middle; }
math { font-size: 1.05em; }
.over { display: inline-block; position: relative; padding-top: .35em; text-indent: 0; }
.over::before { content: attr(data-a); position: absolute; left: 0; right: 0; top: -.2em; text-align: center;
  font-size: .95em; line-height: 1; font-style: normal; font-weight: bold; }
details.reveal { margin: .2rem 0 .4rem 0; } details.reveal > summary { cursor: pointer; color: #2a5ac8; }
details.reveal details.reveal { margin-left: 1rem; }
@media print { details.reveal > summary { display: none; } details::details-content { content-visibility: visible; display: contents; } }
@media print { ul.math li.exact { overflow: visible; } body { margin: 0; max-width: none; } h3 { break-after: avoid; } table, ul.math { break-inside: avoid; }
  .bar, td { print-color-adjust: exact; -webkit-print-color-adjust: exact; } }
"""


def html_text(s: str) -> str:
    """Running text, escaped, with symbols such as W_out set with their subscripts (as in LaTeX)."""
    out = []
    for k, piece in enumerate(STEP_ID.split(s)):
        if k % 2:  # a [step.id] as written
            out.append(html.escape(piece))
            continue
        parts = SUBSCRIPTED.split(piece)
        out += [to_html(p) if j % 2 else html.escape(p) for j, p in enumerate(parts)]
    return "".join(out)


_SCI = re.compile(r"[-−]?[0-9.]+e[+-][0-9]+")


def html_cell(c: str) -> str:
    """A formatted number of a vector or table, escaped; one in scientific notation set as the lines
    above it set it (9.023×10<sup>-232</sup>, not 9.023e-232)."""
    return to_html(c) if _SCI.fullmatch(c) else html.escape(c)


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
        self.out.append(f"<h{b.level}>{html_text(b.text)}</h{b.level}>")

    def _block_Details(self, b: Details) -> None:
        """A stage of --reveal: closed until the reader opens it; no script, works offline."""
        self.out.append(f'<details class="reveal"><summary>{html.escape(b.summary)}</summary>')
        super()._block_Details(b)
        self.out.append("</details>")

    def _block_Para(self, b: Para) -> None:
        prefix = "<b>Note:</b> " if b.style == "note" else ""
        self.out.append(f'<p class="{b.style}">{prefix}{html_text(b.text)}</p>')

    def _block_MathLines(self, b: MathLines) -> None:
        self.out.append('<ul class="math">')
        for math, remark in b.lines:
            r = f'<span class="r">({html_text(remark)})</span>' if remark else ""
            self.out.append(f'<li><span class="m">{to_html(math)}</span>{r}</li>')
        self.out.append("</ul>")

    def _block_Matrix(self, b: Matrix) -> None:
        if b.vector:
            self.out.append(
                f'<p><span class="m">{to_html(b.lhs)} = [{", ".join(map(html_cell, b.cells[0]))}]</span></p>'
            )
            return
        cols = b.cols or tuple(str(j + 1) for j in range(len(b.cells[0])))
        rows = b.rows or tuple(str(i + 1) for i in range(len(b.cells)))
        t = [f'<table><thead><tr><th class="label"><span class="m">{to_html(b.lhs)}</span></th>']
        t += [f"<th>{html.escape(c)}</th>" for c in cols]
        t.append("</tr></thead><tbody>")
        for i, (label, row) in enumerate(zip(rows, b.cells, strict=True)):
            t.append(f'<tr><td class="label">{html_text(label)}</td>')
            for j, c in enumerate(row):
                style = _shade(b.shade[i][j]) if b.shade is not None else ""
                t.append(f"<td{style}>{html_cell(c)}</td>")
            t.append("</tr>")
        t.append("</tbody></table>")
        self.out.append("".join(t))

    def _block_Table(self, b: Table) -> None:
        t = ["<table>"]
        if b.caption:
            t.append(f"<caption>{html_text(b.caption)}</caption>")
        t.append("<thead><tr>" + "".join(f'<th><span class="m">{to_html(h)}</span></th>' for h in b.header))
        if b.shade is not None:
            t.append("<th>bar</th>")
        t.append("</tr></thead><tbody>")
        for k, row in enumerate(b.rows):
            cells = "".join(
                f'<td class="label"><span class="m">{to_html(c)}</span></td>'
                if j in b.math_cols
                else f"<td>{html_text(c)}</td>"
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
            if isinstance(expr, str):
                self.out.append(f'<li>{b.label}: <span class="m">{to_html(labels)}</span>: {html.escape(expr)}</li>')
                continue
            mm = exact_mathml(expr)
            self.out.append(  # a wide form scrolls on its own line, not the page
                f'<li class="exact">{b.label}: <span class="m">{to_html(labels)}</span> = '
                f'<math xmlns="http://www.w3.org/1998/Math/MathML">{mm}</math></li>'
            )
        if b.more:
            self.out.append(f"<li>… and {b.more} more exact forms</li>")
        self.out.append("</ul>")
