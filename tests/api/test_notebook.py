"""docs/python-api.ipynb runs in a real Jupyter kernel and shows what it says it shows.

The numbers it prints are checked against numpy formulas written here, not against attncalc.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ..helpers import ROOT

NOTEBOOK = ROOT / "docs" / "python-api.ipynb"

# Step titles as the README's tour and docs/interface.md name them.
TITLES = ("Alignment scores", "Attention weights", "Context vector")


def softmax(x: Any) -> np.ndarray:
    e = np.exp(np.asarray(x, dtype=float) - np.max(x))
    return e / e.sum()


def test_committed_notebook_has_no_outputs() -> None:
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(c["outputs"] == [] and c["execution_count"] is None for c in code)


@pytest.fixture(scope="module")
def executed(notebook_run: Any) -> list[Any]:
    """The notebook's code cells after a run in the venv's python3 kernel (skipped without one)."""
    return [c for c in notebook_run.cells if c.cell_type == "code"]


@pytest.fixture(scope="module")
def notebook_run() -> Any:
    """The notebook after a run in the venv's python3 kernel (skipped without one)."""
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install '.[test]')")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install '.[test]')")
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        pytest.skip("no Jupyter kernel 'python3' (pip install ipykernel)")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), old) if p)  # the kernel imports this attncalc
    try:
        client = nbclient.NotebookClient(
            nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(NOTEBOOK.parent)}}
        )
        client.execute()
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    return nb


def _stdout(cell: Any) -> list[str]:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream").splitlines()


def _result(cell: Any) -> dict[str, Any]:
    (out,) = [o for o in cell.outputs if o.output_type == "execute_result"]
    return dict(out["data"])


def test_no_cell_raised(executed: list[Any]) -> None:
    assert not [o for c in executed for o in c.outputs if o.output_type == "error"]


def test_each_result_is_shown_once(executed: list[Any]) -> None:
    """A derivation or report is shown by its cell's result only: rendering it must not also print
    (rich's Console, left to detect Jupyter, sent every line as display_data of its own)."""
    for cell in executed:
        assert [o.output_type for o in cell.outputs if o.output_type != "stream"] in ([], ["execute_result"])


def test_keyword_problem_displays_as_a_sheet(executed: list[Any]) -> None:
    data = _result(executed[0])
    html = data["text/html"]
    for title in TITLES:
        assert title in html
    assert "<html" not in html  # a fragment inside the notebook, not a page
    assert "Alignment scores   [scores]" in data["text/plain"]  # the terminal view, for plain-text front ends
    assert "[weights]" in data["text/markdown"] and "\\section*" in data["text/latex"]


def test_printed_weights_are_the_softmax_of_the_scores(executed: list[Any]) -> None:
    ids, scores, weights = (ast.literal_eval(line) for line in _stdout(executed[1]))
    q, K = np.array([1.0, 1.0]), np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    assert "scores" in ids and "weights" in ids
    np.testing.assert_allclose(scores, K @ q, rtol=1e-12)
    np.testing.assert_allclose(weights, softmax(K @ q), rtol=1e-12)


def test_example_file_by_path(executed: list[Any]) -> None:
    headline, context = _stdout(executed[2])
    assert headline == "Prediction: B"  # z = W_out (s + c) with W_out = I: z(B) = 1 + c_2 > z(A) = 1 + c_1
    q, K = np.array([1.0, 1.0]), np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    np.testing.assert_allclose(ast.literal_eval(context), softmax(K @ q) @ K, rtol=1e-12)


def test_check_with_a_dict(executed: list[Any]) -> None:
    """Scores right; the third weight 0.433 is wrong (softmax gives 0.422), shown in the report."""
    (summary,) = _stdout(executed[3])
    assert ast.literal_eval(summary) == {"correct": 1, "carried": 0, "wrong": 1}
    text = _result(executed[3])["text/plain"]
    assert "✗ wrong" in text and "✓ correct" in text
    assert f"{softmax([1, 2, 2])[2]:.3f}" == "0.422" and "0.422" in text


def test_markdown_export(executed: list[Any]) -> None:
    lines = _stdout(executed[4])
    assert lines[0] == "# Decoder dot-product attention at step t"
    assert any(line.startswith("|") for line in lines)


def test_docs_notebook_is_valid() -> None:
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed")
    nbformat.validate(nbformat.read(Path(NOTEBOOK), as_version=4))


