"""Issue 30 follow-up (a new user's report): 10⁻⁶ in LaTeX/Markdown, top-k *and* top-p, lr-schedule
draws inside the decay, templates."""

from __future__ import annotations

from typer.testing import CliRunner

from attncalc.cli import app
from attncalc.render.typeset import to_tex

from .helpers import PROBLEMS


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
