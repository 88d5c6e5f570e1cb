"""10⁻⁶ in LaTeX/Markdown, top-k *and* top-p, lr-schedule
draws inside the decay, templates."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from attncalc.cli import app
from attncalc.homework.generate import Options, check_options, generate
from attncalc.render.typeset import to_tex

from ..helpers import PROBLEMS

ROOT = Path(__file__).resolve().parents[2]


def _solve_cli(*args: str) -> str:
    r = CliRunner().invoke(app, ["solve", *args])
    assert r.exit_code == 0, r.output
    return str(r.output)


def test_clipping_epsilon_is_a_power_in_latex() -> None:
    # 10⁻⁶ read as "10 − 6" would be + 4; LaTeX writes it 10^{-6}
    tex = to_tex("s = min(1, 1 / (‖g‖ + 10⁻⁶))")
    assert "10^{-6}" in tex
    assert "10-6" not in tex and "10 - 6" not in tex
    assert to_tex("x²") == "x^{2}"  # a lone square as before


def test_clipping_factor_in_markdown_and_latex() -> None:
    for fmt in ("markdown", "latex"):
        text = _solve_cli(str(PROBLEMS / "adamw-clipping.toml"), "-f", fmt)
        line = next(x for x in text.splitlines() if "min}(1" in x)
        assert "10^{-6}" in line and "10-6" not in line, line


def test_top_k_with_top_p_keeps_a_token_that_passes_both() -> None:
    # Hugging Face runs both filters one after the other: kept = within k AND under p, never "or"
    text = " ".join(_solve_cli(str(PROBLEMS / "decode-top-k-top-p.toml"), "-f", "markdown").split())
    sentence = text[text.index("A token is kept when") :].split(".")[0]
    assert " and " in sentence and " or " not in sentence, sentence


@pytest.mark.parametrize("schedule", ["cosine", "linear"])
@pytest.mark.parametrize("tokens", [2, 3, 4, 5, 8])
def test_lr_schedule_draws_a_step_inside_the_decay(schedule: str, tokens: int) -> None:
    # seed 11 with the default 3 tokens drew [80, 100, 400] with total 340: the decay was never asked
    for seed in (11, 1, 2, 3):
        o = Options(kind="lr-schedule", schedule=schedule, count=2, seed=seed, tokens=tokens)
        check_options(o)
        res = generate(o)
        for raw, d in zip(res.problems, res.derivations, strict=True):
            g = raw["given"]
            w, total, steps = g["warmup"], g["total"], g["steps"]
            assert len(steps) == tokens and w in steps
            inside = [t for t in steps if w < t < total]
            assert inside, (seed, steps, w, total)
            lo, hi = g.get("lr_min", 0.0), g["lr_max"]
            for t in inside:  # the decay's formula, written from its definition
                frac = (t - w) / (total - w)
                want = lo + (hi - lo) * (0.5 * (1 + math.cos(math.pi * frac)) if schedule == "cosine" else 1 - frac)
                assert float(np.asarray(d["lr"])[steps.index(t)]) == pytest.approx(want, abs=1e-12)


# (kind, its training and decoding options, as the template shows them commented)
TEMPLATE_OPTIONS = [
    ("transformer-layer", ["# window = 2", '# normalization = "rms"']),
    ("multi-head", ["# window = 2"]),
    ("self-attention", ["# window = 2"]),
    ("softmax", ["# label_smoothing = 0.1", '# optimizer = "adamw"', "# weight_decay = 0.01", "# clip_norm = 1"]),
]


@pytest.mark.parametrize(("kind", "options"), TEMPLATE_OPTIONS)
def test_templates_show_the_new_options_and_they_solve(kind: str, options: list[str], tmp_path: Any) -> None:
    text = CliRunner().invoke(app, ["new", kind]).output
    lines = text.splitlines()
    for opt in options:
        assert any(line.startswith(opt) for line in lines), (kind, opt)
    # uncommented (softmax: with the output layer and training table adamw needs), the file solves
    extra = ["# [training]", "# lr = ", "# hidden = ", "# W_out = ", "# b_out = "] if kind == "softmax" else []
    wanted = [*options, *extra]
    on = [line[2:] if any(line.startswith(o) for o in wanted) else line for line in lines]
    on = [line for line in on if not (kind == "softmax" and line.startswith("logits = "))]
    f = tmp_path / f"{kind}.toml"
    f.write_text("\n".join(on) + "\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["solve", str(f)])
    assert r.exit_code == 0, r.output
    if kind == "softmax":  # the options took effect
        assert "[clip_scale]" in r.output and "[decay]" in r.output and "smooth" in r.output.lower()


GENERATE_ROWS = {  # the training and decoding options of generate, each in its kind's row of the docs' table
    "transformer-layer": ["--normalization", "--activation", "--window", "--norm post"],  # not "--normalization"
    "multi-head": ["--window"],
    "self-attention": ["--window"],
    "decode": ["--top-k"],
    "softmax": ["--optimizer", "--clip-norm", "--label-smoothing"],
    "lr-schedule": ["--schedule", "--tokens"],
}


def test_docs_generate_table_lists_the_new_options() -> None:
    text = (ROOT / "docs" / "interface.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| ")}
    for kind, opts in GENERATE_ROWS.items():
        assert kind in rows, kind
        for opt in opts:
            assert f"`{opt}" in rows[kind], (kind, opt)
    assert "ReLU, post-norm" not in rows["transformer-layer"]


def test_docs_say_how_minus_infinity_is_answered(tmp_path: Any) -> None:
    text = " ".join((ROOT / "docs" / "interface.md").read_text(encoding="utf-8").split())
    assert 'written as the string `"-inf"`' in text
    answers = tmp_path / "a.toml"
    answers.write_text(
        'masked_scores = [[0, "-inf", "-inf", "−∞"], [0.707, 0, "-inf", "-inf"], '
        '[0.707, 0.707, 1.414, "-inf"], [0, 1.414, 1.414, 0]]\n',
        encoding="utf-8",
    )
    r = CliRunner().invoke(app, ["check", str(PROBLEMS / "causal-self-attention.toml"), str(answers)])
    assert "✓ correct  masked_scores" in r.output, r.output


@pytest.mark.parametrize("name", ["decode-top-k-top-p.toml", "label-smoothing.toml"])
def test_question_sheet_labels_the_given_logits(name: str) -> None:
    # label-smoothing.toml asks for "target = cat": the sheet must say which logit is cat's
    raw = tomllib.loads((PROBLEMS / name).read_text(encoding="utf-8"))
    vocab, logits = raw["given"]["vocab"], raw["given"]["logits"]
    text = _solve_cli(str(PROBLEMS / name), "-f", "markdown", "--sheet", "question")
    given = text[text.index("### Given") : text.index("### Compute")]
    header = next(line for line in given.splitlines() if line.startswith("| $z$"))
    assert [c.strip() for c in header.strip("|").split("|")][1:] == vocab
    values = [line for line in given.splitlines() if line.startswith("|") and "---" not in line][1]
    assert [float(c) for c in values.strip("|").split("|")[1:]] == [float(x) for x in logits]
