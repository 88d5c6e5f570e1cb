"""The typeset sheets' layout, judged on the PDF a reader gets (not on the LaTeX source): nothing runs
past the right margin, the seq2seq examples fit in a few pages at the default detail and keep every
step with --detail full, and the pieces of the lecture-note layout (small tables side by side, the
written-out lines beside their value, wide tables wrapped or scaled) each work in pdflatex.

The margin oracle is poppler's ``pdftotext -bbox``: every word's right edge against the page's width
less the 2 cm margin, read from the PDF itself."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc.render.blocks import Heading, MathLines, Matrix, Sheet, Table
from attncalc.render.write_tex import LatexWriter

from ..helpers import PROBLEM_FILES, PROBLEMS

needs_tools = pytest.mark.skipif(
    shutil.which("pdflatex") is None or shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None,
    reason="pdflatex and poppler-utils are needed (apt-get install texlive-latex-base poppler-utils)",
)

MARGIN_PT = 2 / 2.54 * 72  # geometry's 2 cm, in PostScript points as pdftotext reports them
TOLERANCE_PT = 1.5  # a glyph's side bearing

SEQ2SEQ = ["seq2seq-bahdanau.toml", "seq2seq-luong.toml", "lstm-doc-seq2seq.toml"]

WORD = re.compile(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>')
PAGE = re.compile(r'<page width="([\d.]+)" height="[\d.]+">')


def past_the_margin(pdf: Path) -> list[tuple[int, str, float]]:
    """(page, word, how far past) for each word whose right edge is beyond the right margin."""
    html = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    out = []
    for k, page in enumerate(html.split("<page ")[1:], start=1):
        width = float(PAGE.match("<page " + page).group(1))  # type: ignore[union-attr]
        edge = width - MARGIN_PT + TOLERANCE_PT
        out += [(k, w, float(x1) - edge) for _, x1, w in WORD.findall(page) if float(x1) > edge]
    return out


def pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"Pages:\s+(\d+)", info).group(1))  # type: ignore[union-attr]


def compile_tex(tex: str, tmp_path: Path, name: str = "doc") -> Path:
    (tmp_path / f"{name}.tex").write_text(tex, encoding="utf-8")
    for _ in range(2):  # longtable settles its column widths on the second run
        run = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert run.returncode == 0, run.stdout[-2000:]
    return tmp_path / f"{name}.pdf"


def solution_pdf(cli: Any, tmp_path: Path, name: str, *options: str) -> Path:
    out = tmp_path / (Path(name).stem + "-".join(("", *options)).replace("--", "") + ".pdf")
    result = cli("solve", str(PROBLEMS / name), "-f", "pdf", "-o", str(out), *options)
    assert result.exit_code == 0, result.stderr
    return out


@needs_tools
@pytest.mark.parametrize("path", PROBLEM_FILES, ids=[p.name for p in PROBLEM_FILES])
def test_no_solution_sheet_runs_past_the_right_margin(cli: Any, tmp_path: Path, path: Path) -> None:
    """Every example's solution: long exact forms, 13-column head tables and ten-entry vectors all
    stay inside the margin (scaled down or wrapped where they would not)."""
    assert past_the_margin(solution_pdf(cli, tmp_path, path.name)) == []


@needs_tools
@pytest.mark.parametrize(
    "options",
    [
        ["--kind", "transformer-layer"],  # answers of whole matrices, steps with long titles
        ["--kind", "seq2seq", "--attention", "bahdanau", "--count", "2"],
        ["--kind", "bleu", "--count", "2"],
        ["--kind", "decode", "--strategy", "beam", "--count", "2"],
        ["--kind", "multi-head", "--positions", "rope", "--dim", "4"],
    ],
    ids=lambda o: "-".join(o[1:4:2]),
)
def test_homework_sheets_stay_inside_the_margin(cli: Any, tmp_path: Path, options: list[str]) -> None:
    """The question and answers sheets of generated homework: tables of steps with their formulas
    and of whole matrices wrap their widest columns instead of running off the page."""
    result = cli("generate", *options, "--out", str(tmp_path / "hw"), "-f", "pdf")
    assert result.exit_code == 0, result.stderr
    for sheet in ("questions", "answers", "solutions"):
        assert past_the_margin(tmp_path / "hw" / f"{sheet}.pdf") == [], sheet


@needs_tools
@pytest.mark.parametrize("name", SEQ2SEQ)
def test_seq2seq_examples_are_a_few_pages_and_complete_in_full(cli: Any, tmp_path: Path, name: str) -> None:
    """The default (first) is a few pages; summary shorter still; full writes every step out (each
    step id in the PDF's text) and is the longest."""
    first = solution_pdf(cli, tmp_path, name)
    summary = solution_pdf(cli, tmp_path, name, "--detail", "summary")
    full = solution_pdf(cli, tmp_path, name, "--detail", "full")
    assert pages(summary) <= 4
    assert pages(first) <= 7
    assert pages(full) >= pages(first) + 3
    text = subprocess.run(["pdftotext", str(full), "-"], capture_output=True, text=True, check=True).stdout
    text = re.sub(r"\s+", "", text)
    d = attncalc.solve(PROBLEMS / name, exact=False)
    missing = [sid for sid in d.step_ids if f"[{sid}]" not in text]
    assert missing == []


def _sheet(*blocks: Any) -> str:
    return LatexWriter(Sheet("Layout", "solution", list(blocks))).write()


GIVENS = [
    Matrix(f"W_{k}", tuple(tuple(str(i * j % 5) for j in range(4)) for i in range(6)), rows=None)
    for k in ("q", "k", "v", "o")
]


@needs_tools
def test_small_tables_stand_side_by_side(tmp_path: Path) -> None:
    """Four 6×4 givens flow two or more to a row: the sheet's first page holds them in fewer rows
    of text than one table under another would take (pdftotext -layout shows them side by side)."""
    pdf = compile_tex(_sheet(Heading("Given", 3), *GIVENS), tmp_path)
    layout = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True).stdout
    header_lines = [line for line in layout.splitlines() if line.count("W") >= 2]
    assert header_lines, layout  # at least two tables' headers on one line


