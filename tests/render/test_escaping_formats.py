"""Every sheet format escapes user text for itself.

Titles, tokens, labels and descriptions come from problem files written by anyone. Markdown sheets
escaped only <, > and &: a token ``![x](https://evil.example/t.png)`` rendered as a remote image,
``[l](…)`` as a link, a newline in a token put a heading into every step. LaTeX sheets set a token
as markup: ``[CLS]`` after a table row's ``\\\\`` was read as its spacing ("Missing number"),
``a__b`` and ``__init__`` as two subscripts ("Missing { inserted"), so ``-f latex`` wrote a file that
does not compile. Markdown is judged by markdown-it-py parsing the sheet, LaTeX by the real pdflatex.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..helpers import PROBLEMS, run_cli

LABEL_KEYS = ("tokens", "vocab", "memory_tokens", "labels_B")

MARKDOWN_TOKENS = [
    "![x](https://evil.example/t.png)",
    "[l](https://evil.example)",
    "# Injected heading",  # (a newline inside is refused in a vocabulary now; the title keeps one below)
    "<img src=x>",
    "*em* _em_ `code` ~~del~~",
    "x | y",
    "[r]: https://evil.example",
    "- item",
]
TITLE = "![t](https://evil.example/t.png) [CLS]\n# Injected title"
DESCRIPTION = "[d](https://evil.example)\n\n# Injected description\n1. one\n- two\n\n    indented"


def _hostile(tmp_path: Path, name: str, labels: list[str], title: str = TITLE, description: str = "") -> Path:
    """The example problem ``name`` with each list of labels replaced by ``labels`` (cycled, kept distinct)."""
    data = tomllib.loads((PROBLEMS / f"{name}.toml").read_text())
    mapping: dict[str, str] = {}

    def walk(d: dict[str, Any]) -> None:
        for key, value in d.items():
            if isinstance(value, dict):
                walk(value)
            elif key in LABEL_KEYS and isinstance(value, list) and all(isinstance(v, str) for v in value):
                for v in value:
                    n = len(mapping)
                    mapping.setdefault(v, labels[n % len(labels)] + ("" if n < len(labels) else str(n)))
                d[key] = [mapping[v] for v in value]
        for key in ("target", "targets"):
            if isinstance(d.get(key), str):
                d[key] = mapping.get(d[key], d[key])
            elif isinstance(d.get(key), list):
                d[key] = [mapping.get(v, v) for v in d[key]]

    walk(data)
    data["title"] = title
    data["description"] = description
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def _inline(tokens: list[Token]) -> list[Token]:
    out = []
    for t in tokens:
        out.append(t)
        out += _inline(t.children or [])
    return out


MARKDOWN_PROBLEMS = ["decoder-dot", "decode-top-p", "lecture-embeddings", "mh-self-attention", "softmax-cross-entropy"]


@pytest.mark.parametrize("name", MARKDOWN_PROBLEMS)
@pytest.mark.parametrize("sheet", ["solution", "question", "answers"])
def test_markdown_reads_no_syntax_in_user_text(tmp_path: Path, name: str, sheet: str) -> None:
    """No image, no link, no heading but the sheet's own, no HTML from titles, tokens, labels, descriptions:
    each shown as written (a line break as a space, as Markdown shows one in a paragraph)."""
    f = _hostile(tmp_path, name, MARKDOWN_TOKENS, description=DESCRIPTION)
    result = run_cli("solve", "-f", "markdown", "--sheet", sheet, str(f))
    assert result.returncode == 0, result.stderr
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    tokens = _inline(md.parse(result.stdout))
    kinds = {t.type for t in tokens}
    assert not kinds & {"image", "link_open", "html_inline", "html_block", "code_inline", "code_block", "s_open"}, kinds
    headings = [t for t in tokens if t.type == "heading_open"]
    assert [t.tag for t in headings].count("h1") == 1  # the title's, none injected
    text = " ".join(html.unescape(md.render(result.stdout)).split())  # white space as a browser shows it
    assert "Injected" not in "".join(
        next(tokens[k + 1].content for k in range(len(tokens)) if tokens[k] is h) for h in headings[1:]
    )
    assert "![t](https://evil.example/t.png) [CLS] # Injected title" in text  # the title as written
    if sheet == "solution":
        assert "[d](https://evil.example) # Injected description 1. one - two indented" in text
        assert "![x](https://evil.example/t.png)" in text


def test_markdown_emphasis_and_lists_stay_text(tmp_path: Path) -> None:
    """A description that would open a list, an ordered list, emphasis, a thematic break or an
    indented code block is one paragraph, as written."""
    for description in ("- x *y* _z_", "1. z", "+ a", "---", "    code", "2) b"):
        f = _hostile(tmp_path, "decoder-dot", ["a", "b", "c"], title="t", description=description)
        out = run_cli("solve", "-f", "markdown", str(f)).stdout
        rendered = MarkdownIt("commonmark").enable("table").render(out)
        assert f"<p>{description.strip()}</p>" in rendered, description


def test_a_bare_address_is_not_an_autolink(tmp_path: Path) -> None:
    """GFM links https://… and www.… by themselves; the sheet breaks the pattern with an escape that
    renders as nothing (markdown-it's linkify is not installed here: the escape is checked as written)."""
    f = _hostile(tmp_path, "decoder-dot", ["https://evil.example", "www.evil.example", "c"], title="t")
    out = run_cli("solve", "-f", "markdown", str(f)).stdout
    assert "https://evil" not in out and "www.evil" not in out
    assert "https\\://evil.example" in out and "www\\.evil.example" in out
    assert "https://evil.example" in html.unescape(MarkdownIt("commonmark").enable("table").render(out))


LATEX_TOKENS = ["[CLS]", "[MASK]", "a__b", "__init__", "^~#%{}\\", "x_", "café ±", "😀 €", "p\n\nq"]

needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None or shutil.which("pdftotext") is None, reason="needs pdflatex and pdftotext"
)


