"""Sheets of attention-backward read unambiguously: an entry of head
1's dQ_1 is dQ₁ then [2,1], not dQ with the subscripts 1 and 2,1 run together (row 12?); the
explanations' Σ_l, δ_kl, dA_l and dS_ik are set as maths in LaTeX, and ∘ (the element-wise product
of D = rowsum(dO ∘ O)) is a ∘, not a *."""

from __future__ import annotations

from attncalc.mechanisms import solve
from attncalc.parse import load_problem
from attncalc.render.typeset import to_tex
from attncalc.render.typeset_html import to_html
from attncalc.render.write_tex import tex_safe
from attncalc.render.writers import render

from ..helpers import PROBLEMS


def test_an_entry_of_a_numbered_symbol_keeps_its_brackets() -> None:
    assert to_html("dQ_1[2,1] = 0.111") == "dQ<sub>1</sub>[2,1] = 0.111"
    assert to_tex("dQ_1[2,1]") == "dQ_{1}[2,1]"
    # a plain symbol's entry is still subscripted
    assert to_html("S[1,2]") == "<i>S</i><sub>1,2</sub>"
    assert to_tex("S[1,2]") == "S_{1,2}"


def test_the_element_wise_product_is_a_circle() -> None:
    assert r"\circ" in to_tex("D_i = rowsum(dO ∘ O)")
    assert "*" not in to_tex("D_i = rowsum(dO ∘ O)")
    assert r"$\circ$" in tex_safe("A ∘ dA")


def test_the_explanations_symbols_are_maths() -> None:
    out = tex_safe("Σ_l a_k(δ_kl − a_l) dA_l = a_k (dA_k − D); it collects dS_ik")
    for plain in ("\\_l", "\\_kl", "dA\\_", "dS\\_"):
        assert plain not in out, out
    for tex in (r"$\sum _{l}$", r"$\delta _{kl}$", "$dA_{l}$", "$dS_{ik}$"):
        assert tex in out, out


def test_the_sheets_name_head_entries_with_brackets() -> None:
    d = solve(load_problem(PROBLEMS / "backward-one-head-causal.toml"), exact=False)
    html = render([d], "html", detail="full")
    assert "dQ<sub>1</sub>[2,1]" in html
    assert "<sub>1</sub><sub>2,1</sub>" not in html
    tex = render([d], "latex", detail="full")
    assert "dQ_{1}[2,1]" in tex and "dQ_{1,2,1}" not in tex
    assert r"\text{rowsum}(\text{dO}\ \circ" in tex
