"""Rendering: every step type has a text method, every example renders, goldens pin the view.

Golden files are refreshed only on purpose: ``ATTNCALC_UPDATE_GOLDEN=1 pytest tests/render/test_render.py``,
then read the diff before committing it.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from attncalc import kinds
from attncalc.derivation import STEP_TYPES
from attncalc.derivation.fmt import fmt
from attncalc.mechanisms import solve
from attncalc.parse import RECURRENT_KINDS, parse_problem
from attncalc.parse.types import Layer
from attncalc.render.json import to_dict
from attncalc.render.text import TextRenderer
from attncalc.schema import catalog

from ..helpers import PROBLEM_FILES, PROBLEMS, solve_file

GOLDEN = Path(__file__).parents[1] / "golden"


def text_of(d: object, width: int = 100, detail: str = "first") -> str:
    buf = io.StringIO()
    TextRenderer(d, detail).print(Console(width=width, color_system=None, file=buf))  # type: ignore[arg-type]
    return buf.getvalue()


def test_every_step_type_has_a_text_method() -> None:
    """A new step type cannot be added without teaching the terminal view to write it out."""
    for cls in STEP_TYPES:
        assert callable(getattr(TextRenderer, f"_step_{cls.__name__}", None)), cls.__name__


@pytest.mark.parametrize("path", PROBLEM_FILES, ids=[p.name for p in PROBLEM_FILES])
def test_every_example_solves_and_renders(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file in problems/ solves, renders to text and JSON, emits catalogued ids in order."""
    d = solve_file(path.name)
    text = text_of(d)
    assert d.problem.title in text
    for s in d.steps:
        assert f"[{s.id}]" in text
    data = to_dict(d)
    assert [s["id"] for s in data["steps"]] == d.step_ids
    kind = d.problem.kind
    listed = [i for i, _ in kinds.entry(kind).load("step_ids")]  # the ids its registry entry lists
    known = set(catalog.step_order(kind, listed))
    assert all(catalog.template(i) in known for i in d.step_ids), "a step id missing from the catalogue"
    attention = d.problem.data.attention if kind == "seq2seq" else None  # Bahdanau attends before the cell
    if kind == "transformer-layer":  # an encoder's or decoder's sublayers, norms before or after them
        attention = d.problem.payload(Layer).layout
    assert d.step_ids == sorted(d.step_ids, key=lambda i: catalog.order_key(kind, i, listed, attention)), "out of order"
    for s in d.steps:
        if not isinstance(s.value, str):
            v = np.asarray(s.value, dtype=float)
            assert not np.any(np.isnan(v)), s.id
    first = path.read_text().lstrip()
    assert first.startswith("#"), "each example starts with a comment saying what it shows"


