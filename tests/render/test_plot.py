"""`attncalc plot`: heat maps of a step's matrix or vector in SVG, PDF and PNG.

The SVG is opened as XML and its labels, cells and printed numbers are read back; the numbers are
checked against values computed here with numpy from the problem files (softmax of the scores, the
heads' column blocks, the causal mask), not taken from attncalc. The PNG is decoded; a PDF figure
is put into a LaTeX document with \\includegraphics and compiled by the real pdflatex.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import struct
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc.errors import AttncalcError, ProblemError
from attncalc.kinds import KINDS

from ..helpers import PROBLEM_FILES, PROBLEMS, solve_file

needs_matplotlib = pytest.mark.skipif(
    find_spec("matplotlib") is None, reason="matplotlib is not installed (pip install 'attncalc[plots]')"
)
needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None,
    reason="pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended)",
)
SVG = "{http://www.w3.org/2000/svg}"
DOT = str(PROBLEMS / "decoder-dot.toml")
#: kinds whose examples have attention weights (and so a default figure): the registry's plot_step
ATTENTION_KINDS = {name for name, e in KINDS.items() if e.plot_step is not None}


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def given(name: str) -> dict[str, Any]:
    return tomllib.loads((PROBLEMS / name).read_text(encoding="utf-8"))


def svg_of(data: bytes) -> ET.Element:
    assert data.startswith(b"<?xml"), data[:40]
    return ET.fromstring(data)


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def group(root: ET.Element, gid: str) -> ET.Element | None:
    return next((g for g in root.iter(f"{SVG}g") if g.get("id") == gid), None)


def cells(root: ET.Element, panel: int = 1) -> np.ndarray:
    """The numbers printed in a panel's cells, read back from the SVG (row by row; nan where masked)."""
    found: dict[tuple[int, int], str] = {}
    prefix = f"panel-{panel}-cell-"
    for g in root.iter(f"{SVG}g"):
        gid = g.get("id") or ""
        if gid.startswith(prefix):
            i, j = (int(x) for x in gid[len(prefix) :].split("-"))
            text = g.find(f"{SVG}text")
            assert text is not None
            found[(i, j)] = text.text or ""
    n, m = max(i for i, _ in found), max(j for _, j in found)
    assert len(found) == n * m
    out = np.full((n, m), np.nan)
    for (i, j), t in found.items():
        if t not in ("masked", "−∞"):
            out[i - 1, j - 1] = float(t.replace("−", "-"))
    return out


def mesh_size(root: ET.Element, panel: int = 1) -> int:
    """How many cells a panel's heat map draws (one path each)."""
    mesh = group(root, f"panel-{panel}-cells")
    assert mesh is not None
    return len(list(mesh.iter(f"{SVG}path")))


def close_at(printed: np.ndarray, true: np.ndarray, decimals: int) -> None:
    """Each printed number is the true value rounded to ``decimals`` places."""
    assert printed.shape == true.shape
    np.testing.assert_array_less(np.abs(printed - true), 0.5 * 10.0**-decimals + 1e-9)


def one_line(result: Any) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attncalc: error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


# ------------------------------------------------------------------ what the figure shows


@needs_matplotlib
def test_svg_of_the_decoder_example_holds_its_tokens_cells_and_weights(cli: Any, tmp_path: Path) -> None:
    """decoder-dot: scores s·h_i = [1, 2, 2], weights e^e_i / Σ, in three labelled cells, with the title."""
    out = tmp_path / "w.svg"
    result = cli("plot", DOT, "-o", str(out))
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"attncalc: wrote {out}"
    root = svg_of(out.read_bytes())
    p = given("decoder-dot.toml")["given"]
    scores = np.array(p["keys"], dtype=float) @ np.array(p["query"], dtype=float)
    np.testing.assert_array_equal(scores, [1, 2, 2])
    shown = texts(root)
    assert {"x1", "x2", "x3", "Decoder dot-product attention at step t"} <= set(shown)
    assert mesh_size(root) == 3
    close_at(cells(root), softmax(scores)[None, :], 3)
    assert root.find(f".//{SVG}image") is None  # vector cells, not an embedded bitmap
    assert "Date" not in out.read_text() and "<dc:date>" not in out.read_text()


