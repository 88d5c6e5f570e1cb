"""A subscript written in parentheses (decode's sorted order p_(j), the CDF's F_(i−1)) is typeset as one
subscript with its parentheses in LaTeX, Markdown and HTML: before, ``$P_(j)$`` set only "(" low and
"j)" on the line, and the HTML showed the underscore."""

from __future__ import annotations

import attncalc
from attncalc.render.typeset import to_tex
from attncalc.render.typeset_html import to_html
from attncalc.render.write_html import html_text

from ..helpers import PROBLEMS


def test_latex_keeps_the_parentheses_inside_the_subscript() -> None:
    assert to_tex("P_(j) = P_(j−1) + p_(j)") == "P_{(j)} = P_{(j-1)} + p_{(j)}"
    assert to_tex("F_i = F_(i−1) + p'_i") == "F_{i} = F_{(i-1)} + p'_{i}"
    assert to_tex("base^(2i/d)") == r"\text{base}^{2i/d}"  # a power in parentheses is unchanged
    assert to_tex("softmax(z)_i") == r"\text{softmax}(z)_{i}"  # no letter before "_(": not a subscript group


def test_html_sets_the_group_as_one_subscript() -> None:
    assert to_html("P_(j−1)") == "<i>P</i><sub>(<i>j</i>−1)</sub>"
    assert html_text("from F_(i−1) to F_i, with p'_i") == (
        "from <i>F</i><sub>(<i>i</i>−1)</sub> to <i>F</i><sub>i</sub>, with <i>p</i>&#x27;<sub>i</sub>"
    )


def test_the_decode_sheets_show_it() -> None:
    d = attncalc.solve(PROBLEMS / "decode-top-p.toml")
    assert "$P_{(j)} = P_{(j-1)} + p_{(j)}$" in d.to_latex()
    assert "P_{(j)} = P_{(j-1)} + p_{(j)}" in d.to_markdown() and "P_(j)" not in d.to_markdown()
    page = d.to_html()
    assert "<i>P</i><sub>(<i>j</i>−1)</sub>" in page and "_(" not in page
