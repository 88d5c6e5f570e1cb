"""A PDF past its page bound is refused before typesetting, in one line naming --max-pages. The estimate is held to the pages pdflatex
really makes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import attncalc
from attncalc.render.pdf_pages import MAX_PAGES, estimate_pages
from attncalc.render.writers import render

from ..helpers import PROBLEMS, solve_file

needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None or shutil.which("pdfinfo") is None, reason="pdflatex and pdfinfo are needed"
)


def decode(tmp_path: Path, tokens: int) -> Path:
    """A top-p step over ``tokens`` logits: its sheet writes a line per token in three steps."""
    f = tmp_path / "p.json"
    logits = [(i % 7) - 3 for i in range(tokens)]
    f.write_text(json.dumps({"kind": "decode", "strategy": "top-p", "given": {"logits": logits, "p": 0.9, "u": 0.6}}))
    return f


def pages_of(pdf: Path) -> int:
    """The page count pdfinfo (poppler, not attncalc) reads from the PDF."""
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))


def one_line(result: Any, name: str) -> str:
    assert result.exit_code == 2, result.output
    err = str(result.stderr)
    assert err.startswith(f"attncalc: error: {name}: ") and err.count("\n") == 1, err
    assert "--max-pages raises it" in err and "Traceback" not in result.output
    return err


@needs_pdflatex
@pytest.mark.parametrize("name", ["decoder-dot.toml", "mh-self-attention.toml", "seq2seq-bahdanau.toml"])
def test_the_estimate_errs_long_but_not_by_much(tmp_path: Path, name: str) -> None:
    """Against the pages pdflatex typesets: never fewer, at most a quarter (and a page) more."""
    tex = render([solve_file(name)], "latex", "solution")
    (tmp_path / "s.tex").write_text(tex, encoding="utf-8")
    for _ in range(2):
        subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "s.tex"], cwd=tmp_path, capture_output=True, check=False
        )
    real = pages_of(tmp_path / "s.pdf")
    assert real <= estimate_pages(tex) <= 1.25 * real + 1, (real, estimate_pages(tex))


@needs_pdflatex
def test_a_sheet_past_max_pages_is_refused_before_typesetting(cli: Any, tmp_path: Path) -> None:
    """A decode step over 2,000 tokens is about 40 pages (pdflatex makes 38): refused at --max-pages 30,
    naming the problem file, with no PDF written; made at --max-pages 60, and its pages are within it."""
    f = decode(tmp_path, 2000)
    out = tmp_path / "s.pdf"
    err = one_line(cli("solve", str(f), "-f", "pdf", "-o", str(out), "--max-pages", "30"), str(f))
    assert "more than the 30-page limit" in err and not out.exists()
    assert cli("solve", str(f), "-f", "pdf", "-o", str(out), "--max-pages", "60").exit_code == 0
    assert 30 < pages_of(out) <= 60


def test_the_reported_100000_token_decode_is_refused_at_the_default(cli: Any, tmp_path: Path) -> None:
    f = decode(tmp_path, 99_000)
    err = one_line(cli("solve", str(f), "-f", "pdf", "-o", str(tmp_path / "s.pdf")), str(f))
    assert f"more than the {MAX_PAGES}-page limit" in err


def test_generate_estimates_every_sheet_before_typesetting_any(cli: Any, tmp_path: Path) -> None:
    """--max-pages 1: the question sheet of an LSTM variant runs to two pages; nothing is written."""
    out = tmp_path / "hw"
    err = one_line(cli("generate", "--kind", "lstm", "-f", "pdf", "--out", str(out), "--max-pages", "1"), "generate")
    assert "questions.pdf would be about" in err and not out.exists()
    with pytest.raises(attncalc.ProblemError, match="--max-pages raises it"):
        attncalc.generate(kind="lstm", format="pdf", out=tmp_path / "api", max_pages=1)
    assert not (tmp_path / "api").exists()


def test_examples_are_far_within_the_bound() -> None:
    """The largest example sheets are a few pages: the default bound refuses none of them."""
    biggest = max(estimate_pages(render([solve_file(p.name)], "latex", "solution")) for p in PROBLEMS.glob("*.toml"))
    assert biggest < MAX_PAGES // 10