# --- exported: nbconvert's HTML shows the bars, its LaTeX compiles to a PDF --------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _exported(notebook_run: Any, exporter: str) -> str:
    nbconvert = pytest.importorskip("nbconvert", reason="nbconvert is not installed (pip install '.[test]')")
    body, _ = getattr(nbconvert, exporter)().from_notebook_node(notebook_run)
    return str(body)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_html_export_shows_the_weight_bars(notebook_run: Any, tmp_path: Path) -> None:
    """Reported: the notebook's HTML showed no weight bars (their style lived in the page's <head>,
    which a notebook does not have). Chromium lays out nbconvert's HTML: each bar of the first
    cell's weights table has a height and a width in proportion to softmax(K q) (numpy, here)."""
    page = tmp_path / "nb.html"
    probe = (
        '<pre id="bars"></pre><script>document.getElementById("bars").textContent = '
        'Array.from(document.querySelectorAll(".bar")).map(b => { const r = b.getBoundingClientRect();'
        ' return r.width.toFixed(2) + "x" + r.height.toFixed(2) + "x" + getComputedStyle(b).backgroundColor; })'
        '.join(";");</script></body>'
    )
    page.write_text(_exported(notebook_run, "HTMLExporter").replace("</body>", probe), encoding="utf-8")
    args = ["--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}"]
    args += ["--window-size=1000,1000", "--virtual-time-budget=3000", "--dump-dom", page.as_uri()]
    dom = subprocess.run([str(CHROMIUM), *args], capture_output=True, text=True, timeout=120, check=False).stdout
    found = re.search(r'<pre id="bars">([^<]*)</pre>', dom)
    assert found is not None, "Chromium did not lay the page out"
    bars = [b.split("x", 2) for b in found.group(1).split(";") if b]
    weights = softmax(np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]) @ np.array([1.0, 1.0]))
    assert len(bars) >= len(weights)
    widths = np.array([float(w) for w, _, _ in bars[: len(weights)]])
    assert all(float(h) > 4 for _, h, _ in bars) and all(c not in ("rgba(0, 0, 0, 0)", "transparent") for *_, c in bars)
    np.testing.assert_allclose(widths / widths.sum(), weights, atol=0.01)


def test_html_styles_stay_inside_the_sheet(notebook_run: Any) -> None:
    """The sheet's stylesheet comes with it, scoped: it restyles nothing of the notebook around it."""
    html = _result(notebook_run.cells[2])["text/html"]
    (style,) = re.findall(r"<style>(.*?)</style>", html, flags=re.S)
    rules = re.findall(r"([^{}]+)\{[^{}]*\}", re.sub(r"@media[^{]*\{", "", style))
    selectors = [s.strip() for r in rules for s in r.split(",") if s.strip()]
    assert selectors and all(s == ".attncalc" or s.startswith(".attncalc ") for s in selectors)
    assert html.startswith('<div class="attncalc">')


def _compiles(tex: Path, engine: str) -> tuple[bool, str]:
    """Run the engine twice (as nbconvert does); skip when nbconvert's own template wants a package
    this TeX does not have (.ci/run installs them)."""
    for _ in range(2):
        run = subprocess.run(
            [engine, "-interaction=nonstopmode", "-halt-on-error", tex.name],
            cwd=tex.parent,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    missing = re.search(r"File `([^']+\.sty)' not found", run.stdout)
    if missing:
        pytest.skip(f"nbconvert's LaTeX template needs {missing.group(1)} (.ci/run installs it)")
    return run.returncode == 0, "\n".join(line for line in run.stdout.splitlines() if line.startswith("!"))


def _pdf_text(pdf: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


WEIGHTS = softmax(np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]) @ np.array([1.0, 1.0]))


@pytest.mark.skipif(
    shutil.which("pdflatex") is None or shutil.which("pandoc") is None, reason="needs pdflatex and pandoc (.ci/run)"
)
def test_a_derivation_in_nbconvert_latex_compiles_with_pdflatex(notebook_run: Any, tmp_path: Path) -> None:
    """Reported: nbconvert's PDF stopped at \\cellcolor{attnshade...}: its template loads xcolor without
    colortbl and defines no attnshade. The run notebook's derivation cells, exported by nbconvert's
    LatexExporter, compile with pdflatex into a PDF with the sheet's steps and weights. (The check
    report's cell is left out: its plain text has ✓ and ✗, which pdflatex's utf8x does not know.)"""
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.from_dict(notebook_run)
    nb.cells = [c for c in nb.cells if "attncalc.check(" not in c.source]
    tex = tmp_path / "nb.tex"
    tex.write_text(_exported(nb, "LatexExporter"), encoding="utf-8")
    assert "attnshade" in tex.read_text(encoding="utf-8")  # the shading is there, by other means
    ok, errors = _compiles(tex, "pdflatex")
    assert ok, errors
    text = _pdf_text(tmp_path / "nb.pdf")
    assert all(title in text for title in TITLES) and all(f"{w:.3f}" in text for w in WEIGHTS)


@pytest.mark.skipif(
    shutil.which("xelatex") is None or shutil.which("pandoc") is None, reason="needs xelatex and pandoc (.ci/run)"
)
def test_jupyter_nbconvert_to_pdf(notebook_run: Any, tmp_path: Path) -> None:
    """What `jupyter nbconvert --to pdf` does (nbconvert's PDFExporter, xelatex): the whole run
    notebook becomes a PDF with the sheet's steps and weights."""
    pdf = _exported_bytes(notebook_run, "PDFExporter")
    (tmp_path / "nb.pdf").write_bytes(pdf)
    text = _pdf_text(tmp_path / "nb.pdf")
    assert all(title in text for title in TITLES) and all(f"{w:.3f}" in text for w in WEIGHTS)


def _exported_bytes(nb: Any, exporter: str) -> bytes:
    nbconvert = pytest.importorskip("nbconvert", reason="nbconvert is not installed (pip install '.[test]')")
    try:
        body, _ = getattr(nbconvert, exporter)().from_notebook_node(nb)
    except nbconvert.exporters.pdf.LatexFailed as exc:
        missing = re.search(r"File `([^']+\.sty)' not found", exc.output)
        if missing:
            pytest.skip(f"nbconvert's LaTeX template needs {missing.group(1)} (.ci/run installs it)")
        raise AssertionError("\n".join(line for line in exc.output.splitlines() if line.startswith("!"))) from None
    return bytes(body)