@needs_matplotlib
def test_causal_mask_is_drawn_masked_not_as_zero(cli: Any, tmp_path: Path) -> None:
    """Causal self-attention: the 6 entries above the diagonal are hatched and say "masked"; the
    others are softmax(Q Kᵀ/√2) over the allowed keys, computed here."""
    out = tmp_path / "causal.svg"
    assert cli("plot", str(PROBLEMS / "causal-self-attention.toml"), "-o", str(out)).exit_code == 0
    root = svg_of(out.read_bytes())
    g = given("causal-self-attention.toml")["given"]
    X, WQ, WK = (np.array(g[k], dtype=float) for k in ("X", "W_Q", "W_K"))
    S = (X @ WQ) @ (X @ WK).T / np.sqrt(2)
    allowed = np.tril(np.ones((4, 4), dtype=bool))
    A = softmax(np.where(allowed, S, -np.inf))
    printed = cells(root)
    assert np.array_equal(np.isnan(printed), ~allowed)
    close_at(np.where(allowed, printed, 0), A, 3)
    assert texts(root).count("masked") == 6
    hatched = [g.get("id") for g in root.iter(f"{SVG}g") if (g.get("id") or "").startswith("panel-1-masked-")]
    assert sorted(hatched) == sorted(f"panel-1-masked-{i + 1}-{j + 1}" for i, j in zip(*np.nonzero(~allowed)))
    assert {"the", "cat", "sat", "down", "query", "key"} <= set(texts(root))


@needs_matplotlib
def test_masked_scores_print_minus_infinity() -> None:
    """--step masked_scores: −∞ where the mask removed a score, the scaled score elsewhere."""
    root = svg_of(attncalc.plot(str(PROBLEMS / "causal-self-attention.toml"), "masked_scores"))
    assert texts(root).count("−∞") == 6 and "masked" not in texts(root)


@needs_matplotlib
def test_multi_head_draws_one_panel_per_head(cli: Any, tmp_path: Path) -> None:
    """mh-self-attention: two panels "Head 1", "Head 2", each softmax(Q_j K_jᵀ/√2) of its column block."""
    out = tmp_path / "heads.svg"
    assert cli("plot", str(PROBLEMS / "mh-self-attention.toml"), "-o", str(out)).exit_code == 0
    root = svg_of(out.read_bytes())
    g = given("mh-self-attention.toml")["given"]
    X, WQ, WK = (np.array(g[k], dtype=float) for k in ("X", "W_Q", "W_K"))
    Q, K = X @ WQ, X @ WK
    for j in (1, 2):
        block = slice(2 * (j - 1), 2 * j)
        A = softmax(Q[:, block] @ K[:, block].T / np.sqrt(2))
        assert mesh_size(root, j) == 9
        close_at(cells(root, j), A, 3)
    assert group(root, "panel-3-cells") is None
    shown = texts(root)
    assert {"Head 1", "Head 2", "je", "suis", "ici"} <= set(shown)
    assert shown.count("je") == 4  # a row and a column label in each panel


@needs_matplotlib
@pytest.mark.parametrize("step", [None, "cross.head.t.weights"])
def test_a_layers_heads_are_titled_as_heads(step: str | None) -> None:
    """layer-decoder's self- and cross-attention heads: panels "Head 1", "Head 2" (not the step ids),
    and a caption that names the sublayer but no one head."""
    shown = texts(svg_of(attncalc.plot(str(PROBLEMS / "layer-decoder.toml"), step)))
    assert {"Head 1", "Head 2"} <= set(shown)
    assert not any(t.startswith(("self.head.", "cross.head.")) for t in shown)
    caption = next(t for t in shown if "attention weights" in t)
    assert "Head" not in caption and caption.startswith("Cross-attention" if step else "Masked self-attention")


@needs_matplotlib
def test_one_head_alone() -> None:
    """--step head.2.weights draws that head only."""
    root = svg_of(attncalc.plot(str(PROBLEMS / "mh-self-attention.toml"), "head.2.weights"))
    assert mesh_size(root) == 9 and group(root, "panel-2-cells") is None


