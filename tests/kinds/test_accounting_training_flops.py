"""The training FLOPs from the forward pass, C_fwd = 3 · (F_fwd / (B·T)) · D: the forward FLOPs of one batch
over its B·T tokens is the forward count per token, times 3 (forward and backward, Kaplan et al. 2020), times
the D training tokens. Written with its parentheses in every view, so it never reads as (3 · F_fwd / T) · D
only by the left-to-right convention."""

from __future__ import annotations

import json

from attncalc.render.json import render as render_json
from attncalc.render.writers import render

from ..helpers import solve_file

TOKENS = 2_000_000_000_000  # accounting-llama2-70b.toml: training_tokens, 2.0 trillion
ROWS = 4096  # its tokens a sequence, one sequence (B = 1)


def test_c_fwd_is_three_times_the_forward_flops_per_token_times_the_tokens() -> None:
    d = solve_file("accounting-llama2-70b.toml")
    steps = {s.id: s for s in d.steps}
    step = steps["flops.training_from_forward"]
    forward = steps["flops.forward"].whole
    assert isinstance(forward, int) and forward % ROWS == 0
    assert step.whole == 3 * (forward // ROWS) * TOKENS
    assert step.formula == "C_fwd = 3 · (F_fwd / T) · D"
    assert step.written == f"3 · ({forward:,} / {ROWS:,}) · {TOKENS:,}"


def test_every_view_writes_the_parentheses() -> None:
    d = solve_file("accounting-llama2-70b.toml")
    step = json.loads(render_json(d))["steps"]
    assert next(s for s in step if s["id"] == "flops.training_from_forward")["formula"] == "C_fwd = 3 · (F_fwd / T) · D"
    for fmt, want in (
        ("markdown", r"C_{fwd} = 3 \cdot  (F_{fwd} / T) \cdot  D"),
        ("latex", r"C_{fwd} = 3 \cdot  (F_{fwd} / T) \cdot  D"),
        ("html", "<i>C</i><sub>fwd</sub> = 3 · (<i>F</i><sub>fwd</sub> / <i>T</i>) · <i>D</i>"),
    ):
        out = render([d], fmt)
        assert want in out, fmt
        assert "3 · F_fwd / T" not in out and r"3 \cdot  F_{fwd} / T" not in out, fmt
