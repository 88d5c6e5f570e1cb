"""A successful run writes nothing on stderr but its "wrote" line; plot's SVG is well-formed XML
whatever the labels hold.

A control character in a label or title made ``plot`` write SVG that XML parsers refuse (XML 1.0
cannot hold U+0001), with matplotlib's "Glyph 1 missing" warnings on stderr; a lone surrogate in the
title stopped the SVG and PDF writers, a byte order mark the PDF writer. ``check`` of answers near
the largest double printed numpy's "overflow encountered in reduce".
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ..helpers import PROBLEMS, run_cli

pytest.importorskip("matplotlib")

HOSTILE = {
    "title": "T\u0001\u001b[31m \ud800 x\u0007\ufeff",
    "kind": "attention",
    "tokens": ["a\u0001", "b\ud800", "c\u000b\ufeff"],
    "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]},
}


def _quiet(result: object, path: Path) -> None:
    assert result.returncode == 0, result.stderr  # type: ignore[attr-defined]
    assert result.stderr == f"attncalc: wrote {path}\n"  # type: ignore[attr-defined]


def test_plot_svg_is_well_formed_xml_with_control_characters_and_surrogates(tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    f.write_text(json.dumps(HOSTILE))  # json.dumps writes the lone surrogate as \ud800
    svg = tmp_path / "p.svg"
    _quiet(run_cli("plot", str(f), "-o", str(svg)), svg)
    root = ET.parse(svg).getroot()  # raised "not well-formed (invalid token)" before
    texts = [t for el in root.iter() for t in (el.text, el.tail) if t]
    assert not any(ch in t for t in texts for ch in "\u0001\u0007\u000b\u001b\ufeff")
    joined = "\n".join(texts)
    assert "a\\x01" in joined and "b\\ud800" in joined and "c\\x0b\\ufeff" in joined  # as the terminal shows them
    assert "T\\x01\\x1b[31m \\ud800 x\\x07\\ufeff" in joined  # the title, drawn and in the metadata


@pytest.mark.parametrize("ext", ["pdf", "png"])
def test_plot_pdf_and_png_with_the_same_labels_are_quiet(tmp_path: Path, ext: str) -> None:
    f = tmp_path / "p.json"
    f.write_text(json.dumps(HOSTILE))
    out = tmp_path / f"p.{ext}"
    _quiet(run_cli("plot", str(f), "-o", str(out)), out)  # "Glyph 1 missing" warnings; a traceback for the PDF
    assert out.stat().st_size > 0


def test_plot_names_a_bad_output_path_before_drawing(tmp_path: Path) -> None:
    """The path is checked first, as solve and check do: a step that could not be drawn is not what is said."""
    result = run_cli(
        "plot", str(PROBLEMS / "decoder-dot.toml"), "--step", "nonexistent", "-o", str(tmp_path / "no" / "x.svg")
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "does not exist" in result.stderr and "nonexistent" not in result.stderr.split(":", 2)[2]


def test_check_of_answers_near_the_largest_double_is_quiet(tmp_path: Path) -> None:
    """Weights of 1e308: their sum is beyond any double; the note says so, numpy says nothing."""
    answers = tmp_path / "a.toml"
    answers.write_text('problem = "decoder-dot.toml"\nweights = [1e308, 1e308, 1e308]\n')
    result = run_cli("check", "--problems", str(PROBLEMS), str(answers))
    assert result.returncode == 1, result.stderr
    assert result.stderr == "", result.stderr
    assert "beyond the largest double" in " ".join(result.stdout.split())
