"""Solution sheets: Markdown, LaTeX/PDF and HTML, checked with the real tools.

pdflatex and pdftotext (Debian's texlive-latex-base, texlive-latex-recommended, poppler-utils) and
Chromium are installed by .ci/run; where one is absent here the tests that need it skip, saying so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.derivation import STEP_TYPES, Stated
from attncalc.render import blocks as blocks_mod
from attncalc.render import sheet as sheet_mod
from attncalc.render.json import to_dict
from attncalc.render.writers import LATEX_PREAMBLE, WRITERS, render

from ..helpers import PROBLEM_FILES, PROBLEMS, solve_file

GOLDEN = Path(__file__).parents[1] / "golden"
needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None,
    reason="pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended)",
)
needs_pdftotext = pytest.mark.skipif(
    shutil.which("pdftotext") is None, reason="pdftotext is not installed (apt-get install poppler-utils)"
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")


def shown_values(d: Any, step: str) -> list[str]:
    data = to_dict(d)
    s = next(x for x in data["steps"] if x["id"] == step)["shown"]
    return s if isinstance(s, list) else [s]


def test_every_step_type_and_block_type_has_a_method() -> None:
    """The sheet builder handles every step type; every writer handles every block type."""
    for cls in STEP_TYPES:
        assert callable(getattr(sheet_mod._Builder, f"_step_{cls.__name__}", None)), cls.__name__
    for writer in WRITERS.values():
        for block in blocks_mod.BLOCK_TYPES:
            assert callable(getattr(writer, f"_block_{block.__name__}", None)), (writer.__name__, block.__name__)


@pytest.mark.parametrize(("fmt", "ext"), [("markdown", "md"), ("latex", "tex"), ("html", "html")])
def test_golden_sheets(fmt: str, ext: str) -> None:
    """The decoder example's solution sheet in each format, refreshed only on purpose."""
    text = render([solve_file("decoder-dot.toml")], fmt)
    golden = GOLDEN / f"decoder-dot.{ext}"
    if os.environ.get("ATTNCALC_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


def test_golden_question_sheet() -> None:
    """The Luong example's question sheet in Markdown."""
    text = render([solve_file("luong-general.toml")], "markdown", "question")
    golden = GOLDEN / "luong-general-question.md"
    if os.environ.get("ATTNCALC_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


@pytest.mark.parametrize("path", PROBLEM_FILES, ids=[p.name for p in PROBLEM_FILES])
def test_question_sheet_contains_no_answers(path: Path) -> None:
    """No computed value (that is not also a given) appears on the question sheet."""
    d = solve_file(path.name)
    page = re.sub(r"<style>.*?</style>", "", render([d], "html", "question"), flags=re.S)  # (1.6rem is no answer)
    question = render([d], "markdown", "question") + page + render([d], "latex", "question")
    values = [float(x) for inp in d.inputs for x in inp.value.ravel()]
    values += [float(x) for s in d.steps if isinstance(s, Stated) for x in np.ravel(s.shown)]  # stated gates
    givens = {f"{x:g}" for x in values} | {f"{x:.{d.decimals}f}" for x in values}  # ln 4 is shown 1.386
    numbers = set(re.findall(r"-?\d+(?:\.\d+)?", question))
    for step in to_dict(d)["steps"]:
        flat = json.dumps(step["shown"])
        for v in re.findall(r"-?\d+\.\d+", flat):
            if v not in givens and len(v.strip("-0.")) >= 2:
                assert v not in numbers, (step["id"], v)
        if step["id"] == "prediction":
            assert f"Prediction: {step['shown']}" not in question


def test_answers_sheet_has_every_final_value() -> None:
    """The answers sheet lists each step id with its shown value, and the prediction."""
    d = solve_file("decoder-dot.toml")
    md = render([d], "markdown", "answers")
    for sid in d.step_ids:
        assert f"| {sid} |" in md
    assert "[0.155, 0.422, 0.422]" in md and "Prediction: B" in md
    # it writes nothing out, so the rounding note does not mention 'as written' lines
    assert "nothing rounded is carried forward." in md and "as written" not in md


def test_several_problems_make_one_numbered_sheet(cli: Any) -> None:
    """Two problem files give one sheet with Problem 1 and Problem 2."""
    result = cli("solve", str(PROBLEMS / "decoder-dot.toml"), str(PROBLEMS / "lecture-dot.toml"), "-f", "markdown")
    assert result.exit_code == 0
    assert "## Problem 1. Decoder dot-product attention" in result.stdout
    assert "## Problem 2. Lecture example" in result.stdout


def test_markdown_parses_into_the_expected_tables() -> None:
    """markdown-it-py (GFM tables) finds the attention table with one row per token and the weights."""
    from markdown_it import MarkdownIt

    d = solve_file("luong-general.toml")
    md = render([d], "markdown")
    tokens = MarkdownIt("commonmark").enable("table").parse(md)
    tables: list[list[list[str]]] = []
    row: list[str] = []
    for i, t in enumerate(tokens):
        if t.type == "table_open":
            tables.append([])
        elif t.type == "tr_open":
            row = []
        elif t.type in ("th_open", "td_open"):
            row.append(tokens[i + 1].content)
        elif t.type == "tr_close":
            tables[-1].append(row)
    attention = next(tb for tb in tables if tb[0][:2] == ["i", "token"])
    assert [r[1] for r in attention[1:]] == ["I", "love", "you"]
    weights = shown_values(d, "weights")
    assert [r[-2] for r in attention[1:]] == weights
    keys = next(tb for tb in tables if tb[0][0] == "$h_{i}$")
    assert keys[1] == ["I", "0.3", "0.7", "-0.2"]


@needs_pdflatex
@needs_pdftotext
@pytest.mark.parametrize("path", PROBLEM_FILES, ids=[p.name for p in PROBLEM_FILES])
def test_every_problem_compiles_with_pdflatex(cli: Any, tmp_path: Path, path: Path) -> None:
    """Each problem's LaTeX sheet compiles with pdflatex, and the PDF's text holds its values."""
    out = tmp_path / "sheet.pdf"
    result = cli("solve", str(path), "-f", "pdf", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes().startswith(b"%PDF")
    # scalable fonts only (Latin Modern): a Type 3 font is a bitmap, blurry on screen and in print
    fonts = subprocess.run(["pdffonts", str(out)], capture_output=True, text=True, check=True).stdout
    types = [line[37:55].strip() for line in fonts.splitlines()[2:]]
    assert types and all(t in ("Type 1", "Type 1C", "TrueType", "CID Type 0C") for t in types), fonts
    text = subprocess.run(["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, check=True).stdout
    d = solve_file(path.name)
    # a symbol in the title (c_0) is typeset with its subscript, which pdftotext reads as "c0"
    title = d.problem.title.split(":")[0].replace('"', "").replace("_", "")
    assert title.replace("'", "’") in text.replace("”", "").replace("“", "") or title in text
    numeric = [s.id for s in d.steps if not isinstance(s.value, str)]
    final = next((i for i in ("weights", "probabilities", "loss") if i in d.step_ids), numeric[-1])
    for v in shown_values(d, final)[:4]:
        flat = v if isinstance(v, str) else None
        for x in [flat] if flat else v[:4]:
            if "e" in x:  # typeset as a power of ten
                x = x.split("e")[0]
            # (a whole number of kind accounting is typeset with thousands separators: 124,439,808)
            assert x.replace("-", "−") in text or x in text or x in text.replace(",", ""), (final, x)


@pytest.mark.parametrize("path", PROBLEM_FILES, ids=[p.name for p in PROBLEM_FILES])
def test_latex_sheets_typeset_every_character(path: Path) -> None:
    """No character falls back to "?": Greek letters, marks and dashes have LaTeX forms, and words in
    scripts pdflatex cannot set (the LSTM document's Bengali) are transliterated."""
    tex = render([solve_file(path.name)], "latex")
    assert "?" not in tex


@pytest.mark.parametrize(
    ("plain", "tex"),
    [("আমি", "ami"), ("Привет", "Privet"), ("hᵀ", "hᵀ"), ("α β", "α β"), ("m̂ h̃", "m̂ h̃"), ("ŷ", "ŷ")],
)
def test_only_scripts_pdflatex_cannot_set_are_transliterated(plain: str, tex: str) -> None:
    from attncalc.render.typeset import transliterate

    assert transliterate(plain) == tex


def test_transposes_stay_transposes_in_latex() -> None:
    tex = render([solve_file("lstm-doc-update.toml")], "latex")
    assert r"\partial L/\partial W_{out} = (\partial L/\partial z) h^{\top}" in tex


@needs_pdflatex
@needs_pdftotext
def test_bengali_labels_reach_the_pdf_transliterated(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "sheet.pdf"
    assert cli("solve", str(PROBLEMS / "lstm-doc-output-2.toml"), "-f", "pdf", "-o", str(out)).exit_code == 0
    text = subprocess.run(["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, check=True).stdout
    for word in ("bamladeske", "bamlades", "bhalobasi"):  # বাংলাদেশকে, বাংলাদেশ, ভালোবাসি
        assert word in text


@needs_pdflatex
def test_latex_fragment_pastes_into_a_document(tmp_path: Path) -> None:
    """--fragment has no preamble and compiles inside one."""
    frag = render([solve_file("self-attention-scaled.toml")], "latex", fragment=True)
    assert "\\documentclass" not in frag and "\\begin{document}" not in frag
    (tmp_path / "doc.tex").write_text(LATEX_PREAMBLE + "\\begin{document}\n" + frag + "\\end{document}\n")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-2000:]


def test_pdf_without_pdflatex_says_how_to_install(cli: Any, tmp_path: Path) -> None:
    """With no pdflatex on PATH, --format pdf exits 2 and says how to install it."""
    result = cli_env(
        cli,
        {"PATH": str(tmp_path)},
        "solve",
        str(PROBLEMS / "decoder-dot.toml"),
        "-f",
        "pdf",
        "-o",
        str(tmp_path / "x.pdf"),
    )
    assert result.exit_code == 2
    assert "pdflatex" in result.stderr and "apt-get install texlive-latex-base" in result.stderr
    assert not (tmp_path / "x.pdf").exists()


def cli_env(cli: Any, env: dict[str, str], *args: str) -> Any:
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return cli(*args)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_html_is_self_contained() -> None:
    """No script, stylesheet, image or font is fetched: no src=, no external href, no url()."""
    page = render([solve_file("decoder-dot.toml")], "html")
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"\bsrc\s*=|<link\b|@import|url\(", page)
    assert not re.search(r"href\s*=\s*[\"']?https?:", page)
    assert "<math" in page and "<mfrac>" in page  # exact forms as MathML
    assert "@media print" in page


def png_pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA PNG into rows of raw pixel bytes (zlib and the five PNG filters)."""
    pos, idat, width, height, bpp = 8, b"", 0, 0, 4
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        data = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", data[:10])
            assert depth == 8 and color in (2, 6)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p_ = a + b - c
                pa, pb, pc = abs(p_ - a), abs(p_ - b), abs(p_ - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def png_is_blank(png: bytes) -> bool:
    """True when every pixel of the PNG has the same colour."""
    _, _, rows = png_pixels(png)
    return len({bytes(r) for r in rows}) == 1 and len(set(rows[0])) <= 4


def chromium_page_requests(page: Path, tmp_path: Path, shot: Path) -> set[str]:
    """Open a page in headless Chromium; return the http(s) URLs the page itself requested.

    The browser's own background requests (update checks, account probes) are told apart by
    their network isolation key: only the page's requests carry its file:// origin.
    """
    netlog = tmp_path / f"{page.stem}-net.json"
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / (page.stem + '-profile')}",
        f"--log-net-log={netlog}",
        "--window-size=1000,1400",
        f"--screenshot={shot}",
        page.as_uri(),
    ]
    subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    data = json.loads(netlog.read_text(errors="replace"))
    start_job = data["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return {
        e["params"]["url"]
        for e in data["events"]
        if e["type"] == start_job
        and str(e.get("params", {}).get("url", "")).startswith("http")
        and str(e["params"].get("network_isolation_key", "")).startswith("file://")
    }


@needs_chromium
def test_html_opens_in_chromium_with_no_network_request(tmp_path: Path) -> None:
    """Headless Chromium renders a non-blank page, and the page requests nothing from the network.

    A control page with an external image shows that such a request would be caught.
    """
    control = tmp_path / "control.html"
    control.write_text('<html><body><img src="http://example.invalid/x.png">control</body></html>')
    assert chromium_page_requests(control, tmp_path, tmp_path / "control.png") == {"http://example.invalid/x.png"}
    blank = tmp_path / "blank.html"
    blank.write_text("<html><body></body></html>")
    chromium_page_requests(blank, tmp_path, tmp_path / "blank.png")
    assert png_is_blank((tmp_path / "blank.png").read_bytes())  # the blank check can tell
    page = tmp_path / "sheet.html"
    page.write_text(render([solve_file("luong-general.toml")], "html"))
    shot = tmp_path / "shot.png"
    assert chromium_page_requests(page, tmp_path, shot) == set()
    assert shot.exists(), "Chromium wrote no screenshot"
    assert not png_is_blank(shot.read_bytes())


def test_jupyter_reprs() -> None:
    """A derivation shows itself in Jupyter as Markdown, LaTeX and HTML."""
    d = solve_file("decoder-dot.toml")
    assert d._repr_markdown_().startswith("# Decoder dot-product attention")
    assert "\\begin{document}" not in d._repr_latex_() and "\\section*" in d._repr_latex_()
    assert "<h1>" in d._repr_html_() and "<html" not in d._repr_html_()


def test_sheet_files_are_not_overwritten_without_force(cli: Any, tmp_path: Path) -> None:
    """-o refuses an existing file for every format, and --force replaces it."""
    for fmt in ("markdown", "latex", "html"):
        out = tmp_path / f"s.{fmt}"
        out.write_text("mine")
        result = cli("solve", str(PROBLEMS / "decoder-dot.toml"), "-f", fmt, "-o", str(out))
        assert result.exit_code == 2 and out.read_text() == "mine"
        assert cli("solve", str(PROBLEMS / "decoder-dot.toml"), "-f", fmt, "-o", str(out), "--force").exit_code == 0
        assert out.read_text() != "mine"


def test_question_sheet_states_the_stated_gates_and_does_not_ask_for_them() -> None:
    """lstm-doc-decoder states f, i, c̃, o of every step: the question sheet must show them (it is
    unanswerable otherwise) and ask only for what is computed from them."""
    d = solve_file("lstm-doc-decoder.toml")
    md = render([d], "markdown", "question")
    given, _, compute = md.partition("### Compute")
    assert "0.68,\\ 0.72,\\ 0.65,\\ 0.81" in given  # f_1 as the problem file states it
    assert "[1.f]" not in compute and "[1.retained]" in compute


@needs_pdflatex
@pytest.mark.parametrize("name", ["decoder-dot.toml", "lstm-doc-output.toml"])
def test_a_fragment_compiles_with_the_preamble_the_readme_gives(cli: Any, tmp_path: Path, name: str) -> None:
    """--fragment is pasted into someone else's document: the preamble docs/guide/sheets.md names is enough
    (the shaded weights need attnshade, a prediction's ✓ needs amssymb)."""
    readme = (Path(__file__).parents[2] / "docs" / "guide" / "sheets.md").read_text(encoding="utf-8")
    preamble = re.search(r"`(\\usepackage\[T1\]\{fontenc\}.*?)`", readme)
    assert preamble is not None
    (tmp_path / "frag.tex").write_text(cli("solve", str(PROBLEMS / name), "-f", "latex", "--fragment").stdout)
    doc = tmp_path / "doc.tex"
    doc.write_text("\\documentclass{article}" + preamble.group(1) + "\\begin{document}\\input{frag}\\end{document}\n")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:]