@needs_matplotlib
def test_seq2seq_weights_are_one_matrix_with_the_targets_as_rows() -> None:
    """decoder.t.weights: one row per decoder step, labelled with its target word, columns the source."""
    root = svg_of(attncalc.plot(str(PROBLEMS / "seq2seq-luong.toml")))
    d = solve_file("seq2seq-luong.toml")
    rows = np.array([d["decoder.1.weights"], d["decoder.2.weights"]])
    close_at(cells(root), rows, 3)
    assert mesh_size(root) == 4
    assert {"I", "am", "je", "suis", "target", "source"} <= set(texts(root))
    single = svg_of(attncalc.plot(d, "decoder.2.weights"))
    close_at(cells(single), rows[1:], 3)


@needs_matplotlib
def test_any_vector_or_matrix_step_and_the_backward_encoder_in_source_order() -> None:
    """A vector step is one row labelled by its symbol; encoder.bwd.t.h is stacked in source order."""
    d = solve_file("seq2seq-bahdanau.toml")
    root = svg_of(attncalc.plot(d, "encoder.bwd.t.h"))
    close_at(cells(root), np.array([d["encoder.bwd.1.h"], d["encoder.bwd.2.h"]]), 3)
    labels = texts(root)
    assert labels.index("je") < labels.index("suis")
    probs = svg_of(attncalc.plot(solve_file("softmax-cross-entropy.toml"), "probabilities"))
    z = np.array(given("softmax-cross-entropy.toml")["given"]["logits"], dtype=float)
    close_at(cells(probs), softmax(z)[None, :], 3)
    assert {"mat", "hat", "cat"} <= set(texts(probs))


@needs_matplotlib
def test_decimals_option(cli: Any, tmp_path: Path) -> None:
    """--decimals 1 prints the weights of decoder-dot at one decimal: 0.2, 0.4, 0.4."""
    out = tmp_path / "w.svg"
    assert cli("plot", DOT, "--decimals", "1", "-o", str(out)).exit_code == 0
    printed = [t for t in texts(svg_of(out.read_bytes())) if t[:2] == "0."]
    assert printed[:3] == ["0.2", "0.4", "0.4"]


@needs_matplotlib
def test_cell_text_contrasts_with_its_colour() -> None:
    """Text is white on the dark end of viridis and black on the bright end (WCAG contrast)."""
    import matplotlib

    from attncalc.render.plot_draw import _ink

    viridis = matplotlib.colormaps["viridis"]
    assert _ink(viridis(0.0)) == "white" and _ink(viridis(1.0)) == "black"
    assert _ink((0.0, 0.0, 0.0, 1.0)) == "white" and _ink((1.0, 1.0, 1.0, 1.0)) == "black"
    root = svg_of(attncalc.plot(str(PROBLEMS / "causal-self-attention.toml")))

    def style(i: int, j: int) -> str:
        g = group(root, f"panel-1-cell-{i}-{j}")
        assert g is not None
        return g.find(f"{SVG}text").get("style") or ""  # type: ignore[union-attr]

    assert "fill: #ffffff" not in style(1, 1)  # weight 1, the bright end: black (SVG's default fill)
    assert "fill: #ffffff" in style(4, 1)  # weight 0.098, the dark end: white


@needs_matplotlib
def test_png_is_a_real_image(cli: Any, tmp_path: Path) -> None:
    """The PNG has the PNG signature, its IHDR size grows with --dpi, and it is not blank."""
    import matplotlib.image

    sizes = {}
    for dpi in ("100", "200"):
        out = tmp_path / f"w{dpi}.png"
        assert cli("plot", str(PROBLEMS / "mh-self-attention.toml"), "--dpi", dpi, "-o", str(out)).exit_code == 0
        data = out.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
        width, height = struct.unpack(">II", data[16:24])
        assert width > 200 and height > 100
        sizes[dpi] = (width, height)
        assert b"tIME" not in data  # no time stamp: the same input gives the same file
        pixels = matplotlib.image.imread(io.BytesIO(data))
        assert pixels.shape[:2] == (height, width)
        colours = np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)
        assert len(colours) > 50
    assert abs(sizes["200"][0] / sizes["100"][0] - 2) < 0.05


