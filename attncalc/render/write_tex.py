"""The LaTeX writer: a complete document (amsmath, booktabs, xcolor/colortbl) or its body."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .blocks import Block, Details, Exact, Heading, MathLines, Matrix, Para, Table
from .exact import exact_latex
from .typeset import TEXT_SYMBOLS, tex_text, to_tex
from .write_base import PLAIN_HEADERS, STEP_ID, SUBSCRIPTED, Writer

LATEX_PREAMBLE = r"""\documentclass[10pt]{article}
\ifdefined\pdftrailerid\pdftrailerid{}\fi
\usepackage[T1]{fontenc}
\IfFileExists{lmodern.sty}{\usepackage{lmodern}}{}% scalable fonts (Debian: lmodern)
\usepackage[margin=2cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{graphicx}
\usepackage{booktabs}
\usepackage{longtable,array}
\usepackage[table]{xcolor}
\setlength{\parindent}{0pt}
\setlength{\parskip}{3pt}
\setlength{\LTpre}{4pt}\setlength{\LTpost}{4pt}
\definecolor{attnshade}{RGB}{40,90,200}
\setcounter{MaxMatrixCols}{30}
\makeatletter% compact steps: headings, displays and lists closer together than the article defaults
\renewcommand\subsubsection{\@startsection{subsubsection}{3}{\z@}{-6pt\@plus -2pt\@minus -1pt}{2pt}{\normalfont\normalsize\bfseries}}
\g@addto@macro\normalsize{\setlength\abovedisplayskip{4pt plus 2pt}\setlength\belowdisplayskip{4pt plus 2pt}%
\setlength\abovedisplayshortskip{0pt plus 2pt}\setlength\belowdisplayshortskip{4pt plus 2pt}}
\makeatother
"""


def tex_safe(s: str) -> str:
    """Text mode, with the symbols the sheets use typeset as maths (not inside a [step.id])."""
    out = []
    for k, piece in enumerate(STEP_ID.split(s)):
        if k % 2:
            out.append(_tex_text_part(piece))
            continue
        parts = SUBSCRIPTED.split(piece)  # odd parts are the symbols
        out += [f"${to_tex(p)}$" if j % 2 else _tex_text_part(p) for j, p in enumerate(parts)]
    # a text that opens (after any spaces, which TeX skips there) with "[" or "*" (a token [CLS] as a
    # table row's label) would be read as the optional argument or the star of the \\ before it
    # ("Missing number"): an empty group first ends that look-ahead
    text = "".join(out)
    return "{}" + text if text.lstrip().startswith(("[", "*")) else text


def _tex_text_part(s: str) -> str:
    # "--carry" stays two hyphens (not an en dash); a minus before a number is a minus sign, not a hyphen
    out = re.sub(r"(?<![\w.])-(?=\d)", "\x10", tex_text(s).replace("--", "-{}-"))
    out = re.sub(r"(?<![\w.,;:!?)\]])'(?=[\w…])", "`", out)  # 'as written' opens with an opening quote
    for ch, rep in TEXT_SYMBOLS.items():
        out = out.replace(ch, rep)
    for base in "hcmv":
        out = out.replace(base + "\u0303", rf"$\tilde {base}$").replace(base + "\u0302", rf"$\hat {base}$")
    out = out.replace("\x10", "$-$")
    return "".join(c if ord(c) < 0x100 or c == "$" else "?" for c in out)


# Layout: what sits beside what. Widths are estimated from the plain notation at 5.1 pt a printed
# character (10 pt maths and text measured with pdflatex: 3.9-5.1; "_{}" are not printed), on the
# 500 pt line of a letter page with 2 cm margins.
PT_PER_CHAR = 5.1
TEXT_PT = 500.0
LINE_PT = 494.0  # what two things side by side may take together (both estimates run 0-30 % over)
BESIDE_MAX_LINES = 14
BESIDE_MAX_ROWS = 8
BOLD_PT_PER_CHAR = 5.8  # a step's bold heading, before its formula on the same line
FLOW_MAX_ROWS = 20  # tables up to this many rows are boxes: never split over pages, set side by side


def _flatten(blocks: Iterable[Block]) -> Iterator[Block]:
    """A printed sheet shows every stage of a --reveal step."""
    for b in blocks:
        if isinstance(b, Details):
            yield from _flatten(b.blocks)
        else:
            yield b


def _printed(s: str) -> int:
    return sum(1 for c in s if c not in "_{}")


def _lines_pt(b: MathLines) -> float:
    return PT_PER_CHAR * max(_printed(m) + (len(r) + 4 if r else 0) for m, r in b.lines)


def _column_pts(columns: Iterable[Iterable[str]]) -> list[float]:
    """A tabular's columns, each as wide as its longest cell, plus 12 pt of column separation."""
    return [PT_PER_CHAR * max((_printed(c) for c in col), default=0) + 12 for col in columns]


def _columns_pt(columns: Iterable[Iterable[str]]) -> float:
    return sum(_column_pts(columns))


def _long_columns(b: Table) -> str:
    """A long table's column types: all l, or, where the table would be wider than the line, its
    widest columns paragraph columns that wrap, sharing what the narrow ones leave (a table of
    steps with their formulas, an answers table of whole matrices)."""
    pts = _column_pts(zip(b.header, *b.rows, strict=True))
    room = TEXT_PT - 12
    if sum(pts) <= room:
        return "l" * len(pts)
    wrap: dict[int, float] = {}
    order = sorted(range(len(pts)), key=pts.__getitem__)
    for k, j in enumerate(order):  # narrow columns keep their width while they take less than a fair share
        share = room / (len(pts) - k)
        if pts[j] > share:
            wrap = {i: share for i in order[k:]}
            break
        room -= pts[j]
    return "".join(
        f">{{\\raggedright\\arraybackslash}}p{{{wrap[j] - 12:.0f}pt}}" if j in wrap else "l" for j in range(len(pts))
    )


def _box_pt(b: Matrix | Table) -> float:
    if isinstance(b, Table):
        return max(_columns_pt(zip(b.header, *b.rows, strict=True)), 5.5 * len(b.caption))
    if b.vector:  # lhs = [ entries ]: 10 pt between bmatrix columns and for the brackets
        return PT_PER_CHAR * (_printed(b.lhs) + 3) + sum(PT_PER_CHAR * len(c) + 10 for c in b.cells[0]) + 10
    rows = b.rows or tuple(str(i + 1) for i in range(len(b.cells)))
    cols = b.cols or tuple(str(j + 1) for j in range(len(b.cells[0])))
    return _columns_pt([(b.lhs, *rows), *([c, *col] for c, col in zip(cols, zip(*b.cells, strict=True), strict=True))])


def _fit(box: list[str], too_wide: str = "") -> list[str]:
    """A box (a table, a formula) wider than the line scaled down to it instead of running off the
    page; with ``too_wide``, a box more than 7/5 of the line (scaled, its exponents would be 3 pt
    high) is replaced by that text. Box 0 is TeX's scratch box."""
    body = "%\n".join(box)  # no stray spaces inside the box
    scaled = "\\ifdim\\wd0>\\linewidth\\resizebox{\\linewidth}{!}{\\usebox0}\\else\\usebox0\\fi"
    if too_wide:
        scaled = f"\\ifdim\\wd0>\\dimexpr\\linewidth*7/5\\relax {too_wide}\\else{scaled}\\fi"
    return [f"\\sbox0{{{body}}}{scaled}"]


def _small(b: Block | None) -> bool:
    """A table, matrix or vector short enough to stay in one piece and stand beside another."""
    if isinstance(b, Matrix):
        return _box_pt(b) <= LINE_PT if b.vector else len(b.cells) <= FLOW_MAX_ROWS
    return isinstance(b, Table) and len(b.rows) <= FLOW_MAX_ROWS


def _runs_in(head: Heading, m: MathLines) -> bool:
    """A one-line formula fits after its step's heading."""
    if len(m.lines) != 1 or m.lines[0][1] or not m.lines[0][0]:
        return False
    return BOLD_PT_PER_CHAR * len(head.text) + 10 + PT_PER_CHAR * _printed(m.lines[0][0]) <= LINE_PT


def _beside(lines: Block, value: Block | None) -> float | None:
    """The width (a fraction of the line) of written-out lines that fit beside the value they give,
    which keeps its natural width; None when they do not."""
    if not isinstance(lines, MathLines) or len(lines.lines) > BESIDE_MAX_LINES:
        return None
    if isinstance(value, Matrix) and value.vector:
        rows = 1
    elif isinstance(value, Matrix):
        rows = len(value.cells)
    elif isinstance(value, Table):
        rows = len(value.rows)
    else:
        return None
    left, right = _lines_pt(lines), _box_pt(value)
    if rows > BESIDE_MAX_ROWS or left + right > LINE_PT:
        return None
    return (left + 4) / TEXT_PT


class LatexWriter(Writer):
    """A complete document (amsmath, booktabs, xcolor/colortbl) or, with fragment, its body.

    Laid out like a lecture note, not one block under another: a step's formula runs in after its
    heading, the written-out lines sit beside the value they give, small tables flow side by side.
    Only standard LaTeX in the body, so a --fragment goes into any document.
    """

    def body(self) -> str:
        blocks = list(_flatten(self.sheet.blocks))
        i = 0
        while i < len(blocks):
            b, nxt = blocks[i], blocks[i + 1] if i + 1 < len(blocks) else None
            if isinstance(b, Heading) and b.level == 3 and isinstance(nxt, MathLines) and _runs_in(b, nxt):
                self._runin(b, nxt)
                i += 2
                continue
            left = _beside(b, nxt)
            if left is not None:
                self._beside(b, nxt, left)  # type: ignore[arg-type]
                i += 2
                continue
            run = 0
            while i + run < len(blocks) and _small(blocks[i + run]):
                run += 1
            if run >= 2:
                self._flow(blocks[i : i + run])
                i += run
                continue
            getattr(self, f"_block_{type(b).__name__}")(b)
            i += 1
        return "\n".join(self.out).rstrip() + "\n"

    def _runin(self, head: Heading, formula: MathLines) -> None:
        """The step's heading and its formula on one line (a heading never ends a page alone)."""
        self.out.append(
            "\\par\\addvspace{6pt plus 2pt minus 1pt}\\noindent"
            f"\\textbf{{{tex_safe(head.text)}}}\\quad ${to_tex(formula.lines[0][0])}$\\par\\nopagebreak[3]"
        )

    def _math_lines(self, b: MathLines) -> list[str]:
        out = []
        for math, remark in b.lines:
            line = f"${to_tex(math)}$" if math else "\\mbox{}"
            if remark:
                line += f"\\quad ({tex_safe(remark)})"
            out.append(line)
        return out

    def _beside(self, lines: MathLines, value: Matrix | Table, left: float) -> None:
        """Written-out lines on the left, the value they give on the right at its natural width,
        both centred on the same axis."""
        # whole numbers only in the layout (a question sheet's numbers are checked against the answers)
        per_mille = round(1000 * left)
        self.out.append(
            f"\\par\\noindent\\begin{{minipage}}[c]{{\\dimexpr\\linewidth*{per_mille}/1000\\relax}}\\raggedright"
        )
        self.out.append("\\\\\n".join(self._math_lines(lines)))
        self.out.append("\\end{minipage}\\hfill")
        if isinstance(value, Table):
            self.out += self._table_tabular(value, "c")
        elif value.vector:
            self.out.append(f"${self._vector(value)}$")
        else:
            self.out += self._matrix_tabular(value, "c")
        self.out.append("\\hspace*{\\fill}\\par")

    def _flow(self, items: list[Block]) -> None:
        """Small tables side by side, top-aligned, wrapping to the next row as words do."""
        self.out.append("\\begin{center}\\setlength{\\lineskip}{10pt}")
        for k, b in enumerate(items):
            if k:
                self.out.append("\\hskip 15pt plus 10pt")
            if isinstance(b, Matrix) and b.vector:
                self.out.append(f"$\\displaystyle {self._vector(b)}$")
            else:
                self.out += _fit(self._matrix_tabular(b) if isinstance(b, Matrix) else self._table_tabular(b))  # type: ignore[arg-type]
        self.out.append("\\end{center}")

    def write(self, fragment: bool = False) -> str:
        body = self.body()
        if fragment:
            return body
        title = tex_safe(self.sheet.title)
        return LATEX_PREAMBLE + f"\\title{{{title}}}\n\\date{{}}\n\\begin{{document}}\n" + body + "\\end{document}\n"

    def _block_Heading(self, b: Heading) -> None:
        cmd = {1: "section*", 2: "subsection*", 3: "subsubsection*"}.get(b.level, "paragraph*")
        self.out.append(f"\\{cmd}{{{tex_safe(b.text)}}}")

    def _block_Para(self, b: Para) -> None:
        t = tex_safe(b.text)
        t = {"explain": f"\\textit{{{t}}}", "note": f"\\textbf{{Note:}} {t}", "result": f"\\textbf{{{t}}}"}.get(
            b.style, t
        )
        self.out += [t, ""]

    def _block_MathLines(self, b: MathLines) -> None:
        self.out.append("\\par{\\raggedright")
        self.out.append("\\\\\n".join(self._math_lines(b)) + "\\par}")

    @staticmethod
    def _vector(b: Matrix) -> str:
        entries = " & ".join(to_tex(c) for c in b.cells[0])
        if len(b.cells[0]) <= 10:  # amsmath's bmatrix takes up to 10 columns unless MaxMatrixCols is raised
            return f"{to_tex(b.lhs)} = \\begin{{bmatrix}} {entries} \\end{{bmatrix}}"
        cols = "c" * len(b.cells[0])
        return f"{to_tex(b.lhs)} = \\left[\\begin{{array}}{{{cols}}} {entries} \\end{{array}}\\right]"

    def _block_Matrix(self, b: Matrix) -> None:
        if b.vector and _box_pt(b) <= LINE_PT:
            self.out.append(f"\\[ {self._vector(b)} \\]")
            return
        box = [f"$\\displaystyle {self._vector(b)}$"] if b.vector else self._matrix_tabular(b)
        self.out += ["\\begin{center}", *_fit(box), "\\end{center}"]

    @staticmethod
    def _shaded(level: int, cell: str) -> str:
        """A cell shaded to level percent of the weights' colour (colortbl's \\cellcolor)."""
        return f"\\cellcolor{{attnshade!{level}}}" + cell

    @classmethod
    def _matrix_tabular(cls, b: Matrix, pos: str = "t") -> list[str]:
        cols = b.cols or tuple(str(j + 1) for j in range(len(b.cells[0])))
        rows = b.rows or tuple(str(i + 1) for i in range(len(b.cells)))
        out = [f"\\begin{{tabular}}[{pos}]{{l" + "r" * len(cols) + "}", "\\toprule"]
        out.append(f"${to_tex(b.lhs)}$ & " + " & ".join(tex_safe(c) for c in cols) + " \\\\")
        out.append("\\midrule")
        for i, (label, row) in enumerate(zip(rows, b.cells, strict=True)):
            cells: list[str] = []
            for j, c in enumerate(row):
                cell = f"${to_tex(c)}$"
                if b.shade is not None:
                    cell = cls._shaded(round(60 * max(0.0, min(1.0, b.shade[i][j]))), cell)
                cells.append(cell)
            out.append(f"{tex_safe(label)} & " + " & ".join(cells) + " \\\\")
        out.append("\\bottomrule\n\\end{tabular}")
        return out

    @classmethod
    def _table_rows(cls, b: Table) -> tuple[str, list[str]]:
        header = (
            " & ".join(f"${to_tex(h)}$" if h and h not in PLAIN_HEADERS else tex_safe(h) for h in b.header) + " \\\\"
        )
        rows = []
        for k, row in enumerate(b.rows):
            cells = [f"${to_tex(c)}$" if j in b.math_cols else tex_safe(c) for j, c in enumerate(row)]
            if b.shade is not None and k < len(b.shade):
                level = round(60 * max(0.0, min(1.0, b.shade[k])))
                cells[-1] = cls._shaded(level, cells[-1]) if row[-1] else cells[-1]
                if b.header[-1] == "" and len(cells) > 2:
                    cells[1] = cls._shaded(level, cells[1])
            rows.append(" & ".join(cells) + " \\\\")
        return header, rows

    def _caption(self, b: Table) -> list[str]:
        if not b.caption:
            return []
        return [f"\\multicolumn{{{len(b.header)}}}{{c}}{{\\textbf{{{tex_safe(b.caption)}}}}}\\\\[2pt]"]

    def _block_Table(self, b: Table) -> None:
        """A short table in one piece; a long one a longtable (an LSTM's answers run over several
        pages), its header repeated on each."""
        if _small(b):
            self.out += ["\\begin{center}", *_fit(self._table_tabular(b)), "\\end{center}"]
            return
        header, rows = self._table_rows(b)
        self.out.append("\\begin{longtable}{" + _long_columns(b) + "}")
        self.out += self._caption(b)
        self.out += ["\\toprule", header, "\\midrule", "\\endfirsthead", "\\toprule", header, "\\midrule", "\\endhead"]
        self.out += rows
        self.out.append("\\bottomrule\n\\end{longtable}")

    def _table_tabular(self, b: Table, pos: str = "t") -> list[str]:
        """A short table as a box, to stand beside others."""
        header, rows = self._table_rows(b)
        out = [f"\\begin{{tabular}}[{pos}]{{" + "l" * len(b.header) + "}", *self._caption(b), "\\toprule", header]
        return [*out, "\\midrule", *rows, "\\bottomrule\n\\end{tabular}"]

    def _block_Exact(self, b: Exact) -> None:
        """Each exact form on its line; one wider than the line (a softmax over twenty positions)
        is scaled down to fit rather than run off the page."""
        lines = [
            f"{b.label}: ${to_tex(labels)}$: {tex_safe(expr)}"
            if isinstance(expr, str)
            else _fit(
                [f"{b.label}: $\\displaystyle {to_tex(labels)} = {exact_latex(expr)}$"],
                f"{b.label}: ${to_tex(labels)}$: a form too wide for the page (attncalc solve -f json gives it whole)",
            )[0]
            for labels, expr in b.items
        ]
        if b.more:
            lines.append(f"\\ldots{{}} and {b.more} more exact forms")
        self.out.append("\\par{\\raggedright")
        self.out.append("\\\\[2pt]\n".join(lines) + "\\par}")