@pytest.mark.parametrize(
    "name", ["decoder-dot", "self-attention-scaled", "luong-general", "softmax-large-scores", "long-sentence"]
)
def test_golden_text_view(name: str) -> None:
    """The terminal view of a few examples, as a person sees it at 100 columns."""
    text = text_of(solve_file(f"{name}.toml"))
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("ATTNCALC_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


def test_carried_golden_text_view() -> None:
    """The decoder example with carried rounding, as the document's author worked it."""
    text = text_of(solve_file("decoder-dot.toml", carry_rounded=True))
    golden = GOLDEN / "decoder-dot-carried.txt"
    if os.environ.get("ATTNCALC_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()
    assert "c_1 = 0.155·1 + 0.422·0 + 0.422·1 = 0.577" in text


def test_text_view_writes_substitutions_out() -> None:
    """Each dot product and each weight division is written out entry by entry."""
    text = text_of(solve_file("decoder-dot.toml"))
    assert "e_2 (x2) = 1·0 + 1·2 = 2" in text
    assert "α_1 (x1) = 2.718 / 17.496 = 0.155" in text
    assert "exact: α_1 = 1/(1 + 2*e)" in text
    assert "Prediction: B" in text


def test_large_problem_stays_readable() -> None:
    """12 tokens of width 10: expansions are elided, the attention table keeps every token."""
    d = solve_file("long-sentence.toml")
    text = text_of(d)
    assert "⋮" in text and " … " in text  # elided entries and elided terms
    table = text[text.index("Attention over the encoder states") :]
    for token in d.problem.tokens:
        assert token in table
    assert max(len(line) for line in text.splitlines()) <= 100


def test_negative_factors_are_parenthesised() -> None:
    """0.6·(-0.4), as a careful hand calculation writes a negative factor."""
    text = text_of(solve_file("luong-general.toml"))
    assert "(-0.4)·" in text or "·(-0.4)" in text


@pytest.mark.parametrize(
    ("x", "decimals", "shown"),
    [
        (2.0, 3, "2"),
        (0.155362, 3, "0.155"),
        (0.39, 3, "0.39"),
        (0.5, 3, "0.5"),
        (0.4999999, 3, "0.500"),
        (-0.0001, 3, "-0.0001"),  # rounds to 0 at 3 decimals: its leading digits, positional
        (-1.234e-13, 3, "-1.23e-13"),  # below 1e-12: scientific
        (1.0625, 3, "1.063"),
        (float("-inf"), 3, "-∞"),
        (-0.12, 3, "-0.12"),
    ],
)
def test_number_format(x: float, decimals: int, shown: str) -> None:
    """Whole numbers bare, exact short decimals unpadded, others to `decimals`, ties rounded up."""
    assert fmt(x, decimals) == shown


def test_lines_whose_written_numbers_do_not_give_the_result_say_so() -> None:
    """Not carried, 0.155 + 0.422 is shown = 0.578 (the truth); the line says the written numbers give 0.577."""
    text = text_of(solve_file("decoder-dot.toml"))
    assert "c_1 = 0.155·1 + 0.422·0 + 0.422·1 = 0.578   (as written: 0.577)" in text
    # exp(1.578) by hand is 4.8448 -> 4.845; the shown 4.844 comes from z_1 = 1.57768
    assert "exp(1.578) = 4.844   (A; as written: 4.845)" in text
    assert "e_2 (x2) = 1·0 + 1·2 = 2\n" in text  # consistent lines carry no remark


@pytest.mark.parametrize("path", PROBLEM_FILES, ids=[p.name for p in PROBLEM_FILES])
def test_carried_views_are_consistent_line_by_line(path: Path) -> None:
    """With carry_rounded every written-out line follows from the numbers written on it."""
    assert "as written:" not in text_of(solve_file(path.name, carry_rounded=True), width=200)


def test_hand_rounding_ignores_binary_noise() -> None:
    """2.675 rounds up to 2.68 by hand, though the double nearest it is 2.67499999999999982..."""
    from decimal import Decimal

    from attncalc.derivation.arith import round_half_up

    stored = 2.675
    assert Decimal(stored) < Decimal("2.675")  # the stored value falls just short of the tie
    assert round_half_up(2.675, 2) == 2.68
    assert round_half_up(0.16449999999999998, 3) == 0.165  # a sum of products of decimals, as computed
    assert round_half_up(0.0625, 3) == 0.063 and round_half_up(-0.0625, 3) == -0.063


@pytest.mark.parametrize("path", PROBLEM_FILES, ids=[p.name for p in PROBLEM_FILES])
def test_text_view_fits_a_standard_terminal(path: Path) -> None:
    """At 80 columns nothing runs past the edge, and each row of a timeline table stays on one line."""
    from rich.cells import cell_len

    d = solve_file(path.name)
    lines = text_of(d, width=80).splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    for line in lines:  # a long written-out line continues indented, never at the margin
        assert not re.match(r"[-+−=·/] ", line), line
    rows: list[str] = []
    for k, line in enumerate(lines):
        if line.strip() in ("States", "Encoder states", "Decoder states", "Predictions"):
            body = lines[k + 4 :]  # title, blank, header, rule
            rows.extend(body[: body.index(next(x for x in body if not x.strip()))])
    if d.problem.kind in RECURRENT_KINDS:
        assert rows
    for row in rows:
        assert row.count("[") == row.count("]"), row  # a state vector broken over two lines
        assert row.split()[0].isdigit(), row  # every line of the table starts a new time step


def test_a_labelled_given_vector_shows_each_value_under_its_label() -> None:
    """p_t of the sequence example over its target tokens, and the softmax logits over the
    vocabulary: each number under its label, not a bare list."""
    lines = text_of(solve_file("lstm-doc-sequence.toml"), width=80).splitlines()
    at = lines.index("p_t  the probability of the target token at each step")
    assert lines[at + 1].split() == ["1:", "আমি", "2:", "বাংলাদেশকে", "3:", "ভালোবাসি", "4:", "<END>"]
    assert lines[at + 3].split() == ["0.85", "0.78", "0.92", "0.94"]
    lines = text_of(solve_file("softmax-cross-entropy.toml"), width=80).splitlines()
    at = lines.index("z  logits")
    assert lines[at + 1].split() == ["mat", "hat", "cat"] and lines[at + 3].split() == ["2", "1", "0.1"]
    assert "softmax · target hat" in "\n".join(lines[:4])


def test_a_long_given_vector_moves_to_its_own_line() -> None:
    raw = {"kind": "attention", "given": {"query": [0.125] * 9, "keys": [[1.0] * 9]}}
    text = text_of(solve(parse_problem(raw, "p.toml")), width=80)
    assert "s  decoder state (query)\n  = [" + ", ".join(["0.125"] * 9) + "]" in text


@pytest.mark.parametrize("name", ["seq2seq-luong.toml", "seq2seq-bahdanau.toml", "lstm-doc-encoder.toml"])
def test_each_gate_table_follows_its_cells_hidden_state(name: str) -> None:
    """The table of a step's gates closes the cell's steps: right after h_t, before attention or output."""
    text = text_of(solve_file(name), width=80)
    blocks = re.findall(r"Gates at ([^\n]*?\d+)", text)
    assert blocks
    for block in blocks:
        before = text[: text.index(f"Gates at {block}")]
        last_step = re.findall(r"\[([\w.]+)\]\n", before)[-1]
        assert re.fullmatch(rf"(.*\.)?{block.split()[-1]}\.h", last_step), (block, last_step)


def test_elided_matrix_note_is_one_line_under_the_table(cli: Any) -> None:
    """The retention example's 50×1 input: the note is its own line, not a caption squeezed into
    the table's one-column width ("--forma / t json")."""
    text = cli("solve", str(PROBLEMS / "lstm-doc-retention.toml"), "--width", "80").stdout
    assert "\n50×1; the middle is elided (--format json gives every entry)\n" in text


def test_bar_and_its_mark_stay_on_one_line_at_80_columns(cli: Any) -> None:
    """Scaled-dot has four value columns: the bar shortens so that "◀ most" does not wrap."""
    text = cli("solve", str(PROBLEMS / "scaled-dot-attention.toml"), "--width", "80").stdout
    rows = [line for line in text.splitlines() if line.startswith("  3   noir")]
    assert len(rows) == 1 and rows[0].rstrip().endswith("◀ most")
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80


def test_a_plain_step_writes_its_formula_and_value_in_every_view() -> None:
    """A plugin's step built as ``Step`` itself (no class that writes its working out) is shown as its
    formula and value in the terminal and every sheet (it raised AttributeError: no _step_Step)."""
    import dataclasses

    import numpy as np

    from attncalc.derivation import Step

    d = solve_file("decoder-dot.toml", exact=False)
    plain = Step(
        id="poly",
        title="The Poly-1 term",
        formula="ε (1 − p_t) = 2 · 0.335",
        latex="",
        symbol="P",
        value=np.asarray(0.67),
        shown=np.asarray(0.67),
    )
    d = dataclasses.replace(d, steps=(*d.steps, plain))
    text = text_of(d)
    assert "The Poly-1 term" in text and "0.67" in text
    for view in (d.to_markdown(), d.to_latex(), d.to_html()):
        assert "Poly-1 term" in view and "0.67" in view
