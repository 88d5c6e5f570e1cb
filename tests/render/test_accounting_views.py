"""Kind accounting's symbols in the typeset views: a subscript of hyphenated words
(N_non-emb) is one upright subscript, not N_non minus emb; the GiB line of a byte count and a note's
symbols (M_params, F_scores) are set with their subscripts, never with a literal underscore.

The GiB value is worked by hand: LLaMA-2-7B's 6,738,415,616 parameters · 2 bytes (bf16) =
13,476,831,232 bytes = 13,476,831,232 / 2^30 GiB = 1,645,121 / 131,072 GiB (both divided by 8,192)."""

from __future__ import annotations

from attncalc.render.writers import render

from ..helpers import solve_file


def test_hand_values() -> None:
    assert 6_738_415_616 * 2 == 13_476_831_232
    assert 1_645_121 * 8_192 == 13_476_831_232 and 131_072 * 8_192 == 2**30


def test_latex_sets_the_subscripts() -> None:
    tex = render([solve_file("llama2-7b-accounting.toml")], "latex", "solution")
    assert r"N_{\text{non-emb}} = N - N_{emb} - N_{pos}" in tex
    assert r"N_{non}-" not in tex
    assert r"$M_{params} = 1{,}645{,}121/131{,}072\ \text{GiB}" in tex
    assert r"M\_params" not in tex and r"M\_grads" not in tex and r"M\_opt" not in tex
    assert r"($F_{scores}$ + $F_{AV}$)" in tex


def test_markdown_and_html_set_the_subscripts() -> None:
    d = solve_file("llama2-7b-accounting.toml")
    md = render([d], "markdown", "solution")
    assert r"N_{\text{non-emb}}" in md and r"N_{non}-" not in md
    assert r"M_{params} = 1{,}645{,}121/131{,}072\ \text{GiB}" in md
    assert not any(line.startswith(("M_params =", "M_grads =", "M_opt =")) for line in md.splitlines())
    page = render([d], "html", "solution")
    assert "<i>N</i><sub>non-emb</sub> = <i>N</i> − <i>N</i><sub>emb</sub>" in page
    assert "<i>M</i><sub>params</sub> = 1,645,121/131,072 GiB" in page
    assert "<i>F</i><sub>scores</sub>" in page


def test_a_subscript_minus_a_number_is_still_a_minus() -> None:
    from attncalc.render.typeset import to_tex
    from attncalc.render.typeset_html import to_html

    assert to_tex("x_t-1") == "x_{t}-1"  # a one-letter subscript, then minus one
    assert to_tex("N_non-emb") == r"N_{\text{non-emb}}"
    assert to_html("N_non-emb") == "<i>N</i><sub>non-emb</sub>"


def test_the_given_counts_have_separators_and_context_is_said_per_position_type() -> None:
    gpt2 = solve_file("gpt2-small-accounting.toml")
    text = gpt2.to_text()
    assert "= 50,257" in text and "= 50257" not in text
    assert "positions a learned table holds" in text  # learned positions: the table's size
    tex = render([gpt2], "latex", "solution")
    assert "$V = 50{,}257$" in tex and r"$\text{context}\ = 1{,}024$" in tex
    llama = solve_file("llama2-7b-accounting.toml").to_text()  # RoPE: no table
    assert "= 32,000" in llama and "= 11,008" in llama
    assert "learned table" not in llama


def test_a_bpe_count_typo_names_the_pair() -> None:
    from pathlib import Path

    from attncalc.check import check
    from attncalc.parse import load_problem

    from ..helpers import PROBLEMS

    # CS336's corpus: "e w" occurs only in newest (n e w e s t), 6 times; lower is l o w e r (w e, not e w)
    answer = [7, 7, 8, 2, 3, 3, 3, 9, 9, 6, 7]
    r = check(load_problem(Path(PROBLEMS, "bpe-cs336.toml")), {"1.pairs": answer}, "a.toml").results[0]
    assert r.verdict == "wrong"
    assert r.note == "count_11 (e w) = 6, not 7."
