"""docs/python-api.ipynb runs in a real Jupyter kernel and shows what it says it shows.

The numbers it prints are checked against numpy formulas written here, not against attncalc.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from .helpers import ROOT

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
def executed() -> list[dict[str, Any]]:
    """The notebook's code cells after a run in the venv's python3 kernel (skipped without one)."""
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
    return [c for c in nb.cells if c.cell_type == "code"]


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
