"""Limits of what a run may write: a beam's length penalty that overflowed (a traceback, exit
1), a BLEU with 200,000 references (17 MB of output before it was killed), and figures of every
value of a 128- or 256-token attention (2 GB, then MemoryError), or of a 50,000-character label."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..helpers import one_line_refusal


def _write(tmp_path: Path, raw: dict[str, Any]) -> str:
    f = tmp_path / "p.json"
    f.write_text(json.dumps(raw))
    return str(f)


def test_a_length_penalty_that_would_overflow_is_refused(cli: Any, tmp_path: Path) -> None:
    """((5 + 10^6)/6)^64 is beyond any double: Python's ** raised OverflowError."""
    given = {"beams": [[-0.5, -1]], "beam_scores": [-1], "beam_width": 2, "length_penalty": 64, "length": 1000000}
    f = _write(tmp_path, {"kind": "decode", "strategy": "beam", "given": given})
    one_line_refusal(cli("solve", f), f, "given.length_penalty")
    given["length_penalty"] = 1
    f = _write(tmp_path, {"kind": "decode", "strategy": "beam", "given": given})
    one_line_refusal(cli("solve", f), f, "given.length")


def test_a_bleu_of_many_references_is_refused(cli: Any, tmp_path: Path) -> None:
    f = _write(tmp_path, {"kind": "bleu", "given": {"candidate": "a", "references": ["a"] * 101, "max_n": 1}})
    one_line_refusal(cli("solve", f), f, "given.references")


def test_a_figure_has_at_most_64_by_64_cells(cli: Any, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="attncalc plot needs matplotlib (pip install 'attncalc[plots]')")
    x = [[1 + (i % 3), (i * 7) % 5] for i in range(65)]
    f = _write(tmp_path, {"kind": "self-attention", "score": "dot", "given": {"X": x}})
    line = one_line_refusal(cli("plot", f, "-o", str(tmp_path / "w.png")), f, "--step")
    assert "65×65" in line and not (tmp_path / "w.png").exists()


def test_a_long_label_is_shortened_in_a_figure() -> None:
    from attncalc import solve
    from attncalc.render.plot_figure import figure_of

    d = solve(
        {"kind": "attention", "tokens": ["x" * 50_000, "b"], "given": {"query": [1, 1], "keys": [[1, 0], [0, 2]]}}
    )
    labels = figure_of(d).panels[0].cols
    assert all(len(label) <= 24 for label in labels) and labels[0].endswith("…")


def test_a_decode_softmax_of_many_logits_is_computed_numerically() -> None:
    """400 logits mixing e, π, ln 2, √2 and sevenths took 8 s inside one exact step: a softmax writes V
    exponentials into each of V probabilities, so V² terms count against the 400-entry bound."""
    from attncalc import solve

    names = ["e", "pi", "ln(2)", "sqrt(2)"]
    logits = [f"{names[i % 4]}+{i}/7" for i in range(400)]
    d = solve({"kind": "decode", "strategy": "greedy", "given": {"logits": logits}})
    assert any("Exact forms skipped" in n and "softmax terms" in n for n in d.notes)
    small = solve({"kind": "decode", "strategy": "greedy", "given": {"logits": logits[:5]}})
    assert not any("Exact forms skipped" in n for n in small.notes)  # 25 terms: exact