@needs_matplotlib
@needs_pdflatex
def test_pdf_figure_goes_into_a_latex_document(cli: Any, tmp_path: Path) -> None:
    """A PDF figure is vector graphics with scalable fonts, and \\includegraphics puts it in a document."""
    fig = tmp_path / "heads.pdf"
    assert cli("plot", str(PROBLEMS / "mh-self-attention.toml"), "-o", str(fig)).exit_code == 0
    data = fig.read_bytes()
    assert data.startswith(b"%PDF") and b"/Subtype /Image" not in data and b"/CreationDate" not in data
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage{graphicx}\n\\begin{document}\n"
        "\\begin{figure}\\centering\\includegraphics[width=0.8\\linewidth]{heads.pdf}"
        "\\caption{Attention weights}\\end{figure}\n\\end{document}\n"
    )
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 5000
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(tmp_path / "doc.pdf"), "-"], capture_output=True, text=True).stdout
        assert "Head 1" in text and "Two-head self-attention" in text and "0.446" in text
    if shutil.which("pdffonts"):
        fonts = subprocess.run(["pdffonts", str(tmp_path / "doc.pdf")], capture_output=True, text=True).stdout
        assert "DejaVuSans" in fonts and "Type 3" not in fonts


@needs_matplotlib
def test_same_input_same_bytes() -> None:
    """SVG, PDF and PNG are byte-identical from one run to the next (no dates, fixed ids)."""
    for fmt in ("svg", "pdf", "png"):
        a = attncalc.plot(str(PROBLEMS / "mh-cross-attention.toml"), format=fmt)
        b = attncalc.plot(solve_file("mh-cross-attention.toml"), format=fmt)
        assert a == b, fmt


@needs_matplotlib
def test_labels_in_scripts_the_font_lacks_are_transliterated() -> None:
    """Bengali vocabulary (no glyphs in the bundled font) is written in Latin letters, as the LaTeX sheets do."""
    labels = set(texts(svg_of(attncalc.plot(str(PROBLEMS / "lstm-doc-output.toml"), "1.probabilities"))))
    assert {"ami", "tumi", "se"} <= labels


