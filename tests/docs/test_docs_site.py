"""The documentation site builds with warnings as errors (mkdocs.yml, docs_hooks/), and holds what
a new user looks for: the start page, the grading pages, a gallery page per part of the course with
every problem of problems/ on one of them, and a reference page per kind with its keys, step ids and
an example. Skipped where MkDocs is not installed (pip install '.[docs]'; CI installs it)."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attncalc.kinds import KINDS
from attncalc.parse import load_problem

from ..helpers import PROBLEMS, ROOT

pytest.importorskip("mkdocs", reason="MkDocs is not installed (pip install '.[docs]')")
pytest.importorskip("material", reason="mkdocs-material is not installed (pip install '.[docs]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return out


def _text(page: Path) -> str:
    return re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))


def test_the_site_builds_strictly_with_its_pages(site: Path) -> None:
    for page in ("index.html", "grading.html", "grading-limits.html", "interface.html", "lms.html", "serving.html"):
        assert (site / page).is_file(), page
    assert "Three short paths" in _text(site / "index.html")
    assert not list((ROOT / "docs").glob("gallery")) and not list((ROOT / "docs").glob("reference")), (
        "the gallery and the reference are made at build time, never committed"
    )


def test_every_problem_is_in_the_gallery_with_its_sheet(site: Path) -> None:
    pages = {p.name: p.read_text(encoding="utf-8") for p in (site / "gallery").glob("*.html")}
    for part in ("attention", "recurrent", "transformer", "training", "systems", "tokenization", "post-training"):
        assert f"{part}.html" in pages, part
    for path in PROBLEMS.glob("*.toml"):
        holding = [name for name, text in pages.items() if f'id="{path.stem}"' in text]
        assert len(holding) == 1, (path.name, holding)
        sheet = (site / "gallery" / "sheets" / f"{path.stem}.html").read_text(encoding="utf-8")
        assert f"<title>{html.escape(load_problem(path).title)}" in sheet, path.name
        assert f'src="sheets/{path.stem}.html"' in pages[holding[0]]
    # a figure where the kind draws one: the attention weights of decoder-dot
    assert "figures/decoder-dot.svg" in pages["attention.html"]
    assert (site / "gallery" / "figures" / "decoder-dot.svg").read_bytes().startswith(b"<?xml")


def test_each_kind_has_a_reference_page_from_the_program(site: Path) -> None:
    for kind, entry in KINDS.items():
        text = _text(site / "reference" / "kinds" / f"{kind}.html")
        for key in entry.declaration.top.names:
            assert key in text, (kind, key)
        for step_id, _ in entry.load("step_ids"):
            assert step_id in text, (kind, step_id)
        assert f"attncalc new {kind}" in text
    attention = _text(site / "reference" / "kinds" / "attention.html")
    assert "not_normalised" in attention and "problems/decoder-dot.toml" in attention
    commands = _text(site / "reference" / "commands.html")
    for command in ("solve", "check", "generate", "plot", "serve", "new", "list", "schema"):
        assert f"attncalc {command}" in commands, command
    assert "--gradebook" in commands and "--max-file-size" in commands
    json_page = _text(site / "reference" / "json.html")
    assert "attncalc schema --output solve" in json_page and "$schema" in json_page
