"""A boolean given (moe's renormalize) is shown in every LMS item as the problem file writes it, true or
false, never as 1 or 0 (the text view and the sheets already did); and moe's items say what n and E are."""

from __future__ import annotations

import re

from attncalc.reports.moodle import moodle_xml
from attncalc.reports.qti import givens_xhtml

from ..helpers import solve_file


def _flag_cell(html_text: str) -> str:
    table = re.search(r"renormalize.*?</table>", html_text, re.S)
    assert table is not None, html_text[:500]
    cells = re.findall(r"<td>([^<]*)</td>", table.group(0))
    assert len(cells) == 1, cells
    return cells[0]


def test_renormalize_is_true_or_false_in_the_givens() -> None:
    switch, mixtral = solve_file("moe-switch.toml"), solve_file("moe-mixtral.toml")
    assert _flag_cell(givens_xhtml(switch)) == "false"
    assert _flag_cell(givens_xhtml(mixtral)) == "true"
    xml = moodle_xml([switch], 1)
    assert "&lt;td&gt;false&lt;/td&gt;" in xml or "<td>false</td>" in xml


def test_moe_items_define_n_and_e() -> None:
    """Switch: 4 tokens, 2 experts; the capacity, fraction and mean-probability items state n = 4 and E = 2."""
    xml = moodle_xml([solve_file("moe-switch.toml")], 1)
    for step in ("capacity", "fraction", "mean_probability"):
        item = xml[xml.index(f"[{step}]") :][:6000]
        assert "n = 4, the tokens" in item, step
    assert "E = 2, the experts" in xml[xml.index("[capacity]") :][:6000]