@needs_matplotlib
@pytest.mark.parametrize("path", PROBLEM_FILES, ids=lambda p: p.stem)
def test_every_example_with_weights_plots_in_three_formats(cli: Any, tmp_path: Path, path: Path) -> None:
    """Each example with attention weights makes an SVG (every weight a cell), a PNG and a PDF; the
    others say they have no weights and ask for --step."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    if raw["kind"] not in ATTENTION_KINDS or raw.get("decoder", {}).get("attention") == "none":
        assert "has no attention weights" in one_line(cli("plot", str(path), "-o", str(tmp_path / "w.svg")))
        return
    d = solve_file(path.name)
    weights = [s for s in d.steps if s.id.split(".")[-1] == "weights" and not s.id.startswith("cross.")]
    assert weights  # a transformer layer's default is its self-attention (cross.head.t.weights on request)
    for fmt, magic in (("svg", b"<?xml"), ("png", b"\x89PNG"), ("pdf", b"%PDF")):
        out = tmp_path / f"w.{fmt}"
        result = cli("plot", str(path), "-o", str(out))
        assert result.exit_code == 0, result.output
        assert out.read_bytes().startswith(magic)
    root = svg_of((tmp_path / "w.svg").read_bytes())
    panels = [k for k in range(1, 20) if group(root, f"panel-{k}-cells") is not None]
    assert sum(mesh_size(root, k) for k in panels) == sum(np.size(s.value) for s in weights)
    assert d.problem.title in texts(root)


# ------------------------------------------------------------------ bad input: one line, exit 2


@needs_matplotlib
def test_unknown_step_suggests_the_id(cli: Any, tmp_path: Path) -> None:
    line = one_line(cli("plot", DOT, "--step", "wieghts", "-o", str(tmp_path / "w.svg")))
    assert "--step" in line and "'wieghts'" in line and "did you mean 'weights'?" in line
    line = one_line(
        cli("plot", str(PROBLEMS / "seq2seq-luong.toml"), "--step", "weights", "-o", str(tmp_path / "w.svg"))
    )
    assert "did you mean 'decoder.t.weights'?" in line
    line = one_line(
        cli("plot", str(PROBLEMS / "mh-rope.toml"), "--step", "head.j.weights", "-o", str(tmp_path / "w.svg"))
    )
    assert "did you mean 'head.t.weights'?" in line
    assert not list(tmp_path.iterdir())


@needs_matplotlib
@pytest.mark.parametrize(
    ("step", "words"), [("exp_sum", "is a single number"), ("prediction", "is a label ('B')"), ("loss", "no step")]
)
def test_a_step_that_is_not_a_vector_or_matrix_is_refused(cli: Any, tmp_path: Path, step: str, words: str) -> None:
    line = one_line(cli("plot", DOT, "--step", step, "-o", str(tmp_path / "w.png")))
    assert f"'{step}'" in line and words in line and "decoder-dot.toml" in line
    assert not (tmp_path / "w.png").exists()


@needs_matplotlib
def test_existing_file_needs_force_and_force_overwrites(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "w.svg"
    out.write_text("mine")
    assert "already exists; pass --force" in one_line(cli("plot", DOT, "-o", str(out)))
    assert out.read_text() == "mine"
    assert cli("plot", DOT, "-o", str(out), "--force").exit_code == 0
    assert out.read_bytes().startswith(b"<?xml")


@needs_matplotlib
@pytest.mark.parametrize("name", ["w.jpg", "w", "w.svg.txt"])
def test_unknown_extension_is_refused(cli: Any, tmp_path: Path, name: str) -> None:
    line = one_line(cli("plot", DOT, "-o", str(tmp_path / name)))
    assert ".svg, .pdf or .png" in line
    assert not list(tmp_path.iterdir())


@needs_matplotlib
def test_a_folder_as_output_is_refused(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "figs.svg").mkdir()
    assert "is a folder" in one_line(cli("plot", DOT, "-o", str(tmp_path / "figs.svg")))
    assert "no such file" in one_line(cli("plot", str(tmp_path / "none.toml"), "-o", str(tmp_path / "w.svg")))


@needs_matplotlib
def test_written_figure_honours_the_umask(cli: Any, tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        assert cli("plot", DOT, "-o", str(tmp_path / "w.pdf")).exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "w.pdf").stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["w.pdf"]  # no temporary file left


def test_without_matplotlib_says_how_to_install(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With matplotlib missing, `plot` exits 2 with one line naming the extra; the API raises it."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    line = one_line(cli("plot", DOT, "-o", str(tmp_path / "w.svg")))
    assert "pip install 'attncalc[plots]'" in line
    assert not (tmp_path / "w.svg").exists()
    with pytest.raises(AttncalcError, match=r"attncalc\[plots\]"):
        attncalc.plot(DOT)


# ------------------------------------------------------------------ the Python API


@needs_matplotlib
def test_api_plot_returns_the_file_bytes() -> None:
    """attncalc.plot takes a path, a dict or a derivation; bad format, dpi or step raise ProblemError."""
    d = attncalc.solve(DOT)
    assert attncalc.plot(d, format="png")[:4] == b"\x89PNG"
    assert attncalc.plot(d, format="pdf")[:4] == b"%PDF"
    raw = attncalc.plot({"kind": "attention", "score": "dot", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2]]}})
    close_at(cells(svg_of(raw)), softmax(np.array([1.0, 2.0]))[None, :], 3)
    close_at(cells(svg_of(attncalc.plot(d, decimals=1))), softmax(np.array([1.0, 2.0, 2.0]))[None, :], 1)
    with pytest.raises(ProblemError, match="format"):
        attncalc.plot(d, format="jpg")
    with pytest.raises(ProblemError, match="dpi"):
        attncalc.plot(d, format="png", dpi=0)
    with pytest.raises(ProblemError, match=r"step: step 'exp_sum' is a single number"):
        attncalc.plot(d, "exp_sum")