@needs_pdflatex
@pytest.mark.parametrize("name", ["decoder-dot", "decode-top-p", "lecture-embeddings", "mh-causal-cache"])
def test_latex_sets_a_token_as_text(tmp_path: Path, name: str) -> None:
    """The tokens where the sheets put them (table rows, remarks, formulas such as cos([CLS], a__b), table
    headers): the PDF compiles and shows them as written; what the fonts cannot set is spelt as anyascii does."""
    f = _hostile(tmp_path, name, LATEX_TOKENS, title="[CLS] a__b __init__ ^~#%{}\\ 😀\n\n# x")
    pdf = tmp_path / "out.pdf"
    result = run_cli("solve", "-o", str(pdf), str(f))
    assert result.returncode == 0, result.stderr
    assert result.stderr == f"attncalc: wrote {pdf}\n"
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "[CLS] a__b __init__" in text  # the title
    assert "[MASK]" in text
    if name != "mh-causal-cache":  # its labels stand in the heads' table headers, as maths
        assert "a__b" in text.replace(" ", "")


@needs_pdflatex
@pytest.mark.parametrize("tokens", [[" [CLS]", "*[x]", "* y"], ["[CLS]", "[MASK]", "x"]])
def test_a_row_label_opening_with_a_bracket_or_star_is_text(tmp_path: Path, tokens: list[str]) -> None:
    """A row label after a tabular's \\\\ : TeX skips spaces looking for its [spacing] or its star, so
    " [CLS]" and "*[x]" stopped pdflatex as "[CLS]" did."""
    f = tmp_path / "p.json"
    f.write_text(
        json.dumps(
            {
                "title": "t",
                "kind": "attention",
                "tokens": tokens,
                "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]},
            }
        )
    )
    pdf = tmp_path / "p.pdf"
    result = run_cli("solve", "-o", str(pdf), str(f))
    assert result.returncode == 0, result.stderr
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert all(t.strip() in text for t in tokens)


@needs_pdflatex
def test_latex_writes_what_its_fonts_lack_in_ascii(tmp_path: Path) -> None:
    """An emoji, a euro sign and a Latin letter beyond Latin-1 were "?"; now anyascii's spelling."""
    f = _hostile(tmp_path, "decoder-dot", ["😀", "€", "Łódź"], title="t")
    latex = run_cli("solve", "-f", "latex", str(f)).stdout
    assert "grinning" in latex and "EUR" in latex and "Lódz" in latex  # ó is Latin-1: T1 has it


def test_pdf_refusal_is_one_line_naming_the_file_not_the_log(tmp_path: Path) -> None:
    """pdflatex's raw log lines (which quote the sheet's own text: a title "! Missing number" read as the
    error) are not the message: the file and what in it could not be set are."""
    if shutil.which("pdflatex") is None:
        pytest.skip("needs pdflatex")
    from attncalc.render.pdf import ToolError, compile_pdf

    doc = "\\documentclass{article}\n\\title{! Missing number, treated as zero.}\n\\begin{document}\n\\maketitle\n\\undefinedcommand\n\\end{document}\n"
    with pytest.raises(ToolError) as err:
        compile_pdf(doc, name="sheet-out.pdf")
    message = str(err.value)
    assert "\n" not in message and message.startswith("sheet-out.pdf: pdflatex could not set")
    assert "line 5" in message
    assert "!" not in message and "Missing number" not in message and "Undefined control" not in message


def test_the_shift_note_says_what_underflows(tmp_path: Path) -> None:
    """Logits [0.707107, -1000]: exp(0.707107) ≈ 2.03 does not underflow and nothing is 0/0; exp(-1000)
    is below the smallest double (about 4.9e-324), which is what the note says now."""
    import math

    assert math.exp(0.707107) > 2 and math.exp(-1000) == 0.0
    f = tmp_path / "p.toml"
    f.write_text('kind = "softmax"\n[given]\nlogits = [0.707107, -1000]\n')
    out = run_cli("solve", "--width", "200", str(f)).stdout
    assert "exp(0.707107) underflows" not in out and "0/0" not in out
    assert "exp(-1000) is about 10⁻⁴³⁴" in out  # 1000 / ln 10 = 434.29
    f.write_text('kind = "softmax"\n[given]\nlogits = [-800, -1000]\n')
    out = run_cli("solve", "--width", "200", str(f)).stdout
    assert "exp(-800) underflows to 0" in out and "0/0" in out  # here every exponential underflows