def words(pdf: Path) -> list[tuple[float, float, float, str]]:
    """(xMin, yMin, yMax, text) of each word on the first page."""
    html = subprocess.run(["pdftotext", "-bbox", "-l", "1", str(pdf), "-"], capture_output=True, text=True).stdout
    box = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>')
    return [(float(x0), float(y0), float(y1), w) for x0, y0, y1, w in box.findall(html)]


@needs_tools
def test_written_out_lines_sit_beside_their_value(tmp_path: Path) -> None:
    """A step's lines and the vector they give share the page's height: the value's "e =" is in the
    right half of the page, level with the two written-out lines on the left; and the step's
    formula runs in after its heading, on the heading's line."""
    lines = MathLines((("e_1 = 1·2 + 0·1 = 2", ""), ("e_2 = 1·1 + 1·1 = 2", "")))
    value = Matrix("e", (("2", "2"),), vector=True)
    head = Heading("Step 1. Scores [scores]", 3)
    pdf = compile_tex(_sheet(head, MathLines((("e_i = q · k_i", ""),)), lines, value), tmp_path)
    ws = words(pdf)
    step = next(w for w in ws if w[3] == "Step")
    assert any(w[3] == "q" and abs(w[1] - step[1]) < 4 for w in ws)  # q · k_i on the heading's line
    left = [w for w in ws if w[0] < 200 and w[1] > step[2] + 2]  # the written-out lines, below the heading
    top, bottom = min(w[1] for w in left), max(w[2] for w in left)
    equals_right = [w for w in ws if w[3] == "=" and w[0] > 250]
    assert len(equals_right) == 1 and top <= equals_right[0][1] <= bottom, (top, bottom, equals_right)


@needs_tools
def test_a_table_wider_than_the_page_is_scaled_and_a_long_one_wraps(tmp_path: Path) -> None:
    """A 30-column matrix is scaled to the line; a 40-row table of long formulas wraps its widest
    column; neither crosses the margin, and every cell is still in the PDF."""
    wide = Matrix("W", tuple(tuple(f"{i}.{j:02d}" for j in range(30)) for i in range(3)))
    long_rows = tuple(
        (str(k), f"Step {k} [s.{k}]", " + ".join(f"x_{k}{j}·w_{j}" for j in range(14))) for k in range(40)
    )
    long = Table(("#", "step", "compute"), long_rows, math_cols=(2,))
    pdf = compile_tex(_sheet(wide, long), tmp_path)
    assert past_the_margin(pdf) == []
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    assert "2.29" in text and "[s.39]" in text


@needs_tools
def test_a_vector_of_more_than_ten_entries_compiles_in_a_fragment(tmp_path: Path) -> None:
    """amsmath's bmatrix stops at 10 columns: a longer vector is an array, so a --fragment needs no
    MaxMatrixCols in the reader's preamble."""
    frag = LatexWriter(Sheet("v", "solution", [Matrix("c", (tuple(str(k) for k in range(16)),), vector=True)])).write(
        fragment=True
    )
    doc = "\\documentclass{article}\\usepackage{amsmath,graphicx}\\begin{document}" + frag + "\\end{document}\n"
    pdf = compile_tex(doc, tmp_path)
    assert "15" in subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout


def test_generate_writes_solutions_at_the_detail_asked_for(tmp_path: Path) -> None:
    """generate --detail (and the API's detail): the summary solutions leave the cell steps to the
    gate tables, full writes every step of every time step."""
    kw: dict[str, Any] = {"kind": "seq2seq", "count": 1, "seed": 3}
    attncalc.generate(**kw, out=tmp_path / "full", detail="full")
    attncalc.generate(**kw, out=tmp_path / "summary", detail="summary")
    full = (tmp_path / "full" / "solutions.md").read_text(encoding="utf-8")
    summary = (tmp_path / "summary" / "solutions.md").read_text(encoding="utf-8")
    assert "[encoder.2.r_pre]" in full and "[encoder.2.r_pre]" not in summary
    assert len(summary) < len(full) / 2


def test_the_api_generates_decoding_homework_with_a_strategy() -> None:
    """attncalc.generate takes the decode strategy, as the command does."""
    (v,) = attncalc.generate(kind="decode", strategy="beam", seed=1)
    assert v.problem["strategy"] == "beam" and "beams" in v.problem["given"]


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
@pytest.mark.parametrize("name", ["long-sentence.toml", "layer-decoder.toml", "mh-rope.toml"])
def test_an_html_sheet_fits_a_narrow_window(cli: Any, tmp_path: Path, name: str) -> None:
    """In a 700 px window the page does not scroll sideways: a wide exact form scrolls on its own
    line (the page's scrollWidth, measured by Chromium, is not above the window's width)."""
    page = tmp_path / "sheet.html"
    assert cli("solve", str(PROBLEMS / name), "-f", "html", "-o", str(page)).exit_code == 0
    probe = '<pre id="w"></pre><script>document.getElementById("w").textContent = '
    probe += 'document.documentElement.scrollWidth + " " + window.innerWidth;</script></body>'
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", probe), encoding="utf-8")
    args = ["--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}"]
    args += ["--window-size=700,1000", "--virtual-time-budget=2000", "--dump-dom", page.as_uri()]
    dom = subprocess.run([str(CHROMIUM), *args], capture_output=True, text=True, timeout=120, check=False).stdout
    scroll, inner = map(int, re.search(r'<pre id="w">(\d+) (\d+)</pre>', dom).groups())  # type: ignore[union-attr]
    assert scroll <= inner


@pytest.mark.parametrize("fmt", ["markdown", "latex", "html"])
def test_an_exact_form_too_long_to_read_is_named_not_typeset(cli: Any, fmt: str) -> None:
    """layer-decoder's exact LayerNorm mean runs to hundreds of characters: every sheet names its
    length (as the text view does) instead of setting it as a hairline; JSON keeps it whole."""
    d = attncalc.solve(PROBLEMS / "layer-decoder.toml")
    from attncalc.render.exact import exact_text

    longest = max(
        (
            len(exact_text(e))
            for s in d.steps
            if s.exact is not None
            for e in np.ravel(np.asarray(s.exact, dtype=object))
        ),
        default=0,
    )
    assert longest > 600
    sheet = cli("solve", str(PROBLEMS / "layer-decoder.toml"), "-f", fmt).stdout
    assert f"a form of {longest} characters, too long to typeset" in sheet
    short = cli("solve", str(PROBLEMS / "bahdanau-additive.toml"), "-f", fmt).stdout
    assert "too long to typeset" not in short and "exact" in short


@needs_tools
def test_a_long_one_unit_sequence_at_summary_is_a_few_pages(cli: Any, tmp_path: Path) -> None:
    """lstm-doc-retention at summary: its 50 one-unit time steps in one table (28 pages at first)."""
    pdf = solution_pdf(cli, tmp_path, "lstm-doc-retention.toml", "--detail", "summary")
    assert pages(pdf) <= 4 and past_the_margin(pdf) == []


@needs_tools
def test_an_exact_form_far_wider_than_the_page_is_named_in_the_pdf(cli: Any, tmp_path: Path) -> None:
    """mh-rope's exact A_3,j run to 1.45 lines: scaled to fit they were 3 pt exponents, so the PDF names
    them (pdflatex measures the width); long-sentence's α_i, a little wider than the line, are scaled."""
    rope = subprocess.run(
        ["pdftotext", str(solution_pdf(cli, tmp_path, "mh-rope.toml")), "-"], capture_output=True, text=True
    )
    assert "a form too wide for the page" in rope.stdout
    text = subprocess.run(
        ["pdftotext", str(solution_pdf(cli, tmp_path, "long-sentence.toml")), "-"], capture_output=True, text=True
    ).stdout
    assert "too wide" not in text and "exact:" in text
