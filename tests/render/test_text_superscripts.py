"""Superscripts in running text and formulas reach LaTeX raised (a contributor's explanation "eˣ
otherwise" came out "ex otherwise" in the PDF, and 10⁻⁶ in text as "10-6"); a lone ² stays the
Latin-1 character pdflatex sets."""

from __future__ import annotations

from attncalc.render.typeset import tex_text, to_tex
from attncalc.render.write_tex import tex_safe


def test_running_text_raises_a_superscript_run() -> None:
    assert tex_text("and eˣ otherwise") == r"and e\textsuperscript{x} otherwise"
    assert tex_safe("clip at 10⁻⁶") == r"clip at 10\textsuperscript{$-$6}"
    assert tex_text("with T² terms") == "with T² terms"


def test_formulas_raise_a_letter_exponent() -> None:
    assert to_tex("x² + eˣ") == "x^{2} + e^{x}"
    assert to_tex("10⁻⁶") == "10^{-6}"
