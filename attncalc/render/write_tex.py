"""The LaTeX writer: a complete document (amsmath, booktabs, xcolor/colortbl) or its body."""

from __future__ import annotations

from .blocks import Exact, Heading, MathLines, Matrix, Para, Table
from .exact import exact_latex
from .typeset import GREEK, tex_text, to_tex
from .write_base import _STEP_ID, _SUBSCRIPTED, Writer
from .write_md import PLAIN_HEADERS

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
