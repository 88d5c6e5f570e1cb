"""Powers of ten in notes and numbers in scientific notation, as each view sets them: the softmax of
scores up to 929 says exp(929) is about 10^403 (929 / ln 10 = 403.46, by hand) and that a double
holds up to about 1.8 · 10^308; exp(397 − 929) = e^−532 ≈ 9.023 · 10^−232 (532 / ln 10 = 231.04). The
PDF and the HTML showed the caret as written ("10ˆ403"), and the HTML's vector 9.023e-232 where its
lines wrote 9.023×10^-232."""

from __future__ import annotations

import math

from attncalc.derivation.fmt import ten_to
from attncalc.render.writers import render

from ..helpers import solve_file
from .test_render import text_of


def test_whole_exponents_are_raised_in_running_text() -> None:
    assert ten_to("403") == "10⁴⁰³" and ten_to("-324") == "10⁻³²⁴"
    assert ten_to("(8.7e+299)") == "10^(8.7e+299)"  # (no superscript for that: written out)


def test_each_view_sets_the_softmax_notes_powers_and_its_tiny_exponential() -> None:
    assert int(929 / math.log(10)) == 403 and f"{math.exp(397 - 929):.3e}" == "9.023e-232"
    d = solve_file("softmax-large-scores.toml")
    html = render([d], "html")
    tex = render([d], "latex")
    text = text_of(d)
    assert "about 10⁴⁰³" in text and "1.8·10³⁰⁸" in text
    assert "about 10⁴⁰³" in html and "10^403" not in html and "10^308" not in html
    assert r"10\textsuperscript{403}" in tex and r"10\textsuperscript{308}" in tex and r"\^{}" not in tex
    # the vector line as the working above it: no 9.023e-232 left in the page
    assert "9.023e-232" not in html and "[0.1353, 9.023×10<sup>-232</sup>, 0, 1]" in html
