"""--detail full | first | summary for the recurrent kinds: what each level writes out, in the terminal
view and the sheets, and that the default (first) shortens the seq2seq examples while full keeps every
step. Values are not re-derived here (the oracle tests do that): each line's value must be the step's
own shown value, and no step may be lost."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc import solve
from attncalc.errors import ProblemError

from ..helpers import PROBLEMS

SEQ2SEQ = ["seq2seq-bahdanau.toml", "seq2seq-luong.toml", "lstm-doc-seq2seq.toml"]


def _text(cli: Any, name: str, *options: str) -> str:
    result = cli("solve", str(PROBLEMS / name), "--width", "80", *options)
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("name", [*SEQ2SEQ, "lstm-doc-encoder.toml"])
def test_full_writes_every_step_and_first_each_kind_of_step_once(cli: Any, name: str) -> None:
    d = solve(PROBLEMS / name, exact=False)
    full = _text(cli, name, "--detail", "full")
    first = _text(cli, name)  # the default
    headed_full = set(re.findall(r"Step \d+ · .*?\[([\w.]+)\]", full))
    assert headed_full == set(d.step_ids)  # full: every step has its own section
    headed = re.findall(r"Step \d+ · .*?\[([\w.]+)\]", first)
    names = [i.split(".")[-1] for i in headed if re.search(r"\.\d+\.", "." + i)]
    assert len(names) == len(set(names))  # first: a time step's kind of step is written out once
    for step_id in d.step_ids:  # and every other step still has its line, named by its id
        assert step_id in headed or f"[{step_id}]" in first, step_id
    assert len(first.splitlines()) < 0.8 * len(full.splitlines())


def test_summary_leaves_the_cell_steps_to_the_gate_tables(cli: Any) -> None:
    name = "lstm-doc-encoder.toml"
    d = solve(PROBLEMS / name, exact=False)
    summary = _text(cli, name, "--detail", "summary")
    assert "[1.f]" not in summary and "Step 1 ·" not in summary  # no gate written out
    steps = [i for i in d.step_ids if re.match(r"\d+\.", i)]
    last = steps[-1].split(".")[0]
    assert summary.count("Gates at") == int(last)  # one table per time step
    for t in range(1, int(last) + 1):
        assert f"Time step {t}" in summary


def test_a_later_gate_line_is_its_first_entry_written_out(cli: Any) -> None:
    """Luong seq2seq, encoder step 2: the reset gate's line writes out entry 1 as σ(its pre-activation)
    and ends with its value; the gate table has the rest."""
    name = "seq2seq-luong.toml"
    d = solve(PROBLEMS / name, exact=False)
    first = _text(cli, name)
    line = next(x for x in first.splitlines() if x.rstrip().endswith("[encoder.2.r]"))
    steps = d.to_json()["steps"]
    pre = steps[d.step_ids.index("encoder.2.r_pre")]["shown"]
    shown = steps[d.step_ids.index("encoder.2.r")]["shown"]
    assert line.strip().startswith(f"r_2,1 = σ({pre[0]}) = {shown[0]}, …")


@pytest.mark.parametrize("fmt", ["markdown", "latex", "html"])
def test_every_sheet_honours_the_level(cli: Any, fmt: str) -> None:
    name = "seq2seq-luong.toml"
    full = cli("solve", str(PROBLEMS / name), "-f", fmt, "--detail", "full").stdout
    first = cli("solve", str(PROBLEMS / name), "-f", fmt).stdout
    summary = cli("solve", str(PROBLEMS / name), "-f", fmt, "--detail", "summary").stdout
    assert len(summary) < len(first) < len(full)
    assert "decoder.2.scores" in full and "decoder.2.scores" in first  # a line at first: named by its id


def test_json_is_complete_at_any_level(cli: Any) -> None:
    name = "seq2seq-luong.toml"
    full = json.loads(cli("solve", str(PROBLEMS / name), "-f", "json", "--detail", "full").stdout)
    summary = json.loads(cli("solve", str(PROBLEMS / name), "-f", "json", "--detail", "summary").stdout)
    assert full == summary


def test_kinds_without_time_steps_are_unchanged(cli: Any) -> None:
    name = "decoder-dot.toml"
    assert _text(cli, name, "--detail", "summary") == _text(cli, name, "--detail", "full") == _text(cli, name)


@pytest.mark.parametrize(
    "call",
    [
        lambda: solve(PROBLEMS / "decoder-dot.toml").to_text(detail="fulll"),
        lambda: solve(PROBLEMS / "lstm-doc-seq2seq.toml").to_markdown(detail="all"),
        lambda: attncalc.generate(kind="seq2seq", detail="fulll"),
    ],
    ids=["to_text", "to_markdown", "generate"],
)
def test_an_unknown_level_from_python_names_detail(call: Any) -> None:
    """From Python a misspelt level is a ProblemError naming detail and the levels (it was a bare
    ValueError, or silently accepted by generate until it wrote the sheets)."""
    with pytest.raises(ProblemError, match=r"detail: unknown level .*full, first, summary"):
        call()


def test_summary_keeps_a_line_for_steps_no_gate_table_shows(cli: Any) -> None:
    """A bidirectional encoder's joined state has no gate table: at summary it keeps its line under
    its heading (the heading stood alone), and a brief line does not repeat its symbol."""
    text = _text(cli, "seq2seq-bahdanau.toml", "--detail", "summary")
    d = solve(PROBLEMS / "seq2seq-bahdanau.toml", exact=False)
    joined = [float(x) for x in np.ravel(d.step("encoder.1.state").shown)]
    line = next(x for x in text.splitlines() if "[encoder.1.state]" in x)
    assert ", ".join(f"{v:.3f}".rstrip("0").rstrip(".") for v in joined) in line
    first = _text(cli, "seq2seq-bahdanau.toml")
    assert "W_q s_0 = W_q s_0" not in first and "W_q s_1 = [" in first


def test_the_gaps_in_the_step_numbers_are_explained(cli: Any) -> None:
    """At first and summary the step numbers jump (Step 10, then Step 41): the terminal view and the
    sheets say why; full, whose numbers run on, says nothing."""
    note = "Steps are numbered as in the whole derivation"
    for options in ([], ["--detail", "summary"], ["-f", "markdown"], ["-f", "html"]):
        assert note in _text(cli, "seq2seq-luong.toml", *options), options
    assert note not in _text(cli, "seq2seq-luong.toml", "--detail", "full")
    assert note not in _text(cli, "decoder-dot.toml")  # no time steps, no gaps


def test_a_long_one_unit_sequence_at_summary_is_one_table(cli: Any) -> None:
    """lstm-doc-retention's 50 one-unit time steps: at summary one table with a row per time step
    (each row the step's own h, c and f), not 50 headings with a one-column table each; in the text
    view split into narrower tables rather than numbers cut with "…"; a PDF of a few pages."""
    d = solve(PROBLEMS / "lstm-doc-retention.toml", exact=False)
    text = _text(cli, "lstm-doc-retention.toml", "--detail", "summary")
    assert "Time step 2 (" not in text and "Gates at" not in text
    assert "Time steps 1–50: one unit, a row per time step" in text
    merged = text.split("Time steps 1–50", 1)[1]
    rows: dict[str, list[str]] = {}  # a time step's cells, from each of the split tables
    for line in merged.splitlines():
        if re.match(r"\s+\d+\s+\d", line):
            rows.setdefault(line.split()[0], []).extend(line.split()[1:])
    for t in (1, 2, 50):
        shown = {f"{float(np.ravel(d.step(f'{t}.{k}').shown)[0]):.3g}" for k in ("f", "c", "h")}
        assert shown <= {f"{float(x):.3g}" for x in rows[str(t)]}, t
    assert "…" not in merged.split("Shown values")[0]
    md = cli("solve", str(PROBLEMS / "lstm-doc-retention.toml"), "--detail", "summary", "-f", "markdown").stdout
    assert md.count("| 50 | 0.8 | 0.5 |") == 1 and "Gates at step 2" not in md
    # a seq2seq's two-unit cells keep a gate table per time step
    assert "Gates at enc 2" in _text(cli, "seq2seq-luong.toml", "--detail", "summary")


def test_a_time_step_heading_is_not_repeated_under_the_loss(cli: Any) -> None:
    """At summary the decoder steps' gradients sit under "Loss, gradient and update": headed "Gradient
    at decoder step t", not a second "Decoder step t (y_…)"; the predictions table says what ✓ and ✗ mean."""
    text = _text(cli, "seq2seq-bahdanau.toml", "--detail", "summary")
    assert text.count("Decoder step 2 (y_1)") == 1
    loss = text.split("Loss, gradient and update")[1]
    assert "Gradient at decoder step 2" in loss and "[decoder.2.grad_logits]" in loss
    assert "Predictions (✓ the target predicted, ✗ not)" in text


def test_a_sheets_table_only_time_step_is_named_by_its_caption(cli: Any) -> None:
    """At summary a time step shown only by its gate table has no heading of its own in the sheets:
    the table's caption names it (so a PDF sets such tables side by side); one with lines keeps it."""
    md = cli("solve", str(PROBLEMS / "seq2seq-bahdanau.toml"), "--detail", "summary", "-f", "markdown").stdout
    assert "**Gates at Encoder step 1 → (je)**" in md and "### Encoder step 1 → (je)" not in md
    assert "### Encoder step 1 (je)" in md  # the joined state's line keeps its heading
    assert "### Decoder step 2 (" in md  # attention lines
